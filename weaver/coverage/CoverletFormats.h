//===- weaver/coverage/CoverletFormats.h - coverlet's report formats -*- C++ -*-===//
//
// The two report formats that coverlet writes besides Cobertura and LCOV, made from the same
// maps and hits: OpenCover XML (SonarQube, ReportGenerator, Azure DevOps read it) and coverlet's
// own JSON (its MergeWith reads it, and tools built on coverlet). Both are made from the result
// as coverlet holds it: module -> source document -> class -> method, each method with the hits
// of its lines and its branch outcomes.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVER_COVERAGE_COVERLETFORMATS_H
#define WEFT_WEAVER_COVERAGE_COVERLETFORMATS_H

#include "weaver/coverage/Report.h"

#include <map>

namespace weft::coverage {

/// One method in one document, the maps of its assembly (target frameworks) added up.
struct MethodResult {
  std::string Name; // Method::Name
  /// line -> hits, lines counted as the other reports count them (each statement on every line
  /// it spans, the statements of a line added up); without lines, "line" N is counter N-1.
  std::map<uint32_t, uint64_t> Lines;
  /// Its branch outcomes on lines of this document, in ordinal order; the same outcome of
  /// several maps (same line, offsets, path and ordinal) is one, its hits added up.
  std::vector<BranchPoint> Branches;
  uint32_t Complexity = 0;
  uint64_t Entered = 0; // the hits of the method's first block
  /// line -> the smallest original IL offset of the code of a statement on it (0 for code that
  /// an earlier pass added).
  std::map<uint32_t, uint32_t> Offsets;
};

/// Method full name ("Type::Name(parameter types)") -> method.
using ClassResult = std::map<std::string, MethodResult>;
/// Class (type name, "Outer/Inner" for nested types) -> methods.
using DocumentResult = std::map<std::string, ClassResult>;

struct ModuleResult {
  std::string Assembly, Mvid;
  /// Document path (the assembly's name when the maps have no lines) -> classes.
  std::map<std::string, DocumentResult> Documents;
};

/// The maps grouped by assembly, in name order (the maps of one assembly merged).
std::vector<ModuleResult> coverletResult(llvm::ArrayRef<Map> Maps);

/// OpenCover XML, shaped as coverlet writes it: one sequence point per line, the branch points,
/// and summaries per method, class and session.
void writeOpenCover(llvm::ArrayRef<Map> Maps, const ReportOptions &O, llvm::raw_ostream &OS);

/// coverlet's JSON: {module file: {document: {class: {method: {Lines, Branches}}}}}.
void writeCoverletJson(llvm::ArrayRef<Map> Maps, llvm::raw_ostream &OS);

} // namespace weft::coverage

#endif
