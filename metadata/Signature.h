//===- metadata/Signature.h - Decoded signature blobs -----------*- C++ -*-===//
//
// ECMA-335 II.23.2: method (definition, reference, stand-alone, with the varargs sentinel), field,
// property, local variable, type specification and method specification signatures, as a small
// tree of TypeSig nodes. Custom modifiers and `pinned` are nodes wrapping the type they apply to.
//
// Decoding checks the structure (lengths, element types, nesting depth, counts against the bytes
// left) and, when given the module, that every type token names an existing row.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_SIGNATURE_H
#define WEFT_METADATA_SIGNATURE_H

#include "metadata/Schema.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::metadata {

class Module;

enum class ElementType : uint8_t {
  End = 0x00,
  Void = 0x01,
  Boolean = 0x02,
  Char = 0x03,
  I1 = 0x04,
  U1 = 0x05,
  I2 = 0x06,
  U2 = 0x07,
  I4 = 0x08,
  U4 = 0x09,
  I8 = 0x0A,
  U8 = 0x0B,
  R4 = 0x0C,
  R8 = 0x0D,
  String = 0x0E,
  Ptr = 0x0F,
  ByRef = 0x10,
  ValueType = 0x11,
  Class = 0x12,
  Var = 0x13,
  Array = 0x14,
  GenericInst = 0x15,
  TypedByRef = 0x16,
  I = 0x18,
  U = 0x19,
  FnPtr = 0x1B,
  Object = 0x1C,
  SZArray = 0x1D,
  MVar = 0x1E,
  CModReqd = 0x1F,
  CModOpt = 0x20,
  Internal = 0x21,
  Modifier = 0x40,
  Sentinel = 0x41,
  Pinned = 0x45,
  // Only in custom attribute blobs.
  SystemType = 0x50,
  Boxed = 0x51,
  CAField = 0x53,
  CAProperty = 0x54,
  Enum = 0x55,
};

/// The size in bytes of a value of a primitive type (Boolean, Char, the integers, R4, R8); 0 for
/// any other element type.
unsigned primitiveSize(ElementType K);

/// Calling convention byte (II.23.2.1-3).
enum SigFlags : uint8_t {
  SigDefault = 0x0,
  SigC = 0x1,
  SigStdCall = 0x2,
  SigThisCall = 0x3,
  SigFastCall = 0x4,
  SigVarArg = 0x5,
  SigField = 0x6,
  SigLocal = 0x7,
  SigProperty = 0x8,
  SigUnmanaged = 0x9,
  SigGenericInst = 0xA,
  SigNativeVarArg = 0xB,
  SigKindMask = 0x0F,
  SigGeneric = 0x10,
  SigHasThis = 0x20,
  SigExplicitThis = 0x40,
};

struct MethodSig;

struct TypeSig {
  ElementType Kind = ElementType::End;
  /// ValueType, Class: the type. CModReqd, CModOpt: the modifier type. A TypeDef, TypeRef or
  /// TypeSpec token.
  Token TypeToken = 0;
  /// Var, MVar: the parameter number. Array: the rank.
  uint32_t Number = 0;
  /// Ptr, ByRef, SZArray, Array, Pinned, CModReqd, CModOpt: one element, the type they apply to.
  /// GenericInst: the generic type (a Class or ValueType node) followed by the arguments.
  std::vector<TypeSig> Args;
  /// Array: the sizes and lower bounds given (each may be shorter than the rank).
  std::vector<uint32_t> Sizes;
  std::vector<int32_t> LowerBounds;
  /// FnPtr: the method signature.
  std::shared_ptr<MethodSig> Method;

  TypeSig() = default;
  explicit TypeSig(ElementType K) : Kind(K) {}

