//===- passes/Builtins.cpp - Registering the built-in passes --------------===//
#include "passes/Builtins.h"

#include "llvm/Support/ErrorHandling.h"

namespace weft::passes {

void registerBuiltinPasses(PassRegistry &R) {
  for (PassInfo (*Make)() :
       {singleRetPass, entryExitPass, tracePass, interceptCallPass, coveragePass, spanPass})
    if (llvm::Error E = R.add(Make()))
      llvm::report_fatal_error(std::move(E)); // two built-ins with one name: a bug in weft
}

} // namespace weft::passes
