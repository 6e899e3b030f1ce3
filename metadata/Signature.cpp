//===- metadata/Signature.cpp - Signature blob decoder --------------------===//
#include "metadata/Signature.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "support/ByteReader.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace weft::metadata {

unsigned primitiveSize(ElementType K) {
  switch (K) {
  case ElementType::Boolean:
  case ElementType::I1:
  case ElementType::U1: return 1;
  case ElementType::Char:
  case ElementType::I2:
  case ElementType::U2: return 2;
  case ElementType::I4:
  case ElementType::U4:
  case ElementType::R4: return 4;
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::R8: return 8;
  default: return 0;
  }
}

const TypeSig &TypeSig::stripped() const {
  const TypeSig *T = this;
  while ((T->Kind == ElementType::CModReqd || T->Kind == ElementType::CModOpt ||
          T->Kind == ElementType::Pinned) &&
         !T->Args.empty())
    T = &T->Args.front();
  return *T;
}

bool TypeSig::isIntegral(ElementType K) {
  switch (K) {
  case ElementType::Boolean:
  case ElementType::Char:
  case ElementType::I1:
  case ElementType::U1:
  case ElementType::I2:
  case ElementType::U2:
  case ElementType::I4:
  case ElementType::U4:
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::I:
  case ElementType::U: return true;
  default: return false;
  }
}

namespace {

// Deeper nesting than this is refused: real signatures stay far below it, and hostile ones must
// not exhaust the stack.
constexpr unsigned MaxDepth = 64;
constexpr uint32_t MaxArrayRank = 32;

const char *sigKindName(SigKind K) {
  switch (K) {
  case SigKind::Method: return "method signature";
  case SigKind::Field: return "field signature";
  case SigKind::Property: return "property signature";
  case SigKind::Locals: return "local variable signature";
  case SigKind::TypeSpec: return "type specification signature";
  case SigKind::MethodSpec: return "method specification signature";
  case SigKind::StandAlone: return "stand-alone signature";
  }
  return "signature";
}

class Decoder {
public:
  Decoder(ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M, SigKind Kind)
      : R(Blob, FileOffset), M(M), Kind(Kind) {}

  Error finish() {
    if (R.ok())
      return Error::success();
    return formatError(sigKindName(Kind), R.failureOffset(),
                       Detail.empty() ? std::string(R.failure()) : Detail);
  }

  void fail(const Twine &Why) {
    if (!R.ok())
      return;
    Detail = Why.str();
    R.fail("malformed signature");
  }
  void failAt(size_t Pos, const Twine &Why) {
    if (!R.ok())
      return;
    Detail = Why.str();
    R.failAt(Pos, "malformed signature");
  }

  bool typeToken(Token &Out) {
    size_t At = R.pos();
    uint32_t V = R.compressed();
    if (!R.ok())
      return false;
    static const TableId Tags[] = {TableId::TypeDef, TableId::TypeRef, TableId::TypeSpec};
    if ((V & 3) == 3) {
      failAt(At, "type reference " + hex(V, 1) + " has the invalid tag 3");
      return false;
    }
    Out = makeToken(Tags[V & 3], V >> 2);
    if (M && !M->isValidToken(Out)) {
      failAt(At, "type reference to " + tableName(tokenTable(Out)) + " row " +
                     Twine(tokenRow(Out)) + " which does not exist");
      return false;
    }
    return true;
  }

