//===- metadata/Names.cpp - Names and types in ILAsm syntax ---------------===//
#include "metadata/Names.h"

#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <bitset>
#include <charconv>
#include <cstring>
#include <vector>

using namespace llvm;

namespace weft::metadata {

namespace {

// Type names and signatures can refer to themselves in broken files (a TypeSpec whose blob names
// itself, a TypeRef scoped to itself); printing stops at this depth.
constexpr unsigned MaxPrintDepth = 48;

const std::vector<StringRef> &keywords() {
  static const std::vector<StringRef> K = [] {
    std::vector<StringRef> V = {
#define KEYWORD(Text) Text,
#include "metadata/IlasmKeywords.def"
    };
    std::sort(V.begin(), V.end());
    return V;
  }();
  return K;
}

/// The characters the keywords are made of: a name with any other is not one of them (most
/// names, having capitals), and needs no search.
const std::bitset<256> &keywordChars() {
  static const std::bitset<256> Chars = [] {
    std::bitset<256> B;
    for (StringRef K : keywords())
      for (char C : K)
        B.set(uint8_t(C));
    return B;
  }();
  return Chars;
}

bool isIdStart(char C) {
  return isAlpha(C) || C == '_' || C == '$' || C == '@' || C == '`' || C == '?';
}
bool isIdChar(char C) { return isIdStart(C) || isDigit(C); }

} // namespace

bool needsQuotes(StringRef Name) {
  if (Name.empty())
    return true;
  if (Name == ".ctor" || Name == ".cctor")
    return false;
  // Every dot-separated part must be an identifier.
  const std::bitset<256> &KeywordChars = keywordChars();
  bool MayBeKeyword = true;
  size_t Start = 0;
  while (true) {
    size_t Dot = Name.find('.', Start);
    StringRef Part = Name.slice(Start, Dot);
    if (Part.empty() || !isIdStart(Part[0]))
      return true;
    for (char C : Part.drop_front())
      if (!isIdChar(C))
        return true;
    for (char C : Part)
      MayBeKeyword = MayBeKeyword && KeywordChars[uint8_t(C)];
    if (Dot == StringRef::npos)
      break;
    Start = Dot + 1;
  }
  return MayBeKeyword && std::binary_search(keywords().begin(), keywords().end(), Name);
}

static void writeEscapedChar(raw_ostream &OS, unsigned char C, char Quote) {
  switch (C) {
  case '\\': OS << "\\\\"; return;
  case '\t': OS << "\\t"; return;
  case '\n': OS << "\\n"; return;
  case '\r': OS << "\\r"; return;
  case '\b': OS << "\\b"; return;
  case '\f': OS << "\\f"; return;
  case '\v': OS << "\\v"; return;
  case '\a': OS << "\\a"; return;
  default: break;
  }
  if (C == (unsigned char)Quote) {
    OS << '\\' << Quote;
    return;
  }
  if (C < 0x20 || C == 0x7F) {
    OS << '\\' << char('0' + ((C >> 6) & 7)) << char('0' + ((C >> 3) & 7)) << char('0' + (C & 7));
    return;
  }
  OS << char(C); // UTF-8 bytes go out as they are
}

void writeSingleQuoted(raw_ostream &OS, StringRef Text) {
  OS << '\'';
  for (char C : Text)
    writeEscapedChar(OS, (unsigned char)C, '\'');
  OS << '\'';
}

void writeDoubleQuoted(raw_ostream &OS, StringRef Text) {
  OS << '"';
  for (char C : Text)
    writeEscapedChar(OS, (unsigned char)C, '"');
  OS << '"';
}

void writeId(raw_ostream &OS, StringRef Name) {
  if (needsQuotes(Name))
    writeSingleQuoted(OS, Name);
  else
    OS << Name;
}

void writeByteList(raw_ostream &OS, ArrayRef<uint8_t> Bytes) {
  OS << '(';
  for (size_t I = 0; I < Bytes.size(); ++I) {
    if (I)
      OS << ' ';
    OS << format_hex_no_prefix(Bytes[I], 2, /*Upper=*/true);
  }
  OS << ')';
}

void writeUserString(raw_ostream &OS, ArrayRef<uint8_t> Utf16) {
  bool Plain = true;
  for (size_t I = 0; I + 1 < Utf16.size(); I += 2) {
    uint16_t C = support::endian::read16le(Utf16.data() + I);
    if (!((C >= 0x20 && C < 0x7F) || C == '\t' || C == '\n' || C == '\r')) {
      Plain = false;
      break;
    }
  }
  if (!Plain) {
    OS << "bytearray ";
    writeByteList(OS, Utf16);
    return;
  }
  OS << '"';
  for (size_t I = 0; I + 1 < Utf16.size(); I += 2)
    writeEscapedChar(OS, (unsigned char)Utf16[I], '"');
  OS << '"';
}

template <typename T> static void writeFloatImpl(raw_ostream &OS, T V) {
  char Buf[64];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof Buf, V);
  StringRef S(Buf, End - Buf);
  // ILAsm needs a '.' to read a real number: 2 -> 2., 1e+100 -> 1.e+100.
  if (S.find('.') == StringRef::npos) {
    size_t E = S.find('e');
    OS << S.substr(0, E) << '.' << (E == StringRef::npos ? StringRef() : S.substr(E));
  } else {
    OS << S;
  }
}

