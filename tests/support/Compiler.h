//===- tests/support/Compiler.h - The SDK's compilers, rewritten -*- C++ -*-===//
//
// The compiler test that the round trip and every weaving pass share: a copy of the installed
// SDK's C# compiler folder (Roslyn/bincore) or F# compiler folder (FSharp: fsc,
// FSharp.Compiler.Service, FSharp.Core and what they load) has each of its managed assemblies
// rewritten by `weft weave` with the given arguments, and must then compile every corpus program
// of its language to the same bytes as the original compiler (compilation is deterministic; the
// two run in the same folder with the same relative paths).
//
// Each program compiles in a second or more, and woven compilers JIT what the SDK ships
// precompiled: in the suite, a test compiles a share of the programs (every Of-th, from Index),
// and the tests of one compiler take different shares, so that together they compile every
// program; WEFT_FULL=1 compiles every program in each test.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_COMPILER_H
#define WEFT_TESTS_SUPPORT_COMPILER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace weft::test {

/// Rewrites every managed assembly in \p Dir in place with `weft weave F --in-place` followed by
/// \p WeaveArgs; returns how many, and adds a message per failure to \p Failures.
unsigned weaveFolder(llvm::StringRef Dir, llvm::ArrayRef<std::string> WeaveArgs,
                     std::vector<std::string> &Failures);

/// Which programs of the corpus a compiler test compiles outside WEFT_FULL=1: those whose
/// position in corpusPrograms(), plus the sample's rotation, is Index modulo Of. The rotation is
/// the number of commits in the history the build was configured from (WEFT_SAMPLE_ROTATION
/// overrides it): each commit moves every test's share on by one program, so that any Of
/// commits in a row have each test compile every program.
struct Share {
  unsigned Index = 0, Of = 1;
};

/// Runs the compiler test under \p Label with \p WeaveArgs, copying \p ExtraFiles (probe
/// assemblies) into the compiler's folder and running the compiler with the environment entries
/// \p Env ("K=V"; "{work}" in them stands for the test's scratch folder); reports failures
/// through gtest.
void checkRewrittenCompiler(llvm::StringRef Label, Share Programs,
                            llvm::ArrayRef<std::string> WeaveArgs,
                            llvm::ArrayRef<std::string> ExtraFiles = {},
                            llvm::ArrayRef<std::string> Env = {});

/// The same for the F# compiler and the F# programs of the corpus.
void checkRewrittenFSharpCompiler(llvm::StringRef Label, Share Programs,
                                  llvm::ArrayRef<std::string> WeaveArgs,
                                  llvm::ArrayRef<std::string> ExtraFiles = {},
                                  llvm::ArrayRef<std::string> Env = {});

bool copyTree(llvm::StringRef From, llvm::StringRef To);

} // namespace weft::test

#endif
