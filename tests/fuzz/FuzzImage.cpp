//===- tests/fuzz/FuzzImage.cpp - A whole file through every reader ---===//
//
// PE image, metadata tables and heaps, every signature and blob, every method body and
// instruction, the IL text writer and the raw dump: each must refuse bad input with an error, never
// crash, hang or allocate without bound.
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "pe/Image.h"
#include "weaver/ReadAll.h"
#include "weaver/text/Disassembler.h"
#include "weaver/text/RawDump.h"

#include "llvm/Support/raw_ostream.h"

using namespace weft;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Bytes(Data, Size);
  llvm::raw_null_ostream Null;
  llvm::consumeError(text::rawDump(Null, Bytes));
  auto Img = pe::Image::create(Bytes, "fuzz");
  if (!Img) {
    llvm::consumeError(Img.takeError());
    return 0;
  }
  if (!(*Img)->isManaged())
    return 0;
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  ReadStats Stats;
  llvm::consumeError(readEverything(**Img, **M, Stats));
  llvm::consumeError(text::disassemble(Null, **Img, **M, {}));
  return 0;
}