void writeFloat32(raw_ostream &OS, float F) {
  if (!std::isfinite(F)) {
    uint32_t Bits;
    std::memcpy(&Bits, &F, 4);
    OS << format_hex(Bits, 10, /*Upper=*/true);
    return;
  }
  writeFloatImpl(OS, F);
}

void writeFloat64(raw_ostream &OS, double D) {
  if (!std::isfinite(D)) {
    uint64_t Bits;
    std::memcpy(&Bits, &D, 8);
    OS << format_hex(Bits, 18, /*Upper=*/true);
    return;
  }
  writeFloatImpl(OS, D);
}

const char *primitiveName(ElementType T) {
  switch (T) {
  case ElementType::Void: return "void";
  case ElementType::Boolean: return "bool";
  case ElementType::Char: return "char";
  case ElementType::I1: return "int8";
  case ElementType::U1: return "uint8";
  case ElementType::I2: return "int16";
  case ElementType::U2: return "uint16";
  case ElementType::I4: return "int32";
  case ElementType::U4: return "uint32";
  case ElementType::I8: return "int64";
  case ElementType::U8: return "uint64";
  case ElementType::R4: return "float32";
  case ElementType::R8: return "float64";
  case ElementType::String: return "string";
  case ElementType::Object: return "object";
  case ElementType::I: return "native int";
  case ElementType::U: return "native uint";
  case ElementType::TypedByRef: return "typedref";
  default: return nullptr;
  }
}

void writeBadSignature(raw_ostream &OS, Error E) {
  OS << "<bad signature: " << toString(std::move(E)) << '>';
}

// --- NamePrinter ---

void NamePrinter::typeName(raw_ostream &OS, StringRef Namespace, StringRef Name) const {
  if (!Namespace.empty()) {
    writeId(OS, Namespace);
    OS << '.';
  }
  writeId(OS, Name);
}

void NamePrinter::typeDefName(raw_ostream &OS, uint32_t Row) const { typeDefNameImpl(OS, Row, 0); }

void NamePrinter::typeDefNameImpl(raw_ostream &OS, uint32_t Row, unsigned Depth) const {
  if (Row == 0 || Row > M.rowCount(TableId::TypeDef)) {
    OS << "<bad TypeDef " << Row << '>';
    return;
  }
  if (uint32_t Enclosing = M.enclosingType(Row)) {
    if (Depth >= MaxPrintDepth || Enclosing == Row) {
      OS << "<nesting cycle>";
      return;
    }
    typeDefNameImpl(OS, Enclosing, Depth + 1);
    OS << '/';
  }
  typeName(OS, M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)),
           M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)));
}

void NamePrinter::scope(raw_ostream &OS, Token Scope) const {
  uint32_t Row = tokenRow(Scope);
  if (Row == 0)
    return;
  switch (tokenTable(Scope)) {
  case TableId::AssemblyRef:
    OS << '[';
    writeId(OS, M.getString(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::Name)));
    OS << ']';
    break;
  case TableId::ModuleRef:
    OS << "[.module ";
    writeId(OS, M.getString(M.get(TableId::ModuleRef, Row, ModuleRefCol::Name)));
    OS << ']';
    break;
  default: // the module itself
    break;
  }
}

void NamePrinter::typeRefName(raw_ostream &OS, uint32_t Row) const { typeRefNameImpl(OS, Row, 0); }

