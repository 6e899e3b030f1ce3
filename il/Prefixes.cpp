//===- il/Prefixes.cpp - Prefixes and what they bind ----------------------===//
#include "il/Prefixes.h"

namespace weft::il {

namespace {

bool isIndirect(Opcode Op) {
  return (Op >= Opcode::Ldind_I1 && Op <= Opcode::Stind_R8) || Op == Opcode::Stind_I;
}

bool isElementAccess(Opcode Op) { return Op >= Opcode::Ldelema && Op <= Opcode::Stelem; }

bool isCall(Opcode Op) {
  return Op == Opcode::Call || Op == Opcode::Callvirt || Op == Opcode::Calli;
}

} // namespace

bool prefixMayPrecede(Opcode Prefix, Opcode Next) {
  switch (Prefix) {
  case Opcode::Tail: return isCall(Next) || Next == Opcode::Constrained;
  case Opcode::Constrained:
    // call and ldftn take it for static virtual methods (ECMA-335 augments); CoreCLR takes
    // tail. on either side of it.
    return Next == Opcode::Callvirt || Next == Opcode::Call || Next == Opcode::Ldftn ||
           Next == Opcode::Tail;
  case Opcode::Readonly: return Next == Opcode::Ldelema;
  case Opcode::Volatile:
  case Opcode::Unaligned:
    if (Next == Opcode::Volatile || Next == Opcode::Unaligned)
      return true;
    if (Prefix == Opcode::Volatile && (Next == Opcode::Ldsfld || Next == Opcode::Stsfld))
      return true;
    return isIndirect(Next) || Next == Opcode::Ldfld || Next == Opcode::Stfld ||
           Next == Opcode::Ldobj || Next == Opcode::Stobj || Next == Opcode::Initblk ||
           Next == Opcode::Cpblk;
  case Opcode::No:
    return Next == Opcode::Castclass || Next == Opcode::Unbox || Next == Opcode::Unbox_Any ||
           isElementAccess(Next) || Next == Opcode::Ldfld || Next == Opcode::Stfld ||
           Next == Opcode::Callvirt || Next == Opcode::Ldvirtftn;
  default: return false;
  }
}

size_t prefixedStart(const std::vector<Instr *> &Order, size_t P) {
  while (P > 0 && P <= Order.size() && Order[P - 1]->info().isPrefix())
    --P;
  return P;
}

bool isTailCall(const std::vector<Instr *> &Order, size_t P) {
  if (P >= Order.size() || !isCall(Order[P]->Op))
    return false;
  for (size_t K = P; K > 0 && Order[K - 1]->info().isPrefix(); --K)
    if (Order[K - 1]->Op == Opcode::Tail)
      return true;
  return false;
}

bool isTailCallReturn(const std::vector<Instr *> &Order, size_t P) {
  return P > 0 && P < Order.size() && Order[P]->Op == Opcode::Ret && isTailCall(Order, P - 1);
}

std::vector<TailCallSite> tailCallSites(const std::vector<Instr *> &Order) {
  std::vector<TailCallSite> Out;
  for (size_t P = 1; P < Order.size(); ++P)
    if (isTailCallReturn(Order, P))
      Out.push_back({prefixedStart(Order, P - 1), P - 1, P});
  return Out;
}

} // namespace weft::il
