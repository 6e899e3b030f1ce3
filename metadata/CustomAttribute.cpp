//===- metadata/CustomAttribute.cpp - Custom attribute blobs --------------===//
#include "metadata/CustomAttribute.h"

#include "metadata/Names.h"
#include "metadata/Resolver.h"
#include "support/ByteReader.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace llvm;

namespace weft::metadata {

namespace {

constexpr unsigned MaxDepth = 8; // arrays of boxed values of arrays ... are not nested deeper

bool isSystemType(const Module &M, Token T) {
  StringRef Name, Ns;
  if (tokenTable(T) == TableId::TypeRef && M.isValidToken(T)) {
    Name = M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeName));
    Ns = M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeNamespace));
  } else if (tokenTable(T) == TableId::TypeDef && M.isValidToken(T)) {
    Name = M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeName));
    Ns = M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeNamespace));
  }
  return Ns == "System" && Name == "Type";
}

class CADecoder {
public:
  CADecoder(const Module &M, ArrayRef<uint8_t> Blob, uint64_t Offset, AssemblyResolver &Res,
            ArrayRef<TypeSig> TypeArgs)
      : M(M), R(Blob, Offset), Res(Res), TypeArgs(TypeArgs) {}

  bool fail(const Twine &Why) {
    if (R.ok()) {
      Detail = Why.str();
      R.fail("malformed custom attribute");
    }
    return false;
  }

  Error finish(StringRef What) {
    if (R.ok())
      return Error::success();
    return formatError(What, R.failureOffset(), Detail.empty() ? R.failure() : Detail);
  }

  bool enumUnderlying(CAType &T) {
    std::optional<ElementType> U;
    if (T.EnumToken)
      U = Res.enumUnderlyingType(M, T.EnumToken);
    else
      U = Res.enumUnderlyingTypeByName(M, T.EnumName);
    if (!U) {
      U = Guess;
      Guessed = true;
    }
    if (*U == ElementType::I || *U == ElementType::U)
      return fail("enum with a native-sized underlying type in a custom attribute");
    T.Underlying = *U;
    return true;
  }

  bool typeFromSig(const TypeSig &In, CAType &Out, unsigned Depth) {
    const TypeSig &T = In.stripped();
    if (Depth > MaxDepth)
      return fail("custom attribute parameter type nests too deeply");
    if (primitiveSize(T.Kind) || T.Kind == ElementType::String) {
      Out.Kind = T.Kind;
      return true;
    }
    switch (T.Kind) {
    case ElementType::Object: Out.Kind = ElementType::Boxed; return true;
    case ElementType::Class:
      if (isSystemType(M, T.TypeToken)) {
        Out.Kind = ElementType::SystemType;
        return true;
      }
      return fail("parameter of class type (not System.Type) cannot be encoded");
    case ElementType::ValueType:
      Out.Kind = ElementType::Enum;
      Out.EnumToken = T.TypeToken;
      return enumUnderlying(Out);
    case ElementType::SZArray:
      Out.Kind = ElementType::SZArray;
      Out.Element = std::make_shared<CAType>();
      return typeFromSig(T.element(), *Out.Element, Depth + 1);
    case ElementType::Var:
      if (T.Number < TypeArgs.size())
        return typeFromSig(TypeArgs[T.Number], Out, Depth + 1);
      return fail("generic parameter !" + Twine(T.Number) + " has no argument");
    default:
      return fail("parameter of element type 0x" + hexstr(uint8_t(T.Kind), false, 2) +
                  " cannot be encoded");
    }
  }

  bool serString(std::string &Out, bool &Null) {
    if (R.has(1) && R.data()[R.pos()] == 0xFF) {
      R.u8();
      Null = true;
      return true;
    }
    uint32_t Len = R.compressed();
    if (R.ok() && Len > R.remaining())
      return fail("string of length " + Twine(Len) + " runs past the end of the blob");
    Out = R.chars(Len).str();
    Null = false;
    return R.ok();
  }