void NamePrinter::typeRefNameImpl(raw_ostream &OS, uint32_t Row, unsigned Depth) const {
  if (Row == 0 || Row > M.rowCount(TableId::TypeRef)) {
    OS << "<bad TypeRef " << Row << '>';
    return;
  }
  Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
  if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope)) {
    if (Depth >= MaxPrintDepth || tokenRow(Scope) == Row) {
      OS << "<scope cycle>";
      return;
    }
    typeRefNameImpl(OS, tokenRow(Scope), Depth + 1);
    OS << '/';
  } else {
    scope(OS, Scope);
  }
  typeName(OS, M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)),
           M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName)));
}

StringRef NamePrinter::genericParamName(Token Owner, uint32_t Number) const {
  for (uint32_t GP : M.genericParams(Owner))
    if (M.get(TableId::GenericParam, GP, GenericParamCol::Number) == Number)
      return M.getString(M.get(TableId::GenericParam, GP, GenericParamCol::Name));
  return {};
}

void NamePrinter::typeToken(raw_ostream &OS, Token T, const GenericContext &Ctx) const {
  switch (tokenTable(T)) {
  case TableId::TypeDef: typeDefName(OS, tokenRow(T)); return;
  case TableId::TypeRef: typeRefName(OS, tokenRow(T)); return;
  case TableId::TypeSpec: {
    if (!M.isValidToken(T))
      break;
    Expected<TypeSig> S = typeSpecSig(M, tokenRow(T));
    if (!S)
      return writeBadSignature(OS, S.takeError());
    type(OS, *S, Ctx);
    return;
  }
  default: break;
  }
  OS << "<bad type token " << format_hex(T, 10) << '>';
}

void NamePrinter::type(raw_ostream &OS, const TypeSig &T, const GenericContext &Ctx) const {
  typeImpl(OS, T, Ctx, 0);
}

void NamePrinter::typeImpl(raw_ostream &OS, const TypeSig &T, const GenericContext &Ctx,
                           unsigned Depth) const {
  if (Depth > MaxPrintDepth) {
    OS << "<too deep>";
    return;
  }
  if (const char *P = primitiveName(T.Kind)) {
    OS << P;
    return;
  }
  auto Inner = [&](const TypeSig &E) { typeImpl(OS, E, Ctx, Depth + 1); };
  auto NamedToken = [&](Token Tok) {
    // A TypeSpec where a TypeDef or TypeRef belongs: print the type it specifies.
    if (tokenTable(Tok) == TableId::TypeSpec && M.isValidToken(Tok)) {
      Expected<TypeSig> S = typeSpecSig(M, tokenRow(Tok));
      if (!S)
        return writeBadSignature(OS, S.takeError());
      return typeImpl(OS, *S, Ctx, Depth + 1);
    }
    typeToken(OS, Tok, Ctx);
  };
  switch (T.Kind) {
  case ElementType::Ptr:
    Inner(T.element());
    OS << '*';
    return;
  case ElementType::ByRef:
    Inner(T.element());
    OS << '&';
    return;
  case ElementType::SZArray:
    Inner(T.element());
    OS << "[]";
    return;
  case ElementType::Pinned:
    Inner(T.element());
    OS << " pinned";
    return;
  case ElementType::CModReqd:
  case ElementType::CModOpt:
    Inner(T.element());
    OS << (T.Kind == ElementType::CModReqd ? " modreq(" : " modopt(");
    NamedToken(T.TypeToken);
    OS << ')';
    return;
  case ElementType::Array:
    Inner(T.element());
    OS << '[';
    for (uint32_t D = 0; D < T.Number; ++D) {
      if (D)
        OS << ',';
      bool HasLo = D < T.LowerBounds.size(), HasSize = D < T.Sizes.size();
      if (HasLo && HasSize) {
        if (T.Sizes[D] == 0)
          OS << T.LowerBounds[D] << "...";
        else
          OS << T.LowerBounds[D] << "..." << int64_t(T.LowerBounds[D]) + T.Sizes[D] - 1;
      } else if (HasLo) {
        OS << T.LowerBounds[D] << "...";
      } else if (HasSize) {
        OS << T.Sizes[D];
      }
    }
    OS << ']';
    return;
  case ElementType::ValueType:
  case ElementType::Class:
    OS << (T.Kind == ElementType::ValueType ? "valuetype " : "class ");
    NamedToken(T.TypeToken);
    return;
  case ElementType::Var:
  case ElementType::MVar: {
    bool IsMethod = T.Kind == ElementType::MVar;
    OS << (IsMethod ? "!!" : "!");
    StringRef Name;
    if (IsMethod && Ctx.MethodRow)
      Name = genericParamName(makeToken(TableId::MethodDef, Ctx.MethodRow), T.Number);
    else if (!IsMethod && Ctx.TypeRow)
      Name = genericParamName(makeToken(TableId::TypeDef, Ctx.TypeRow), T.Number);
    if (Name.empty())
      OS << T.Number;
    else
      writeId(OS, Name);
    return;
  }
  case ElementType::GenericInst: {
    const TypeSig &Base = T.Args[0];
    OS << (Base.Kind == ElementType::ValueType ? "valuetype " : "class ");
    NamedToken(Base.TypeToken);
    OS << '<';
    for (size_t I = 1; I < T.Args.size(); ++I) {
      if (I > 1)
        OS << ',';
      Inner(T.Args[I]);
    }
    OS << '>';
    return;
  }
  case ElementType::FnPtr: {
    OS << "method ";
    const MethodSig &S = *T.Method;
    callingConvention(OS, S);
    Inner(S.Return);
    OS << " *";
    paramTypes(OS, S, Ctx);
    return;
  }
  default: OS << "<element type 0x" << hexstr(uint8_t(T.Kind), false, 2) << '>'; return;
  }
}

