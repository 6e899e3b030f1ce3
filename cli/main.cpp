//===- cli/main.cpp - The weft command ------------------------------------===//
#include "cli/Tool.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <map>

using namespace weft::cli;

namespace {

/// Ends the process with \p Code. A plugin's library may run threads of its own (a NativeAOT
/// runtime's finalizer and collector) that exit()'s destructors would pull the code and data
/// from under: with plugins loaded, the streams are flushed and the process ends at once.
int endProcess(int Code) {
  if (weft::plugin::loadedPlugins().empty())
    return Code;
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  std::_Exit(Code);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM Init(argc, argv);
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
  llvm::SmallVector<const char *, 32> Args(argv, argv + argc);
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
    for (int I = 1; I < argc; ++I)
      if (argv[I][0] == '@' && !llvm::sys::fs::exists(argv[I] + 1))
        Which = "the response file '" + std::string(argv[I] + 1) + "': no such file";
    reportError("cannot read " + Which);
    return ExitUsage;
  }
  try {
    App.parse(int(Args.size()), Args.data());
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    reportError(llvm::Twine(E.what()) + "\nRun 'weft --help' for usage.");
    return ExitUsage;
  }
  for (const std::string &P : Plugins) {
    llvm::Expected<weft::plugin::LoadedPlugin> L = weft::plugin::loadPlugin(P);
    if (!L)
      return reportError(L.takeError());
    if (!L->Warning.empty())
      reportWarning(L->Warning);
  }
  for (auto &[Sub, Run] : Runners)
    if (Sub->parsed())
      return endProcess(Run());
  return ExitUsage;
}
