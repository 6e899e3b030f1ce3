//===- cli/RunCommand.cpp - weft run, weft attach -------------------------===//
//
// `run` runs a command with weft's runtime profiler loaded into the .NET runtime it starts: sets
// the variables CoreCLR reads to load a profiler (and their DOTNET_ spellings) and the ones the
// profiler reads (WEFT_SPEC, WEFT_PASSES, WEFT_LOG, ...), runs the command and exits with its
// status. `attach` loads the profiler into a .NET process that is already running, through the
// runtime's diagnostics channel (the AttachProfiler command of the diagnostics IPC protocol),
// with the same settings as the request's data.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Identity.h"
#include "support/Format.h"
#include "weaver/passes/Pass.h"
#include "weaver/plugin/Plugin.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace weft::cli {

namespace {

struct RunOptions {
  std::string SpecFile;
  std::vector<std::string> Passes;
  std::string LogFile;
  std::string OutputDir;
  std::string Gc;          // garbage collections on the timeline, at this level
  bool Lttng = false;      // timeline records also as LTTng-UST events
  bool Verbose = false;
  std::vector<std::string> Command;
  int Pid = 0;             // attach
  unsigned Timeout = 10;   // attach: seconds the runtime may take to load the profiler
};

std::string absolute(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// The profiler library: beside this executable, or in ../lib from it.
Expected<std::string> findProfiler() {
  std::string Exe = sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&findProfiler));
  StringRef Dir = sys::path::parent_path(Exe);
  SmallString<256> Beside(Dir), InLib(Dir);
  sys::path::append(Beside, prof::ProfilerLibrary);
  sys::path::append(InLib, "..", "lib", prof::ProfilerLibrary);
  for (const SmallString<256> &P : {Beside, InLib})
    if (sys::fs::exists(P))
      return absolute(P);
  return createStringError(inconvertibleErrorCode(), "cannot find the profiler library " +
                                                         Twine(prof::ProfilerLibrary) + " in " +
                                                         Dir + " or " + Dir + "/../lib");
}

/// Checks the spec and the passes before the command starts, as `weave` would.
Error checkPasses(const RunOptions &O, std::string &PassList) {
  std::vector<spec::PassUse> Uses;
  if (!O.SpecFile.empty() && !O.Passes.empty())
    return createStringError(inconvertibleErrorCode(), "--spec and --pass cannot be combined");
  if (!O.SpecFile.empty()) {
    Expected<spec::Spec> S = spec::Spec::load(O.SpecFile);
    if (!S)
      return S.takeError();
    if (Expected<std::vector<plugin::LoadedPlugin>> L = plugin::loadPlugins(O.SpecFile, S->pluginPaths()); !L)
      return L.takeError();
    for (const spec::PassUse *U : S->passUses())
      Uses.push_back(*U);
  }
  for (const std::string &P : O.Passes) {
    if (P.find(';') != std::string::npos)
      return createStringError(inconvertibleErrorCode(), "--pass '" + P + "': ';' separates passes");
    Expected<spec::PassUse> U = spec::parsePassUse(P);
    if (!U)
      return U.takeError();
    Uses.push_back(*U);
    PassList += (PassList.empty() ? "" : ";") + P;
  }
  for (const spec::PassUse &U : Uses)
    if (!passes::PassRegistry::global().find(U.Pass))
      return createStringError(inconvertibleErrorCode(),
                               U.Rule + ": unknown pass '" + U.Pass + "' (see 'weft passes')");
  return Error::success();
}

/// Runs the command and returns its exit status (128 + the signal's number if a signal ended it,
/// as shells do; 127 if it could not be started).
int runCommand(const std::vector<std::string> &Command) {
  std::vector<char *> Argv;
  for (const std::string &A : Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  pid_t Child = fork();
  if (Child < 0)
    return reportError(Twine("cannot start '") + Command[0] + "': " + std::strerror(errno));
  if (Child == 0) {
    execvp(Argv[0], Argv.data());
    int Err = errno;
    errs() << "weft: error: cannot run '" << Command[0] << "': " << std::strerror(Err) << '\n';
    _exit(127);
  }
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0)
    if (errno != EINTR)
      return reportError(Twine("waiting for '") + Command[0] + "': " + std::strerror(errno));
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  if (WIFSIGNALED(Status))
    return 128 + WTERMSIG(Status);
  return ExitError;
}


