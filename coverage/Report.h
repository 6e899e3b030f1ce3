//===- coverage/Report.h - Coverage reports ---------------------*- C++ -*-===//
//
// Joins what the coverage pass wrote at weave time (the map, OUT.coverage.json) with what the woven
// program wrote when it ran (one or more hits files), and writes the result as Cobertura XML or
// LCOV, the formats report tools and CI services read, or as a plain text table.
//
// Lines, as coverlet counts them: each sequence point (statement) counts the runs of its block on
// every line it spans, and a line's hits are those of all its statements added up (`if (x)
// return;` on one line is two statements). Branches, as coverlet counts them: the outcomes of the
// conditional branches the coverage pass found by coverlet's rules
// (passes/coverage/CoverageBranches.h), each on the line of its branch instruction (Cobertura condition-coverage
// and conditions, LCOV BRDA); rates and totals per method, class, package and report as
// coverlet's (covered outcomes / outcomes), a method's complexity max(1, its outcomes).
// A method's hits are those of its first block. Which class and method hold each line and
// outcome, and in which order, is coverlet's (CoverletFormats.h). When the map has no lines at
// all (no PDB), the reports list blocks instead: "line" N is the module's counter N-1, the file
// the assembly.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_COVERAGE_REPORT_H
#define WEFT_COVERAGE_REPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace weft::coverage {

struct SourceSpan {
  uint32_t Document = 0; // index in Map::Documents
  uint32_t StartLine = 0, StartColumn = 0, EndLine = 0, EndColumn = 0;
};

struct Block {
  /// The block's original IL range, if it has one (code added by an earlier pass has none).
  std::optional<std::pair<uint32_t, uint32_t>> IL;
  llvm::SmallVector<SourceSpan, 1> Lines; // mostly one statement
  uint64_t Hits = 0;
  /// A segment that continues the block before it (it starts at a statement after code that may
  /// throw): its own counter, but no branch of its own.
  bool Continues = false;
  /// Of Hits, the arrivals of jumps whose coverlet counter goes past the statement starting the
  /// block (BranchPoint::Past): coverlet's statement counter does not see them.
  uint64_t Passed = 0;
  /// The runs coverlet counts for the block's statements.
  uint64_t statementHits() const { return Hits > Passed ? Hits - Passed : 0; }
};

/// One outcome of a conditional branch instruction, as coverlet counts branches: each way a
/// `brtrue`/`brfalse`/compare-and-branch can go, each target of a `switch` and its fall-through.
/// Its hits are the entries into the instruction the outcome leads to (after a chain of
/// unconditional branches), which always starts a block: that block's counter. A jump to where
/// code also falls in (outside exception regions) counts only when taken, as coverlet counts it
/// (Taken): the runs of the block holding the branch and of those holding MoreRuns, less the
/// arrivals at LessArrivals (the instruction after the branch first).
struct BranchPoint {
  uint32_t Document = 0, Line = 0; // the statement holding the branch instruction
  uint32_t Offset = 0;             // the branch instruction's original IL offset
  uint32_t EndOffset = 0;          // where this outcome leads
  uint32_t Path = 0;               // 0 falls through; 1.. the targets in order
  uint32_t Ordinal = 0;            // the outcome's number in its method
  uint64_t Hits = 0;
  /// Counted only when the jump is taken, from the counters below.
  bool Taken = false;
  std::vector<uint32_t> LessArrivals, MoreRuns;
  /// Or counted by a counter of its own on the jump: the method's block (counter) of this number.
  std::optional<uint32_t> OwnCounter;
  /// A jump counted when taken that coverlet sends straight to its end, past the counters of the
  /// outcomes that count arrivals there (no statement starts there): they leave its hits out.
  bool Bypasses = false;
  /// coverlet keeps one outcome of a document's line and ordinal, that of the method it
  /// instrumented first, and adds the hits of the others' to it: this is one of the others.
  bool Coincides = false;
  /// A jump counted when taken that leads through `br`s starting statements of their own: their
  /// offsets. coverlet's counter for it goes on past them, so they do not count it.
  std::vector<uint32_t> Past;
};

