//===- tests/support/CoverageStructure.h - Where two tools' reports hold things -*- C++ -*-===//
//
// What a coverage report holds where, beside the hits, read from coverlet's JSON format (which
// weft writes too), Cobertura and LCOV, so that the comparisons can say where weft's reports are
// shaped otherwise than coverlet's: for each document of each module its classes in their order,
// and for each class its methods in their order, each with its lines and the branch outcomes it
// holds (line, offset, path); for each Cobertura package its classes, for each class its methods
// (name and signature) with their lines, and its lines each with the outcomes it shows
// (covered/total); for each LCOV record its functions, lines, outcomes and figures. Methods are
// named as the reports name them (coverlet's full names).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_COVERAGESTRUCTURE_H
#define WEFT_TESTS_SUPPORT_COVERAGESTRUCTURE_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace weft::test {

struct CoverageStructure {
  /// A place ("json Module.dll /src/a.cs Ns.T") -> what is there, in order.
  std::map<std::string, std::vector<std::string>> Places;
  /// What the readers could not read (empty when all went well).
  std::string Error;
};

/// Lines (file suffix, line) whose outcomes' hits the program's own timing picks: how many
/// outcomes they have is compared, not how many were taken.
using UnsettledLines = std::set<std::pair<std::string, unsigned>>;

void addJsonStructure(CoverageStructure &S, llvm::StringRef Json);
void addCoberturaStructure(CoverageStructure &S, llvm::StringRef Xml,
                           const UnsettledLines &Unsettled = {});
void addLcovStructure(CoverageStructure &S, llvm::StringRef Lcov,
                      const UnsettledLines &Unsettled = {});

/// Where \p Weft holds other things than \p Coverlet, or in another order, one place a
/// paragraph ("" when nowhere).
std::string structureDifferences(const CoverageStructure &Weft, const CoverageStructure &Coverlet);

} // namespace weft::test

#endif
