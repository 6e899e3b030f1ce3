//===- cli/main.cpp - The weft command ------------------------------------===//
#include "cli/Tool.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

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
  return endProcess(weft::cli::runCommandLine(llvm::ArrayRef<const char *>(argv, argv + argc)));
}
