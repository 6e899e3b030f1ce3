//===- coverage/Report.cpp - Coverage reports -----------------------------===//
#include "coverage/Report.h"

#include "coverage/CoverletFormats.h"
#include "support/Error.h"

#include "llvm/ADT/DenseMap.h"
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

/// The arrivals at each block that coverlet's counters for taken jumps send past the block's
/// statement (BranchPoint::Past), from those jumps' hits.
void setPassedStatements(Method &Me, const BlockIndex &Index) {
  for (Block &B : Me.Blocks)
    B.Passed = 0;
  for (const BranchPoint &BP : Me.Branches)
    for (uint32_t Offset : BP.Past)
      if (const Block *B = Index.at(Offset)) {
        uint64_t &Passed = Me.Blocks[size_t(B - Me.Blocks.data())].Passed;
        Passed = saturatingAdd(Passed, BP.Hits);
      }
}

/// A method's outcomes' hits from its blocks' counters (BranchPoint says how).
void setMethodBranchHits(Method &Me) {
  BlockIndex Index(Me);
  // Taken jumps first: runs less the times the branches went their other ways.
  DenseMap<uint64_t, uint64_t> Bypassing; // end offset -> hits of jumps that bypass it
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
    uint64_t Arrivals = End ? End->Hits : 0, Past = Bypassing.lookup(BP.EndOffset);
    BP.Hits = Arrivals > Past ? Arrivals - Past : 0;
  }
  setPassedStatements(Me, Index);
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
  // Keys widened, so that none is one of the table's two reserved ones.
  DenseMap<std::tuple<uint64_t, uint64_t, uint64_t>, BranchPoint *> First;
  for (size_t I : instrumentationOrder(M))
    for (BranchPoint &BP : M.Methods[I].Branches) {
      auto [It, New] = First.try_emplace({BP.Document, BP.Line, BP.Ordinal}, &BP);
      BP.Coincides = !New;
      if (!New)
        It->second->Hits = saturatingAdd(It->second->Hits, BP.Hits);
    }
}

} // namespace

std::vector<size_t> instrumentationOrder(const Map &M) {
  // Each method's key once (its token is text), then the indexes in the keys' order.
  std::vector<std::tuple<uint32_t, uint32_t, size_t>> Keys(M.Methods.size());
  for (size_t I = 0; I < Keys.size(); ++I)
    Keys[I] = {M.Methods[I].Order.value_or(0), methodRow(M.Methods[I]), I};
  llvm::sort(Keys);
  std::vector<size_t> Order(Keys.size());
  for (size_t I = 0; I < Keys.size(); ++I)
    Order[I] = std::get<2>(Keys[I]);
  return Order;
}

void setBranchHits(Map &M) {
  for (Method &Me : M.Methods)
    if (!Me.Branches.empty())
      setMethodBranchHits(Me);
  joinCoincidingOutcomes(M);
}

// --- figures as coverlet writes them ---

namespace {

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

} // namespace

std::string coverletRate(uint64_t Covered, uint64_t Valid) {
  return tenThousandths(basisPoints(Covered, Valid));
}

std::string coverletPercent(uint64_t Covered, uint64_t Valid) {
  return tenThousandths(basisPoints(Covered, Valid) * 100);
}

ReportTotals reportTotals(ArrayRef<ModuleResult> Result) {
  Figures All;
  for (const ModuleResult &M : Result)
    All.add(figuresOf(M));
  return {All.Lines, All.LinesCovered, All.Branches, All.BranchesCovered};
}

ReportTotals reportTotals(ArrayRef<Map> Maps) { return reportTotals(coverletResult(Maps)); }

namespace {

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
     << " of " << Outcomes << " branch outcomes (" << coverletPercent(Covered, Outcomes) << "%)\n";
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

void writeReport(ArrayRef<Map> Maps, ArrayRef<ModuleResult> Result, const ReportOptions &O,
                 raw_ostream &OS) {
  switch (O.Kind) {
  case Format::Cobertura: writeCobertura(Maps, Result, O, OS); break;
  case Format::Lcov: writeLcov(Result, OS); break;
  case Format::OpenCover: writeOpenCover(Result, O, OS); break;
  case Format::Json: writeCoverletJson(Result, OS); break;
  case Format::Text:
    for (const Map &M : Maps)
      writeText(M, OS);
    break;
  }
}

void writeReport(ArrayRef<Map> Maps, const ReportOptions &O, raw_ostream &OS) {
  writeReport(Maps, O.Kind == Format::Text ? std::vector<ModuleResult>() : coverletResult(Maps), O,
              OS);
}

namespace {
/// The most lines one statement is counted on.
constexpr uint32_t MaxStatementLines = 10000;
} // namespace

// The lines a statement spanning several lines does not count on: those of the statements of the
// module strictly inside it (starting on a later line and ending on an earlier one: the arms of a
// switch expression, a lambda's body), which count for themselves.
StatementLines::StatementLines(const Map &M) {
  using Span = std::tuple<uint32_t, uint32_t, uint32_t>; // (document, first, last)
  std::vector<Span> Spans;
  for (const Method &Me : M.Methods)
    for (const Block &B : Me.Blocks)
      for (const SourceSpan &S : B.Lines)
        Spans.emplace_back(S.Document, S.StartLine, S.EndLine);
  llvm::sort(Spans);
  Spans.erase(std::unique(Spans.begin(), Spans.end()), Spans.end());
  for (auto At = Spans.begin(); At != Spans.end(); ++At) {
    auto [Doc, First, Last] = *At;
    if (Last <= First || Last - First >= MaxStatementLines)
      continue;
    // The document's spans that start on a later line than this one, and before its last.
    for (auto It = std::upper_bound(At, Spans.end(), Span{Doc, First, ~uint32_t(0)});
         It != Spans.end() && std::get<0>(*It) == Doc && std::get<1>(*It) < Last; ++It)
      if (auto [D, Start, End] = *It; End < Last)
        for (uint32_t N = Start; N <= std::max(Start, End); ++N)
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
