//===- weaver/coverage/Report.cpp - Coverage reports ----------------------===//
#include "weaver/coverage/Report.h"

#include "support/Error.h"
#include "weaver/coverage/CoverletFormats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace weft::coverage {

bool Map::hasLines() const {
  for (const Method &M : Methods)
    for (const Block &B : M.Blocks)
      if (!B.Lines.empty())
        return true;
  return false;
}

// --- reading (the map: MapReader.cpp) ---

Expected<Hits> readHits(StringRef Text) {
  Hits H;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  auto Bad = [](size_t Line, const Twine &What) {
    return plainError("hits file: line " + Twine(Line + 1) + ": " + What);
  };
  SmallVector<StringRef, 5> Head;
  StringRef(Lines.empty() ? "" : Lines[0]).trim().split(Head, ' ', -1, false);
  if (Head.size() < 4 || Head[0] != "weft-hits")
    return Bad(0, "not a weft hits file (expected \"weft-hits 1 <mvid> <counters> ...\")");
  if (Head[1] != "1")
    return Bad(0, "version " + Head[1] + " (only 1 is known)");
  H.Mvid = Head[2].str();
  if (Head[3].getAsInteger(10, H.Counters))
    return Bad(0, "bad counter count '" + Head[3] + "'");
  if (Head.size() > 4)
    H.Assembly = Head[4].str();
  for (size_t I = 1; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    if (L.empty())
      continue;
    auto [A, B] = L.split(' ');
    uint32_t Index;
    uint64_t Count;
    if (A.getAsInteger(10, Index) || B.trim().getAsInteger(10, Count))
      return Bad(I, "expected \"index count\", found '" + L + "'");
    if (Index >= H.Counters)
      return Bad(I, "counter " + Twine(Index) + " beyond the " + Twine(H.Counters) + " counters");
    H.Counts.push_back({Index, Count});
  }
  return std::move(H);
}

Error addHits(Map &M, const Hits &H) {
  if (H.Mvid != M.Mvid || H.Counters != M.Counters)
    return plainError("the hits are of module " + H.Mvid + " with " + Twine(H.Counters) +
                      " counters, the map is of module " + M.Mvid + " with " + Twine(M.Counters) +
                      " (was the assembly woven again after the run?)");
  std::vector<Block *> ByCounter;
  ByCounter.reserve(M.Counters);
  for (Method &Me : M.Methods)
    for (Block &B : Me.Blocks)
      ByCounter.push_back(&B);
  for (auto [Index, Count] : H.Counts) {
    uint64_t &Hits = ByCounter[Index]->Hits;
    Hits = Count > ~uint64_t(0) - Hits ? ~uint64_t(0) : Hits + Count;
  }
  setBranchHits(M);
  return Error::success();
}

namespace {

/// A method's blocks by original start offset, to find where branch outcomes go.
class BlockIndex {
public:
  explicit BlockIndex(const Method &Me) : Me(Me) {
    for (size_t K = 0; K < Me.Blocks.size(); ++K)
      if (Me.Blocks[K].IL)
        Starts.push_back({Me.Blocks[K].IL->first, K});
    llvm::stable_sort(Starts, [](auto &A, auto &B) { return A.first < B.first; });
  }
  /// The block (not a segment) that starts at \p Offset, or null.
  const Block *at(uint32_t Offset) const {
    auto It = llvm::partition_point(Starts, [&](auto &S) { return S.first < Offset; });
    for (; It != Starts.end() && It->first == Offset; ++It)
      if (!Me.Blocks[It->second].Continues)
        return &Me.Blocks[It->second];
    return nullptr;
  }
  /// The block or segment holding \p Offset, or null.
  const Block *holding(uint32_t Offset) const {
    auto It = llvm::partition_point(Starts, [&](auto &S) { return S.first <= Offset; });
    if (It == Starts.begin())
      return nullptr;
    const Block &B = Me.Blocks[std::prev(It)->second];
    return Offset < B.IL->second ? &B : nullptr;
  }

private:
  const Method &Me;
  std::vector<std::pair<uint32_t, size_t>> Starts;
};

} // namespace

namespace {

uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  return B > ~uint64_t(0) - A ? ~uint64_t(0) : A + B;
}

