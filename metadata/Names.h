//===- metadata/Names.h - Names and types in ILAsm syntax -------*- C++ -*-===//
//
// Prints identifiers, type names, types, signatures and member references the way ILAsm reads them
// and ildasm writes them: `[System.Runtime]System.Object`, `class [System.Collections]System.
// Collections.Generic.List`1<int32>`, `!0`, `!!T`, `'<Main>$'`.
//
// Generic parameters print by name when the printer knows the type or method that declares them
// (the context) and by number otherwise, as in member references, whose signatures are relative to
// their parent type.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_NAMES_H
#define WEFT_METADATA_NAMES_H

#include "metadata/Module.h"
#include "metadata/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace weft::metadata {

/// Writes \p Name as an ILAsm identifier: quoted ('...') when it is a keyword or has characters an
/// identifier cannot have. Dotted names are checked part by part.
void writeId(llvm::raw_ostream &OS, llvm::StringRef Name);
/// True if \p Name must be quoted.
bool needsQuotes(llvm::StringRef Name);
/// Writes a single-quoted string with ILAsm escapes.
void writeSingleQuoted(llvm::raw_ostream &OS, llvm::StringRef Text);
/// Writes a double-quoted string with ILAsm escapes (where ILAsm wants a QSTRING: `.locale`,
/// `pinvokeimpl`).
void writeDoubleQuoted(llvm::raw_ostream &OS, llvm::StringRef Text);
/// Writes a UTF-16 string as an ILAsm "..." literal when it is printable ASCII, else as
/// bytearray (..).
void writeUserString(llvm::raw_ostream &OS, llvm::ArrayRef<uint8_t> Utf16);
/// Writes bytes as "(01 02 ...)".
void writeByteList(llvm::raw_ostream &OS, llvm::ArrayRef<uint8_t> Bytes);
/// Writes a float the way ILAsm reads it back exactly ("1.5", "2.", "1e+100" becomes "1.e+100");
/// infinities and NaNs as their bits in hex.
void writeFloat32(llvm::raw_ostream &OS, float F);
void writeFloat64(llvm::raw_ostream &OS, double D);
/// The ILAsm keyword of a primitive element type ("int32", "string", ...), or null.
const char *primitiveName(ElementType T);

/// Which type and method declare the generic parameters a signature may use.
struct GenericContext {
  uint32_t TypeRow = 0;   // TypeDef row whose parameters `!N` names, or 0
  uint32_t MethodRow = 0; // MethodDef row whose parameters `!!N` names, or 0
};

class NamePrinter {
public:
  explicit NamePrinter(const Module &M) : M(M) {}

  /// `Ns.Outer/Inner` for a TypeDef row.
  void typeDefName(llvm::raw_ostream &OS, uint32_t Row) const;
  /// `[Assembly]Ns.Outer/Inner` for a TypeRef row.
  void typeRefName(llvm::raw_ostream &OS, uint32_t Row) const;
  /// A TypeDef or TypeRef as a name, a TypeSpec as the type it specifies. This is how type
  /// operands (box, newarr, castclass, ...) and `extends` print.
  void typeToken(llvm::raw_ostream &OS, Token T, const GenericContext &Ctx) const;
  /// Like typeToken, but a TypeDef or TypeRef is prefixed by `class` or `valuetype` as a type in a
  /// signature is (for member-reference parents and CA constructor owners this is not wanted).
  void type(llvm::raw_ostream &OS, const TypeSig &T, const GenericContext &Ctx) const;
  /// `[Assembly]` scope prefix of an AssemblyRef, ModuleRef or Module.
  void scope(llvm::raw_ostream &OS, Token Scope) const;
  /// The parameter list `(int32, string)` of a signature.
  void paramTypes(llvm::raw_ostream &OS, const MethodSig &S, const GenericContext &Ctx) const;
  /// The calling-convention prefix (`instance`, `vararg`, `unmanaged cdecl`, ...) with a trailing
  /// space when not empty.
  void callingConvention(llvm::raw_ostream &OS, const MethodSig &S) const;

  /// A method operand: `instance void [System.Runtime]System.Object::.ctor()`. MethodDef,
  /// MemberRef and MethodSpec tokens; \p Ctx is the method the operand appears in.
  void methodToken(llvm::raw_ostream &OS, Token T, const GenericContext &Ctx) const;
  /// A field operand: `int32 Program::counter`.
  void fieldToken(llvm::raw_ostream &OS, Token T, const GenericContext &Ctx) const;
  /// ldtoken's operand: a type, `method ...` or `field ...`.
  void anyToken(llvm::raw_ostream &OS, Token T, const GenericContext &Ctx) const;

  /// The name of a member's parent as it precedes `::`: a TypeDef or TypeRef by name, a TypeSpec
  /// as a type, a ModuleRef as [.module x], a MethodDef (vararg call site) by its type.
  void memberParent(llvm::raw_ostream &OS, Token Parent, const GenericContext &Ctx) const;

  /// Name of a generic parameter of a type or method, or empty if unknown.
  llvm::StringRef genericParamName(Token Owner, uint32_t Number) const;

  const Module &module() const { return M; }

private:
  void typeName(llvm::raw_ostream &OS, llvm::StringRef Namespace, llvm::StringRef Name) const;
  void typeRefNameImpl(llvm::raw_ostream &OS, uint32_t Row, unsigned Depth) const;
  void typeDefNameImpl(llvm::raw_ostream &OS, uint32_t Row, unsigned Depth) const;
  void typeImpl(llvm::raw_ostream &OS, const TypeSig &T, const GenericContext &Ctx,
                unsigned Depth) const;
  void methodSigText(llvm::raw_ostream &OS, const MethodSig &S, const GenericContext &SigCtx,
                     llvm::function_ref<void(llvm::raw_ostream &)> Name,
                     llvm::ArrayRef<TypeSig> Instantiation, const GenericContext &InstCtx) const;

  const Module &M;
};

/// Writes `<bad signature: ...>` for a signature that failed to decode, consuming the error.
void writeBadSignature(llvm::raw_ostream &OS, llvm::Error E);

} // namespace weft::metadata

#endif