void NamePrinter::callingConvention(raw_ostream &OS, const MethodSig &S) const {
  if (S.hasThis())
    OS << "instance ";
  if (S.explicitThis())
    OS << "explicit ";
  switch (S.kind()) {
  case SigDefault: break;
  case SigVarArg: OS << "vararg "; break;
  case SigC: OS << "unmanaged cdecl "; break;
  case SigStdCall: OS << "unmanaged stdcall "; break;
  case SigThisCall: OS << "unmanaged thiscall "; break;
  case SigFastCall: OS << "unmanaged fastcall "; break;
  case SigUnmanaged: OS << "unmanaged "; break;
  case SigNativeVarArg: OS << "unmanaged vararg "; break;
  default: OS << "callconv(" << unsigned(S.kind()) << ") "; break;
  }
}

void NamePrinter::paramTypes(raw_ostream &OS, const MethodSig &S, const GenericContext &Ctx) const {
  OS << '(';
  for (size_t I = 0; I < S.Params.size(); ++I) {
    if (I)
      OS << ", ";
    if (int(I) == S.SentinelIndex)
      OS << "..., ";
    typeImpl(OS, S.Params[I], Ctx, 0);
  }
  if (S.SentinelIndex >= 0 && size_t(S.SentinelIndex) == S.Params.size())
    OS << (S.Params.empty() ? "..." : ", ...");
  OS << ')';
}

void NamePrinter::methodSigText(raw_ostream &OS, const MethodSig &S, const GenericContext &SigCtx,
                                function_ref<void(raw_ostream &)> Name,
                                ArrayRef<TypeSig> Instantiation,
                                const GenericContext &InstCtx) const {
  callingConvention(OS, S);
  typeImpl(OS, S.Return, SigCtx, 0);
  OS << ' ';
  Name(OS);
  if (!Instantiation.empty()) {
    OS << '<';
    for (size_t I = 0; I < Instantiation.size(); ++I) {
      if (I)
        OS << ',';
      typeImpl(OS, Instantiation[I], InstCtx, 0);
    }
    OS << '>';
  }
  paramTypes(OS, S, SigCtx);
}

void NamePrinter::memberParent(raw_ostream &OS, Token Parent, const GenericContext &Ctx) const {
  switch (tokenTable(Parent)) {
  case TableId::TypeDef: typeDefName(OS, tokenRow(Parent)); return;
  case TableId::TypeRef: typeRefName(OS, tokenRow(Parent)); return;
  case TableId::TypeSpec: typeToken(OS, Parent, Ctx); return;
  case TableId::ModuleRef: scope(OS, Parent); return;
  case TableId::MethodDef:
    if (uint32_t T = M.declaringTypeOfMethod(tokenRow(Parent)))
      typeDefName(OS, T);
    return;
  default: OS << "<bad parent " << format_hex(Parent, 10) << '>';
  }
}

