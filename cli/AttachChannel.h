//===- cli/AttachChannel.h - How attach reaches a process -------*- C++ -*-===//
//
// What `weft attach` and `weft detach` (cli/AttachCommand.cpp) ask of the system: who runs a
// process, its runtime's diagnostics channel, the folder of control requests. POSIX's in
// cli/AttachChannelPosix.cpp; on Windows (cli/AttachChannelWindows.cpp, where the channel is a
// named pipe) not made yet.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_ATTACHCHANNEL_H
#define WEFT_CLI_ATTACHCHANNEL_H

#include "cli/ProfilerOptions.h"
#include "support/Port.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace weft::cli {

/// The user process \p Pid runs as: an error if there is no such process, or if this user may
/// not signal it.
llvm::Expected<port::UserId> ownerOf(int Pid);

/// The diagnostics channel of .NET process \p Pid, which \p Owner (the process's user) or root
/// must own.
llvm::Expected<std::string> diagnosticsSocket(int Pid, port::UserId Owner);

/// Sends the AttachProfiler request \p Request to process \p Pid on its channel \p Socket and
/// returns the runtime's HRESULT; gives up after \p Seconds.
llvm::Expected<uint32_t> sendAttach(const std::string &Socket, int Pid, port::UserId Owner,
                                    unsigned Seconds, const std::string &Request);

/// Where the profiler attached to process \p O.Pid logs.
std::string logOf(const RunOptions &O);

/// Whether weft's profiler is loaded into process \p Pid.
bool profilerLoaded(int Pid);

/// The folder of control requests for the processes of user \p Owner, private to that user.
llvm::Expected<std::string> controlFolderOf(port::UserId Owner, bool Create);

/// Leaves \p Text as the request \p Request and waits up to \p Seconds for the profiler's
/// answer: "done", or why it refused.
llvm::Expected<std::string> askProfiler(const std::string &Request, llvm::StringRef Text,
                                        port::UserId Owner, unsigned Seconds);

} // namespace weft::cli

#endif
