//===- tests/fuzz/CheckedErrors.cpp - An unchecked Error aborts -----------===//
//
// The function LLVM's Error.h calls, with the checks on (CheckedErrors.h), when an Error is
// destroyed or overwritten before it was checked; LLVM's library defines it only when it was
// itself built with the checks.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace llvm {

void Error::fatalUncheckedError() const {
  errs() << "weft fuzz: an llvm::Error was destroyed or overwritten unchecked";
  if (getPtr()) {
    errs() << ", holding: ";
    getPtr()->log(errs());
  } else {
    errs() << " (a success value)";
  }
  errs() << "\n";
  errs().flush();
  std::abort();
}

} // namespace llvm
