//===- runtime-profiler/EmitMirror.cpp ------------------------------------===//
#include "runtime-profiler/EmitMirror.h"

#include "il/BodyReader.h"
#include "runtime-profiler/Log.h"
#include "support/Format.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Endian.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::prof {

namespace {
/// \p Utf8 as a UTF-16 string ending in one NUL (which convertUTF8ToUTF16String may or may not
/// have written).
SmallVector<UTF16, 64> wide(StringRef Utf8) {
  SmallVector<UTF16, 64> Out;
  if (!convertUTF8ToUTF16String(Utf8, Out))
    Out.clear();
  while (!Out.empty() && Out.back() == 0)
    Out.pop_back();
  Out.push_back(0);
  return Out;
}
const WCHAR *chars(const SmallVector<UTF16, 64> &W) {
  return reinterpret_cast<const WCHAR *>(W.data());
}
std::string hexToken(uint32_t T) { return "0x" + hexstr(T, false, 8); }
/// "Namespace.Name" (or "Name"), as DefineTypeDef and DefineTypeRefByName take a type's name.
std::string dottedName(StringRef Namespace, StringRef Name) {
  return Namespace.empty() ? Name.str() : (Namespace + "." + Name).str();
}
} // namespace

void EmitMirror::made(Token Expected, HRESULT Hr, const uint32_t &Got, const char *What) {
  if (Problem)
    return;
  if (failed(Hr))
    Problem = std::string("the runtime refused to add ") + What + " " + hexToken(Expected) +
              " (" + hresultText(Hr) + ")";
  else if (Got != Expected)
    Problem = std::string("the runtime gave ") + What + " " + hexToken(Expected) + " the token " +
              hexToken(Got) + " (its metadata has rows weft did not add)";
}

/// The editor adds members to the last type only (Editor::addField, addMethod).
Token EmitMirror::lastType(const Editor &E) {
  return makeToken(TableId::TypeDef, E.rowCount(TableId::TypeDef));
}

