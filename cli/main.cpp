//===- cli/main.cpp - The weft command ------------------------------------===//
#include "cli/Tool.h"
#include "support/Allocator.h"

#include "llvm/Support/InitLLVM.h"

#include <map>

using namespace weft::cli;

int main(int argc, char **argv) {
  llvm::InitLLVM Init(argc, argv);
  weft::tuneAllocator();
  CLI::App App{"weft: reads, checks and instruments .NET assemblies", "weft"};
  App.require_subcommand(1);
  App.set_version_flag("--version", "weft " WEFT_VERSION);
  std::map<CLI::App *, Runner> Runners;
  auto Add = [&](Runner R) { Runners[App.get_subcommands({}).back()] = std::move(R); };
  Add(addInfoCommand(App));
  Add(addDumpCommand(App));
  Add(addVerifyCommand(App));
  Add(addWeaveCommand(App));
  Add(addPassesCommand(App));
  try {
    App.parse(argc, argv);
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
  for (auto &[Sub, Run] : Runners)
    if (Sub->parsed())
      return Run();
  return ExitUsage;
}