  bool typeFromBlob(CAType &Out, unsigned Depth) {
    if (Depth > MaxDepth)
      return fail("custom attribute value type nests too deeply");
    size_t At = R.pos();
    uint8_t B = R.u8();
    if (!R.ok())
      return false;
    ElementType K = ElementType(B);
    if (primitiveSize(K) || K == ElementType::String || K == ElementType::SystemType ||
        K == ElementType::Boxed) {
      Out.Kind = K;
      return true;
    }
    if (K == ElementType::SZArray) {
      Out.Kind = K;
      Out.Element = std::make_shared<CAType>();
      return typeFromBlob(*Out.Element, Depth + 1);
    }
    if (K == ElementType::Enum) {
      Out.Kind = K;
      bool Null = false;
      if (!serString(Out.EnumName, Null))
        return false;
      if (Null || Out.EnumName.empty())
        return fail("enum type with no name");
      return enumUnderlying(Out);
    }
    R.failAt(At, "malformed custom attribute");
    Detail = "unknown value type 0x" + hexstr(B, false, 2);
    return false;
  }

  bool value(const CAType &T, CAValue &Out, unsigned Depth) {
    Out.Type = T;
    ElementType K = T.Kind == ElementType::Enum ? T.Underlying : T.Kind;
    if (unsigned Size = primitiveSize(K)) {
      switch (Size) {
      case 1: Out.Bits = R.u8(); break;
      case 2: Out.Bits = R.u16(); break;
      case 4: Out.Bits = R.u32(); break;
      default: Out.Bits = R.u64(); break;
      }
      return R.ok();
    }
    switch (K) {
    case ElementType::String:
    case ElementType::SystemType: return serString(Out.Text, Out.Null);
    case ElementType::Boxed: {
      if (Depth > MaxDepth)
        return fail("boxed values nest too deeply");
      CAType Inner;
      if (!typeFromBlob(Inner, Depth + 1))
        return false;
      Out.Boxed = std::make_shared<CAValue>();
      return value(Inner, *Out.Boxed, Depth + 1);
    }
    case ElementType::SZArray: {
      if (Depth > MaxDepth)
        return fail("arrays nest too deeply");
      uint32_t Count = R.u32();
      if (!R.ok())
        return false;
      if (Count == 0xFFFFFFFF) {
        Out.Null = true;
        return true;
      }
      if (Count > R.remaining())
        return fail("array of " + Twine(Count) + " elements is longer than the blob");
      Out.Elements.resize(Count);
      for (uint32_t I = 0; I < Count; ++I)
        if (!value(*T.Element, Out.Elements[I], Depth + 1))
          return false;
      return true;
    }
    default: return fail("value of unsupported type");
    }
  }

  bool named(std::vector<CANamedArg> &Out) {
    uint16_t Count = R.u16();
    if (!R.ok())
      return false;
    if (Count > R.remaining())
      return fail(Twine(Count) + " named arguments do not fit in the blob");
    Out.resize(Count);
    for (CANamedArg &A : Out) {
      size_t At = R.pos();
      uint8_t Kind = R.u8();
      if (!R.ok())
        return false;
      if (Kind != uint8_t(ElementType::CAField) && Kind != uint8_t(ElementType::CAProperty)) {
        R.failAt(At, "malformed custom attribute");
        Detail = "named argument kind 0x" + hexstr(Kind, false, 2) +
                 " is neither FIELD (0x53) nor PROPERTY (0x54)";
        return false;
      }
      A.IsProperty = Kind == uint8_t(ElementType::CAProperty);
      CAType T;
      bool Null = false;
      if (!typeFromBlob(T, 0) || !serString(A.Name, Null))
        return false;
      if (Null)
        return fail("named argument without a name");
      if (!value(T, A.Value, 0))
        return false;
    }
    return true;
  }

  const Module &M;
  ByteReader R;
  AssemblyResolver &Res;
  ArrayRef<TypeSig> TypeArgs;
  std::string Detail;
  ElementType Guess = ElementType::I4; // the size assumed for enums that cannot be found
  bool Guessed = false;
};

} // namespace

Expected<MethodSig> customAttributeConstructor(const Module &M, uint32_t Row) {
  Token Ctor = M.getToken(TableId::CustomAttribute, Row, CustomAttributeCol::Type);
  if (tokenTable(Ctor) == TableId::MethodDef)
    return methodDefSig(M, tokenRow(Ctor));
  return memberRefMethodSig(M, tokenRow(Ctor));
}