/// The settings the profiler reads, as `weft attach` sends them ("NAME=value" lines).
std::string attachData(const RunOptions &O, const std::string &PassList) {
  std::string D;
  auto Add = [&](const char *Name, const std::string &Value) {
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
  return D;
}

/// The diagnostics channel of .NET process \p Pid: the socket
/// $TMPDIR/dotnet-diagnostic-PID-KEY-socket its runtime listens on (the newest, if several).
Expected<std::string> diagnosticsSocket(int Pid) {
  const char *Tmp = std::getenv("TMPDIR");
  std::string Dir = Tmp && *Tmp ? Tmp : "/tmp";
  std::string Prefix = "dotnet-diagnostic-" + std::to_string(Pid) + "-";
  std::string Best;
  sys::TimePoint<> BestTime;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (!Name.startswith(Prefix) || !Name.endswith("-socket"))
      continue;
    sys::fs::file_status St;
    if (sys::fs::status(It->path(), St))
      continue;
    if (Best.empty() || St.getLastModificationTime() > BestTime)
      Best = It->path(), BestTime = St.getLastModificationTime();
  }
  if (Best.empty())
    return createStringError(inconvertibleErrorCode(),
                             "process " + Twine(Pid) + " has no .NET diagnostics channel in " +
                                 Dir + " (is it a .NET process of this user, started with "
                                       "DOTNET_EnableDiagnostics left on?)");
  return Best;
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

/// Sends the request on \p Socket and returns the runtime's HRESULT.
Expected<uint32_t> sendAttach(const std::string &Socket, const std::string &Request) {
  auto Fail = [&](const Twine &What) {
    return createStringError(inconvertibleErrorCode(),
                             What + " (" + Socket + "): " + std::strerror(errno));
  };
  int Fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (Fd < 0)
    return Fail("cannot make a socket");
  auto Close = llvm::make_scope_exit([&] { ::close(Fd); });
  sockaddr_un Addr{};
  Addr.sun_family = AF_UNIX;
  if (Socket.size() >= sizeof(Addr.sun_path))
    return createStringError(inconvertibleErrorCode(), "the socket's path is too long: " + Socket);
  std::memcpy(Addr.sun_path, Socket.c_str(), Socket.size() + 1);
  if (::connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) < 0)
    return Fail("cannot connect to the process's diagnostics channel");
  for (size_t Done = 0; Done < Request.size();) {
    ssize_t N = ::write(Fd, Request.data() + Done, Request.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Fail("cannot send the attach request");
    Done += size_t(N);
  }
  uint8_t Reply[24];
  size_t Got = 0;
  while (Got < sizeof Reply) {
    ssize_t N = ::read(Fd, Reply + Got, sizeof Reply - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Got += size_t(N);
  }
  if (Got < sizeof Reply || std::memcmp(Reply, "DOTNET_IPC_V1", 14) != 0 || Reply[16] != 0xFF)
    return createStringError(inconvertibleErrorCode(),
                             "the process's diagnostics channel answered with no IPC reply (" +
                                 Twine(Got) + " bytes)");
  return uint32_t(Reply[20]) | uint32_t(Reply[21]) << 8 | uint32_t(Reply[22]) << 16 |
         uint32_t(Reply[23]) << 24;
}

/// What `run` and `attach` both take: what to instrument and where the profiler writes.
void addProfilerOptions(CLI::App &Sub, RunOptions &O) {
  Sub.add_option("--spec", O.SpecFile, "Instrument what this spec file says")
      ->type_name("weft.json")
      ->check(CLI::ExistingFile);
  Sub.add_option("--pass", O.Passes,
                 "Apply a pass to every method of the program's own assemblies (repeatable)")
      ->type_name("NAME[:K=V,...]")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Sub.add_option("--log", O.LogFile,
                 "Write the profiler's log to this file (default: the program's stderr)")
      ->type_name("FILE");
  Sub.add_option("--output-dir", O.OutputDir,
                 "Write what weave writes beside its output (coverage maps) into this folder "
                 "(default: the program's current directory)")
      ->type_name("DIR");
  Sub.add_option("--gc", O.Gc,
                 "Put garbage collections on the timeline (weft-timeline-PID.json): "
                 "informational (collections, pauses, heap sizes) or verbose (also allocation "
                 "ticks)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"informational", "verbose"}));
  Sub.add_flag("--lttng", O.Lttng,
               "Also emit the timeline's records as LTTng-UST events (provider weft; needs "
               "libweft_lttng.so, built where LTTng-UST is installed)");
  Sub.add_flag("-v,--verbose", O.Verbose,
               "Also log each method a pass leaves alone, and why (WEFT_VERBOSE=1)");
}

} // namespace

Runner addRunCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "run", "Run a command with weft's runtime profiler instrumenting the .NET code it runs");
  addProfilerOptions(*Sub, *O);
  Sub->add_option("command", O->Command, "The command to run, after --")
      ->required()
      ->expected(1, -1);
  Sub->footer("Example: weft run --pass coverage -- dotnet app.dll");
  return [O] {
    std::string PassList;
    if (Error E = checkPasses(*O, PassList)) {
      reportError(std::move(E));
      return int(ExitUsage);
    }
    Expected<std::string> Library = findProfiler();
    if (!Library)
      return reportError(Library.takeError());
    for (const char *Prefix : {"CORECLR_", "DOTNET_"}) {
      std::string P(Prefix);
      setenv((P + "ENABLE_PROFILING").c_str(), "1", 1);
      setenv((P + "PROFILER").c_str(), prof::ProfilerClsid, 1);
      setenv((P + "PROFILER_PATH").c_str(), Library->c_str(), 1);
    }
    // What is given replaces what the environment has; without --spec or --pass, WEFT_SPEC or
    // WEFT_PASSES from the environment apply.
    if (!O->SpecFile.empty()) {
      setenv(prof::SpecVariable, absolute(O->SpecFile).c_str(), 1);
      unsetenv(prof::PassesVariable);
    } else if (!PassList.empty()) {
      setenv(prof::PassesVariable, PassList.c_str(), 1);
      unsetenv(prof::SpecVariable);
    }
    if (!O->LogFile.empty())
      setenv(prof::LogVariable, absolute(O->LogFile).c_str(), 1);
    if (!O->OutputDir.empty())
      setenv(prof::OutputDirVariable, absolute(O->OutputDir).c_str(), 1);
    if (O->Verbose)
      setenv(prof::VerboseVariable, "1", 1);
    if (!O->Gc.empty())
      setenv(prof::GcVariable, O->Gc.c_str(), 1);
    if (O->Lttng)
      setenv(prof::LttngVariable, "1", 1);
    return runCommand(O->Command);
  };
}

