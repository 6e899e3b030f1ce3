//===- cli/RunCommand.cpp - weft run --------------------------------------===//
//
// `run` runs a command with weft's runtime profiler loaded into the .NET runtime it starts: sets
// the variables CoreCLR reads to load a profiler (and their DOTNET_ spellings) and the ones the
// profiler reads (WEFT_SPEC, WEFT_PASSES, WEFT_LOG, ...), runs the command (passing on the
// signals that ask weft to stop) and exits with its status.
//
//===----------------------------------------------------------------------===//
#include "cli/ProfilerOptions.h"
#include "cli/Tool.h"
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Identity.h"
#include "support/Format.h"
#include "support/Port.h"
#include "weaving/Pass.h"
#include "weaving/plugin/Plugin.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace weft::cli {

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
    Expected<std::vector<plugin::LoadedPlugin>> L =
        plugin::loadPlugins(O.SpecFile, S->pluginPaths());
    if (!L)
      return L.takeError();
    warnOfPlugins(*L);
    for (const spec::PassUse *U : S->passUses())
      Uses.push_back(*U);
  }
  for (const std::string &P : O.Passes) {
    if (P.find(';') != std::string::npos)
      return createStringError(inconvertibleErrorCode(),
                               "--pass '" + P + "': ';' separates passes");
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

void addProfilerOptions(CLI::App &Sub, RunOptions &O, bool Attach) {
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
                 Attach ? "Write the profiler's log to this file (default: weft-profiler-PID.log "
                          "in the output folder; never the program's stderr)"
                        : "Write the profiler's log to this file (default: the program's stderr)")
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
               "Also log each method a pass leaves alone, and why, and each method compiled "
               "again through ReJIT with what it was given (WEFT_VERBOSE=1)");
}

Runner addRunCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "run", "Run a command with weft's runtime profiler instrumenting the .NET code it runs");
  addProfilerOptions(*Sub, *O, /*Attach=*/false);
  Sub->add_option("--process", O->Processes,
                  "Instrument only the processes of the command's tree that this glob matches "
                  "(their program's name, main assembly's file name or command line; "
                  "repeatable; default: all but the .NET SDK's own build processes)")
      ->type_name("GLOB")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Sub->add_option("--otlp", O->Otlp,
                  "Send the spans of the span pass over OTLP to this endpoint "
                  "(sets OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL and the other "
                  "OTEL_* variables still apply)")
      ->type_name("URL")
      ->check([](const std::string &U) {
        StringRef S(U);
        return S.startswith("http://") || S.startswith("https://")
                   ? std::string()
                   : "'" + U + "' is not an http:// or https:// URL";
      });
  Sub->add_option("command", O->Command, "The command to run, after --")
      ->required()
      ->expected(1, -1);
  Sub->footer("Example: weft run --pass coverage -- dotnet app.dll\n"
              "         weft run --pass span --otlp http://localhost:4318 -- dotnet app.dll");
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
      port::setEnvironment((P + "ENABLE_PROFILING").c_str(), "1");
      port::setEnvironment((P + "PROFILER").c_str(), prof::ProfilerClsid);
      port::setEnvironment((P + "PROFILER_PATH").c_str(), Library->c_str());
    }
    // What is given replaces what the environment has; without --spec or --pass, WEFT_SPEC or
    // WEFT_PASSES from the environment apply.
    if (!O->SpecFile.empty()) {
      port::setEnvironment(prof::SpecVariable, absolute(O->SpecFile).c_str());
      port::unsetEnvironment(prof::PassesVariable);
    } else if (!PassList.empty()) {
      port::setEnvironment(prof::PassesVariable, PassList.c_str());
      port::unsetEnvironment(prof::SpecVariable);
    }
    if (!O->LogFile.empty())
      port::setEnvironment(prof::LogVariable, absolute(O->LogFile).c_str());
    if (!O->OutputDir.empty())
      port::setEnvironment(prof::OutputDirVariable, absolute(O->OutputDir).c_str());
    if (O->Verbose)
      port::setEnvironment(prof::VerboseVariable, "1");
    if (!O->Gc.empty())
      port::setEnvironment(prof::GcVariable, O->Gc.c_str());
    if (O->Lttng)
      port::setEnvironment(prof::LttngVariable, "1");
    if (!O->Processes.empty())
      port::setEnvironment(prof::ProcessesVariable, join(O->Processes, ";").c_str());
    if (!O->Otlp.empty()) {
      port::setEnvironment("OTEL_EXPORTER_OTLP_ENDPOINT", O->Otlp.c_str());
      port::unsetEnvironment("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); // it would take precedence
    }
    // No build server or reused MSBuild node starts under weft: one would outlive the command
    // with the variables that load the profiler, and hand them to what it starts later.
    for (const char *Off : {"MSBUILDDISABLENODEREUSE=1", "UseSharedCompilation=false",
                            "UseRazorBuildServer=false", "DOTNET_CLI_USE_MSBUILD_SERVER=0"}) {
      auto [Name, Value] = StringRef(Off).split('=');
      port::setEnvironment(Name.str().c_str(), Value.str().c_str());
    }
    Expected<int> Status = port::runCommand(O->Command);
    return Status ? *Status : reportError(Status.takeError());
  };
}

} // namespace weft::cli
