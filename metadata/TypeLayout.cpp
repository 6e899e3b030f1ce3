//===- metadata/TypeLayout.cpp - Sizes of field data ----------------------===//
#include "metadata/TypeLayout.h"

#include "metadata/Signature.h"
#include "support/Error.h"
#include "support/Format.h"

using namespace llvm;

namespace weft::metadata {

namespace {

constexpr unsigned MaxNesting = 16;
constexpr uint16_t FieldStatic = 0x10;

std::optional<uint32_t> typeDefSize(const Module &M, uint32_t TypeRow, unsigned Depth);

std::optional<uint32_t> typeSize(const Module &M, const TypeSig &T, unsigned Depth) {
  const TypeSig &S = T.stripped();
  if (unsigned P = primitiveSize(S.Kind))
    return P;
  if (S.Kind == ElementType::ValueType && tokenTable(S.TypeToken) == TableId::TypeDef &&
      M.isValidToken(S.TypeToken))
    return typeDefSize(M, tokenRow(S.TypeToken), Depth + 1);
  return std::nullopt;
}

std::optional<uint32_t> typeDefSize(const Module &M, uint32_t TypeRow, unsigned Depth) {
  if (Depth > MaxNesting)
    return std::nullopt;
  if (uint32_t L = M.classLayout(TypeRow))
    if (uint32_t Size = M.get(TableId::ClassLayout, L, ClassLayoutCol::ClassSize))
      return Size;
  // Sequential layout of fields of known size, each aligned to its size.
  uint64_t Size = 0, Align = 1;
  bool Any = false;
  for (uint32_t I : M.typeFields(TypeRow)) {
    uint32_t F = M.field(I);
    if (M.get(TableId::Field, F, FieldCol::Flags) & FieldStatic)
      continue;
    Expected<TypeSig> Sig = fieldDefSig(M, F);
    if (!Sig) {
      consumeError(Sig.takeError());
      return std::nullopt;
    }
    std::optional<uint32_t> FS = typeSize(M, *Sig, Depth);
    if (!FS || *FS == 0)
      return std::nullopt;
    uint32_t A = std::min<uint32_t>(*FS, 8);
    Size = (Size + A - 1) / A * A + *FS;
    Align = std::max<uint64_t>(Align, A);
    Any = true;
  }
  if (!Any)
    return std::nullopt;
  return uint32_t((Size + Align - 1) / Align * Align);
}

} // namespace

Expected<uint32_t> fieldDataSize(const Module &M, uint32_t FieldRow) {
  Expected<TypeSig> Sig = fieldDefSig(M, FieldRow);
  if (!Sig)
    return Sig.takeError();
  if (std::optional<uint32_t> Size = typeSize(M, *Sig, 0))
    return *Size;
  return formatError("field data", M.rowOffset(TableId::Field, FieldRow),
                     "the size of the data of field row " + Twine(FieldRow) +
                         " cannot be worked out from its type");
}

} // namespace weft::metadata
