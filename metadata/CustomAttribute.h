//===- metadata/CustomAttribute.h - Custom attribute blobs ------*- C++ -*-===//
//
// ECMA-335 II.23.3: the prolog, the fixed arguments typed by the constructor's signature, and the
// named field and property arguments with their own type encoding. Values may be primitives,
// strings, System.Type names, enums, boxed values (an `object` parameter) and one-dimensional
// arrays of those.
//
// An enum's size is not in the blob: it comes from the enum's definition, which may be in another
// assembly. The resolver finds it; when it cannot, the size is guessed (int32, as ildasm assumes,
// then the size with which the whole blob decodes) and the result says so.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_CUSTOMATTRIBUTE_H
#define WEFT_METADATA_CUSTOMATTRIBUTE_H

#include "metadata/Module.h"
#include "metadata/Signature.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace weft::metadata {

class AssemblyResolver;
class NamePrinter;

/// The type of a value in a custom attribute blob.
struct CAType {
  /// Boolean..R8, String, SystemType, Boxed (an `object`), Enum or SZArray.
  ElementType Kind = ElementType::End;
  /// Enum: the underlying integer type.
  ElementType Underlying = ElementType::End;
  /// Enum: the type, as a token of the module (from a constructor signature) ...
  Token EnumToken = 0;
  /// ... or as the serialized name stored in the blob (named arguments, boxed values).
  std::string EnumName;
  /// SZArray: the element type.
  std::shared_ptr<CAType> Element;
};

struct CAValue {
  CAType Type;
  bool Null = false;              // a null string, type or array
  uint64_t Bits = 0;              // integers, bool, char; floats as their bits
  std::string Text;               // string contents or type name
  std::vector<CAValue> Elements;  // SZArray
  std::shared_ptr<CAValue> Boxed; // Boxed: the value with its own type
};

struct CANamedArg {
  bool IsProperty = false;
  std::string Name;
  CAValue Value; // Value.Type is the declared type of the field or property
};

struct CustomAttributeValue {
  std::vector<CAValue> Fixed;
  std::vector<CANamedArg> Named;
  /// Some enum's definition could not be found; its size was guessed (int32 first, then the
  /// size that makes the whole blob decode).
  bool GuessedEnumSize = false;
};

/// The attribute type of a CustomAttribute row's Type column \p Ctor: a MethodDef's declaring
/// TypeDef, or a MemberRef's parent; 0 for anything else or a token out of range.
Token customAttributeType(const Module &M, Token Ctor);

/// The constructor signature of a CustomAttribute row's Type column (MethodDef or MemberRef).
llvm::Expected<MethodSig> customAttributeConstructor(const Module &M, uint32_t CustomAttributeRow);

/// Decodes the value blob of a CustomAttribute row.
llvm::Expected<CustomAttributeValue>
decodeCustomAttribute(const Module &M, uint32_t CustomAttributeRow, AssemblyResolver *Resolver);

/// Decodes a blob given the constructor's signature and, for a generic attribute type, its type
/// arguments (which the constructor's !N parameters stand for).
llvm::Expected<CustomAttributeValue>
decodeCustomAttributeBlob(const Module &M, llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                          const MethodSig *Ctor, llvm::ArrayRef<TypeSig> TypeArgs,
                          AssemblyResolver *Resolver);
/// Decodes only named arguments (count, then arguments), as permission sets store them.
llvm::Expected<std::vector<CANamedArg>> decodeNamedArguments(const Module &M,
                                                             llvm::ArrayRef<uint8_t> Blob,
                                                             uint64_t FileOffset,
                                                             AssemblyResolver *Resolver);

/// Writes the value in ILAsm's verbal form: `{int32(8) property bool 'X' = bool(true)}`, which
/// ILAsm reads back to the same blob (see customAttributeNotWritable for what it cannot say).
void writeCustomAttributeValue(llvm::raw_ostream &OS, const CustomAttributeValue &V,
                               const NamePrinter &Names);
void writeCAValue(llvm::raw_ostream &OS, const CAValue &V, const NamePrinter &Names);
/// `property int32 'Name' = int32(3)`.
void writeNamedArgument(llvm::raw_ostream &OS, const CANamedArg &A, const NamePrinter &Names);
void writeCAType(llvm::raw_ostream &OS, const CAType &T, const NamePrinter &Names);
/// Why ILAsm's verbal form cannot write \p V, so that its blob must be written as bytes; null
/// when it can.
const char *customAttributeNotWritable(const CustomAttributeValue &V);

} // namespace weft::metadata

#endif
