//===- coverage/Threshold.cpp - Coverage thresholds -----------------------===//
#include "coverage/Threshold.h"

#include "coverage/CoverletFormats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace weft::coverage {

namespace {

double floor2(double V) { return std::floor(V * 100) / 100; }

const char *metricName(Metric K) {
  return K == Metric::Line ? "line" : K == Metric::Branch ? "branch" : "method";
}

} // namespace

std::vector<ModuleFigures> moduleFigures(ArrayRef<Map> Maps) {
  return moduleFigures(Maps, coverletResult(Maps));
}

std::vector<ModuleFigures> moduleFigures(ArrayRef<Map> Maps, ArrayRef<ModuleResult> Result) {
  // A map with no method (a module the filters left out whole) is no module.
  std::set<std::string> Measured;
  for (const Map &M : Maps)
    if (!M.Methods.empty())
      Measured.insert(M.Assembly);
  std::vector<ModuleFigures> Out;
  for (const ModuleResult &M : Result) {
    if (!Measured.count(M.Assembly))
      continue;
    Figures F = figuresOf(M);
    ModuleFigures Module;
    Module.Assembly = M.Assembly;
    Module.Lines = {F.LinesCovered, F.Lines};
    Module.Branches = {F.BranchesCovered, F.Branches};
    Module.Methods = {F.MethodsCovered, F.Methods};
    Out.push_back(std::move(Module));
  }
  return Out;
}

std::string percentText(double P) {
  std::string S = formatv("{0:F2}", P).str();
  while (S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  return S + "%";
}

double percent(const Counts &C) {
  if (C.Total == 0)
    return 100;
  return std::floor(double(C.Covered) / double(C.Total) * 10000) / 100;
}

Expected<std::vector<Threshold>> parseThresholds(StringRef Values, StringRef Types) {
  auto Fail = [](const Twine &Message) {
    return createStringError(inconvertibleErrorCode(), Message);
  };
  SmallVector<StringRef, 3> TypeList, ValueList;
  Types.split(TypeList, ',', -1, false);
  std::vector<Metric> Kinds;
  for (StringRef T : TypeList) {
    T = T.trim();
    if (T.equals_insensitive("line"))
      Kinds.push_back(Metric::Line);
    else if (T.equals_insensitive("branch"))
      Kinds.push_back(Metric::Branch);
    else if (T.equals_insensitive("method"))
      Kinds.push_back(Metric::Method);
    else
      return Fail("threshold type '" + T + "' is none of line, branch and method");
  }
  if (Kinds.empty())
    return Fail("no threshold type (line, branch, method)");
  Values.split(ValueList, ',', -1, false);
  if (ValueList.size() != 1 && ValueList.size() != Kinds.size())
    return Fail("there are " + Twine(ValueList.size()) + " thresholds for " + Twine(Kinds.size()) +
                " threshold types: give one, or one for each type");
  std::vector<Threshold> Out;
  for (size_t I = 0; I < Kinds.size(); ++I) {
    StringRef V = ValueList[ValueList.size() == 1 ? 0 : I].trim();
    double P;
    if (V.getAsDouble(P) || !(P >= 0 && P <= 100))
      return Fail("threshold '" + V + "' is not a percentage from 0 to 100");
    Out.push_back({Kinds[I], P});
  }
  return Out;
}

Expected<Statistic> parseStatistic(StringRef Stat) {
  Stat = Stat.trim();
  if (Stat.equals_insensitive("minimum"))
    return Statistic::Minimum;
  if (Stat.equals_insensitive("total"))
    return Statistic::Total;
  if (Stat.equals_insensitive("average"))
    return Statistic::Average;
  return createStringError(inconvertibleErrorCode(), "threshold statistic '" + Stat +
                                                         "' is none of minimum, total and average");
}

std::vector<std::string> checkThresholds(ArrayRef<ModuleFigures> Modules,
                                         ArrayRef<Threshold> Limits, Statistic Stat) {
  std::vector<std::string> Out;
  // "[total ]line coverage[ of ...] is 57.14%, below the threshold of 80%".
  auto Below = [&](const Threshold &L, double Figure, StringRef Statistic, const Twine &Of) {
    if (L.Percent > Figure)
      Out.push_back((Statistic + metricName(L.Kind) + " coverage" + Of + " is " +
                     percentText(Figure) + ", below the threshold of " + percentText(L.Percent))
                        .str());
  };
  std::string Count =
      std::to_string(Modules.size()) + (Modules.size() == 1 ? " module" : " modules");
  for (const Threshold &L : Limits) {
    // No module at all: every figure is 0, as coverlet has it.
    if (Modules.empty()) {
      Below(L, 0, "", " (no module was measured)");
      continue;
    }
    switch (Stat) {
    case Statistic::Minimum:
      for (const ModuleFigures &M : Modules)
        Below(L, percent(M.of(L.Kind)), "", " of module '" + M.Assembly + "'");
      break;
    case Statistic::Total: {
      Counts All;
      for (const ModuleFigures &M : Modules)
        All.add(M.of(L.Kind));
      Below(L, percent(All), "total ", " of " + Count);
      break;
    }
    case Statistic::Average: {
      double Sum = 0;
      for (const ModuleFigures &M : Modules)
        Sum += percent(M.of(L.Kind));
      Below(L, floor2(Sum / double(Modules.size())), "average ", " of " + Count);
      break;
    }
    }
  }
  return Out;
}

} // namespace weft::coverage
