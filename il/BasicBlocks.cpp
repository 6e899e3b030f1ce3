//===- il/BasicBlocks.cpp - Where basic blocks start ----------------------===//
#include "il/BasicBlocks.h"

#include "llvm/ADT/DenseMap.h"

namespace weft::analysis {

std::vector<size_t> blockLeaders(const il::MethodBody &B) {
  std::vector<size_t> Out;
  blockLeaders(B, Out);
  return Out;
}

void blockLeaders(const il::MethodBody &B, std::vector<size_t> &Out) {
  const std::vector<il::Instr *> &Order = B.instructions();
  Out.clear();
  if (Order.empty())
    return;
  thread_local std::vector<char> Leader; // kept from body to body
  Leader.assign(Order.size(), 0);
  uint32_t Stamp = B.number();
  auto Mark = [&](const il::Instr *I) {
    if (il::MethodBody::numbered(I, Stamp)) // (null: the end of the code)
      Leader[I->Pos] = 1;
  };
  Leader[0] = 1;
  for (size_t I = 0; I < Order.size(); ++I) {
    const il::Instr *In = Order[I];
    Mark(In->Target);
    for (const il::Instr *T : In->Targets)
      Mark(T);
    switch (In->info().Flow) {
    case il::FlowKind::Branch:
    case il::FlowKind::CondBranch:
    case il::FlowKind::Return:
    case il::FlowKind::Throw:
      if (I + 1 < Order.size())
        Leader[I + 1] = 1;
      break;
    default: break;
    }
  }
  for (const il::ExceptionRegion &R : B.Regions)
    for (const il::Instr *I : {R.TryStart, R.TryEnd, R.HandlerStart, R.HandlerEnd, R.FilterStart})
      Mark(I);

  for (size_t I = 0; I < Order.size(); ++I)
    if (Leader[I] && !(I > 0 && Order[I - 1]->info().isPrefix()))
      Out.push_back(I);
}

} // namespace weft::analysis
