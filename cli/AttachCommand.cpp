//===- cli/AttachCommand.cpp - weft attach, weft detach -------------------===//
//
// `attach` loads the profiler into a .NET process that is already running, through the runtime's
// diagnostics channel (the AttachProfiler command of the diagnostics IPC protocol), with the
// settings as the request's data. `detach` asks the profiler to revert what it did. Both act only
// on processes their user may signal, speak only to a channel the process itself serves, and
// leave requests only in a folder no one else may enter (runtime-profiler/Identity.h).
//
//===----------------------------------------------------------------------===//
#include "cli/AttachChannel.h"
#include "cli/ProfilerOptions.h"
#include "cli/Tool.h"
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Identity.h"
#include "support/Format.h"
#include "weaving/Pass.h"
#include "weaving/plugin/Plugin.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace llvm;

namespace weft::cli {

namespace {

/// An error with a plain message.
Error failure(const Twine &Message) { return createStringError(inconvertibleErrorCode(), Message); }

/// The settings the profiler reads, as `weft attach` sends them ("NAME=value" lines); an error
/// if a value holds a line break (it would add a setting).
Expected<std::string> attachData(const RunOptions &O, const std::string &PassList,
                                 const std::string &ControlDir) {
  std::string D;
  std::optional<std::string> Bad;
  auto Add = [&](const char *Name, const std::string &Value) {
    if (Value.find_first_of("\r\n") != std::string::npos)
      Bad = Name;
    if (!Value.empty())
      D += std::string(Name) + "=" + Value + "\n";
  };
  Add(prof::SpecVariable, O.SpecFile.empty() ? "" : absolute(O.SpecFile));
  Add(prof::PassesVariable, PassList);
  Add(prof::LogVariable, O.LogFile.empty() ? "" : absolute(O.LogFile));
  Add(prof::OutputDirVariable, O.OutputDir.empty() ? "" : absolute(O.OutputDir));
  Add(prof::VerboseVariable, O.Verbose ? "1" : "");
  Add(prof::GcVariable, O.Gc);
  Add(prof::LttngVariable, O.Lttng ? "1" : "");
  Add(prof::ControlDirVariable, ControlDir);
  if (Bad)
    return failure("the value of " + *Bad + " holds a line break; weft does not send it");
  return D;
}

void putU16(std::string &B, uint16_t V) { B.push_back(char(V & 0xFF)), B.push_back(char(V >> 8)); }
void putU32(std::string &B, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    B.push_back(char((V >> (8 * I)) & 0xFF));
}

/// The AttachProfiler request: the IPC header (magic, size, command set 0x03 "profiler",
/// command 0x01), then the timeout in milliseconds, the CLSID, the library's path (UTF-16, with
/// its terminator, after its length in code units) and the client data (after its length).
std::string attachRequest(unsigned TimeoutMs, const std::string &Library, StringRef Data) {
  std::string P;
  putU32(P, TimeoutMs);
  constexpr prof::GUID Clsid = prof::guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6");
  putU32(P, Clsid.Data1);
  putU16(P, Clsid.Data2);
  putU16(P, Clsid.Data3);
  P.append(reinterpret_cast<const char *>(Clsid.Data4), 8);
  SmallVector<UTF16, 256> Path;
  convertUTF8ToUTF16String(Library, Path);
  if (!Path.empty() && Path.back() == 0)
    Path.pop_back(); // the converter may add a terminator; exactly one goes on the wire
  putU32(P, uint32_t(Path.size() + 1));
  for (UTF16 C : Path)
    putU16(P, C);
  putU16(P, 0);
  putU32(P, uint32_t(Data.size()));
  P += Data.str();
  std::string M("DOTNET_IPC_V1", 14); // the magic, with its NUL
  putU16(M, uint16_t(20 + P.size()));
  M.push_back(char(0x03)); // command set: profiler
  M.push_back(char(0x01)); // command: AttachProfiler
  putU16(M, 0);
  return M + P;
}

} // namespace

Runner addAttachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "attach", "Load weft's runtime profiler into a running .NET process, instrumenting what "
                "the spec matches (methods already compiled through ReJIT)");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  addProfilerOptions(*Sub, *O, /*Attach=*/true);
  Sub->add_option("--timeout", O->Timeout,
                  "Seconds the runtime may take to load the profiler (default 10)");
  Sub->footer("Example: weft attach --pid 4242 --spec weft.json --log weft.log");
  return [O] {
    std::string PassList;
    if (Error E = checkPasses(*O, PassList)) {
      reportError(std::move(E));
      return int(ExitUsage);
    }
    if (O->SpecFile.empty() && PassList.empty())
      return reportError("attach needs --spec or --pass (what to instrument)");
    if (Expected<std::string> Checked = attachData(*O, PassList, ""); !Checked)
      return reportError(Checked.takeError());
    Expected<port::UserId> Owner = ownerOf(O->Pid);
    if (!Owner)
      return reportError(Owner.takeError());
    // The process's own channel first: nothing is made for a process weft cannot attach to.
    bool Again = profilerLoaded(O->Pid);
    Expected<std::string> Socket = Again ? std::string() : diagnosticsSocket(O->Pid, *Owner);
    if (!Socket)
      return reportError(Socket.takeError());
    Expected<std::string> Folder = controlFolderOf(*Owner, /*Create=*/true);
    if (!Folder)
      return reportError(Folder.takeError());
    Expected<std::string> Data = attachData(*O, PassList, *Folder);
    if (!Data)
      return reportError(Data.takeError());
    if (Again) {
      // Loaded before and detached since (a profiler that used ReJIT cannot unload): asked to
      // start again through its control folder.
      Expected<std::string> Answer =
          askProfiler(prof::attachRequestPath(*Folder, O->Pid), *Data, *Owner, O->Timeout);
      if (!Answer)
        return reportError("process " + Twine(O->Pid) + " has weft's profiler loaded: " +
                           toString(Answer.takeError()) + " (is it still attached?)");
      if (*Answer != "done")
        return reportError("weft's profiler in process " + Twine(O->Pid) + " " + *Answer);
      out() << "weft: attached to process " << O->Pid << " again\n";
      return int(ExitOk);
    }
    Expected<std::string> Library = findProfiler();
    if (!Library)
      return reportError(Library.takeError());
    Expected<uint32_t> Hr = sendAttach(*Socket, O->Pid, *Owner, O->Timeout + 5,
                                       attachRequest(O->Timeout * 1000, *Library, *Data));
    if (!Hr)
      return reportError(Hr.takeError());
    if (*Hr != 0)
      return reportError("process " + Twine(O->Pid) + " did not load the profiler: HRESULT 0x" +
                         hexstr(*Hr, false, 8) + " (another profiler loaded, or one that " +
                         "declined: see its log)");
    out() << "weft: attached to process " << O->Pid << "; its log: " << logOf(*O) << "\n";
    return int(ExitOk);
  };
}

Runner addDetachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "detach", "Make weft's profiler in a running .NET process revert what it instrumented and "
                "stop instrumenting");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  Sub->add_option("--timeout", O->Timeout,
                  "Seconds to wait for the profiler to take the request (default 10)");
  return [O] {
    Expected<port::UserId> Owner = ownerOf(O->Pid);
    if (!Owner)
      return reportError(Owner.takeError());
    Expected<std::string> Folder = controlFolderOf(*Owner, /*Create=*/false);
    if (!Folder)
      return reportError("weft is not attached to process " + Twine(O->Pid) + ": " +
                         toString(Folder.takeError()));
    Expected<std::string> Answer =
        askProfiler(prof::detachRequestPath(*Folder, O->Pid), "detach\n", *Owner, O->Timeout);
    if (!Answer)
      return reportError("process " + Twine(O->Pid) + ": " + toString(Answer.takeError()) +
                         " (is weft attached to it?)");
    if (*Answer != "done")
      return reportError("weft's profiler in process " + Twine(O->Pid) + " " + *Answer);
    out() << "weft: the profiler in process " << O->Pid << " detached\n";
    return int(ExitOk);
  };
}

} // namespace weft::cli
