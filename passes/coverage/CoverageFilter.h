//===- passes/coverage/CoverageFilter.h - What coverage leaves out -*- C++ -*-===//
//
// The coverage pass's options that leave code out, with the meanings coverlet gives its own
// (so that a project switching from coverlet keeps its settings and its figures):
//
//  - include / exclude (repeatable): `[Assembly]Type` filters. `*` stands for any characters,
//    `?` makes the character before it optional; the type is its full name (`Ns.Outer/Inner`).
//    A module is left out whole when include filters ending in `*` name other assemblies, or an
//    exclude filter `[Assembly]*` names it (assembly names compared without case). A type is
//    left out when an exclude filter matches it or a type enclosing it, or when include filters
//    are given and none matches the type itself. Exclude wins over include.
//  - exclude-by-attribute (repeatable): attribute names (`Obsolete`, `ObsoleteAttribute` or
//    `System.ObsoleteAttribute`) that leave out the assembly, type (and the types it encloses),
//    method or property carrying them; ExcludeFromCodeCoverage and ExcludeFromCoverage always do.
//    The statements of a left-out method's lambdas, local functions and state machine (async,
//    iterator) are left out with it: every statement within its lines. A state machine type
//    keeps its coverage when it carries CompilerGenerated or GeneratedCode and those are asked
//    for.
//  - exclude-by-file (repeatable): source file globs (`**/Generated/*.cs`: `**` any folders, `*`
//    any characters within a name, compared without case, from the root); a method is left out
//    when its first sequence point is in such a file.
//  - skip-auto-props: the accessors the compiler wrote for auto-implemented properties, and the
//    constructors' statements that only assign a property's initial value or call
//    System.Object's constructor.
//
// Always, as coverlet: the constructors the compiler made (a record's copy constructor) are left
// out, those with source lines (the others are in no report anyway, and keep their counters).
//
// What is left out gets no counter and is absent from the map. Everything is decided in
// beginModule (prepare), serially, so that runOnMethod only reads; the statements left out of
// constructors are found in runOnMethod (noteBody), each method writing its own slot.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PASSES_COVERAGE_COVERAGEFILTER_H
#define WEFT_PASSES_COVERAGE_COVERAGEFILTER_H

#include "il/MethodBody.h"
#include "metadata/Module.h"
#include "metadata/pdb/SequencePoints.h"
#include "weaving/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace weft::passes {

/// An `[Assembly]Type` filter, as coverlet reads one.
class TypeFilter {
public:
  /// Fails, saying why, for what coverlet would not take as a filter.
  static llvm::Expected<TypeFilter> parse(llvm::StringRef Text);
  /// Whether the filter names \p Assembly (case-sensitive, as coverlet matches types) and the
  /// type whose full name is \p Type.
  bool matches(llvm::StringRef Assembly, llvm::StringRef Type) const;
  /// Whether the assembly part matches \p Assembly without regard to case (how coverlet chooses
  /// modules).
  bool matchesModule(llvm::StringRef Assembly) const;
  /// The whole filter ends in `*` (coverlet chooses modules with these only).
  bool endsWithStar() const { return Text.back() == '*'; }
  /// The type part is `*`: the filter takes a whole assembly.
  bool wholeAssembly() const { return TypePart == "*"; }
  const std::string &text() const { return Text; }

private:
  std::string Text, AssemblyPart, TypePart;
};

/// A source file glob, as Microsoft.Extensions.FileSystemGlobbing (which coverlet uses) matches
/// one: from the root, `**` any folders, `*` any characters within a name, without case.
bool matchesFileGlob(llvm::StringRef Glob, llvm::StringRef Path);

class CoverageFilter {
public:
  static llvm::Expected<CoverageFilter> create(const PassOptions &O);
  /// The options it reads, for the pass's registration.
  static std::vector<PassOptionInfo> optionInfos();

  /// Decides what of module \p M (whose assembly is \p Assembly) is left out; \p Pdb is the
  /// input's portable PDB, if any (exclude-by-file and the lines of left-out methods need it).
  void prepare(const metadata::Module &M, llvm::StringRef Assembly, const metadata::Module *Pdb);
  bool excludesModule() const { return ModuleExcluded; }
  bool excludesMethod(uint32_t Row) const {
    return ModuleExcluded || (Row < MethodExcluded.size() && MethodExcluded[Row]);
  }
  /// Finds the statements of constructor \p Row that skip-auto-props leaves out, in its body as
  /// read (before any counter). Writes only \p Row's slot: methods may call it at once.
  void noteBody(uint32_t Row, bool IsConstructor, const il::MethodBody &B);
  /// Whether the map keeps sequence point \p P of method \p Row.
  bool keepsPoint(uint32_t Row, const metadata::pdb::SequencePoint &P) const;

private:
  struct Section {
    uint32_t Document, FirstLine, LastLine;
    uint64_t Order; // instrumentOrder of the method left out
  };

  /// The full name of the type of an attribute whose constructor is \p Ctor, made once.
  const std::string &attributeName(metadata::Token Ctor);
  bool isExcludeAttribute(metadata::Token Ctor);
  /// \p IsStateMachine, if given, says whether \p Parent is a state machine type (asked only
  /// when it carries an excluding attribute).
  bool carriesExcludeAttribute(metadata::Token Parent,
                               llvm::function_ref<bool()> IsStateMachine = nullptr);
  bool carriesAttribute(metadata::Token Parent, llvm::StringRef FullName);
  bool isStateMachine(uint32_t TypeRow);
  bool typeExcluded(uint32_t TypeRow, llvm::StringRef Assembly);
  /// Leaves out method \p Row, its state machine, and the statements within its lines of the
  /// methods coverlet instruments after it.
  void excludeMethodWithItsCode(uint32_t Row);
  /// Where coverlet instruments method \p Row: by its type's place, constructors after the
  /// other methods, then its row.
  uint64_t instrumentOrder(uint32_t Row) const;
  /// Whether \p P lies within the lines of a method left out before method \p Row.
  bool inEarlierSection(uint32_t Row, const metadata::pdb::SequencePoint &P) const;
  bool hasLines(uint32_t Row) const;
  void addSection(uint32_t Row, uint64_t Order);
  void readLinesOfTheRest();

  std::vector<TypeFilter> Include, Exclude;
  std::vector<std::string> Attributes; // names and full names that exclude
  std::vector<std::string> Files;
  bool SkipAutoProps = false;

  // Set by prepare.
  const metadata::Module *M = nullptr;
  const metadata::Module *Pdb = nullptr;
  bool ModuleExcluded = false;
  std::vector<bool> MethodExcluded;                    // by MethodDef row
  std::vector<bool> PartlyInSections;                  // rows with some statements in a section
  std::vector<Section> Sections;                       // the lines of methods left out by attribute
  std::vector<uint32_t> TypeOrder;                     // coverletTypeOrder, when there are sections
  llvm::DenseMap<metadata::Token, bool> ExcludingCtor; // attribute constructor -> excludes
  llvm::DenseMap<metadata::Token, std::string> AttributeNames; // constructor -> attributeName
  std::vector<bool> BackingField;                      // Field rows of auto-property backing fields
  // Written by noteBody, each method its own slot.
  std::vector<llvm::SmallVector<uint32_t, 2>> SkippedOffsets;
};

} // namespace weft::passes

#endif
