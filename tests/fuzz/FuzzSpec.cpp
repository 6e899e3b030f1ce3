//===- tests/fuzz/FuzzSpec.cpp - libFuzzer's entry to specInput -----------===//
#include "tests/fuzz/Targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  weft::fuzz::specInput(llvm::ArrayRef<uint8_t>(Data, Size));
  return 0;
}
