//===- il/CallShapes.cpp --------------------------------------------------===//
#include "il/CallShapes.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Signature.h"
#include "support/ByteReader.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::il {

/// The shape of a method signature from its head alone: the calling convention, the parameter
/// count, and whether the return type (after its custom modifiers) is void. The parameters are
/// decoded here: the readers check every signature of an input (readEverything, or the weave for
/// the methods it decodes), and a shape needs only the head.
/// Nothing for what does not parse as a method signature's head.
static std::optional<CallShape> shapeOfSig(ArrayRef<uint8_t> Sig) {
  auto Compressed = [&](uint32_t &V) {
    unsigned N = decodeCompressed(Sig, V);
    Sig = Sig.drop_front(N);
    return N != 0;
  };
  if (Sig.empty())
    return std::nullopt;
  uint8_t Flags = Sig[0];
  uint8_t Kind = Flags & SigKindMask;
  if (Kind == SigField || Kind == SigLocal || Kind == SigProperty || Kind == SigGenericInst ||
      Kind > 0xB || (Flags & 0x80))
    return std::nullopt;
  Sig = Sig.drop_front();
  uint32_t Generics = 0, Params = 0, Modifier = 0;
  if ((Flags & SigGeneric) && (!Compressed(Generics) || Generics == 0))
    return std::nullopt;
  if (!Compressed(Params))
    return std::nullopt;
  while (!Sig.empty() && (Sig[0] == uint8_t(ElementType::CModReqd) ||
                          Sig[0] == uint8_t(ElementType::CModOpt))) {
    Sig = Sig.drop_front();
    if (!Compressed(Modifier))
      return std::nullopt;
  }
  if (Sig.empty())
    return std::nullopt;
  CallShape C;
  C.Params = Params;
  C.HasThis = (Flags & SigHasThis) && !(Flags & SigExplicitThis);
  C.ReturnsValue = Sig[0] != uint8_t(ElementType::Void);
  return C;
}

std::optional<CallShape> ModuleCallShapes::methodDef(uint32_t Row) const {
  return shapeOf(makeToken(TableId::MethodDef, Row));
}

std::optional<CallShape> ModuleCallShapes::shapeOf(uint32_t Token) const {
  {
    std::shared_lock<std::shared_mutex> G(Lock);
    auto It = Cache.find(Token);
    if (It != Cache.end())
      return It->second;
  }
  std::optional<CallShape> Result;
  if (M.isValidToken(Token)) {
    uint32_t Row = tokenRow(Token);
    switch (tokenTable(Token)) {
    case TableId::MethodDef: {
      uint32_t Blob = M.get(TableId::MethodDef, Row, MethodDefCol::Signature);
      Result = shapeOfSig(M.getBlob(Blob));
      break;
    }
    case TableId::MemberRef: {
      uint32_t Blob = M.get(TableId::MemberRef, Row, MemberRefCol::Signature);
      ArrayRef<uint8_t> B = M.getBlob(Blob);
      if (!B.empty() && (B[0] & SigKindMask) != SigField)
        Result = shapeOfSig(B);
      break;
    }
    case TableId::MethodSpec:
      Result = shapeOf(M.getToken(TableId::MethodSpec, Row, MethodSpecCol::Method));
      break;
    case TableId::StandAloneSig: {
      uint32_t Blob = M.get(TableId::StandAloneSig, Row, StandAloneSigCol::Signature);
      ArrayRef<uint8_t> B = M.getBlob(Blob);
      if (!B.empty() && B[0] != SigLocal && B[0] != SigField)
        Result = shapeOfSig(B);
      break;
    }
    default: break;
    }
  }
  std::unique_lock<std::shared_mutex> G(Lock);
  Cache[Token] = Result;
  return Result;
}

namespace {
int preparedIndex(TableId T) {
  return T == TableId::MethodDef    ? 0
         : T == TableId::MemberRef  ? 1
         : T == TableId::MethodSpec ? 2
                                    : -1;
}
} // namespace

void EditorCallShapes::prepare(ParallelFor ForEach) {
  constexpr uint32_t Chunk = 4096;
  // MethodSpec rows take the shape of their method: they go once the others are done.
  for (auto Tables : {std::vector<TableId>{TableId::MethodDef, TableId::MemberRef},
                      std::vector<TableId>{TableId::MethodSpec}}) {
    std::vector<std::pair<TableId, uint32_t>> Work; // (table, first row of a chunk)
    for (TableId T : Tables) {
      std::vector<std::optional<CallShape>> &V = Prepared[preparedIndex(T)];
      V.assign(E.rowCount(T), std::nullopt);
      for (uint32_t R = 1; R <= V.size(); R += Chunk)
        Work.emplace_back(T, R);
    }
    auto Do = [&](size_t I) {
      auto [T, First] = Work[I];
      std::vector<std::optional<CallShape>> &V = Prepared[preparedIndex(T)];
      for (uint32_t R = First; R < First + Chunk && R <= V.size(); ++R)
        V[R - 1] = compute(makeToken(T, R));
    };
    if (ForEach)
      ForEach(Work.size(), Do);
    else
      for (size_t I = 0; I < Work.size(); ++I)
        Do(I);
  }
}

std::optional<CallShape> EditorCallShapes::shapeOf(uint32_t Token) const {
  int P = preparedIndex(tokenTable(Token));
  if (P >= 0 && tokenRow(Token) >= 1 && tokenRow(Token) <= Prepared[P].size())
    return Prepared[P][tokenRow(Token) - 1];
  {
    std::shared_lock<std::shared_mutex> G(Lock);
    auto It = Cache.find(Token);
    if (It != Cache.end())
      return It->second;
  }
  std::optional<CallShape> Result = compute(Token);
  std::unique_lock<std::shared_mutex> G(Lock);
  Cache[Token] = Result;
  return Result;
}

std::optional<CallShape> EditorCallShapes::compute(uint32_t Token) const {
  std::optional<CallShape> Result;
  uint32_t Row = tokenRow(Token);
  TableId T = tokenTable(Token);
  if (Row >= 1 && unsigned(T) < MaxTables && tableSpec(T).exists() && Row <= E.rowCount(T)) {
    auto Method = [&](unsigned Col) {
      return shapeOfSig(E.getBlob(E.get(T, Row, Col)));
    };
    switch (T) {
    case TableId::MethodDef: Result = Method(MethodDefCol::Signature); break;
    case TableId::MemberRef: {
      ArrayRef<uint8_t> B = E.getBlob(E.get(T, Row, MemberRefCol::Signature));
      if (!B.empty() && (B[0] & SigKindMask) != SigField)
        Result = Method(MemberRefCol::Signature);
      break;
    }
    case TableId::MethodSpec: Result = shapeOf(E.get(T, Row, MethodSpecCol::Method)); break;
    case TableId::StandAloneSig: {
      ArrayRef<uint8_t> B = E.getBlob(E.get(T, Row, StandAloneSigCol::Signature));
      if (!B.empty() && B[0] != SigLocal && B[0] != SigField)
        Result = Method(StandAloneSigCol::Signature);
      break;
    }
    default: break;
    }
  }
  return Result;
}

} // namespace weft::il
