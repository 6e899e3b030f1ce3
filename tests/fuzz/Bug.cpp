//===- tests/fuzz/Bug.cpp - Reporting what a fuzz input found ------------===//
#include "tests/fuzz/Targets.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace weft::fuzz {

void bug(const llvm::Twine &What) {
  llvm::errs() << "weft fuzz: bug: " << What << "\n";
  llvm::errs().flush();
  std::abort();
}

} // namespace weft::fuzz
