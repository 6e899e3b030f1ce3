//===- cli/AttachChannelWindows.cpp - How attach reaches a process: Windows -===//
//
// On Windows the runtime's diagnostics channel is the named pipe
// \\.\pipe\dotnet-diagnostic-PID, and the control folder would need security descriptors
// checked: not made yet, so that attach and detach say so.
//
//===----------------------------------------------------------------------===//
#include "cli/AttachChannel.h"

using namespace llvm;

namespace weft::cli {

namespace {

Error notYet() {
  return createStringError(inconvertibleErrorCode(),
                           "weft attach and weft detach are not supported on Windows yet");
}

} // namespace

Expected<port::UserId> ownerOf(int Pid) { return notYet(); }

Expected<std::string> diagnosticsSocket(int Pid, port::UserId Owner) { return notYet(); }

Expected<uint32_t> sendAttach(const std::string &Socket, int Pid, port::UserId Owner,
                              unsigned Seconds, const std::string &Request) {
  return notYet();
}

std::string logOf(const RunOptions &O) { return O.LogFile; }

bool profilerLoaded(int Pid) { return false; }

Expected<std::string> controlFolderOf(port::UserId Owner, bool Create) { return notYet(); }

Expected<std::string> askProfiler(const std::string &Request, StringRef Text, port::UserId Owner,
                                  unsigned Seconds) {
  return notYet();
}

} // namespace weft::cli