/// A method's outcomes' hits from its blocks' counters (BranchPoint says how).
void setMethodBranchHits(Method &Me) {
  BlockIndex Index(Me);
  // Taken jumps first: runs less the times the branches went their other ways.
  std::map<uint32_t, uint64_t> Bypassing; // end offset -> hits of jumps that bypass it
  for (BranchPoint &BP : Me.Branches) {
    if (!BP.Taken)
      continue;
    if (BP.OwnCounter) {
      BP.Hits = *BP.OwnCounter < Me.Blocks.size() ? Me.Blocks[*BP.OwnCounter].Hits : 0;
      if (BP.Bypasses)
        Bypassing[BP.EndOffset] += BP.Hits;
      continue;
    }
    uint64_t Runs = 0, Falls = 0;
    for (uint32_t Offset : BP.MoreRuns)
      if (const Block *B = Index.holding(Offset))
        Runs = saturatingAdd(Runs, B->Hits);
    if (const Block *B = Index.holding(BP.Offset))
      Runs = saturatingAdd(Runs, B->Hits);
    for (uint32_t Offset : BP.LessArrivals)
      if (const Block *B = Index.at(Offset))
        Falls = saturatingAdd(Falls, B->Hits);
    BP.Hits = Runs > Falls ? Runs - Falls : 0;
    if (BP.Bypasses)
      Bypassing[BP.EndOffset] += BP.Hits;
  }
  // Then the arrivals, less the jumps that go past coverlet's counters.
  for (BranchPoint &BP : Me.Branches) {
    if (BP.Taken)
      continue;
    const Block *End = Index.at(BP.EndOffset);
    uint64_t Arrivals = End ? End->Hits : 0, Past = Bypassing[BP.EndOffset];
    BP.Hits = Arrivals > Past ? Arrivals - Past : 0;
  }
}

/// The method's row, from its token ("0x06000012").
uint32_t methodRow(const Method &Me) {
  uint32_t Token = 0;
  StringRef(Me.Token).getAsInteger(0, Token);
  return Token & 0xFFFFFF;
}

/// coverlet keys a module's outcomes by document, line and ordinal: of outcomes of several
/// methods with one key it keeps the first it instruments and adds the others' hits to it.
void joinCoincidingOutcomes(Map &M) {
  std::vector<Method *> Order;
  for (Method &Me : M.Methods)
    if (!Me.Branches.empty())
      Order.push_back(&Me);
  llvm::stable_sort(Order, [](const Method *A, const Method *B) {
    return std::make_pair(A->Order.value_or(0), methodRow(*A)) <
           std::make_pair(B->Order.value_or(0), methodRow(*B));
  });
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, BranchPoint *> First;
  for (Method *Me : Order)
    for (BranchPoint &BP : Me->Branches) {
      auto [It, New] = First.try_emplace({BP.Document, BP.Line, BP.Ordinal}, &BP);
      BP.Coincides = !New;
      if (!New)
        It->second->Hits = saturatingAdd(It->second->Hits, BP.Hits);
    }
}

} // namespace

void setBranchHits(Map &M) {
  for (Method &Me : M.Methods)
    if (!Me.Branches.empty())
      setMethodBranchHits(Me);
  joinCoincidingOutcomes(M);
}

// --- the line model ---

