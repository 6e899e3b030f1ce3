//===- cli/CommandLine.cpp - The weft command line, parsed and run ---------===//
#include "llvm/Support/CommandLine.h"

#include "cli/Tool.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <map>
#include <sstream>

namespace weft::cli {

namespace {

/// What CLI11 prints for --help and --version, written to out() and err().
int printExit(const CLI::App &App, const CLI::Error &E) {
  std::ostringstream Out, Err;
  int Code = App.exit(E, Out, Err);
  out() << Out.str();
  err() << Err.str();
  return Code;
}

bool OwnProcessNow = true;

} // namespace

bool inOwnProcess() { return OwnProcessNow; }

int runCommandLine(llvm::ArrayRef<const char *> Argv, bool OwnProcess) {
  OwnProcessNow = OwnProcess;
  setMessageFormat(MessageFormat::Plain); // a run in a process that ran others starts afresh
  CLI::App App{"weft: reads, checks and instruments .NET assemblies", "weft"};
  App.require_subcommand(1);
  // Options are -x and --xx on every system: on Windows too, /path is a path (an input), not an
  // option, as a build on Linux driving weft.exe under wine gives it.
  App.allow_windows_style_options(false);
  App.set_version_flag("--version", "weft " WEFT_VERSION);
  // Plugins are loaded before any subcommand runs, so that every one sees their passes; the
  // option may come after the subcommand's name (fallthrough, inherited by the subcommands).
  std::vector<std::string> Plugins;
  App.add_option("--load", Plugins,
                 "Load a plugin (a shared library registering passes; docs/plugins.md); "
                 "repeatable")
      ->type_name("PLUGIN.so")
      ->expected(1)
      ->allow_extra_args(false) // one plugin a flag: what follows is the subcommand's
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  App.fallthrough();
  std::map<CLI::App *, Runner> Runners;
  auto Add = [&](Runner R) { Runners[App.get_subcommands({}).back()] = std::move(R); };
  Add(addInfoCommand(App));
  Add(addDumpCommand(App));
  Add(addDiffCommand(App));
  Add(addVerifyCommand(App));
  Add(addWeaveCommand(App));
  Add(addPassesCommand(App));
  Add(addCoverageCommand(App));
  Add(addRunCommand(App));
  Add(addAttachCommand(App));
  Add(addDetachCommand(App));
  // An argument @FILE stands for the arguments FILE holds, split as a POSIX shell splits words
  // (quotes and backslashes; nothing expanded or run): how a build passes values that no shell
  // should see. A response file may name others.
  llvm::BumpPtrAllocator Memory;
  llvm::StringSaver Saver(Memory);
  llvm::SmallVector<const char *, 32> Args(Argv.begin(), Argv.end());
  // Each @FILE made absolute first: LLVM puts the current folder before a name that is not, and
  // on Windows a path rooted without a drive ("\dir\file", "/dir/file" from wine) is not.
  for (const char *&A : llvm::drop_begin(Args))
    if (A[0] == '@' && !llvm::sys::path::is_absolute(A + 1)) {
      llvm::SmallString<256> Path(A + 1);
      if (!llvm::sys::fs::make_absolute(Path))
        A = Saver.save("@" + Path).data();
    }
  if (!llvm::cl::ExpandResponseFiles(Saver, llvm::cl::TokenizeGNUCommandLine, Args)) {
    std::string Which = "a response file (@FILE) of the command line";
    for (const char *A : llvm::drop_begin(Argv))
      if (A[0] == '@' && !llvm::sys::fs::exists(A + 1))
        Which = "the response file '" + std::string(A + 1) + "': no such file";
    reportError("cannot read " + Which);
    return ExitUsage;
  }
  try {
    App.parse(int(Args.size()), Args.data());
  } catch (const CLI::CallForHelp &E) {
    return printExit(App, E);
  } catch (const CLI::CallForAllHelp &E) {
    return printExit(App, E);
  } catch (const CLI::CallForVersion &E) {
    return printExit(App, E);
  } catch (const CLI::ParseError &E) {
    reportError(llvm::Twine(E.what()) + "\nRun 'weft --help' for usage.");
    return ExitUsage;
  }
  if (!Plugins.empty() && !OwnProcess) {
    reportError("plugins (--load) are not loaded into another program's process: run the weft "
                "executable to use them",
                CodeUsage);
    return ExitUsage;
  }
  for (const std::string &P : Plugins) {
    llvm::Expected<weft::plugin::LoadedPlugin> L = weft::plugin::loadPlugin(P);
    if (!L)
      return reportError(L.takeError());
    if (!L->Warning.empty())
      reportWarning(L->Warning);
  }
  for (auto &[Sub, Run] : Runners) {
    if (!Sub->parsed())
      continue;
    // These set the environment and start or steer other processes: not another program's.
    llvm::StringRef Name = Sub->get_name();
    if (!OwnProcess && (Name == "run" || Name == "attach" || Name == "detach")) {
      reportError("'weft " + Name + "' runs in a process of its own: run the weft executable",
                  CodeUsage);
      return ExitUsage;
    }
    return Run();
  }
  return ExitUsage;
}

} // namespace weft::cli
