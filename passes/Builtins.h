//===- passes/Builtins.h - The built-in passes ------------------*- C++ -*-===//
#ifndef WEFT_PASSES_BUILTINS_H
#define WEFT_PASSES_BUILTINS_H

#include "weaving/Pass.h"

namespace weft::passes {

// One function per pass file, each giving the pass's registry entry.
PassInfo singleRetPass();
PassInfo entryExitPass();
PassInfo tracePass();
PassInfo coveragePass();
PassInfo interceptCallPass();
PassInfo spanPass();

} // namespace weft::passes

#endif