struct Method {
  std::string Token, Type, Name, Signature;
  /// The method's full name as coverlet keys it (Cecil's: "System.Int32 Ns.T::F(System.String)"),
  /// or empty in maps that lack it.
  std::string CoverletName;
  uint32_t FirstCounter = 0;
  /// Where coverlet instruments the method: its type as Cecil's GetTypes lists them (each type
  /// followed by those nested in it), times 2, plus 1 for a constructor (after the methods).
  std::optional<uint32_t> Order;
  /// Cyclomatic complexity (decisions + 1), as the pass counted it; 0 in maps that lack it.
  uint32_t Complexity = 0;
  std::vector<Block> Blocks;
  /// The method's branch outcomes, by ordinal (empty without a PDB: they need a line).
  std::vector<BranchPoint> Branches;
  /// "Type::Name(signature)".
  std::string fullName() const { return Type + "::" + Name + Signature; }
  /// The name the reports key the method by: coverlet's, else fullName().
  std::string reportName() const { return CoverletName.empty() ? fullName() : CoverletName; }
};

struct Map {
  std::string Assembly, Mvid;
  uint32_t Counters = 0;
  std::vector<std::string> Documents;
  std::vector<Method> Methods;
  bool hasLines() const;
};

/// Where a statement's runs count, as coverlet counts them: on each line it spans, except the
/// lines of statements nested strictly inside it (theirs count there); a damaged map's statement
/// of 10000 lines or more counts on its first only. Every report format counts lines this way.
class StatementLines {
public:
  explicit StatementLines(const Map &M);
  /// Calls \p Fn(Line, Counts) for each line of \p S; Counts is false on a nested statement's
  /// line (the line is there, without \p S's runs).
  void forEach(const SourceSpan &S, llvm::function_ref<void(uint32_t, bool)> Fn) const;

private:
  // (document, first, last) of a statement -> the lines of the statements nested in it.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> Nested;
};

/// \p S as XML text or attribute value: markup characters as entities, control characters XML
/// 1.0 does not allow as spaces. The Cobertura and OpenCover writers share it.
std::string xmlText(llvm::StringRef S);

/// Reads a coverage map; errors name the JSON element.
llvm::Expected<Map> readMap(llvm::StringRef Json);

/// A hits file: "weft-hits 1 <mvid> <counters> <assembly>", then "index count" lines.
struct Hits {
  std::string Mvid, Assembly;
  uint32_t Counters = 0;
  /// (counter, count) as the file lists them.
  std::vector<std::pair<uint32_t, uint64_t>> Counts;
};
/// Reads a hits file; errors name the line.
llvm::Expected<Hits> readHits(llvm::StringRef Text);

/// Adds \p H's counts to the map's blocks, and sets the branch points' hits from them; fails if
/// the hits are from another module or weave.
llvm::Error addHits(Map &M, const Hits &H);

/// Sets every branch point's hits from the hits of the blocks (addHits does).
void setBranchHits(Map &M);

/// The indexes of \p M's methods in the order coverlet instruments them: by Method::Order, then
/// by row (a type's methods in the order it declares them).
std::vector<size_t> instrumentationOrder(const Map &M);

/// Covered/Valid as coverlet writes a rate, rounded down to four decimals ("0.6666", "1"), and as
/// a percentage, rounded down to two ("66.66", "100"); Valid 0 is all covered.
std::string coverletRate(uint64_t Covered, uint64_t Valid);
std::string coverletPercent(uint64_t Covered, uint64_t Valid);

/// OpenCover and Json (coverlet's) are written by CoverletFormats.h's writers.
enum class Format { Cobertura, Lcov, Text, OpenCover, Json };

struct ReportOptions {
  Format Kind = Format::Cobertura;
  /// Cobertura's timestamp attribute (seconds since 1970).
  int64_t Timestamp = 0;
  /// Cobertura's version attribute.
  std::string Version = "weft";
};

/// The totals a report states at its root (Cobertura's lines-valid, lines-covered, ...), as
/// coverlet's result holds them (CoverletFormats.h): each document's line once, and every branch
/// outcome the result keeps, whether a line shows it or not.
struct ReportTotals {
  uint64_t Lines = 0, LinesCovered = 0, Branches = 0, BranchesCovered = 0;
};
ReportTotals reportTotals(llvm::ArrayRef<Map> Maps);

/// Writes the report of \p Maps: several assemblies are several packages (Cobertura); maps of one
/// assembly (its target frameworks) are merged, the runs of a method and line added up.
void writeReport(llvm::ArrayRef<Map> Maps, const ReportOptions &O, llvm::raw_ostream &OS);

} // namespace weft::coverage

#endif