void NamePrinter::methodToken(raw_ostream &OS, Token T, const GenericContext &Ctx) const {
  if (!M.isValidToken(T)) {
    OS << "<bad method token " << format_hex(T, 10) << '>';
    return;
  }
  ArrayRef<TypeSig> Inst;
  std::vector<TypeSig> InstSig;
  if (tokenTable(T) == TableId::MethodSpec) {
    uint32_t Blob = M.get(TableId::MethodSpec, tokenRow(T), MethodSpecCol::Instantiation);
    Expected<std::vector<TypeSig>> Decoded =
        decodeMethodSpec(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
    if (!Decoded)
      return writeBadSignature(OS, Decoded.takeError());
    InstSig = std::move(*Decoded);
    Inst = InstSig;
    T = M.getToken(TableId::MethodSpec, tokenRow(T), MethodSpecCol::Method);
    if (!M.isValidToken(T)) {
      OS << "<bad method token " << format_hex(T, 10) << '>';
      return;
    }
  }
  uint32_t Row = tokenRow(T);
  if (tokenTable(T) == TableId::MethodDef) {
    Expected<MethodSig> S = methodDefSig(M, Row);
    if (!S)
      return writeBadSignature(OS, S.takeError());
    uint32_t Owner = M.declaringTypeOfMethod(Row);
    // The signature is the callee's: its !!N and !N are the callee's parameters, printed by
    // number so that they do not read as the caller's.
    methodSigText(
        OS, *S, GenericContext{},
        [&](raw_ostream &O) {
          if (Owner) {
            typeDefName(O, Owner);
            O << "::";
          }
          writeId(O, M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)));
        },
        Inst, Ctx);
    return;
  }
  if (tokenTable(T) == TableId::MemberRef) {
    uint32_t Blob = M.get(TableId::MemberRef, Row, MemberRefCol::Signature);
    ArrayRef<uint8_t> Bytes = M.getBlob(Blob);
    if (!Bytes.empty() && (Bytes[0] & SigKindMask) == SigField)
      return fieldToken(OS, T, Ctx);
    Expected<MethodSig> S = decodeMethodSig(Bytes, M.blobFileOffset(Blob), &M);
    if (!S)
      return writeBadSignature(OS, S.takeError());
    Token Parent = M.getToken(TableId::MemberRef, Row, MemberRefCol::Class);
    methodSigText(
        OS, *S, GenericContext{},
        [&](raw_ostream &O) {
          memberParent(O, Parent, Ctx);
          O << "::";
          writeId(O, M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)));
        },
        Inst, Ctx);
    return;
  }
  OS << "<not a method token " << format_hex(T, 10) << '>';
}

void NamePrinter::fieldToken(raw_ostream &OS, Token T, const GenericContext &Ctx) const {
  if (!M.isValidToken(T)) {
    OS << "<bad field token " << format_hex(T, 10) << '>';
    return;
  }
  uint32_t Row = tokenRow(T);
  if (tokenTable(T) == TableId::Field) {
    uint32_t Owner = M.declaringTypeOfField(Row);
    Expected<TypeSig> S = fieldDefSig(M, Row);
    if (!S)
      return writeBadSignature(OS, S.takeError());
    type(OS, *S, GenericContext{});
    OS << ' ';
    if (Owner) {
      typeDefName(OS, Owner);
      OS << "::";
    }
    writeId(OS, M.getString(M.get(TableId::Field, Row, FieldCol::Name)));
    return;
  }
  if (tokenTable(T) == TableId::MemberRef) {
    uint32_t Blob = M.get(TableId::MemberRef, Row, MemberRefCol::Signature);
    Expected<TypeSig> S = decodeFieldSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
    if (!S)
      return writeBadSignature(OS, S.takeError());
    type(OS, *S, GenericContext{});
    OS << ' ';
    memberParent(OS, M.getToken(TableId::MemberRef, Row, MemberRefCol::Class), Ctx);
    OS << "::";
    writeId(OS, M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)));
    return;
  }
  OS << "<not a field token " << format_hex(T, 10) << '>';
}

void NamePrinter::anyToken(raw_ostream &OS, Token T, const GenericContext &Ctx) const {
  switch (tokenTable(T)) {
  case TableId::TypeDef:
  case TableId::TypeRef:
  case TableId::TypeSpec: typeToken(OS, T, Ctx); return;
  case TableId::Field:
    OS << "field ";
    fieldToken(OS, T, Ctx);
    return;
  case TableId::MemberRef: {
    if (M.isValidToken(T)) {
      ArrayRef<uint8_t> B =
          M.getBlob(M.get(TableId::MemberRef, tokenRow(T), MemberRefCol::Signature));
      if (!B.empty() && (B[0] & SigKindMask) == SigField) {
        OS << "field ";
        fieldToken(OS, T, Ctx);
        return;
      }
    }
    OS << "method ";
    methodToken(OS, T, Ctx);
    return;
  }
  case TableId::MethodDef:
  case TableId::MethodSpec:
    OS << "method ";
    methodToken(OS, T, Ctx);
    return;
  default: OS << "<bad token " << format_hex(T, 10) << '>';
  }
}

} // namespace weft::metadata