Token customAttributeType(const Module &M, Token Ctor) {
  if (!M.isValidToken(Ctor))
    return 0;
  if (tokenTable(Ctor) == TableId::MethodDef)
    return makeToken(TableId::TypeDef, M.declaringTypeOfMethod(tokenRow(Ctor)));
  if (tokenTable(Ctor) == TableId::MemberRef)
    return M.getToken(TableId::MemberRef, tokenRow(Ctor), MemberRefCol::Class);
  return 0;
}

// The generic arguments of the attribute type (for generic attributes, whose constructor
// signatures use !0, !1, ...).
static std::vector<TypeSig> attributeTypeArgs(const Module &M, Token Ctor) {
  if (tokenTable(Ctor) != TableId::MemberRef)
    return {};
  Token Parent = M.getToken(TableId::MemberRef, tokenRow(Ctor), MemberRefCol::Class);
  if (tokenTable(Parent) != TableId::TypeSpec || !M.isValidToken(Parent))
    return {};
  Expected<TypeSig> S = typeSpecSig(M, tokenRow(Parent));
  if (!S) {
    consumeError(S.takeError());
    return {};
  }
  if (S->Kind != ElementType::GenericInst)
    return {};
  return std::vector<TypeSig>(S->Args.begin() + 1, S->Args.end());
}

// One attempt, with \p Guess as the size of enums the resolver cannot find.
static Expected<CustomAttributeValue> decodeOnce(const Module &M, ArrayRef<uint8_t> Blob,
                                                 uint64_t FileOffset, const MethodSig *Ctor,
                                                 ArrayRef<TypeSig> TypeArgs, AssemblyResolver &Res,
                                                 ElementType Guess, bool &Guessed) {
  CADecoder D(M, Blob, FileOffset, Res, TypeArgs);
  D.Guess = Guess;
  CustomAttributeValue V;
  uint16_t Prolog = D.R.u16();
  if (D.R.ok() && Prolog != 1)
    D.fail("prolog is 0x" + hexstr(Prolog, false, 4) + ", not 0x0001");
  if (Ctor) {
    V.Fixed.resize(Ctor->Params.size());
    for (size_t I = 0; I < Ctor->Params.size() && D.R.ok(); ++I) {
      CAType T;
      if (D.typeFromSig(Ctor->Params[I], T, 0))
        D.value(T, V.Fixed[I], 0);
    }
  }
  if (D.R.ok() && !D.R.atEnd())
    D.named(V.Named);
  if (D.R.ok() && !D.R.atEnd())
    D.fail(Twine(D.R.remaining()) + " bytes left over after the last argument");
  Guessed = D.Guessed;
  V.GuessedEnumSize = D.Guessed;
  if (Error E = D.finish("custom attribute blob"))
    return std::move(E);
  return V;
}

Expected<CustomAttributeValue> decodeCustomAttributeBlob(const Module &M, ArrayRef<uint8_t> Blob,
                                                         uint64_t FileOffset, const MethodSig *Ctor,
                                                         ArrayRef<TypeSig> TypeArgs,
                                                         AssemblyResolver *Resolver) {
  AssemblyResolver Local;
  AssemblyResolver &Res = Resolver ? *Resolver : Local;
  bool Guessed = false;
  Expected<CustomAttributeValue> First =
      decodeOnce(M, Blob, FileOffset, Ctor, TypeArgs, Res, ElementType::I4, Guessed);
  if (First || !Guessed)
    return First;
  // An enum from an assembly that is not at hand: int32 is the usual size, but try the others
  // before giving up; the first that accounts for every byte of the blob wins.
  for (ElementType G : {ElementType::U1, ElementType::I2, ElementType::I8}) {
    Expected<CustomAttributeValue> V =
        decodeOnce(M, Blob, FileOffset, Ctor, TypeArgs, Res, G, Guessed);
    if (V) {
      consumeError(First.takeError());
      return V;
    }
    consumeError(V.takeError());
  }
  return First;
}

