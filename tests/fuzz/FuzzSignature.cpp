//===- tests/fuzz/FuzzSignature.cpp - Signature blobs -----------------===//
//
// The first byte picks the kind of signature; the rest is the blob.
//
//===----------------------------------------------------------------------===//
#include "metadata/Signature.h"

using namespace weft::metadata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  llvm::ArrayRef<uint8_t> Blob(Data + 1, Size - 1);
  switch (Data[0] % 7) {
  case 0: llvm::consumeError(decodeMethodSig(Blob, 0).takeError()); break;
  case 1: llvm::consumeError(decodeFieldSig(Blob, 0).takeError()); break;
  case 2: llvm::consumeError(decodePropertySig(Blob, 0).takeError()); break;
  case 3: llvm::consumeError(decodeLocalsSig(Blob, 0).takeError()); break;
  case 4: llvm::consumeError(decodeTypeSpec(Blob, 0).takeError()); break;
  case 5: llvm::consumeError(decodeMethodSpec(Blob, 0).takeError()); break;
  default: llvm::consumeError(decodeStandAloneSig(Blob, 0).takeError()); break;
  }
  return 0;
}
