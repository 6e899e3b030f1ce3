//===- tests/fuzz/FuzzWeave.cpp - libFuzzer's entry to weaveInput -----------===//
#include "tests/fuzz/Targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  weft::fuzz::weaveInput(llvm::ArrayRef<uint8_t>(Data, Size));
  return 0;
}