Expected<CustomAttributeValue> decodeCustomAttribute(const Module &M, uint32_t Row,
                                                     AssemblyResolver *Resolver) {
  Expected<MethodSig> Ctor = customAttributeConstructor(M, Row);
  if (!Ctor)
    return Ctor.takeError();
  uint32_t Blob = M.get(TableId::CustomAttribute, Row, CustomAttributeCol::Value);
  std::vector<TypeSig> Args =
      attributeTypeArgs(M, M.getToken(TableId::CustomAttribute, Row, CustomAttributeCol::Type));
  return decodeCustomAttributeBlob(M, M.getBlob(Blob), M.blobFileOffset(Blob), &*Ctor, Args,
                                   Resolver);
}

Expected<std::vector<CANamedArg>> decodeNamedArguments(const Module &M, ArrayRef<uint8_t> Blob,
                                                       uint64_t FileOffset,
                                                       AssemblyResolver *Resolver) {
  AssemblyResolver Local;
  AssemblyResolver &Res = Resolver ? *Resolver : Local;
  CADecoder D(M, Blob, FileOffset, Res, {});
  std::vector<CANamedArg> Out;
  uint32_t Count = D.R.count(1, "named argument count larger than the blob");
  Out.resize(Count);
  for (CANamedArg &A : Out) {
    if (!D.R.ok())
      break;
    uint8_t Kind = D.R.u8();
    if (D.R.ok() && Kind != uint8_t(ElementType::CAField) &&
        Kind != uint8_t(ElementType::CAProperty)) {
      D.fail("named argument kind 0x" + hexstr(Kind, false, 2) +
             " is neither FIELD (0x53) nor PROPERTY (0x54)");
      break;
    }
    A.IsProperty = Kind == uint8_t(ElementType::CAProperty);
    CAType T;
    bool Null = false;
    if (D.typeFromBlob(T, 0) && D.serString(A.Name, Null))
      D.value(T, A.Value, 0);
  }
  if (Error E = D.finish("named arguments blob"))
    return std::move(E);
  return Out;
}

// --- printing ---
//
// The text is what ILAsm reads back to the same bytes. A System.Type value and an enum type named
// in the blob are written as `class '...'`, which ILAsm stores as it is: the name in the blob is a
// serialized (reflection) type name (`Ns.Outer+Inner, Assembly`), which ILAsm's class-name form
// would look up as a type of its own and fail to find.

void writeCAType(raw_ostream &OS, const CAType &T, const NamePrinter &Names) {
  switch (T.Kind) {
  case ElementType::SystemType: OS << "type"; return;
  case ElementType::Boxed: OS << "object"; return;
  case ElementType::Enum:
    OS << "enum ";
    if (T.EnumToken) {
      Names.typeToken(OS, T.EnumToken, GenericContext{});
      return;
    }
    OS << "class ";
    writeSingleQuoted(OS, T.EnumName);
    return;
  case ElementType::SZArray:
    writeCAType(OS, *T.Element, Names);
    OS << "[]";
    return;
  default:
    if (const char *P = primitiveName(T.Kind))
      OS << P;
    return;
  }
}

static void writeScalar(raw_ostream &OS, ElementType K, uint64_t Bits) {
  switch (K) {
  case ElementType::Boolean: OS << (Bits ? "true" : "false"); return;
  case ElementType::I1: OS << int64_t(int8_t(Bits)); return;
  case ElementType::I2: OS << int64_t(int16_t(Bits)); return;
  case ElementType::I4: OS << int64_t(int32_t(Bits)); return;
  case ElementType::I8: OS << int64_t(Bits); return;
  case ElementType::R4: {
    float F;
    uint32_t B = uint32_t(Bits);
    std::memcpy(&F, &B, 4);
    writeFloat32(OS, F);
    return;
  }
  case ElementType::R8: {
    double D;
    std::memcpy(&D, &Bits, 8);
    writeFloat64(OS, D);
    return;
  }
  default: OS << Bits; return; // unsigned types and char
  }
}

// The kind a value is written as: an enum as its underlying integer type, since the blob holds
// nothing else (the enum's name, where the blob has one, is written with the argument's type).
static ElementType valueKind(const CAType &T) {
  return T.Kind == ElementType::Enum ? T.Underlying : T.Kind;
}