void EmitMirror::rowAdded(const Editor &E, TableId T, uint32_t Row) {
  Token Want = makeToken(T, Row);
  auto Blob = [&](unsigned Col) { return E.getBlob(E.get(T, Row, Col)); };
  auto Str = [&](unsigned Col) { return E.getString(E.get(T, Row, Col)); };
  uint32_t Got = 0;
  switch (T) {
  case TableId::TypeRef: {
    std::string Name = dottedName(Str(TypeRefCol::TypeNamespace), Str(TypeRefCol::TypeName));
    return made(Want,
                Emit->DefineTypeRefByName(E.get(T, Row, TypeRefCol::ResolutionScope),
                                          chars(wide(Name)), &Got),
                Got, "the type reference");
  }
  case TableId::MemberRef: {
    ArrayRef<uint8_t> Sig = Blob(MemberRefCol::Signature);
    return made(Want,
                Emit->DefineMemberRef(E.get(T, Row, MemberRefCol::Class),
                                      chars(wide(Str(MemberRefCol::Name))), Sig.data(),
                                      ULONG(Sig.size()), &Got),
                Got, "the member reference");
  }
  case TableId::TypeSpec: {
    ArrayRef<uint8_t> Sig = Blob(TypeSpecCol::Signature);
    return made(Want, Emit->GetTokenFromTypeSpec(Sig.data(), ULONG(Sig.size()), &Got), Got,
                "the type specification");
  }
  case TableId::MethodSpec: {
    ArrayRef<uint8_t> Sig = Blob(MethodSpecCol::Instantiation);
    return made(Want,
                Emit->DefineMethodSpec(E.get(T, Row, MethodSpecCol::Method), Sig.data(),
                                       ULONG(Sig.size()), &Got),
                Got, "the method instantiation");
  }
  case TableId::StandAloneSig: {
    ArrayRef<uint8_t> Sig = Blob(StandAloneSigCol::Signature);
    return made(Want, Emit->GetTokenFromSig(Sig.data(), ULONG(Sig.size()), &Got), Got,
                "the signature");
  }
  case TableId::AssemblyRef: {
    ArrayRef<uint8_t> Key = Blob(AssemblyRefCol::PublicKeyOrToken);
    SmallVector<UTF16, 64> Culture = wide(Str(AssemblyRefCol::Culture));
    ASSEMBLYMETADATA Meta{};
    Meta.usMajorVersion = USHORT(E.get(T, Row, AssemblyRefCol::MajorVersion));
    Meta.usMinorVersion = USHORT(E.get(T, Row, AssemblyRefCol::MinorVersion));
    Meta.usBuildNumber = USHORT(E.get(T, Row, AssemblyRefCol::BuildNumber));
    Meta.usRevisionNumber = USHORT(E.get(T, Row, AssemblyRefCol::RevisionNumber));
    Meta.szLocale = const_cast<WCHAR *>(chars(Culture));
    Meta.cbLocale = ULONG(Culture.size());
    return made(Want,
                AssemblyEmit->DefineAssemblyRef(Key.empty() ? nullptr : Key.data(),
                                                ULONG(Key.size()),
                                                chars(wide(Str(AssemblyRefCol::Name))), &Meta,
                                                nullptr, 0,
                                                E.get(T, Row, AssemblyRefCol::Flags), &Got),
                Got, "the assembly reference");
  }
  case TableId::TypeDef: {
    std::string Name = dottedName(Str(TypeDefCol::TypeNamespace), Str(TypeDefCol::TypeName));
    Definitions = true;
    return made(Want,
                Emit->DefineTypeDef(chars(wide(Name)), E.get(T, Row, TypeDefCol::Flags),
                                    E.get(T, Row, TypeDefCol::Extends), nullptr, &Got),
                Got, "the type");
  }
  case TableId::Field: {
    ArrayRef<uint8_t> Sig = Blob(FieldCol::Signature);
    Definitions = true;
    return made(Want,
                Emit->DefineField(lastType(E), chars(wide(Str(FieldCol::Name))),
                                  E.get(T, Row, FieldCol::Flags), Sig.data(), ULONG(Sig.size()),
                                  0 /* ELEMENT_TYPE_END: no constant */, nullptr, 0, &Got),
                Got, "the field");
  }
  case TableId::MethodDef: {
    ArrayRef<uint8_t> Sig = Blob(MethodDefCol::Signature);
    Definitions = true;
    return made(Want,
                Emit->DefineMethod(lastType(E), chars(wide(Str(MethodDefCol::Name))),
                                   E.get(T, Row, MethodDefCol::Flags), Sig.data(),
                                   ULONG(Sig.size()), 0, E.get(T, Row, MethodDefCol::ImplFlags),
                                   &Got),
                Got, "the method");
  }
  case TableId::Param:
    return made(Want,
                Emit->DefineParam(makeToken(TableId::MethodDef, E.rowCount(TableId::MethodDef)),
                                  E.get(T, Row, ParamCol::Sequence),
                                  chars(wide(Str(ParamCol::Name))), E.get(T, Row, ParamCol::Flags),
                                  0, nullptr, 0, &Got),
                Got, "the parameter");
  case TableId::CustomAttribute: {
    // A sorted table: the editor's row number is not the token the runtime gives, and none is
    // used in code.
    ArrayRef<uint8_t> Value = Blob(CustomAttributeCol::Value);
    HRESULT Hr = Emit->DefineCustomAttribute(E.get(T, Row, CustomAttributeCol::Parent),
                                             E.get(T, Row, CustomAttributeCol::Type),
                                             Value.data(), ULONG(Value.size()), &Got);
    return made(Want, Hr, failed(Hr) ? Got : Want, "the custom attribute");
  }
  default:
    if (!Problem)
      Problem = "the profiler cannot add rows of the " + std::string(tableSpec(T).Name) +
                " table to a running module yet (row " + hexToken(Want) + ")";
    return;
  }
}

void EmitMirror::userStringAdded(const Editor &E, Token T, StringRef Utf8) {
  SmallVector<UTF16, 64> W = wide(Utf8);
  uint32_t Got = 0;
  HRESULT Hr = Emit->DefineUserString(chars(W), ULONG(W.size() - 1), &Got);
  if (succeeded(Hr) && Got != T && tokenTable(Got) == tokenTable(T))
    UserStrings[T] = Got; // an equal string the runtime already had
  else
    made(T, Hr, Got, "the user string");
}

bool EmitMirror::remapUserStrings(std::vector<uint8_t> &Body) const {
  if (UserStrings.empty())
    return true;
  Expected<il::RawMethodBody> Raw = il::readMethodBody(Body, 0);
  if (!Raw) {
    consumeError(Raw.takeError());
    return false;
  }
  il::InstructionDecoder D(Raw->Code, 0);
  for (il::Instruction In; D.next(In);)
    if (In.Op == il::Opcode::Ldstr) {
      uint8_t *P = Body.data() + Raw->HeaderSize + In.Offset + 1;
      support::endian::write32le(P, userString(support::endian::read32le(P)));
    }
  if (Error Err = D.takeError()) {
    consumeError(std::move(Err));
    return false;
  }
  return true;
}

} // namespace weft::prof
