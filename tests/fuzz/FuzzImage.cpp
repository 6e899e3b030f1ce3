//===- tests/fuzz/FuzzImage.cpp - A whole file through every reader ---===//
//
// PE image, metadata tables and heaps, every signature and blob, every method body and
// instruction, the IL text writer and the raw dump; for a file that reads fully, as `weft verify`
// and `weft weave` take it: the verifier, the strong-name check and the writer. Each must refuse
// bad input with an error, never crash, hang or allocate without bound.
//
//===----------------------------------------------------------------------===//
#include "il/ReadAll.h"
#include "il/Verifier.h"
#include "iltext/Disassembler.h"
#include "iltext/RawDump.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "pe/StrongName.h"
#include "weaving/ModuleWriter.h"

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
  llvm::consumeError(text::disassemble(Null, **Img, **M, {}));
  ReadStats Stats;
  if (llvm::Error E = readEverything(**Img, **M, Stats)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  (void)analysis::verifyModule(**Img, **M);
  if ((*M)->rowCount(metadata::TableId::Assembly))
    (void)pe::checkStrongName(**Img, (*M)->getBlob((*M)->get(metadata::TableId::Assembly, 1,
                                                             metadata::AssemblyCol::PublicKey)));
  metadata::Editor E(**M);
  llvm::Expected<WrittenModule> W = writeModule(**Img, E, std::map<uint32_t, NewBody>{});
  if (!W)
    llvm::consumeError(W.takeError());
  return 0;
}