namespace {

/// The most lines one statement is counted on.
constexpr uint32_t MaxStatementLines = 10000;

/// One outcome of a branch on a line: the branch instruction's offset, the path, the hits.
struct BranchHit {
  uint32_t Offset = 0, Path = 0;
  uint64_t Hits = 0;
};

/// One source line (or, without lines, one block) as the reports show it.
struct LineData {
  uint64_t Hits = 0;
  /// The outcomes of the branches on the line, in the order of their ordinals.
  std::vector<BranchHit> Branches;
  bool isBranch() const { return !Branches.empty(); }
  /// Adds a statement's runs, saturating.
  void add(uint64_t More) { Hits = saturatingAdd(Hits, More); }
  /// Adds the same line of the same method built for another target framework: the same
  /// outcomes (same offset and path) run more times, others join.
  void addRun(const LineData &O) {
    add(O.Hits);
    for (const BranchHit &B : O.Branches) {
      auto It = llvm::find_if(
          Branches, [&](const BranchHit &X) { return X.Offset == B.Offset && X.Path == B.Path; });
      if (It != Branches.end())
        It->Hits = saturatingAdd(It->Hits, B.Hits);
      else
        Branches.push_back(B);
    }
  }
  unsigned branchesCovered() const {
    return unsigned(llvm::count_if(Branches, [](const BranchHit &B) { return B.Hits != 0; }));
  }
  /// Adds the same line of another method (a lambda on its line): its runs and its outcomes.
  void merge(const LineData &O) {
    add(O.Hits);
    Branches.insert(Branches.end(), O.Branches.begin(), O.Branches.end());
  }
};

using LineMap = std::map<uint32_t, LineData>;        // line -> data
using LinesByDocument = std::map<uint32_t, LineMap>; // document -> lines

/// A method's lines per document, with its branch outcomes on theirs; without source lines
/// (\p BlockMode), its blocks as lines of document 0, numbered by counter from 1.
LinesByDocument methodLines(const Method &M, bool BlockMode, const StatementLines &Statements) {
  LinesByDocument Out;
  for (size_t K = 0; K < M.Blocks.size(); ++K) {
    const Block &B = M.Blocks[K];
    if (BlockMode) {
      LineData &L = Out[0][M.FirstCounter + uint32_t(K) + 1];
      L.Hits = B.Hits;
      continue;
    }
    for (const SourceSpan &S : B.Lines)
      Statements.forEach(S, [&](uint32_t N, bool Counts) {
        LineData &L = Out[S.Document][N]; // a nested statement's line is there, with its hits
        if (Counts)
          L.add(B.Hits);
      });
  }
  if (BlockMode)
    return Out;
  for (const BranchPoint &BP : M.Branches) {
    if (BP.Coincides)
      continue;
    auto Doc = Out.find(BP.Document);
    if (Doc == Out.end())
      continue;
    auto Line = Doc->second.find(BP.Line);
    if (Line != Doc->second.end())
      Line->second.Branches.push_back({BP.Offset, BP.Path, BP.Hits});
  }
  return Out;
}

struct Totals {
  uint64_t Lines = 0, LinesCovered = 0, Branches = 0, BranchesCovered = 0;
  void add(const LineMap &Ls) {
    for (const auto &[N, L] : Ls) {
      ++Lines;
      LinesCovered += L.Hits != 0;
      if (L.isBranch()) {
        Branches += L.Branches.size();
        BranchesCovered += L.branchesCovered();
      }
    }
  }
};

/// Covered/Valid in hundredths of a percent, rounded down, as coverlet's figures are.
uint64_t basisPoints(uint64_t Covered, uint64_t Valid) {
  if (Valid == 0)
    return 10000;
  return uint64_t((long double)Covered * 10000 / (long double)Valid);
}

/// \p N ten-thousandths as a decimal number without trailing zeros ("0.6666", "1").
std::string tenThousandths(uint64_t N) {
  std::string S = std::to_string(N / 10000);
  if (uint64_t Frac = N % 10000) {
    std::string F = std::to_string(Frac);
    F.insert(0, 4 - F.size(), '0');
    while (F.back() == '0')
      F.pop_back();
    S += "." + F;
  }
  return S;
}

/// A rate from 0 to 1, as coverlet writes it (rounded down to four decimals).
std::string rate(uint64_t Covered, uint64_t Valid) {
  return tenThousandths(basisPoints(Covered, Valid));
}

/// A percentage, as coverlet writes it (rounded down to two decimals): "66.66", "100".
std::string percent(uint64_t Covered, uint64_t Valid) {
  return tenThousandths(basisPoints(Covered, Valid) * 100);
}

/// The directory every document is in (empty if none is common), with '/' or '\\' as the paths
/// use them.
std::string commonDirectory(const std::vector<std::string> &Paths) {
  if (Paths.empty())
    return "";
  auto IsSep = [](char C) { return C == '/' || C == '\\'; };
  size_t Len = Paths[0].size();
  for (const std::string &P : Paths) {
    size_t I = 0;
    while (I < Len && I < P.size() && P[I] == Paths[0][I])
      ++I;
    Len = I;
  }
  // Back to the last separator that every path has there.
  while (Len > 0 && !IsSep(Paths[0][Len - 1]))
    --Len;
  if (Len == 0)
    return "";
  // Keep a lone root ("/") but drop the separator after a directory name.
  return Len == 1 ? Paths[0].substr(0, 1) : Paths[0].substr(0, Len - 1);
}

void writeLinesXml(raw_ostream &OS, const LineMap &Ls, unsigned Indent) {
  std::string Pad(Indent, ' ');
  OS << Pad << "<lines>\n";
  for (const auto &[N, L] : Ls) {
    OS << Pad << "  <line number=\"" << N << "\" hits=\"" << L.Hits << "\" branch=\""
       << (L.isBranch() ? "True" : "False") << '"';
    if (!L.isBranch()) {
      OS << "/>\n";
      continue;
    }
    // The line's outcomes, and per branch instruction (its offset) those of that branch.
    unsigned C = L.branchesCovered();
    OS << " condition-coverage=\"" << percent(C, L.Branches.size()) << "% (" << C << '/'
       << L.Branches.size() << ")\">\n"
       << Pad << "    <conditions>\n";
    std::vector<uint32_t> Offsets;
    for (const BranchHit &B : L.Branches)
      if (!llvm::is_contained(Offsets, B.Offset))
        Offsets.push_back(B.Offset);
    for (uint32_t Offset : Offsets) {
      uint64_t Outcomes = 0, Covered = 0;
      for (const BranchHit &B : L.Branches)
        if (B.Offset == Offset) {
          ++Outcomes;
          Covered += B.Hits != 0;
        }
      OS << Pad << "      <condition number=\"" << Offset << "\" type=\""
         << (Outcomes > 2 ? "switch" : "jump") << "\" coverage=\"" << percent(Covered, Outcomes)
         << "%\"/>\n";
    }
    OS << Pad << "    </conditions>\n" << Pad << "  </line>\n";
  }
  OS << Pad << "</lines>\n";
}

/// A method's lines, with those of the same method in other maps of its assembly (other target
/// frameworks) added in.
struct MethodLines {
  const Method *Me;
  LineMap Ls;
  uint64_t Entered; // the hits of the first block
  static MethodLines of(const Method &Me, LineMap Ls) {
    return {&Me, std::move(Ls), Me.Blocks.empty() ? 0 : Me.Blocks[0].Hits};
  }
  void addRun(const Method &Other, const LineMap &OtherLs) {
    Entered += Other.Blocks.empty() ? 0 : Other.Blocks[0].Hits;
    for (const auto &[N, L] : OtherLs)
      Ls[N].addRun(L);
  }
  /// coverlet's cyclomatic complexity: the method's branch outcomes, at least one.
  uint64_t complexity() const {
    uint64_t N = 0;
    for (const auto &[Line, L] : Ls)
      N += L.Branches.size();
    return std::max<uint64_t>(N, 1);
  }
};

void writeLinesXml(raw_ostream &OS, const LineMap &Ls, unsigned Indent);

/// A Cobertura class: its methods (in line order) and all their lines.
void writeClass(raw_ostream &OS, StringRef File, StringRef Type,
                const std::map<std::string, MethodLines> &ByName) {
  std::vector<const MethodLines *> Methods;
  LineMap ClassLines;
  uint64_t Complexity = 0;
  for (const auto &[Name, ML] : ByName) {
    Methods.push_back(&ML);
    Complexity += ML.complexity();
    for (const auto &[N, L] : ML.Ls)
      ClassLines[N].merge(L);
  }
  llvm::stable_sort(Methods, [](const MethodLines *A, const MethodLines *B) {
    return A->Ls.begin()->first < B->Ls.begin()->first;
  });
  Totals T;
  T.add(ClassLines);
  OS << "        <class name=\"" << xmlText(Type) << "\" filename=\"" << xmlText(File)
     << "\" line-rate=\"" << rate(T.LinesCovered, T.Lines) << "\" branch-rate=\""
     << rate(T.BranchesCovered, T.Branches) << "\" complexity=\"" << Complexity << "\">\n";
  OS << "          <methods>\n";
  for (const MethodLines *ML : Methods) {
    Totals MT;
    MT.add(ML->Ls);
    OS << "            <method name=\"" << xmlText(ML->Me->Name) << "\" signature=\""
       << xmlText(ML->Me->Signature) << "\" line-rate=\"" << rate(MT.LinesCovered, MT.Lines)
       << "\" branch-rate=\"" << rate(MT.BranchesCovered, MT.Branches) << "\" complexity=\""
       << ML->complexity() << "\">\n";
    writeLinesXml(OS, ML->Ls, 14);
    OS << "            </method>\n";
  }
  OS << "          </methods>\n";
  writeLinesXml(OS, ClassLines, 10);
  OS << "        </class>\n";
}

/// What every report is made of: per document (its path; the assembly in block mode), per type,
/// the methods by full name with their lines, the maps of one assembly merged.
struct Collected {
  // assembly -> (document, type) -> full name -> lines
  using Classes = std::map<std::pair<std::string, std::string>, std::map<std::string, MethodLines>>;
  std::map<std::string, Classes> Assemblies;
  std::vector<std::string> Documents; // every document's path, for the common directory
};

Collected collect(ArrayRef<Map> Maps) {
  Collected C;
  for (const Map &M : Maps) {
    bool BlockMode = !M.hasLines();
    std::vector<std::string> DocNames =
        BlockMode ? std::vector<std::string>{M.Assembly} : M.Documents;
    if (!BlockMode)
      C.Documents.insert(C.Documents.end(), DocNames.begin(), DocNames.end());
    Collected::Classes &Classes = C.Assemblies[M.Assembly];
    StatementLines Statements(M);
    for (const Method &Me : M.Methods)
      for (auto &[Doc, Ls] : methodLines(Me, BlockMode, Statements)) {
        auto &Methods = Classes[{DocNames[Doc], Me.Type}];
        auto [It, New] = Methods.try_emplace(Me.fullName(), MethodLines::of(Me, Ls));
        if (!New)
          It->second.addRun(Me, Ls);
      }
  }
  llvm::sort(C.Documents);
  C.Documents.erase(std::unique(C.Documents.begin(), C.Documents.end()), C.Documents.end());
  return C;
}

/// Adds each document's lines, once whatever methods and classes hold them, to \p All and to
/// its assembly's in \p PerAssembly, and each assembly's complexity to \p ComplexityOf; returns
/// the complexity of all.
uint64_t addTotals(const Collected &C, Totals &All, std::map<std::string, Totals> &PerAssembly,
                   std::map<std::string, uint64_t> &ComplexityOf) {
  uint64_t AllComplexity = 0;
  for (const auto &[Assembly, Classes] : C.Assemblies) {
    std::map<std::string, LineMap> Files;
    for (const auto &[Key, Methods] : Classes)
      for (const auto &[Name, ML] : Methods) {
        for (const auto &[N, L] : ML.Ls)
          Files[Key.first][N].merge(L);
        ComplexityOf[Assembly] += ML.complexity();
      }
    for (const auto &[Doc, Ls] : Files) {
      All.add(Ls);
      PerAssembly[Assembly].add(Ls);
    }
    AllComplexity += ComplexityOf[Assembly];
  }
  return AllComplexity;
}

} // namespace