  const TypeSig &element() const { return Args.front(); }
  /// The type with custom modifiers and `pinned` peeled off.
  const TypeSig &stripped() const;
  /// bool, char, the integers, native int and uint, float32 and float64.
  bool isPrimitive() const { return isPrimitive(Kind); }
  /// The types an enum can have underneath: bool, char, the integers, native int and uint.
  static bool isIntegral(ElementType K);
  static bool isPrimitive(ElementType K) {
    return isIntegral(K) || K == ElementType::R4 || K == ElementType::R8;
  }
};

struct MethodSig {
  uint8_t Flags = 0; // calling convention byte
  uint32_t GenericParamCount = 0;
  TypeSig Return;
  std::vector<TypeSig> Params;
  uint32_t ParamCount = 0; // as the blob says (decodeMethodSigHead leaves Params empty)
  /// Index in Params of the first parameter after the varargs sentinel, or -1.
  int SentinelIndex = -1;

  uint8_t kind() const { return Flags & SigKindMask; }
  bool hasThis() const { return Flags & SigHasThis; }
  bool explicitThis() const { return Flags & SigExplicitThis; }
  bool isGeneric() const { return Flags & SigGeneric; }
};

/// What a blob was decoded as; used in error messages.
enum class SigKind { Method, Field, Property, Locals, TypeSpec, MethodSpec, StandAlone };

/// Decoders. \p FileOffset is where the blob's data is in the file; \p M, if given, is used to
/// check that type tokens name existing rows.
llvm::Expected<MethodSig> decodeMethodSig(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                          const Module *M = nullptr);
/// The same checks, but the parameters are not kept: Params is empty and ParamCount says how many
/// there are (for call shapes, without an allocation per parameter).
llvm::Expected<MethodSig> decodeMethodSigHead(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                              const Module *M = nullptr);
llvm::Expected<TypeSig> decodeFieldSig(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                       const Module *M = nullptr);
llvm::Expected<MethodSig> decodePropertySig(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                            const Module *M = nullptr);
llvm::Expected<std::vector<TypeSig>>
decodeLocalsSig(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M = nullptr);
llvm::Expected<TypeSig> decodeTypeSpec(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                       const Module *M = nullptr);
llvm::Expected<std::vector<TypeSig>>
decodeMethodSpec(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset, const Module *M = nullptr);

/// A StandAloneSig blob is either a local variable signature or a method signature (for calli).
struct StandAloneSig {
  bool IsLocals = false;
  std::vector<TypeSig> Locals;
  MethodSig Method;
};
llvm::Expected<StandAloneSig> decodeStandAloneSig(llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset,
                                                  const Module *M = nullptr);

/// Encoders, the inverse of the decoders: type tokens as TypeDefOrRefOrSpecEncoded, compressed
/// integers in their shortest form.
void encodeTypeSig(const TypeSig &T, std::vector<uint8_t> &Out);
void encodeMethodSig(const MethodSig &S, std::vector<uint8_t> &Out);
/// Appends a compressed signed integer (ECMA-335 II.23.2, used for array lower bounds).
void appendCompressedSigned(std::vector<uint8_t> &Out, int32_t V);

/// Convenience: decode the signature in a blob column of a row.
llvm::Expected<MethodSig> methodDefSig(const Module &M, uint32_t MethodRow);
/// The same checks, the parameters not kept (decodeMethodSigHead).
llvm::Expected<MethodSig> methodDefSigHead(const Module &M, uint32_t MethodRow);
llvm::Expected<MethodSig> memberRefMethodSig(const Module &M, uint32_t MemberRefRow);
llvm::Expected<TypeSig> fieldDefSig(const Module &M, uint32_t FieldRow);
llvm::Expected<TypeSig> typeSpecSig(const Module &M, uint32_t TypeSpecRow);

/// The type of System a primitive element type stands for, by its name ("Int32" for I4; Void,
/// String, Object and TypedByRef too), or null for any other element type.
const char *primitiveTypeName(ElementType T);
/// The same with its namespace ("System.Int32"), as Cecil and reflection write it.
const char *primitiveFullName(ElementType T);

} // namespace weft::metadata

#endif
