//===- coverage/Threshold.h - Coverage thresholds ---------------*- C++ -*-===//
//
// The figures coverlet checks its thresholds against, and the check (`weft coverage report
// --threshold`, the package's WeftThreshold). As coverlet computes them from its result (the
// one the reports hold, CoverletFormats.h), per module (an assembly, its maps for several target
// frameworks merged):
//
//  - line: each source line of a document once, covered when a statement on it ran;
//  - branch: every branch outcome the result keeps, covered when taken;
//  - method: the methods with lines of their own, covered when one of their lines ran.
//
// A percentage is covered/total floored to two decimals, 100 when there is nothing to count.
// The statistic compares each module (minimum), all modules counted together (total), or the
// mean of the modules' percentages (average, floored to two decimals) with the threshold.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_COVERAGE_THRESHOLD_H
#define WEFT_COVERAGE_THRESHOLD_H

#include "coverage/Report.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft::coverage {

enum class Metric { Line, Branch, Method };
enum class Statistic { Minimum, Total, Average };

struct Counts {
  uint64_t Covered = 0, Total = 0;
  void add(const Counts &O) { Covered += O.Covered, Total += O.Total; }
};

struct ModuleResult; // CoverletFormats.h

/// One module's figures.
struct ModuleFigures {
  std::string Assembly;
  Counts Lines, Branches, Methods;
  const Counts &of(Metric K) const {
    return K == Metric::Line ? Lines : K == Metric::Branch ? Branches : Methods;
  }
};

/// The figures of each module of \p Maps (with their hits added), by assembly name. Maps with
/// no method (a module the filters left out whole) are no module.
std::vector<ModuleFigures> moduleFigures(llvm::ArrayRef<Map> Maps);
/// The same of the result of \p Maps (coverletResult(Maps)), which the caller made.
std::vector<ModuleFigures> moduleFigures(llvm::ArrayRef<Map> Maps,
                                         llvm::ArrayRef<ModuleResult> Result);

/// coverlet's percentage: covered/total floored to two decimals; 100 for nothing to count.
double percent(const Counts &C);
/// \p P as coverlet prints a percentage: "57.14%", "80%".
std::string percentText(double P);

struct Threshold {
  Metric Kind;
  double Percent;
};

/// The thresholds asked for, as coverlet reads its three properties: \p Values is one number
/// for every type, or one per type in \p Types' order ("80" or "80,70,90"); \p Types a list of
/// line, branch and method; \p Stat minimum, total or average (without case). Errors say which
/// value is wrong.
llvm::Expected<std::vector<Threshold>> parseThresholds(llvm::StringRef Values,
                                                       llvm::StringRef Types);
llvm::Expected<Statistic> parseStatistic(llvm::StringRef Stat);

/// The figures below their thresholds, each as a message that names the module (or the
/// statistic) and the figure: "line coverage of module 'Greeter' is 57.14%, below the
/// threshold of 80%". None when all are met.
std::vector<std::string> checkThresholds(llvm::ArrayRef<ModuleFigures> Modules,
                                         llvm::ArrayRef<Threshold> Limits, Statistic Stat);

} // namespace weft::coverage

#endif
