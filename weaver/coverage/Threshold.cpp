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

/// One method's branch outcomes in one document, its runs in every map of the assembly added up.
struct MethodBranches {
  std::vector<uint64_t> Hits; // each outcome's, by ordinal
  bool Seen = false;

  void add(const std::vector<uint64_t> &More) {
    // The same method built for another target framework: the same outcomes, taken more often;
    // different code keeps the outcomes it had.
    if (!Seen) {
      Hits = More;
      Seen = true;
    } else if (Hits.size() == More.size()) {
      for (size_t I = 0; I < More.size(); ++I)
        Hits[I] += More[I];
    }
  }
};

/// A method as coverlet tells it apart in a module: type and name with signature.
using MethodKey = std::pair<std::string, std::string>;

/// One source line of a module, as coverlet holds it: once per document, belonging to the first
/// method coverlet instrumented with a statement on it, run if any statement on it ran.
struct LineRun {
  std::pair<uint64_t, uint64_t> Rank{~uint64_t(0), ~uint64_t(0)}; // (Method::Order, row)
  MethodKey Owner;
  bool Run = false;
};

/// What a module's maps give the figures.
struct ModuleRuns {
  std::map<std::pair<std::string, uint32_t>, LineRun> Lines; // (document, line)
  std::map<std::pair<std::string, MethodKey>, MethodBranches> Branches;
};

/// Adds method \p Me (the \p Row-th of its map) to \p Out: its lines, by document (without
/// lines, its blocks as lines of the assembly), and its branch outcomes.
void addMethod(const Map &M, const StatementLines &Statements, const Method &Me, uint64_t Row,
               ModuleRuns &Out) {
  bool BlockMode = !M.hasLines();
  auto Doc = [&](uint32_t D) {
    return BlockMode || D >= M.Documents.size() ? M.Assembly : M.Documents[D];
  };
  MethodKey Key{Me.Type, Me.fullName()};
  std::pair<uint64_t, uint64_t> Rank{Me.Order ? *Me.Order : 0, Row};
  auto Line = [&](const std::string &Document, uint32_t N, bool Run) {
    LineRun &L = Out.Lines[{Document, N}];
    if (Rank < L.Rank) {
      L.Rank = Rank;
      L.Owner = Key;
    }
    L.Run = L.Run || Run;
  };
  for (size_t K = 0; K < Me.Blocks.size(); ++K) {
    const Block &B = Me.Blocks[K];
    if (BlockMode) {
      Line(M.Assembly, Me.FirstCounter + uint32_t(K) + 1, B.Hits != 0);
      continue;
    }
    for (const SourceSpan &S : B.Lines)
      Statements.forEach(S, [&](uint32_t N, bool Counts) {
        Line(Doc(S.Document), N, Counts && B.Hits);
      });
  }
  // Branch outcomes, by the document of their statement.
  std::map<std::string, std::vector<uint64_t>> Outcomes;
  for (const BranchPoint &P : Me.Branches)
    if (!P.Coincides)
      Outcomes[Doc(P.Document)].push_back(P.Hits);
  for (auto &[Document, Hits] : Outcomes)
    Out.Branches[{Document, Key}].add(Hits);
}

double floor2(double V) { return std::floor(V * 100) / 100; }

const char *metricName(Metric K) {
  return K == Metric::Line ? "line" : K == Metric::Branch ? "branch" : "method";
}

} // namespace

std::vector<ModuleFigures> moduleFigures(ArrayRef<Map> Maps) {
  std::map<std::string, ModuleRuns> ByAssembly;
  for (const Map &M : Maps) {
    if (M.Methods.empty())
      continue;
    ModuleRuns &Runs = ByAssembly[M.Assembly];
    StatementLines Statements(M);
    for (size_t Row = 0; Row < M.Methods.size(); ++Row)
      addMethod(M, Statements, M.Methods[Row], Row, Runs);
  }
  std::vector<ModuleFigures> Out;
  for (const auto &[Assembly, Runs] : ByAssembly) {
    ModuleFigures F;
    F.Assembly = Assembly;
    // A method with lines of its own is covered when one of them ran.
    std::map<MethodKey, bool> Methods;
    for (const auto &[Where, L] : Runs.Lines) {
      F.Lines.add({L.Run, 1});
      bool &Covered = Methods[L.Owner];
      Covered = Covered || L.Run;
    }
    for (const auto &[Method, Covered] : Methods)
      F.Methods.add({Covered, 1});
    for (const auto &[Where, B] : Runs.Branches)
      F.Branches.add({uint64_t(llvm::count_if(B.Hits, [](uint64_t H) { return H != 0; })),
                      B.Hits.size()});
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