ReportTotals reportTotals(ArrayRef<Map> Maps) {
  Totals All;
  std::map<std::string, Totals> PerAssembly;
  std::map<std::string, uint64_t> ComplexityOf;
  addTotals(collect(Maps), All, PerAssembly, ComplexityOf);
  return {All.Lines, All.LinesCovered, All.Branches, All.BranchesCovered};
}

namespace {

void writeCobertura(ArrayRef<Map> Maps, const ReportOptions &O, raw_ostream &OS) {
  Collected C = collect(Maps);
  std::string Source = commonDirectory(C.Documents);
  auto FileName = [&](StringRef N) {
    if (!Source.empty() && N.startswith(Source)) {
      N = N.drop_front(Source.size());
      if (!N.empty() && (N[0] == '/' || N[0] == '\\'))
        N = N.drop_front();
    }
    return N.str();
  };
  // The totals: all lines per document, and per assembly.
  Totals All;
  std::map<std::string, Totals> PerAssembly;
  std::map<std::string, uint64_t> ComplexityOf;
  uint64_t AllComplexity = addTotals(C, All, PerAssembly, ComplexityOf);

  OS << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n";
  OS << "<coverage line-rate=\"" << rate(All.LinesCovered, All.Lines) << "\" branch-rate=\""
     << rate(All.BranchesCovered, All.Branches) << "\" lines-covered=\"" << All.LinesCovered
     << "\" lines-valid=\"" << All.Lines << "\" branches-covered=\"" << All.BranchesCovered
     << "\" branches-valid=\"" << All.Branches << "\" complexity=\"" << AllComplexity
     << "\" version=\"" << xmlText(O.Version) << "\" timestamp=\"" << O.Timestamp << "\">\n";
  OS << "  <sources>\n";
  if (!Source.empty())
    OS << "    <source>" << xmlText(Source) << "</source>\n";
  OS << "  </sources>\n  <packages>\n";
  for (auto &[Assembly, Classes] : C.Assemblies) {
    const Totals &P = PerAssembly[Assembly];
    OS << "    <package name=\"" << xmlText(Assembly) << "\" line-rate=\""
       << rate(P.LinesCovered, P.Lines) << "\" branch-rate=\""
       << rate(P.BranchesCovered, P.Branches) << "\" complexity=\"" << ComplexityOf[Assembly]
       << "\">\n      <classes>\n";
    for (auto &[Key, ByName] : Classes)
      writeClass(OS, FileName(Key.first), Key.second, ByName);
    OS << "      </classes>\n    </package>\n";
  }
  OS << "  </packages>\n</coverage>\n";
}

void writeLcov(ArrayRef<Map> Maps, raw_ostream &OS) {
  struct FileData {
    LineMap Ls;
    // line, name, entries, whether a line of it ran (coverlet's method coverage)
    std::vector<std::tuple<uint32_t, std::string, uint64_t, bool>> Functions;
  };
  std::map<std::string, FileData> Files; // by name, for a stable order
  Collected C = collect(Maps);
  for (const auto &[Assembly, Classes] : C.Assemblies)
    for (const auto &[Key, ByName] : Classes)
      for (const auto &[Name, ML] : ByName) {
        FileData &F = Files[Key.first];
        bool Ran = llvm::any_of(ML.Ls, [](const auto &NL) { return NL.second.Hits != 0; });
        F.Functions.emplace_back(ML.Ls.begin()->first, Name, ML.Entered, Ran);
        for (const auto &[N, L] : ML.Ls)
          F.Ls[N].merge(L);
      }
  // LCOV fields are separated by commas and lines; the names must hold neither line breaks.
  auto Clean = [](std::string S) {
    std::replace(S.begin(), S.end(), '\n', ' ');
    std::replace(S.begin(), S.end(), '\r', ' ');
    return S;
  };
  for (auto &[Name, F] : Files) {
    llvm::stable_sort(F.Functions);
    OS << "TN:\nSF:" << Clean(Name) << '\n';
    unsigned Hit = 0;
    for (const auto &[Line, Fn, Hits, Ran] : F.Functions)
      OS << "FN:" << Line << ',' << Clean(Fn) << '\n';
    for (const auto &[Line, Fn, Hits, Ran] : F.Functions) {
      OS << "FNDA:" << Hits << ',' << Clean(Fn) << '\n';
      Hit += Ran;
    }
    OS << "FNF:" << F.Functions.size() << "\nFNH:" << Hit << '\n';
    Totals T;
    T.add(F.Ls);
    // As coverlet writes them: the branch instruction's offset as the block, the path as the
    // branch, and the hits (0 rather than '-' when the line did not run).
    for (const auto &[N, L] : F.Ls)
      for (const BranchHit &B : L.Branches)
        OS << "BRDA:" << N << ',' << B.Offset << ',' << B.Path << ',' << B.Hits << '\n';
    OS << "BRF:" << T.Branches << "\nBRH:" << T.BranchesCovered << '\n';
    for (const auto &[N, L] : F.Ls)
      OS << "DA:" << N << ',' << L.Hits << '\n';
    OS << "LF:" << T.Lines << "\nLH:" << T.LinesCovered << "\nend_of_record\n";
  }
}

void writeText(const Map &M, raw_ostream &OS) {
  uint64_t Blocks = 0, Hit = 0;
  for (const Method &Me : M.Methods)
    for (const Block &B : Me.Blocks) {
      ++Blocks;
      Hit += B.Hits != 0;
    }
  uint64_t Outcomes = 0, Covered = 0;
  for (const Method &Me : M.Methods)
    for (const BranchPoint &BP : Me.Branches) {
      Outcomes += !BP.Coincides;
      Covered += !BP.Coincides && BP.Hits != 0;
    }
  OS << M.Assembly << " (module " << M.Mvid << "): " << Hit << " of " << Blocks << " blocks run ("
     << format("%.1f", Blocks ? 100.0 * double(Hit) / double(Blocks) : 100.0) << "%), " << Covered
     << " of " << Outcomes << " branch outcomes (" << percent(Covered, Outcomes) << "%)\n";
  for (const Method &Me : M.Methods) {
    unsigned MHit = unsigned(llvm::count_if(Me.Blocks, [](const Block &B) { return B.Hits != 0; }));
    OS << '\n'
       << Me.fullName() << " [" << Me.Token << "]: " << MHit << " of " << Me.Blocks.size()
       << " blocks run, entered " << (Me.Blocks.empty() ? 0 : Me.Blocks[0].Hits) << " times\n";
    for (size_t K = 0; K < Me.Blocks.size(); ++K) {
      const Block &B = Me.Blocks[K];
      OS << "  #" << (Me.FirstCounter + K) << ' ';
      if (B.IL)
        OS << format("IL_%04x-IL_%04x", B.IL->first, B.IL->second);
      else
        OS << "(added code)   ";
      OS << format(" %12llu", (unsigned long long)B.Hits);
      std::set<std::pair<uint32_t, uint32_t>> Seen;
      bool First = true;
      for (const SourceSpan &S : B.Lines)
        if (Seen.insert({S.Document, S.StartLine}).second) {
          OS << (First ? "  line " : ", ") << S.StartLine;
          First = false;
        }
      OS << '\n';
    }
    for (const BranchPoint &BP : Me.Branches)
      OS << "  branch " << format("IL_%04x", BP.Offset) << " path " << BP.Path << " -> "
         << format("IL_%04x", BP.EndOffset) << (BP.Taken ? " (taken)" : "")
         << (BP.Coincides ? " (counted with an earlier method's)" : "") << ", line " << BP.Line
         << format(" %12llu", (unsigned long long)BP.Hits) << '\n';
  }
}

} // namespace

