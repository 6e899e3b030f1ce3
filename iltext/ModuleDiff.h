//===- iltext/ModuleDiff.h - What tells two modules apart -------*- C++ -*-===//
//
// Compares two modules as a reviewer would: each method's IL text (Disassembler, with stable
// labels), the methods matched by their declaring type, name and signature, so that renumbered
// tokens and moved bodies are no difference; and the metadata around the code, as items named
// the same way in both modules (types, members, references, custom attributes, resources),
// added, removed or changed.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_ILTEXT_MODULEDIFF_H
#define WEFT_ILTEXT_MODULEDIFF_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft {
class WorkerTeam;
}
namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
class AssemblyResolver;
} // namespace weft::metadata

namespace weft::text {

enum class ChangeKind : uint8_t { Added, Removed, Changed };
/// "added", "removed", "changed".
llvm::StringRef changeKindName(ChangeKind K);

/// A hunk of a method's unified diff: each line starts with ' ', '-' or '+'. Starts count from 1
/// as in a unified diff's header (a side with no lines names the line before).
struct TextHunk {
  uint32_t AStart = 0, ALines = 0, BStart = 0, BLines = 0;
  std::vector<std::string> Lines;
};

struct MethodChange {
  /// `instance void Ns.Type::Name(int32)` (text::MethodText::Name); a name several methods of a
  /// module share is followed by ` #2`, ` #3`... in row order.
  std::string Name;
  ChangeKind Kind = ChangeKind::Changed;
  uint32_t RowA = 0, RowB = 0; // 0 on the side that lacks the method
  std::vector<TextHunk> Hunks;
  uint32_t LinesAdded = 0, LinesRemoved = 0;
  /// With DiffOptions::HashTexts, the SHA-256 (hex) of the method's text in the second module;
  /// empty for a removed method.
  std::string TextSha256;
};

/// The kinds of metadata items compared.
enum class ItemKind : uint8_t {
  Assembly,
  AssemblyRef,
  ModuleRef,
  TypeRef,
  MemberRef,
  Type,
  Field,
  Property,
  Event,
  CustomAttribute,
  Resource,
};
/// The JSON name ("assembly_ref") and the text name ("assembly reference") of a kind.
llvm::StringRef itemKindId(ItemKind K);
llvm::StringRef itemKindText(ItemKind K);

/// An item added, removed or changed. An item is known by its kind and name (a type by its full
/// name, a field by `Type::name`, a custom attribute by its owner and its whole text); a changed
/// one keeps its name and differs in what Before and After describe (flags, base type, version,
/// contents).
struct MetadataChange {
  ItemKind Kind;
  ChangeKind Change;
  std::string Name;
  std::string Before, After; // for a change
};

struct DiffOptions {
  /// Only methods whose name or `Type::Name` matches one of these (all if empty); with any, the
  /// metadata is not compared.
  std::vector<llvm::GlobPattern> Methods;
  /// Unchanged lines around each change.
  unsigned Context = 3;
  bool HashTexts = false;
  /// Find referenced assemblies of each module (enum sizes in custom attributes); may be null.
  metadata::AssemblyResolver *ResolverA = nullptr, *ResolverB = nullptr;
  /// Threads for the comparison; may be null (this thread alone).
  WorkerTeam *Team = nullptr;
};

struct ModuleDiff {
  std::vector<MethodChange> Methods;
  std::vector<MetadataChange> Metadata;
  /// Methods compared in all (those in either module that the options select).
  uint32_t MethodsCompared = 0;
  bool same() const { return Methods.empty() && Metadata.empty(); }
};

/// A module to compare, and its file's name for messages.
struct DiffInput {
  const pe::Image &Image;
  const metadata::Module &M;
  llvm::StringRef Path;
};

/// Compares module \p A with module \p B. Changed methods come in A's order, removed ones among
/// them, then the added ones in B's order; metadata changes are grouped by kind. A method whose
/// text could not be made in full (its body does not decode) is an error: the texts would not
/// say what changed.
llvm::Expected<ModuleDiff> diffModules(DiffInput A, DiffInput B, const DiffOptions &Options);

} // namespace weft::text

#endif
