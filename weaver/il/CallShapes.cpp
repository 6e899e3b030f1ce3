//===- weaver/il/CallShapes.cpp -------------------------------------------===//
#include "weaver/il/CallShapes.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Signature.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::il {

static std::optional<CallShape> shapeOfSig(Expected<MethodSig> S) {
  if (!S) {
    consumeError(S.takeError());
    return std::nullopt;
  }
  CallShape C;
  C.Params = uint32_t(S->Params.size());
  C.HasThis = S->hasThis() && !S->explicitThis();
  C.ReturnsValue = S->Return.stripped().Kind != ElementType::Void;
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
    case TableId::MethodDef: Result = shapeOfSig(methodDefSig(M, Row)); break;
    case TableId::MemberRef: {
      ArrayRef<uint8_t> B = M.getBlob(M.get(TableId::MemberRef, Row, MemberRefCol::Signature));
      if (!B.empty() && (B[0] & SigKindMask) != SigField)
        Result = shapeOfSig(memberRefMethodSig(M, Row));
      break;
    }
    case TableId::MethodSpec:
      Result = shapeOf(M.getToken(TableId::MethodSpec, Row, MethodSpecCol::Method));
      break;
    case TableId::StandAloneSig: {
      uint32_t Blob = M.get(TableId::StandAloneSig, Row, StandAloneSigCol::Signature);
      ArrayRef<uint8_t> B = M.getBlob(Blob);
      if (!B.empty() && B[0] != SigLocal && B[0] != SigField)
        Result = shapeOfSig(decodeMethodSig(B, M.blobFileOffset(Blob), &M));
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

void EditorCallShapes::prepare() {
  for (TableId T : {TableId::MethodDef, TableId::MemberRef, TableId::MethodSpec}) {
    std::vector<std::optional<CallShape>> &V = Prepared[preparedIndex(T)];
    V.clear();
    uint32_t Rows = E.rowCount(T);
    V.reserve(Rows);
    for (uint32_t R = 1; R <= Rows; ++R)
      V.push_back(compute(makeToken(T, R)));
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
      return shapeOfSig(decodeMethodSig(E.getBlob(E.get(T, Row, Col)), 0, nullptr));
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