void writeReport(ArrayRef<Map> Maps, const ReportOptions &O, raw_ostream &OS) {
  switch (O.Kind) {
  case Format::Cobertura: writeCobertura(Maps, O, OS); break;
  case Format::Lcov: writeLcov(Maps, OS); break;
  case Format::OpenCover: writeOpenCover(Maps, O, OS); break;
  case Format::Json: writeCoverletJson(Maps, OS); break;
  case Format::Text:
    for (const Map &M : Maps)
      writeText(M, OS);
    break;
  }
}

// The lines a statement spanning several lines does not count on: those of the statements of the
// module strictly inside it (starting on a later line and ending on an earlier one: the arms of a
// switch expression, a lambda's body), which count for themselves.
StatementLines::StatementLines(const Map &M) {
  std::map<uint32_t, std::set<std::pair<uint32_t, uint32_t>>> Spans; // document -> (first, last)
  for (const Method &Me : M.Methods)
    for (const Block &B : Me.Blocks)
      for (const SourceSpan &S : B.Lines)
        Spans[S.Document].insert({S.StartLine, S.EndLine});
  for (const auto &[Doc, Set] : Spans)
    for (auto [First, Last] : Set) {
      if (Last <= First || Last - First >= MaxStatementLines)
        continue;
      for (auto It = Set.upper_bound({First, ~uint32_t(0)}); It != Set.end() && It->first < Last;
           ++It)
        if (It->second < Last)
          for (uint32_t N = It->first; N <= std::max(It->first, It->second); ++N)
            Nested[{Doc, First, Last}].insert(N);
    }
}

void StatementLines::forEach(const SourceSpan &S, function_ref<void(uint32_t, bool)> Fn) const {
  uint32_t Last = S.EndLine >= S.StartLine && S.EndLine - S.StartLine < MaxStatementLines
                      ? S.EndLine
                      : S.StartLine;
  auto Inner = Nested.find({S.Document, S.StartLine, S.EndLine});
  for (uint64_t N = S.StartLine; N <= Last; ++N) // 64 bits: Last may be 2^32-1
    Fn(uint32_t(N), Inner == Nested.end() || !Inner->second.count(uint32_t(N)));
}

std::string xmlText(StringRef S) {
  std::string Out;
  for (char C : S)
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&apos;"; break;
    default:
      if (uint8_t(C) < 0x20 && C != '\t' && C != '\n' && C != '\r')
        Out += ' '; // not allowed in XML 1.0
      else
        Out += C;
    }
  return Out;
}

} // namespace weft::coverage
