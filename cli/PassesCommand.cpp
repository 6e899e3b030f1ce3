//===- cli/PassesCommand.cpp - weft passes --------------------------------===//
//
// Lists the registered passes with their descriptions and options (built-in ones and those of the
// plugins given with --load).
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "weaving/Pass.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

Runner addPassesCommand(CLI::App &App) {
  CLI::App *Sub = App.add_subcommand("passes", "List the passes weave can apply");
  (void)Sub;
  return [] {
    for (const passes::PassInfo &P : passes::PassRegistry::global().all()) {
      out() << P.Name << "\n  " << P.Description << "\n";
      for (const passes::PassOptionInfo &O : P.Options)
        out() << "    " << O.Name << ": " << O.Description << "\n";
    }
    return int(ExitOk);
  };
}

} // namespace weft::cli
