//===- tests/fuzz/FuzzPdb.cpp - libFuzzer's entry to pdbInput -----------===//
#include "tests/fuzz/Targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  weft::fuzz::pdbInput(llvm::ArrayRef<uint8_t>(Data, Size));
  return 0;
}
