//===- weaving/Arguments.cpp ----------------------------------------------===//
#include "weaving/Arguments.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

bool isReferenceType(const TypeSig &T) {
  switch (T.Kind) {
  case ElementType::Class:
  case ElementType::String:
  case ElementType::Object:
  case ElementType::SZArray:
  case ElementType::Array: return true;
  case ElementType::GenericInst: return T.Args[0].Kind == ElementType::Class;
  default: return false;
  }
}

void boxIfValue(MethodContext &C, Emitter &E, const TypeSig &T) {
  if (!isReferenceType(T))
    E.tok(il::Opcode::Box, C.typeToken(T));
}

namespace {
/// Whether parameter \p I is `out` (and not also `in`): it holds nothing at entry.
bool isOutParam(MethodContext &C, uint32_t I) {
  const Module &M = C.module();
  for (uint32_t L : M.methodParams(C.row())) {
    uint32_t P = M.param(L);
    if (M.get(TableId::Param, P, ParamCol::Sequence) == I + 1) {
      uint32_t F = M.get(TableId::Param, P, ParamCol::Flags);
      return (F & 0x2) && !(F & 0x1);
    }
  }
  return false;
}
} // namespace

void loadArgumentAsObject(MethodContext &C, Emitter &E, uint32_t I) {
  const TypeSig &T = C.signature().Params[I].stripped();
  uint32_t Arg = I + (C.signature().hasThis() ? 1 : 0);
  if (T.Kind == ElementType::ByRef) {
    const TypeSig &Elem = T.element().stripped();
    if (isOutParam(C, I)) {
      C.note("out parameter " + Twine(I + 1) + " is passed as null");
      E.op(il::Opcode::Ldnull);
    } else if (C.isByRefLike(Elem)) {
      C.note("parameter " + Twine(I + 1) + " refers to a by-ref-like value; it is passed as null");
      E.op(il::Opcode::Ldnull);
    } else {
      E.ldarg(Arg);
      if (isReferenceType(Elem)) {
        E.op(il::Opcode::Ldind_Ref);
      } else {
        Token Tk = C.typeToken(Elem);
        E.tok(il::Opcode::Ldobj, Tk);
        E.tok(il::Opcode::Box, Tk);
      }
    }
    return;
  }
  if (C.isByRefLike(T)) {
    C.note("parameter " + Twine(I + 1) +
           " is by-ref-like or a pointer and cannot be boxed; it is passed as null");
    E.op(il::Opcode::Ldnull);
    return;
  }
  E.ldarg(Arg);
  boxIfValue(C, E, T);
}

} // namespace weft::passes
