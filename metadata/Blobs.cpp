//===- metadata/Blobs.cpp - Marshalling, constants, permission sets -------===//
#include "metadata/Blobs.h"

#include "metadata/CustomAttribute.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "support/ByteReader.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cstring>

using namespace llvm;

namespace weft::metadata {

namespace {

enum NativeType : uint8_t {
  NTBoolean = 0x02,
  NTI1,
  NTU1,
  NTI2,
  NTU2,
  NTI4,
  NTU4,
  NTI8,
  NTU8,
  NTR4,
  NTR8,
  NTSysChar = 0x0D,
  NTVariant,
  NTCurrency,
  NTPtr,
  NTDecimal,
  NTDate,
  NTBStr,
  NTLPStr,
  NTLPWStr,
  NTLPTStr,
  NTFixedSysString,
  NTObjectRef,
  NTIUnknown,
  NTIDispatch,
  NTStruct,
  NTIntf,
  NTSafeArray,
  NTFixedArray,
  NTInt,
  NTUInt,
  NTNestedStruct,
  NTByValStr,
  NTAnsiBStr,
  NTTBStr,
  NTVariantBool,
  NTFunc,
  NTAsAny = 0x28,
  NTArray = 0x2A,
  NTLPStruct,
  NTCustomMarshaler,
  NTError,
  NTIInspectable,
  NTHString,
  NTLPUTF8Str,
  NTMax = 0x50,
};

const char *simpleNativeName(uint8_t T) {
  switch (T) {
  case 0x01: return "void";
  case NTBoolean: return "bool";
  case NTI1: return "int8";
  case NTU1: return "unsigned int8";
  case NTI2: return "int16";
  case NTU2: return "unsigned int16";
  case NTI4: return "int32";
  case NTU4: return "unsigned int32";
  case NTI8: return "int64";
  case NTU8: return "unsigned int64";
  case NTR4: return "float32";
  case NTR8: return "float64";
  case NTSysChar: return "syschar";
  case NTVariant: return "variant";
  case NTCurrency: return "currency";
  case NTPtr: return "*";
  case NTDecimal: return "decimal";
  case NTDate: return "date";
  case NTBStr: return "bstr";
  case NTLPStr: return "lpstr";
  case NTLPWStr: return "lpwstr";
  case NTLPTStr: return "lptstr";
  case NTObjectRef: return "objectref";
  case NTStruct: return "struct";
  case NTInt: return "int";
  case NTUInt: return "unsigned int";
  case NTNestedStruct: return "nested struct";
  case NTByValStr: return "byvalstr";
  case NTAnsiBStr: return "ansi bstr";
  case NTTBStr: return "tbstr";
  case NTVariantBool: return "variant bool";
  case NTFunc: return "method";
  case NTAsAny: return "as any";
  case NTLPStruct: return "lpstruct";
  case NTError: return "error";
  default: return nullptr;
  }
}

const char *variantTypeName(uint32_t VT) {
  switch (VT) {
  case 0: return "";
  case 1: return "null";
  case 2: return "int16";
  case 3: return "int32";
  case 4: return "float32";
  case 5: return "float64";
  case 6: return "currency";
  case 7: return "date";
  case 8: return "bstr";
  case 9: return "idispatch";
  case 10: return "error";
  case 11: return "bool";
  case 12: return "variant";
  case 13: return "iunknown";
  case 14: return "decimal";
  case 16: return "int8";
  case 17: return "unsigned int8";
  case 18: return "unsigned int16";
  case 19: return "unsigned int32";
  case 20: return "int64";
  case 21: return "unsigned int64";
  case 22: return "int";
  case 23: return "unsigned int";
  case 24: return "void";
  case 25: return "hresult";
  case 26: return "*";
  case 27: return "safearray";
  case 28: return "carray";
  case 29: return "userdefined";
  case 30: return "lpstr";
  case 31: return "lpwstr";
  case 36: return "record";
  case 64: return "filetime";
  case 65: return "blob";
  case 66: return "stream";
  case 67: return "storage";
  case 68: return "streamed_object";
  case 69: return "stored_object";
  case 70: return "blob_object";
  case 71: return "cf";
  case 72: return "clsid";
  default: return nullptr;
  }
}

// A length-prefixed UTF-8 string inside a marshalling descriptor.
StringRef marshalString(ByteReader &R) {
  uint32_t Len = R.compressed();
  if (R.ok() && Len > R.remaining()) {
    R.fail("string runs past the end of the descriptor");
    return {};
  }
  return R.chars(Len);
}

void writeQuoted(raw_ostream &OS, StringRef S) {
  OS << '"';
  for (char C : S) {
    if (C == '"' || C == '\\')
      OS << '\\';
    OS << C;
  }
  OS << '"';
}

// Native types ILAsm has no word for: a descriptor with one of them is written as its bytes.
const char *unwritableNativeName(uint8_t T) {
  switch (T) {
  case NTIInspectable: return "iinspectable";
  case NTHString: return "hstring";
  case NTLPUTF8Str: return "lpstr utf8";
  default: return nullptr;
  }
}

// Writes one native type; \p Unwritable is set to the name of a type ILAsm cannot write.
bool writeNativeType(raw_ostream &OS, ByteReader &R, bool Nested, const char *&Unwritable) {
  size_t At = R.pos();
  uint8_t T = R.u8();
  if (!R.ok())
    return false;
  if (const char *Name = simpleNativeName(T)) {
    OS << Name;
    return true;
  }
  if (const char *Name = unwritableNativeName(T)) {
    OS << Name;
    Unwritable = Name;
    if (T == NTIInspectable && !Nested && !R.atEnd())
      OS << "(iidparam = " << R.compressed() << ')';
    return R.ok();
  }
  switch (T) {
  case NTFixedSysString:
    OS << "fixed sysstring [";
    if (!R.atEnd())
      OS << R.compressed();
    OS << ']';
    return R.ok();
  case NTIUnknown:
  case NTIDispatch:
  case NTIntf:
    OS << (T == NTIUnknown ? "iunknown" : T == NTIDispatch ? "idispatch" : "interface");
    if (!Nested && !R.atEnd())
      OS << "(iidparam = " << R.compressed() << ')';
    return R.ok();
  case NTSafeArray: {
    OS << "safearray";
    if (R.atEnd())
      return true;
    uint32_t VT = R.compressed();
    const char *Name = variantTypeName(VT & 0x0FFF);
    if (!R.ok())
      return false;
    if (!Name) {
      R.failAt(At, "unknown variant type in safearray");
      return false;
    }
    if (*Name)
      OS << ' ' << Name;
    if (VT & 0x1000)
      OS << " vector";
    if (VT & 0x2000)
      OS << "[]";
    if (VT & 0x4000)
      OS << '&';
    if (!R.atEnd()) {
      StringRef UDT = marshalString(R);
      OS << ", ";
      writeQuoted(OS, UDT);
    }
    return R.ok();
  }
  case NTFixedArray:
    OS << "fixed array [";
    if (!R.atEnd())
      OS << R.compressed();
    OS << ']';
    if (R.ok() && !R.atEnd()) {
      OS << ' ';
      return writeNativeType(OS, R, true, Unwritable);
    }
    return R.ok();
  case NTArray: {
    // elemtype [paramnum [numelem [flags]]]
    if (R.atEnd()) {
      R.fail("array descriptor without an element type");
      return false;
    }
    if (R.data()[R.pos()] == NTMax)
      R.u8();
    else if (!writeNativeType(OS, R, true, Unwritable))
      return false;
    std::optional<uint32_t> Param, Num, Flags;
    if (!R.atEnd())
      Param = R.compressed();
    if (!R.atEnd())
      Num = R.compressed();
    if (!R.atEnd())
      Flags = R.compressed(); // bit 0: the parameter number was given
    bool HasParam = Param && (!Flags || (*Flags & 1));
    OS << '[';
    if (Num && (*Num || !HasParam))
      OS << *Num;
    if (HasParam)
      OS << '+' << *Param;
    OS << ']';
    return R.ok();
  }
  case NTCustomMarshaler: {
    StringRef Guid = marshalString(R);
    StringRef Native = marshalString(R);
    StringRef Managed = marshalString(R);
    StringRef Cookie = marshalString(R);
    if (!R.ok())
      return false;
    OS << "custom(";
    if (!Guid.empty() || !Native.empty()) {
      writeQuoted(OS, Guid);
      OS << ", ";
      writeQuoted(OS, Native);
      OS << ", ";
    }
    writeQuoted(OS, Managed);
    OS << ", ";
    writeQuoted(OS, Cookie);
    OS << ')';
    return true;
  }
  default: R.failAt(At, "unknown native type"); return false;
  }
}

} // namespace

Error writeMarshal(raw_ostream &OS, ArrayRef<uint8_t> Blob, uint64_t FileOffset) {
  ByteReader R(Blob, FileOffset);
  if (Blob.empty())
    return formatError("marshalling descriptor", FileOffset, "empty descriptor");
  std::string Text;
  raw_string_ostream S(Text);
  const char *Unwritable = nullptr;
  writeNativeType(S, R, false, Unwritable);
  if (Error E = R.takeError("marshalling descriptor"))
    return E;
  if (!Unwritable) {
    OS << S.str();
    return Error::success();
  }
  // ILAsm's byte form of a descriptor, with the words it lacks in a comment.
  OS << "{";
  for (uint8_t B : Blob)
    OS << ' ' << format_hex_no_prefix(B, 2, /*Upper=*/true);
  OS << " /* " << S.str() << " */ }";
  return Error::success();
}

Error writeConstant(raw_ostream &OS, uint8_t Type, ArrayRef<uint8_t> Blob, uint64_t FileOffset) {
  ByteReader R(Blob, FileOffset);
  auto Sized = [&](unsigned N) -> Error {
    if (Blob.size() != N)
      return formatError("constant", FileOffset,
                         "value of " + Twine(Blob.size()) + " bytes where " + Twine(N) +
                             " are needed for element type 0x" + hexstr(Type, false, 2));
    return Error::success();
  };
  auto Hex = [&](const char *Name, unsigned N) -> Error {
    if (Error E = Sized(N))
      return E;
    uint64_t V = N == 1 ? R.u8() : N == 2 ? R.u16() : N == 4 ? R.u32() : R.u64();
    OS << Name << '(' << format_hex(V, 2 + 2 * N, /*Upper=*/true) << ')';
    return Error::success();
  };
  switch (ElementType(Type)) {
  case ElementType::Boolean:
    if (Error E = Sized(1))
      return E;
    OS << "bool(" << (R.u8() ? "true" : "false") << ')';
    return Error::success();
  case ElementType::Char: return Hex("char", 2);
  case ElementType::I1: return Hex("int8", 1);
  case ElementType::U1: return Hex("uint8", 1);
  case ElementType::I2: return Hex("int16", 2);
  case ElementType::U2: return Hex("uint16", 2);
  case ElementType::I4: return Hex("int32", 4);
  case ElementType::U4: return Hex("uint32", 4);
  case ElementType::I8: return Hex("int64", 8);
  case ElementType::U8: return Hex("uint64", 8);
  case ElementType::R4:
    if (Error E = Sized(4))
      return E;
    OS << "float32(";
    writeFloat32(OS, R.f32());
    OS << ')';
    return Error::success();
  case ElementType::R8:
    if (Error E = Sized(8))
      return E;
    OS << "float64(";
    writeFloat64(OS, R.f64());
    OS << ')';
    return Error::success();
  case ElementType::String:
    if (Blob.size() % 2)
      return formatError("constant", FileOffset,
                         "string constant of odd length " + Twine(Blob.size()));
    writeUserString(OS, Blob);
    return Error::success();
  case ElementType::Class:
    // A null reference; compilers store a 4-byte zero, some tools nothing.
    for (uint8_t B : Blob)
      if (B)
        return formatError("constant", FileOffset, "class constant that is not null");
    OS << "nullref";
    return Error::success();
  default:
    return formatError("constant", FileOffset,
                       "element type 0x" + hexstr(Type, false, 2) + " cannot be a constant");
  }
}

const char *securityActionName(uint16_t Action) {
  static const char *const Names[] = {
      nullptr,      "request",      "demand",           "assert",
      "deny",       "permitonly",   "linkcheck",        "inheritcheck",
      "reqmin",     "reqopt",       "reqrefuse",        "prejitgrant",
      "prejitdeny", "noncasdemand", "noncaslinkdemand", "noncasinheritance"};
  return Action < std::size(Names) ? Names[Action] : nullptr;
}

Error writePermissionSet(raw_ostream &OS, const Module &M, ArrayRef<uint8_t> Blob,
                         uint64_t FileOffset, const NamePrinter &Names,
                         AssemblyResolver *Resolver) {
  if (Blob.empty() || Blob[0] != '.') {
    // The older XML form (UTF-16).
    OS << "bytearray ";
    writeByteList(OS, Blob);
    return Error::success();
  }
  ByteReader R(Blob, FileOffset);
  R.u8();
  uint32_t Count = R.count(2, "more attributes than the permission set holds");
  std::string Text;
  raw_string_ostream S(Text);
  S << '{';
  for (uint32_t I = 0; I < Count && R.ok(); ++I) {
    uint32_t NameLen = R.compressed();
    if (R.ok() && NameLen > R.remaining())
      R.fail("attribute type name runs past the end of the permission set");
    StringRef TypeName = R.chars(NameLen);
    uint32_t Len = R.compressed();
    if (R.ok() && Len > R.remaining())
      R.fail("attribute blob runs past the end of the permission set");
    uint64_t ArgsOff = R.fileOffset();
    ArrayRef<uint8_t> Args = R.bytes(Len);
    if (!R.ok())
      break;
    Expected<std::vector<CANamedArg>> Named = decodeNamedArguments(M, Args, ArgsOff, Resolver);
    if (!Named)
      return Named.takeError();
    if (I)
      S << ", "; // ILAsm separates the attributes of a set with commas
    S << "class ";
    writeSingleQuoted(S, TypeName);
    S << " = {";
    for (size_t J = 0; J < Named->size(); ++J) {
      if (J)
        S << ' ';
      writeNamedArgument(S, (*Named)[J], Names);
    }
    S << '}';
  }
  S << '}';
  if (Error E = R.takeError("permission set"))
    return E;
  OS << S.str();
  return Error::success();
}

} // namespace weft::metadata