Runner addAttachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "attach", "Load weft's runtime profiler into a running .NET process, instrumenting what "
                "the spec matches (methods already compiled through ReJIT)");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  addProfilerOptions(*Sub, *O);
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
    Expected<std::string> Library = findProfiler();
    if (!Library)
      return reportError(Library.takeError());
    Expected<std::string> Socket = diagnosticsSocket(O->Pid);
    if (!Socket)
      return reportError(Socket.takeError());
    Expected<uint32_t> Hr = sendAttach(
        *Socket, attachRequest(O->Timeout * 1000, *Library, attachData(*O, PassList)));
    if (!Hr)
      return reportError(Hr.takeError());
    if (*Hr != 0)
      return reportError("process " + Twine(O->Pid) + " did not load the profiler: HRESULT 0x" +
                         hexstr(*Hr, false, 8) + " (a profiler already loaded, or one that declined: " +
                         "see its log)");
    outs() << "weft: attached to process " << O->Pid << "\n";
    return int(ExitOk);
  };
}

Runner addDetachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "detach", "Make weft's profiler in a running .NET process revert what it instrumented and "
                "unload itself");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  Sub->add_option("--timeout", O->Timeout,
                  "Seconds to wait for the profiler to take the request (default 10)");
  return [O] {
    if (::kill(O->Pid, 0) != 0 && errno == ESRCH)
      return reportError("there is no process " + Twine(O->Pid));
    std::string Request = prof::detachRequestPath(O->Pid);
    if (Error E = writeFileAtomically(Request, arrayRefFromStringRef("detach\n")))
      return reportError(std::move(E));
    // The profiler looks for the request five times a second and removes it when it takes it.
    for (unsigned Waited = 0; Waited < O->Timeout * 20; ++Waited) {
      if (!sys::fs::exists(Request)) {
        outs() << "weft: the profiler in process " << O->Pid << " is detaching\n";
        return int(ExitOk);
      }
      ::usleep(50000);
    }
    sys::fs::remove(Request);
    return reportError("the profiler in process " + Twine(O->Pid) + " did not take the request in " +
                       Twine(O->Timeout) + " s (is weft attached to it?)");
  };
}

} // namespace weft::cli