// An element of an array: ILAsm writes bare numbers and quoted strings there.
static void writeBare(raw_ostream &OS, const CAValue &V, const NamePrinter &Names) {
  switch (valueKind(V.Type)) {
  case ElementType::String:
    if (V.Null)
      OS << "nullref";
    else
      writeSingleQuoted(OS, V.Text);
    return;
  case ElementType::SystemType:
    if (V.Null) {
      OS << "nullref";
      return;
    }
    OS << "class ";
    writeSingleQuoted(OS, V.Text);
    return;
  case ElementType::Boxed:
    if (V.Boxed)
      writeCAValue(OS, *V.Boxed, Names);
    return;
  default: writeScalar(OS, valueKind(V.Type), V.Bits);
  }
}

void writeCAValue(raw_ostream &OS, const CAValue &V, const NamePrinter &Names) {
  ElementType K = valueKind(V.Type);
  switch (K) {
  case ElementType::String: OS << "string("; break;
  case ElementType::SystemType: OS << "type("; break;
  case ElementType::Boxed: OS << "object("; break;
  case ElementType::SZArray: {
    // Elements of an enum array are written as the underlying type's, as single enums are. The
    // count of a null array is -1 (0xFFFFFFFF, what the blob holds); ILAsm writes the count it is
    // given.
    const CAType &E = *V.Type.Element;
    if (E.Kind == ElementType::Enum)
      OS << primitiveName(E.Underlying);
    else
      writeCAType(OS, E, Names);
    if (V.Null) {
      OS << "[-1]()";
      return;
    }
    OS << '[' << V.Elements.size() << "](";
    for (size_t I = 0; I < V.Elements.size(); ++I) {
      if (I)
        OS << ' ';
      writeBare(OS, V.Elements[I], Names);
    }
    OS << ')';
    return;
  }
  default:
    if (const char *P = primitiveName(K))
      OS << P << '(';
    break;
  }
  writeBare(OS, V, Names);
  OS << ')';
}

void writeNamedArgument(raw_ostream &OS, const CANamedArg &A, const NamePrinter &Names) {
  OS << (A.IsProperty ? "property " : "field ");
  writeCAType(OS, A.Value.Type, Names);
  OS << ' ';
  writeSingleQuoted(OS, A.Name);
  OS << " = ";
  writeCAValue(OS, A.Value, Names);
}

void writeCustomAttributeValue(raw_ostream &OS, const CustomAttributeValue &V,
                               const NamePrinter &Names) {
  OS << '{';
  bool First = true;
  for (const CAValue &A : V.Fixed) {
    if (!First)
      OS << ' ';
    First = false;
    writeCAValue(OS, A, Names);
  }
  for (const CANamedArg &N : V.Named) {
    if (!First)
      OS << ' ';
    First = false;
    writeNamedArgument(OS, N, Names);
  }
  OS << '}';
}

// A boxed value carries its type in the blob, and ILAsm's `object(...)` can give it only for the
// types its value forms name: primitives, strings, types, and arrays of those.
static bool boxedTypeWritable(const CAType &T) {
  if (T.Kind == ElementType::Enum)
    return false;
  if (T.Kind == ElementType::SZArray)
    return boxedTypeWritable(*T.Element);
  return true;
}

static bool boxedWritable(const CAValue &V) {
  if (V.Boxed && (!boxedTypeWritable(V.Boxed->Type) || !boxedWritable(*V.Boxed)))
    return false;
  return all_of(V.Elements, boxedWritable);
}

// ILAsm ends a quoted string at a NUL character.
static bool hasNul(StringRef S) { return S.contains('\0'); }

static bool stringsWritable(const CAValue &V) {
  if (hasNul(V.Text) || hasNul(V.Type.EnumName))
    return false;
  if (V.Boxed && !stringsWritable(*V.Boxed))
    return false;
  return all_of(V.Elements, stringsWritable);
}

const char *customAttributeNotWritable(const CustomAttributeValue &V) {
  auto Named = [&](auto Check) {
    return all_of(V.Named, [&](const CANamedArg &A) { return Check(A.Value); });
  };
  if (!all_of(V.Fixed, boxedWritable) || !Named(boxedWritable))
    return "a boxed enum, which ILAsm's verbal form cannot write";
  if (!all_of(V.Fixed, stringsWritable) || !Named(stringsWritable) ||
      any_of(V.Named, [](const CANamedArg &A) { return hasNul(A.Name); }))
    return "a string with a NUL character, where ILAsm's quoted strings end";
  return nullptr;
}

} // namespace weft::metadata