  bool type(TypeSig &Out, unsigned Depth) {
    if (Depth > MaxDepth) {
      fail("types nest more than " + Twine(MaxDepth) + " levels deep");
      return false;
    }
    size_t At = R.pos();
    uint8_t B = R.u8();
    if (!R.ok())
      return false;
    Out.Kind = ElementType(B);
    switch (Out.Kind) {
    case ElementType::Void:
    case ElementType::Boolean:
    case ElementType::Char:
    case ElementType::I1:
    case ElementType::U1:
    case ElementType::I2:
    case ElementType::U2:
    case ElementType::I4:
    case ElementType::U4:
    case ElementType::I8:
    case ElementType::U8:
    case ElementType::R4:
    case ElementType::R8:
    case ElementType::String:
    case ElementType::TypedByRef:
    case ElementType::I:
    case ElementType::U:
    case ElementType::Object: return true;
    case ElementType::Ptr:
    case ElementType::ByRef:
    case ElementType::SZArray:
    case ElementType::Pinned: Out.Args.resize(1); return type(Out.Args[0], Depth + 1);
    case ElementType::CModReqd:
    case ElementType::CModOpt:
      if (!typeToken(Out.TypeToken))
        return false;
      Out.Args.resize(1);
      return type(Out.Args[0], Depth + 1);
    case ElementType::ValueType:
    case ElementType::Class: return typeToken(Out.TypeToken);
    case ElementType::Var:
    case ElementType::MVar: Out.Number = R.compressed(); return R.ok();
    case ElementType::Array: {
      Out.Args.resize(1);
      if (!type(Out.Args[0], Depth + 1))
        return false;
      size_t RankAt = R.pos();
      Out.Number = R.compressed();
      if (R.ok() && (Out.Number == 0 || Out.Number > MaxArrayRank)) {
        failAt(RankAt,
               "array rank " + Twine(Out.Number) + " is not between 1 and " + Twine(MaxArrayRank));
        return false;
      }
      uint32_t NumSizes = R.count(1);
      if (R.ok() && NumSizes > Out.Number) {
        fail("array has more sizes (" + Twine(NumSizes) + ") than its rank");
        return false;
      }
      for (uint32_t I = 0; I < NumSizes && R.ok(); ++I)
        Out.Sizes.push_back(R.compressed());
      uint32_t NumBounds = R.count(1);
      if (R.ok() && NumBounds > Out.Number) {
        fail("array has more lower bounds (" + Twine(NumBounds) + ") than its rank");
        return false;
      }
      for (uint32_t I = 0; I < NumBounds && R.ok(); ++I)
        Out.LowerBounds.push_back(R.compressedSigned());
      return R.ok();
    }
    case ElementType::GenericInst: {
      Out.Args.resize(1);
      size_t BaseAt = R.pos();
      uint8_t K = R.u8();
      if (!R.ok())
        return false;
      if (K != uint8_t(ElementType::Class) && K != uint8_t(ElementType::ValueType)) {
        failAt(BaseAt, "generic instantiation of element type 0x" + hexstr(K, false, 2) +
                           " (expected CLASS or VALUETYPE)");
        return false;
      }
      Out.Args[0].Kind = ElementType(K);
      if (!typeToken(Out.Args[0].TypeToken))
        return false;
      size_t CountAt = R.pos();
      uint32_t Count = R.count(1, "generic argument count larger than the signature");
      if (R.ok() && Count == 0) {
        failAt(CountAt, "generic instantiation with no arguments");
        return false;
      }
      Out.Args.resize(Count + 1);
      for (uint32_t I = 1; I <= Count; ++I)
        if (!type(Out.Args[I], Depth + 1))
          return false;
      return true;
    }
    case ElementType::FnPtr:
      Out.Method = std::make_shared<MethodSig>();
      return method(*Out.Method, Depth + 1);
    case ElementType::Internal:
      failAt(At, "ELEMENT_TYPE_INTERNAL cannot appear in a file");
      return false;
    case ElementType::Sentinel:
      failAt(At, "varargs sentinel outside a method's parameter list");
      return false;
    default: failAt(At, "unknown element type 0x" + hexstr(B, false, 2)); return false;
    }
  }

  bool method(MethodSig &Out, unsigned Depth, bool KeepParams = true) {
    size_t At = R.pos();
    Out.Flags = R.u8();
    if (!R.ok())
      return false;
    uint8_t K = Out.Flags & SigKindMask;
    if (K == SigField || K == SigLocal || K == SigProperty || K == SigGenericInst || K > 0xB ||
        (Out.Flags & 0x80)) {
      failAt(At, "calling convention byte 0x" + hexstr(Out.Flags, false, 2) +
                     " does not start a method signature");
      return false;
    }
    if (Out.isGeneric()) {
      Out.GenericParamCount = R.compressed();
      if (R.ok() && Out.GenericParamCount == 0) {
        failAt(At + 1, "generic method signature with no generic parameters");
        return false;
      }
    }
    return parameters(Out, Depth, /*AllowSentinel=*/true, KeepParams);
  }

  /// With \p Keep false, the parameters are checked but not kept (Params stays empty): each is
  /// decoded into one scratch type, which allocates only for the few that nest types.
  bool parameters(MethodSig &Out, unsigned Depth, bool AllowSentinel, bool Keep = true) {
    uint32_t Count = R.count(1, "parameter count larger than the signature");
    if (!R.ok() || !type(Out.Return, Depth))
      return false;
    Out.ParamCount = Count;
    Out.Params.resize(Keep ? Count : 0);
    TypeSig Scratch;
    for (uint32_t I = 0; I < Count; ++I) {
      if (R.has(1) && R.data()[R.pos()] == uint8_t(ElementType::Sentinel)) {
        if (!AllowSentinel || Out.SentinelIndex >= 0) {
          fail("unexpected varargs sentinel");
          return false;
        }
        R.u8();
        Out.SentinelIndex = int(I);
      }
      if (!Keep)
        Scratch = TypeSig();
      if (!type(Keep ? Out.Params[I] : Scratch, Depth))
        return false;
    }
    return true;
  }

  ByteReader R;
  const Module *M;
  SigKind Kind;
  std::string Detail;
};

} // namespace

