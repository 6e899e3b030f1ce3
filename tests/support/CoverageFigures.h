//===- tests/support/CoverageFigures.h - Lines and branches of two tools ---*- C++ -*-===//
//
// The figures the coverage comparisons look at, read from coverlet's JSON report and from weft's
// LCOV report: each source line's hits, each branch outcome's hits (by file, line, the branch
// instruction's offset and the path), and the totals. Several reports of one tool add up (the
// target frameworks of one test project), outcome by outcome and line by line.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_COVERAGEFIGURES_H
#define WEFT_TESTS_SUPPORT_COVERAGEFIGURES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace weft::test {

struct CoverageFigures {
  using LineKey = std::pair<std::string, unsigned>;                        // file, line
  using BranchKey = std::tuple<std::string, unsigned, unsigned, unsigned>; // + offset, path
  std::map<LineKey, uint64_t> Lines;
  std::map<BranchKey, uint64_t> Branches;
  /// The records read, and those with hits: lines and outcomes of several modules with one key
  /// (a source file compiled into two assemblies) count once in the maps above, once each here.
  uint64_t LineRecords = 0, LineRecordsCovered = 0, BranchRecords = 0, BranchRecordsCovered = 0;
  /// What the reader could not read (empty when all went well).
  std::string Error;

  uint64_t linesCovered() const;
  uint64_t branchesCovered() const;
};

/// Adds coverlet's JSON report (module -> document -> class -> method -> Lines, Branches) to \p F.
void addCoverletJson(CoverageFigures &F, llvm::StringRef Json);
/// Adds weft's LCOV report (SF, DA, BRDA) to \p F.
void addWeftLcov(CoverageFigures &F, llvm::StringRef Lcov);

/// The differences between weft's figures and coverlet's, one per line ("" when there are none):
/// lines or outcomes only one has, hits that differ, and the totals. Lines of \p Known (file
/// suffix and line: differences explained elsewhere) are left out, and listed if they agree. The
/// branch outcomes of \p Unsettled lines (whose way the program's own timing picks from run to
/// run) are left out; their lines' hits are compared.
std::string coverageDifferences(const CoverageFigures &Weft, const CoverageFigures &Coverlet,
                                const std::set<std::pair<std::string, unsigned>> &Known = {},
                                const std::set<std::pair<std::string, unsigned>> &Unsettled = {});

} // namespace weft::test

#endif
