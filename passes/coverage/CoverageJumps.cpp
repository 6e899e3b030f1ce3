//===- passes/coverage/CoverageJumps.cpp - How often an edge is taken -----===//
#include "passes/coverage/CoverageJumps.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace weft::passes {

namespace {

/// How deep the answer may look (edges into edges into ...), and how many steps it may take in
/// all: enough for loops left by `break` and conditions joined by `||`, short for a big switch.
constexpr unsigned MaxDepth = 8, MaxSteps = 256;

bool fallsThrough(const il::Instr &I) {
  il::FlowKind F = I.info().Flow;
  return F != il::FlowKind::Branch && F != il::FlowKind::Return && F != il::FlowKind::Throw;
}

} // namespace

JumpCounts::JumpCounts(const il::MethodBody &B) {
  for (const il::Instr *I : B.instructions()) {
    if (I->OriginalOffset == il::NoOffset) {
      Whole = false;
      return;
    }
    Index[I] = Code.size();
    Code.push_back(I);
  }
  Into.resize(Code.size());
  Uncounted.assign(Code.size(), false);
  if (!Code.empty())
    Uncounted[0] = true;
  for (size_t I = 0; I < Code.size(); ++I)
    for (uint32_t Path = 0; Path < ways(I); ++Path) {
      ptrdiff_t To = dest(I, Path);
      if (To >= 0)
        Into[size_t(To)].push_back({I, Path});
    }
  for (const il::ExceptionRegion &R : B.Regions)
    for (const il::Instr *Start : {R.HandlerStart, R.FilterStart}) {
      auto It = Start ? Index.find(Start) : Index.end();
      if (It != Index.end())
        Uncounted[It->second] = true;
    }
}

bool JumpCounts::conditional(size_t I) const {
  return Code[I]->info().Flow == il::FlowKind::CondBranch;
}

uint32_t JumpCounts::ways(size_t I) const {
  const il::Instr &In = *Code[I];
  if (conditional(I))
    return 1 + (In.Op == il::Opcode::Switch ? uint32_t(In.Targets.size()) : 1);
  if (In.info().Flow == il::FlowKind::Branch)
    return 2; // way 1 only: an unconditional jump does not go on
  return fallsThrough(In) ? 1 : 0;
}

ptrdiff_t JumpCounts::dest(size_t I, uint32_t Path) const {
  const il::Instr &In = *Code[I];
  const il::Instr *To = nullptr;
  if (Path == 0) {
    if (!fallsThrough(In) || I + 1 >= Code.size())
      return -1;
    To = Code[I + 1];
  } else if (In.Op == il::Opcode::Switch) {
    if (Path > In.Targets.size())
      return -1;
    To = In.Targets.begin()[Path - 1];
  } else if (Path == 1) {
    To = In.Target;
  }
  auto It = To ? Index.find(To) : Index.end();
  return It == Index.end() ? -1 : ptrdiff_t(It->second);
}

std::optional<EdgeCount> JumpCounts::taken(uint32_t Offset, uint32_t Path) const {
  if (!Whole)
    return std::nullopt;
  auto At =
      llvm::partition_point(Code, [&](const il::Instr *I) { return I->OriginalOffset < Offset; });
  if (At == Code.end() || (*At)->OriginalOffset != Offset || Path == 0)
    return std::nullopt;
  size_t I = size_t(At - Code.begin());
  if (!conditional(I))
    return std::nullopt;
  Budget = MaxSteps;
  EdgeCount Out;
  if (!edge(I, Path, 0, Out))
    return std::nullopt;
  return Out;
}

bool JumpCounts::edge(size_t From, uint32_t Path, unsigned Depth, EdgeCount &Out) const {
  if (Depth > MaxDepth || Budget == 0)
    return false;
  --Budget;
  Out.Runs.push_back(Code[From]->OriginalOffset);
  // An instruction that is not a conditional branch goes its one way each time it runs.
  if (!conditional(From))
    return true;
  // A conditional branch: its runs less the times it went elsewhere, each other instruction it
  // leads to once (all its ways there at once). Ways that share this way's end cannot be told
  // apart.
  ptrdiff_t To = dest(From, Path);
  if (To < 0)
    return false;
  SmallVector<size_t, 4> Others;
  for (uint32_t P = 0; P < ways(From); ++P) {
    ptrdiff_t D = dest(From, P);
    if (D < 0 || (P != Path && D == To))
      return false;
    if (D != To && !is_contained(Others, size_t(D)))
      Others.push_back(size_t(D));
  }
  return llvm::all_of(Others, [&](size_t D) { return into(D, From, Depth + 1, Out); });
}

bool JumpCounts::into(size_t To, size_t From, unsigned Depth, EdgeCount &Out) const {
  // Here the signs turn: what arrives at To is subtracted, and so the other edges into To, which
  // are subtracted from that, are added (their runs), and so on.
  if (Uncounted[To])
    return false;
  Out.Arrivals.push_back(Code[To]->OriginalOffset);
  for (const Edge &E : Into[To]) {
    if (E.From == From)
      continue;
    EdgeCount Other;
    if (!edge(E.From, E.Path, Depth + 1, Other))
      return false;
    // Other counts the edge: its runs are added to what To arrived from elsewhere, which is
    // subtracted from the branch, so they add to the branch's count; its arrivals subtract.
    Out.Runs.insert(Out.Runs.end(), Other.Runs.begin(), Other.Runs.end());
    Out.Arrivals.insert(Out.Arrivals.end(), Other.Arrivals.begin(), Other.Arrivals.end());
  }
  return true;
}

} // namespace weft::passes
