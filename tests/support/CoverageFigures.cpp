//===- tests/support/CoverageFigures.cpp - Lines and branches of two tools ===//
#include "tests/support/CoverageFigures.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace weft::test {

uint64_t CoverageFigures::linesCovered() const {
  uint64_t N = 0;
  for (const auto &[K, H] : Lines)
    N += H != 0;
  return N;
}

uint64_t CoverageFigures::branchesCovered() const {
  uint64_t N = 0;
  for (const auto &[K, H] : Branches)
    N += H != 0;
  return N;
}

void addCoverletJson(CoverageFigures &F, StringRef Json) {
  Expected<json::Value> Root = json::parse(Json);
  if (!Root) {
    F.Error += "coverlet's report: " + toString(Root.takeError()) + "\n";
    return;
  }
  const json::Object *Modules = Root->getAsObject();
  if (!Modules) {
    F.Error += "coverlet's report: not an object\n";
    return;
  }
  for (const auto &[Module, Documents] : *Modules)
    for (const auto &[Document, Classes] : *Documents.getAsObject())
      for (const auto &[Class, Methods] : *Classes.getAsObject())
        for (const auto &[Method, Figures] : *Methods.getAsObject()) {
          const json::Object *M = Figures.getAsObject();
          std::string File = Document.str();
          if (const json::Object *Lines = M->getObject("Lines"))
            for (const auto &[Line, Hits] : *Lines) {
              unsigned N = 0;
              StringRef(Line).getAsInteger(10, N);
              uint64_t H = uint64_t(Hits.getAsInteger().getValueOr(0));
              F.Lines[{File, N}] += H;
              ++F.LineRecords;
              F.LineRecordsCovered += H != 0;
            }
          if (const json::Array *Branches = M->getArray("Branches"))
            for (const json::Value &B : *Branches) {
              const json::Object *O = B.getAsObject();
              auto Get = [&](StringRef K) { return unsigned(O->getInteger(K).getValueOr(0)); };
              uint64_t H = uint64_t(O->getInteger("Hits").getValueOr(0));
              F.Branches[std::make_tuple(File, Get("Line"), Get("Offset"), Get("Path"))] += H;
              ++F.BranchRecords;
              F.BranchRecordsCovered += H != 0;
            }
        }
}

void addWeftLcov(CoverageFigures &F, StringRef Lcov) {
  std::string File;
  SmallVector<StringRef, 0> Records;
  Lcov.split(Records, '\n');
  for (StringRef R : Records) {
    auto [Key, Value] = R.trim().split(':');
    SmallVector<StringRef, 4> V;
    Value.split(V, ',');
    if (Key == "SF") {
      File = Value.str();
    } else if (Key == "DA" && V.size() == 2) {
      unsigned Line = 0;
      uint64_t Hits = 0;
      V[0].getAsInteger(10, Line);
      V[1].getAsInteger(10, Hits);
      F.Lines[{File, Line}] += Hits;
      ++F.LineRecords;
      F.LineRecordsCovered += Hits != 0;
    } else if (Key == "BRDA" && V.size() == 4) {
      unsigned Line = 0, Offset = 0, Path = 0;
      uint64_t Hits = 0;
      V[0].getAsInteger(10, Line);
      V[1].getAsInteger(10, Offset);
      V[2].getAsInteger(10, Path);
      V[3].getAsInteger(10, Hits);
      F.Branches[std::make_tuple(File, Line, Offset, Path)] += Hits;
      ++F.BranchRecords;
      F.BranchRecordsCovered += Hits != 0;
    }
  }
}

namespace {

bool known(const std::set<std::pair<std::string, unsigned>> &Known, StringRef File, unsigned Line) {
  for (const auto &[Suffix, N] : Known)
    if (N == Line && File.endswith(Suffix))
      return true;
  return false;
}

} // namespace