Expected<MethodSig> decodeMethodSig(ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::Method);
  MethodSig S;
  D.method(S, 0);
  if (Error E = D.finish())
    return std::move(E);
  return S;
}

Expected<MethodSig> decodeMethodSigHead(ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                       const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::Method);
  MethodSig S;
  D.method(S, 0, /*KeepParams=*/false);
  if (Error E = D.finish())
    return std::move(E);
  return S;
}

Expected<TypeSig> decodeFieldSig(ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::Field);
  TypeSig T;
  uint8_t B = D.R.u8();
  if (D.R.ok() && (B & SigKindMask) != SigField)
    D.failAt(0, "first byte 0x" + hexstr(B, false, 2) + " is not FIELD (0x06)");
  if (D.R.ok())
    D.type(T, 0);
  if (Error E = D.finish())
    return std::move(E);
  return T;
}

Expected<MethodSig> decodePropertySig(ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                      const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::Property);
  MethodSig S;
  S.Flags = D.R.u8();
  if (D.R.ok() && (S.Flags & SigKindMask) != SigProperty)
    D.failAt(0, "first byte 0x" + hexstr(S.Flags, false, 2) + " is not PROPERTY (0x08)");
  if (D.R.ok())
    D.parameters(S, 0, /*AllowSentinel=*/false);
  if (Error E = D.finish())
    return std::move(E);
  return S;
}

static bool decodeLocals(Decoder &D, std::vector<TypeSig> &Locals) {
  size_t At = D.R.pos();
  uint32_t Count = D.R.count(1, "local variable count larger than the signature");
  if (D.R.ok() && Count > 0xFFFE) {
    D.failAt(At, Twine(Count) + " locals (at most 65534)");
    return false;
  }
  Locals.resize(Count);
  for (uint32_t I = 0; I < Count && D.R.ok(); ++I)
    D.type(Locals[I], 0);
  return D.R.ok();
}

Expected<std::vector<TypeSig>> decodeLocalsSig(ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                               const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::Locals);
  std::vector<TypeSig> Locals;
  uint8_t B = D.R.u8();
  if (D.R.ok() && B != SigLocal)
    D.failAt(0, "first byte 0x" + hexstr(B, false, 2) + " is not LOCAL_SIG (0x07)");
  if (D.R.ok())
    decodeLocals(D, Locals);
  if (Error E = D.finish())
    return std::move(E);
  return Locals;
}

Expected<TypeSig> decodeTypeSpec(ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::TypeSpec);
  TypeSig T;
  D.type(T, 0);
  if (Error E = D.finish())
    return std::move(E);
  return T;
}

Expected<std::vector<TypeSig>> decodeMethodSpec(ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                                const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::MethodSpec);
  std::vector<TypeSig> Args;
  uint8_t B = D.R.u8();
  if (D.R.ok() && B != SigGenericInst)
    D.failAt(0, "first byte 0x" + hexstr(B, false, 2) + " is not GENERICINST (0x0A)");
  uint32_t Count = D.R.count(1, "generic argument count larger than the signature");
  if (D.R.ok() && Count == 0)
    D.failAt(1, "method instantiation with no arguments");
  Args.resize(Count);
  for (uint32_t I = 0; I < Count && D.R.ok(); ++I)
    D.type(Args[I], 0);
  if (Error E = D.finish())
    return std::move(E);
  return Args;
}

Expected<StandAloneSig> decodeStandAloneSig(ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                            const Module *M) {
  Decoder D(Blob, FileOffset, M, SigKind::StandAlone);
  StandAloneSig S;
  if (!Blob.empty() && Blob[0] == SigLocal) {
    S.IsLocals = true;
    D.R.u8();
    decodeLocals(D, S.Locals);
  } else {
    D.method(S.Method, 0);
  }
  if (Error E = D.finish())
    return std::move(E);
  return S;
}

Expected<MethodSig> methodDefSig(const Module &M, uint32_t MethodRow) {
  uint32_t Blob = M.get(TableId::MethodDef, MethodRow, MethodDefCol::Signature);
  return decodeMethodSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
}

