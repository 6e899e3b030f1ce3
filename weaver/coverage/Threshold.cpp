//===- weaver/coverage/Threshold.cpp - Coverage thresholds ----------------===//
#include "weaver/coverage/Threshold.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace llvm;

namespace weft::coverage {

namespace {

/// One method of one document, its runs in every map of the assembly added up.
struct MethodRuns {
  std::map<uint32_t, bool> Lines; // line -> run
  std::vector<uint64_t> Branches; // each outcome's hits, by ordinal
  bool HasBranches = false;

  void addBranches(const std::vector<uint64_t> &Hits) {
    // The same method built for another target framework: the same outcomes, taken more often;
    // different code keeps the outcomes it had.
    if (!HasBranches) {
      Branches = Hits;
      HasBranches = true;
    } else if (Branches.size() == Hits.size()) {
      for (size_t I = 0; I < Hits.size(); ++I)
        Branches[I] += Hits[I];
    }
  }
};

using Key = std::tuple<std::string, std::string, std::string>; // document, type, method

/// A method's runs per document path (without lines, its blocks as lines of the assembly).
void addMethod(const Map &M, const StatementLines &Statements, const Method &Me,
               std::map<Key, MethodRuns> &Out) {
  bool BlockMode = !M.hasLines();
  auto Doc = [&](uint32_t D) {
    return BlockMode || D >= M.Documents.size() ? M.Assembly : M.Documents[D];
  };
  std::map<std::string, MethodRuns *> Runs;
  auto RunsIn = [&](const std::string &Document) -> MethodRuns & {
    MethodRuns *&R = Runs[Document];
    if (!R)
      R = &Out[Key{Document, Me.Type, Me.fullName()}];
    return *R;
  };
  for (size_t K = 0; K < Me.Blocks.size(); ++K) {
    const Block &B = Me.Blocks[K];
    if (BlockMode) {
      bool &Run = RunsIn(M.Assembly).Lines[Me.FirstCounter + uint32_t(K) + 1];
      Run = Run || B.Hits;
      continue;
    }
    for (const SourceSpan &S : B.Lines) {
      MethodRuns &R = RunsIn(Doc(S.Document));
      Statements.forEach(S, [&](uint32_t N, bool Counts) {
        bool &Run = R.Lines[N];
        Run = Run || (Counts && B.Hits);
      });
    }
  }
  // Branch outcomes, by the document of their statement.
  std::map<std::string, std::vector<uint64_t>> Outcomes;
  for (const BranchPoint &P : Me.Branches)
    if (!P.Coincides)
      Outcomes[Doc(P.Document)].push_back(P.Hits);
  for (auto &[Document, Hits] : Outcomes)
    RunsIn(Document).addBranches(Hits);
}

double floor2(double V) { return std::floor(V * 100) / 100; }

const char *metricName(Metric K) {
  return K == Metric::Line ? "line" : K == Metric::Branch ? "branch" : "method";
}

} // namespace

std::vector<ModuleFigures> moduleFigures(ArrayRef<Map> Maps) {
  std::map<std::string, std::map<Key, MethodRuns>> ByAssembly;
  for (const Map &M : Maps) {
    if (M.Methods.empty())
      continue;
    std::map<Key, MethodRuns> &Methods = ByAssembly[M.Assembly];
    StatementLines Statements(M);
    for (const Method &Me : M.Methods)
      addMethod(M, Statements, Me, Methods);
  }
  std::vector<ModuleFigures> Out;
  for (const auto &[Assembly, Methods] : ByAssembly) {
    ModuleFigures F;
    F.Assembly = Assembly;
    for (const auto &[K, R] : Methods) {
      unsigned Run = unsigned(llvm::count_if(R.Lines, [](const auto &L) { return L.second; }));
      F.Lines.add({Run, R.Lines.size()});
      F.Branches.add({uint64_t(llvm::count_if(R.Branches, [](uint64_t H) { return H != 0; })),
                      R.Branches.size()});
      if (!R.Lines.empty())
        F.Methods.add({Run != 0, 1});
    }
    Out.push_back(std::move(F));
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