namespace {

std::string differences(const CoverageFigures &Weft, const CoverageFigures &Coverlet,
                        std::set<std::pair<std::string, unsigned>> *Differing) {
  std::string Out;
  auto Note = [&](const std::string &File, unsigned Line, const std::string &What) {
    Differing->insert({File, Line});
    Out += File + ":" + std::to_string(Line) + ": " + What + "\n";
  };
  for (const auto &[K, H] : Weft.Lines) {
    auto It = Coverlet.Lines.find(K);
    if (It == Coverlet.Lines.end())
      Note(K.first, K.second, "only weft has the line");
    else if (It->second != H)
      Note(K.first, K.second,
           "weft " + std::to_string(H) + " hits, coverlet " + std::to_string(It->second));
  }
  for (const auto &[K, H] : Coverlet.Lines)
    if (!Weft.Lines.count(K))
      Note(K.first, K.second, "only coverlet has the line");
  auto Outcome = [](const CoverageFigures::BranchKey &K) {
    return "branch IL_" + utohexstr(std::get<2>(K), true) + " path " +
           std::to_string(std::get<3>(K));
  };
  for (const auto &[K, H] : Weft.Branches) {
    auto It = Coverlet.Branches.find(K);
    if (It == Coverlet.Branches.end())
      Note(std::get<0>(K), std::get<1>(K), Outcome(K) + ": only weft has it");
    else if (It->second != H)
      Note(std::get<0>(K), std::get<1>(K),
           Outcome(K) + ": weft " + std::to_string(H) + " hits, coverlet " +
               std::to_string(It->second));
  }
  for (const auto &[K, H] : Coverlet.Branches)
    if (!Weft.Branches.count(K))
      Note(std::get<0>(K), std::get<1>(K), Outcome(K) + ": only coverlet has it");
  return Out;
}

/// \p F without the lines of \p Known.
CoverageFigures without(const CoverageFigures &F,
                        const std::set<std::pair<std::string, unsigned>> &Known,
                        const std::set<std::pair<std::string, unsigned>> &Unsettled) {
  CoverageFigures Out;
  for (const auto &[K, H] : F.Lines)
    if (!known(Known, K.first, K.second))
      Out.Lines[K] = H;
  for (const auto &[K, H] : F.Branches)
    if (!known(Known, std::get<0>(K), std::get<1>(K)) &&
        !known(Unsettled, std::get<0>(K), std::get<1>(K)))
      Out.Branches[K] = H;
  return Out;
}

} // namespace

std::string coverageDifferences(const CoverageFigures &Weft, const CoverageFigures &Coverlet,
                                const std::set<std::pair<std::string, unsigned>> &Known,
                                const std::set<std::pair<std::string, unsigned>> &Unsettled) {
  std::string Out = Weft.Error + Coverlet.Error;
  std::set<std::pair<std::string, unsigned>> All, Rest;
  differences(without(Weft, {}, Unsettled), without(Coverlet, {}, Unsettled), &All);
  CoverageFigures W = without(Weft, Known, Unsettled), C = without(Coverlet, Known, Unsettled);
  Out += differences(W, C, &Rest);
  // A known difference that is gone is said, so that the list stays true.
  for (const auto &[Suffix, Line] : Known) {
    bool Seen = false;
    for (const auto &[File, N] : All)
      Seen |= N == Line && StringRef(File).endswith(Suffix);
    if (!Seen)
      Out += Suffix + ":" + std::to_string(Line) + ": listed as a known difference, but agrees\n";
  }
  auto Total = [&](StringRef What, uint64_t A, uint64_t B) {
    if (A != B)
      Out += What.str() + ": weft " + std::to_string(A) + ", coverlet " + std::to_string(B) + "\n";
  };
  Total("lines", W.Lines.size(), C.Lines.size());
  Total("lines covered", W.linesCovered(), C.linesCovered());
  Total("branch outcomes", W.Branches.size(), C.Branches.size());
  Total("branch outcomes covered", W.branchesCovered(), C.branchesCovered());
  return Out;
}

} // namespace weft::test
