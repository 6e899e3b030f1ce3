//===- weaver/coverage/CoverletResult.cpp - The result as coverlet holds it ===//
#include "weaver/coverage/CoverletFormats.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace weft::coverage {

namespace {

uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  return B > ~uint64_t(0) - A ? ~uint64_t(0) : A + B;
}

/// Whether two outcomes are the same one (of the same method built for another framework).
bool sameOutcome(const BranchPoint &A, const BranchPoint &B) {
  return std::tie(A.Line, A.Offset, A.EndOffset, A.Path, A.Ordinal) ==
         std::tie(B.Line, B.Offset, B.EndOffset, B.Path, B.Ordinal);
}

/// Adds method \p Me of a map to \p Docs (its lines, then its branches, per document).
void addMethod(const Method &Me, const std::vector<std::string> &DocNames, bool BlockMode,
               const StatementLines &Statements, std::map<std::string, DocumentResult> &Docs) {
  std::string Full = Me.fullName();
  auto Result = [&](uint32_t Doc) -> MethodResult & {
    MethodResult &R = Docs[DocNames[Doc]][Me.Type][Full];
    if (R.Name.empty())
      R.Name = Me.Name;
    return R;
  };
  // The documents this method has lines in: each gets its runs once.
  std::map<uint32_t, MethodResult *> Seen;
  for (size_t K = 0; K < Me.Blocks.size(); ++K) {
    const Block &B = Me.Blocks[K];
    if (BlockMode) {
      MethodResult &R = *Seen.try_emplace(0, &Result(0)).first->second;
      uint32_t N = Me.FirstCounter + uint32_t(K) + 1;
      R.Lines[N] = saturatingAdd(R.Lines[N], B.Hits);
      R.Offsets[N] = B.IL ? B.IL->first : 0;
      continue;
    }
    for (const SourceSpan &S : B.Lines) {
      MethodResult &R = *Seen.try_emplace(S.Document, &Result(S.Document)).first->second;
      uint32_t Offset = B.IL ? B.IL->first : 0;
      Statements.forEach(S, [&](uint32_t N, bool Counts) {
        uint64_t &Hits = R.Lines[N]; // a nested statement's line is there, with its hits
        if (Counts)
          Hits = saturatingAdd(Hits, B.Hits);
        auto [It, New] = R.Offsets.try_emplace(N, Offset);
        It->second = std::min(It->second, Offset);
      });
    }
  }
  for (const BranchPoint &P : Me.Branches) {
    if (P.Document >= DocNames.size() || BlockMode || P.Coincides)
      continue;
    MethodResult &R = *Seen.try_emplace(P.Document, &Result(P.Document)).first->second;
    auto It = llvm::find_if(R.Branches, [&](const BranchPoint &Q) { return sameOutcome(P, Q); });
    if (It == R.Branches.end())
      R.Branches.push_back(P);
    else
      It->Hits = saturatingAdd(It->Hits, P.Hits);
  }
  uint64_t Entered = Me.Blocks.empty() ? 0 : Me.Blocks[0].Hits;
  for (auto &[Doc, R] : Seen) {
    R->Complexity = std::max(R->Complexity, Me.Complexity);
    R->Entered = saturatingAdd(R->Entered, Entered);
  }
}

} // namespace

std::vector<ModuleResult> coverletResult(ArrayRef<Map> Maps) {
  std::map<std::string, ModuleResult> ByAssembly;
  for (const Map &M : Maps) {
    bool BlockMode = !M.hasLines();
    std::vector<std::string> DocNames =
        BlockMode ? std::vector<std::string>{M.Assembly} : M.Documents;
    ModuleResult &Module = ByAssembly[M.Assembly];
    Module.Assembly = M.Assembly;
    if (Module.Mvid.empty())
      Module.Mvid = M.Mvid;
    StatementLines Statements(M);
    for (const Method &Me : M.Methods)
      addMethod(Me, DocNames, BlockMode, Statements, Module.Documents);
  }
  std::vector<ModuleResult> Out;
  for (auto &[Name, Module] : ByAssembly) {
    for (auto &[Doc, Classes] : Module.Documents)
      for (auto &[Type, Methods] : Classes)
        for (auto &[Full, R] : Methods)
          llvm::stable_sort(R.Branches, [](const BranchPoint &A, const BranchPoint &B) {
            return std::tie(A.Ordinal, A.Line) < std::tie(B.Ordinal, B.Line);
          });
    Out.push_back(std::move(Module));
  }
  return Out;
}

} // namespace weft::coverage
