//===- tests/fuzz/FuzzMethodBody.cpp - Method headers, EH sections, IL ---===//
#include "il/BodyReader.h"
#include "il/MethodBody.h"

using namespace weft::il;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Bytes(Data, Size);
  auto Body = readMethodBody(Bytes, 0);
  if (!Body) {
    llvm::consumeError(Body.takeError());
    return 0;
  }
  // The instruction graph the weave builds, also from bodies nothing read before it.
  if (auto Graph = MethodBody::decode(*Body); !Graph)
    llvm::consumeError(Graph.takeError());
  std::vector<Instruction> Insts;
  llvm::consumeError(decodeInstructions(Body->Code, Body->codeFileOffset(), Insts));
  InstructionDecoder D(Body->Code, 0);
  Instruction I;
  while (D.next(I))
    if (I.Op == Opcode::Switch)
      for (uint32_t C = 0; C < I.Count; ++C)
        (void)D.switchTarget(I, C);
  llvm::consumeError(D.takeError());
  return 0;
}
