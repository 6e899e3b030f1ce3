//===- coverage/CoverletFormats.h - coverlet's report formats ---*- C++ -*-===//
//
// The result as coverlet holds it, which every report is made from (Cobertura, LCOV, OpenCover,
// coverlet's JSON, the thresholds' figures): module -> source document -> class -> method, each
// method with the hits of its lines and its branch outcomes, as coverlet.msbuild 10.0.1's
// Coverage.GetCoverageResult makes it (CoverletResult.cpp says how), in the order coverlet lists
// them. And the two formats that coverlet writes besides Cobertura and LCOV: OpenCover XML
// (SonarQube, ReportGenerator, Azure DevOps read it) and coverlet's own JSON (its MergeWith reads
// it, and tools built on coverlet).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_COVERAGE_COVERLETFORMATS_H
#define WEFT_COVERAGE_COVERLETFORMATS_H

#include "coverage/Report.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace weft::coverage {

namespace detail {
// InsertionMap's index: a hash table for numbers (each widened, so that no key is one of the
// table's two reserved ones), a tree for names.
inline uint64_t indexKey(uint32_t K) { return K; }
inline std::pair<uint64_t, uint64_t> indexKey(const std::pair<uint32_t, uint32_t> &K) {
  return {K.first, K.second};
}
inline const std::string &indexKey(const std::string &K) { return K; }
template <typename K>
using IndexOf = std::conditional_t<std::is_same_v<K, std::string>, std::map<std::string, size_t>,
                                   llvm::DenseMap<std::decay_t<decltype(indexKey(K()))>, size_t>>;
} // namespace detail

/// A map that lists its entries in the order their keys were first added, as .NET's Dictionary
/// enumerates them (coverlet's result is made of Dictionaries); an erased entry leaves the others'
/// order as it was.
template <typename K, typename V> class InsertionMap {
public:
  using Entry = std::pair<K, V>;
  /// The value of \p Key, added (default-made, at the end) if it is not there.
  V &operator[](const K &Key) {
    auto [It, New] = Index.try_emplace(detail::indexKey(Key), Items.size());
    if (New)
      Items.emplace_back(Key, V());
    return Items[It->second].second;
  }
  V *find(const K &Key) {
    auto It = Index.find(detail::indexKey(Key));
    return It == Index.end() ? nullptr : &Items[It->second].second;
  }
  const V *find(const K &Key) const {
    auto It = Index.find(detail::indexKey(Key));
    return It == Index.end() ? nullptr : &Items[It->second].second;
  }
  void erase(const K &Key) {
    auto It = Index.find(detail::indexKey(Key));
    if (It == Index.end())
      return;
    Items.erase(Items.begin() + std::ptrdiff_t(It->second));
    Index.clear();
    for (size_t I = 0; I < Items.size(); ++I)
      Index.try_emplace(detail::indexKey(Items[I].first), I);
  }
  size_t size() const { return Items.size(); }
  bool empty() const { return Items.empty(); }
  typename std::vector<Entry>::iterator begin() { return Items.begin(); }
  typename std::vector<Entry>::iterator end() { return Items.end(); }
  typename std::vector<Entry>::const_iterator begin() const { return Items.begin(); }
  typename std::vector<Entry>::const_iterator end() const { return Items.end(); }

private:
  std::vector<Entry> Items;
  detail::IndexOf<K> Index;
};

/// One method in one document, the maps of its assembly (target frameworks) added up.
struct MethodResult {
  std::string Name, Signature; // Method::Name, Method::Signature
  /// The name and signature Cobertura gives the method: cut from coverlet's full name as coverlet
  /// cuts it ("F", "(System.String)"), else Name and Signature.
  std::string CoberturaName, CoberturaSignature;
  /// The lines the method holds (those coverlet gives it: see CoverletResult.cpp), each with the
  /// hits of every statement on it, whatever method; without lines, "line" N is counter N-1.
  std::map<uint32_t, uint64_t> Lines;
  /// The branch outcomes it holds, in coverlet's order; they may be on lines of other methods.
  std::vector<BranchPoint> Branches;
  uint64_t Entered = 0; // the hits of the method's first block
  /// line -> the smallest original IL offset of the method's own statements on it (0 for code
  /// that an earlier pass added).
  std::map<uint32_t, uint32_t> Offsets;
  /// coverlet's cyclomatic complexity: the method's outcomes, at least one.
  uint64_t complexity() const { return std::max<uint64_t>(1, Branches.size()); }
};

/// Method full name (coverlet's, Method::reportName) -> method.
using ClassResult = InsertionMap<std::string, MethodResult>;
/// Class (type name, "Outer/Inner" for nested types) -> methods.
using DocumentResult = InsertionMap<std::string, ClassResult>;

struct ModuleResult {
  std::string Assembly, Mvid;
  /// Document path (the assembly's name when the maps have no lines) -> classes. A document
  /// whose classes coverlet removed (lambda classes, CoverletResult.cpp) stays, empty.
  InsertionMap<std::string, DocumentResult> Documents;
};

/// The maps as coverlet's result holds them, grouped by assembly, in name order (the maps of one
/// assembly merged as coverlet merges results).
std::vector<ModuleResult> coverletResult(llvm::ArrayRef<Map> Maps);

/// Lines and branch outcomes, each with those covered, as coverlet's CoverageSummary counts them.
struct Figures {
  uint64_t Lines = 0, LinesCovered = 0, Branches = 0, BranchesCovered = 0;
  /// Methods with lines, and those with a line run.
  uint64_t Methods = 0, MethodsCovered = 0;
  uint64_t Complexity = 0; // the methods' complexities added up
  void add(const MethodResult &R);
  void add(const Figures &O);
};
Figures figuresOf(const ClassResult &Class);
Figures figuresOf(const DocumentResult &Document);
Figures figuresOf(const ModuleResult &Module);

/// The report of \p Maps, whose result (coverletResult(Maps)) is \p Result: a caller that also
/// needs the figures makes the result once (it is most of a report's work).
void writeReport(llvm::ArrayRef<Map> Maps, llvm::ArrayRef<ModuleResult> Result,
                 const ReportOptions &O, llvm::raw_ostream &OS);
/// reportTotals(Maps) of the result of Maps.
ReportTotals reportTotals(llvm::ArrayRef<ModuleResult> Result);

/// OpenCover XML, shaped as coverlet writes it: one sequence point per line, the branch points,
/// and summaries per method, class and session.
void writeOpenCover(llvm::ArrayRef<ModuleResult> Modules, const ReportOptions &O,
                    llvm::raw_ostream &OS);

/// coverlet's JSON: {module file: {document: {class: {method: {Lines, Branches}}}}}.
void writeCoverletJson(llvm::ArrayRef<ModuleResult> Modules, llvm::raw_ostream &OS);

/// Cobertura XML and LCOV, shaped as coverlet writes them.
void writeCobertura(llvm::ArrayRef<Map> Maps, llvm::ArrayRef<ModuleResult> Modules,
                    const ReportOptions &O, llvm::raw_ostream &OS);
void writeLcov(llvm::ArrayRef<ModuleResult> Modules, llvm::raw_ostream &OS);

} // namespace weft::coverage

#endif