Expected<MethodSig> methodDefSigHead(const Module &M, uint32_t MethodRow) {
  uint32_t Blob = M.get(TableId::MethodDef, MethodRow, MethodDefCol::Signature);
  return decodeMethodSigHead(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
}

Expected<MethodSig> memberRefMethodSig(const Module &M, uint32_t MemberRefRow) {
  uint32_t Blob = M.get(TableId::MemberRef, MemberRefRow, MemberRefCol::Signature);
  return decodeMethodSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
}

Expected<TypeSig> fieldDefSig(const Module &M, uint32_t FieldRow) {
  uint32_t Blob = M.get(TableId::Field, FieldRow, FieldCol::Signature);
  return decodeFieldSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
}

Expected<TypeSig> typeSpecSig(const Module &M, uint32_t TypeSpecRow) {
  uint32_t Blob = M.get(TableId::TypeSpec, TypeSpecRow, TypeSpecCol::Signature);
  return decodeTypeSpec(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
}

void appendCompressedSigned(std::vector<uint8_t> &Out, int32_t V) {
  // The sign goes into bit 0 and the magnitude is cut to the width the value needs.
  if (V >= -0x40 && V < 0x40)
    return appendCompressed(Out, ((uint32_t(V) & 0x3F) << 1) | (V < 0));
  if (V >= -0x2000 && V < 0x2000)
    return appendCompressed(Out, ((uint32_t(V) & 0x1FFF) << 1) | (V < 0));
  appendCompressed(Out, ((uint32_t(V) & 0x0FFFFFFF) << 1) | (V < 0));
}

void encodeTypeSig(const TypeSig &T, std::vector<uint8_t> &Out) {
  Out.push_back(uint8_t(T.Kind));
  switch (T.Kind) {
  case ElementType::Ptr:
  case ElementType::ByRef:
  case ElementType::SZArray:
  case ElementType::Pinned: return encodeTypeSig(T.element(), Out);
  case ElementType::CModReqd:
  case ElementType::CModOpt:
    appendTypeDefOrRefEncoded(Out, T.TypeToken);
    return encodeTypeSig(T.element(), Out);
  case ElementType::ValueType:
  case ElementType::Class: return appendTypeDefOrRefEncoded(Out, T.TypeToken);
  case ElementType::Var:
  case ElementType::MVar: return appendCompressed(Out, T.Number);
  case ElementType::Array:
    encodeTypeSig(T.element(), Out);
    appendCompressed(Out, T.Number);
    appendCompressed(Out, uint32_t(T.Sizes.size()));
    for (uint32_t S : T.Sizes)
      appendCompressed(Out, S);
    appendCompressed(Out, uint32_t(T.LowerBounds.size()));
    for (int32_t B : T.LowerBounds)
      appendCompressedSigned(Out, B);
    return;
  case ElementType::GenericInst:
    Out.push_back(uint8_t(T.Args[0].Kind));
    appendTypeDefOrRefEncoded(Out, T.Args[0].TypeToken);
    appendCompressed(Out, uint32_t(T.Args.size() - 1));
    for (size_t I = 1; I < T.Args.size(); ++I)
      encodeTypeSig(T.Args[I], Out);
    return;
  case ElementType::FnPtr: return encodeMethodSig(*T.Method, Out);
  default: return; // the primitive types, string, object, typedref: the element type alone
  }
}

void encodeMethodSig(const MethodSig &S, std::vector<uint8_t> &Out) {
  Out.push_back(S.Flags);
  if (S.isGeneric())
    appendCompressed(Out, S.GenericParamCount);
  appendCompressed(Out, uint32_t(S.Params.size()));
  encodeTypeSig(S.Return, Out);
  for (size_t I = 0; I < S.Params.size(); ++I) {
    if (int(I) == S.SentinelIndex)
      Out.push_back(uint8_t(ElementType::Sentinel));
    encodeTypeSig(S.Params[I], Out);
  }
}

namespace {
const char *primitive(ElementType T, bool WithNamespace) {
  switch (T) {
#define WEFT_PRIMITIVE(Kind, Name)                                                                \
  case ElementType::Kind: return WithNamespace ? "System." Name : Name;
    WEFT_PRIMITIVE(Void, "Void")
    WEFT_PRIMITIVE(Boolean, "Boolean")
    WEFT_PRIMITIVE(Char, "Char")
    WEFT_PRIMITIVE(I1, "SByte")
    WEFT_PRIMITIVE(U1, "Byte")
    WEFT_PRIMITIVE(I2, "Int16")
    WEFT_PRIMITIVE(U2, "UInt16")
    WEFT_PRIMITIVE(I4, "Int32")
    WEFT_PRIMITIVE(U4, "UInt32")
    WEFT_PRIMITIVE(I8, "Int64")
    WEFT_PRIMITIVE(U8, "UInt64")
    WEFT_PRIMITIVE(R4, "Single")
    WEFT_PRIMITIVE(R8, "Double")
    WEFT_PRIMITIVE(String, "String")
    WEFT_PRIMITIVE(I, "IntPtr")
    WEFT_PRIMITIVE(U, "UIntPtr")
    WEFT_PRIMITIVE(Object, "Object")
    WEFT_PRIMITIVE(TypedByRef, "TypedReference")
#undef WEFT_PRIMITIVE
  default: return nullptr;
  }
}
} // namespace

const char *primitiveTypeName(ElementType T) { return primitive(T, false); }
const char *primitiveFullName(ElementType T) { return primitive(T, true); }

} // namespace weft::metadata
