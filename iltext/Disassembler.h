//===- iltext/Disassembler.h - A module as IL text --------------*- C++ -*-===//
//
// Writes a whole module in ILAsm syntax, in the manner of ildasm: assembly and module declarations,
// references, every type with its members, custom attributes and generic parameters, and every
// method body with its locals, labels and exception blocks.
//
// The text is meant to be compared: it has no RVAs, file offsets or layout sizes (those belong
// to `weft dump --raw`), names and numbers are printed the same way every time, and each
// declaration is on one line. It is also meant to be assembled again: Microsoft's ilasm reads it
// back to the same methods and IL, and what ILAsm cannot say is said in a comment where it
// happens (docs/il-text.md lists these).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_ILTEXT_DISASSEMBLER_H
#define WEFT_ILTEXT_DISASSEMBLER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
class AssemblyResolver;
} // namespace weft::metadata

namespace weft::text {

struct DisassemblerOptions {
  /// Only types whose full name (`Ns.Outer/Inner`) matches one of these; all if empty.
  std::vector<llvm::GlobPattern> Types;
  /// Only methods whose name or `Type::Name` matches one of these; all if empty.
  std::vector<llvm::GlobPattern> Methods;
  /// Finds referenced assemblies (for the sizes of enums in custom attributes); may be null.
  metadata::AssemblyResolver *Resolver = nullptr;
  /// The most IL code to show over all methods; 0 for il::methodCodeBudget of the file's size.
  uint64_t CodeBudget = 0;
  /// A portable PDB of the module: its sequence points are shown before the instructions they
  /// start at, as ildasm's `.line` directives (`.line 12,12 : 9,30 'Program.cs'`).
  const metadata::Module *Pdb = nullptr;
  /// Label only the instructions that branches and exception blocks go to, on a line of their
  /// own and numbered in the order of the code (`L_1:`), instead of every instruction by its IL
  /// offset: code inserted into a method then leaves the lines after it as they were, so two
  /// versions of a method compare by what changed. The text is no longer the one ILAsm reads.
  bool StableLabels = false;
};

/// One method's text as `disassemble` writes it (indented as if at the top level), and the name
/// that tells it from the module's other methods.
struct MethodText {
  uint32_t Row = 0;
  /// The declaring type, the name and the signature, as a call names the method:
  /// `instance void Ns.Outer/Inner::Name(int32, !!0)`.
  std::string Name;
  std::string Text;
};

/// The bytes of the embedded resource of ManifestResource row \p Row (one whose Implementation is
/// null): the CLI header's resources at the row's offset, after their 4-byte length.
llvm::Expected<llvm::ArrayRef<uint8_t>> embeddedResource(const pe::Image &Image,
                                                         const metadata::Module &M, uint32_t Row);
/// Whether a resource's name can be used as the name of a file beside the text: ILAsm reads an
/// embedded resource from the file of its name, so `weft dump -o` writes the bytes there.
bool resourceFileNameIsPlain(llvm::StringRef Name);

/// Writes the module. Problems in single items (a method body that does not decode, a blob that is
/// malformed) are written as comments in place, and the first of them is returned after the whole
/// module has been written.
llvm::Error disassemble(llvm::raw_ostream &OS, const pe::Image &Image, const metadata::Module &M,
                        const DisassemblerOptions &Options);

/// Each method the options select, alone: the global methods, then each type's, types in row
/// order. Problems are handled as by `disassemble`.
llvm::Error disassembleMethods(const pe::Image &Image, const metadata::Module &M,
                               const DisassemblerOptions &Options, std::vector<MethodText> &Out);

} // namespace weft::text

#endif
