// JumpCounts on bodies built by hand: how often a jump is taken, as a sum of the counters the
// coverage pass has (the runs of blocks holding instructions, the arrivals at block starts), and
// where the counters cannot tell.
#include "passes/coverage/CoverageJumps.h"

#include "gtest/gtest.h"

using namespace weft;
using namespace weft::passes;
using il::Instr;
using il::Opcode;

namespace {

/// Appends \p I to \p B at original offset \p Offset.
Instr *at(il::MethodBody &B, uint32_t Offset, Instr *I) {
  I->OriginalOffset = Offset;
  B.insertBefore(nullptr, I);
  return I;
}

using Offsets = std::vector<uint32_t>;

// for (...) { if (x) break; ... } as optimized C#: the break jumps to where the loop's
// condition goes on, so what arrives there is not only the condition's fall-throughs.
TEST(JumpCounts, LoopLeftByBreak) {
  il::MethodBody B;
  Instr *Top = B.create(Opcode::Ldloc_0), *After = B.create(Opcode::Ldloc_0);
  at(B, 0, B.create(Opcode::Ldc_I4_0));
  at(B, 1, B.create(Opcode::Stloc_0));
  at(B, 2, Top);
  at(B, 3, B.createBranch(Opcode::Brfalse_S, After)); // the break
  at(B, 5, B.create(Opcode::Ldloc_0));
  at(B, 6, B.create(Opcode::Ldc_I4_1));
  at(B, 7, B.createBranch(Opcode::Blt_S, Top)); // the loop's condition
  at(B, 9, After);
  at(B, 10, B.create(Opcode::Ret));
  JumpCounts J(B);
  // The condition's jumps: its runs less what arrives after it, of which the break's jumps
  // (the break's runs less what arrives after the break) are not the condition's.
  std::optional<EdgeCount> Back = J.taken(7, 1);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(Back->Runs, (Offsets{7, 3}));
  EXPECT_EQ(Back->Arrivals, (Offsets{9, 5}));
  // The break's jumps: its runs less what arrives at 5, which only it reaches.
  std::optional<EdgeCount> Break = J.taken(3, 1);
  ASSERT_TRUE(Break.has_value());
  EXPECT_EQ(Break->Runs, (Offsets{3}));
  EXPECT_EQ(Break->Arrivals, (Offsets{5}));
  EXPECT_FALSE(J.taken(7, 0).has_value()); // not a jump
  EXPECT_FALSE(J.taken(5, 1).has_value()); // not a branch
}

// switch (x) { case 0: case 1: A; case 2: B; } as F# lays it out: two arms and the fall-through
// reach A, so the counters cannot tell the arms apart; B's arm alone reaches B.
TEST(JumpCounts, SwitchArmsWithOneTarget) {
  il::MethodBody B;
  Instr *A = B.create(Opcode::Nop), *Second = B.create(Opcode::Nop);
  Instr *Switch = B.create(Opcode::Switch);
  Switch->Targets.push_back(A);
  Switch->Targets.push_back(A);
  Switch->Targets.push_back(Second);
  at(B, 0, B.create(Opcode::Ldarg_0));
  at(B, 1, Switch);
  at(B, 18, A);
  at(B, 19, B.create(Opcode::Ret));
  at(B, 20, Second);
  at(B, 21, B.create(Opcode::Ret));
  JumpCounts J(B);
  EXPECT_FALSE(J.taken(1, 1).has_value());
  EXPECT_FALSE(J.taken(1, 2).has_value());
  std::optional<EdgeCount> Third = J.taken(1, 3);
  ASSERT_TRUE(Third.has_value());
  EXPECT_EQ(Third->Runs, (Offsets{1}));
  EXPECT_EQ(Third->Arrivals, (Offsets{18}));
}

// A handler's start is entered by exceptions, which no edge counts.
TEST(JumpCounts, NotThroughAHandlersStart) {
  il::MethodBody B;
  Instr *Handler = B.create(Opcode::Pop), *End = B.create(Opcode::Ret);
  Instr *Skip = B.create(Opcode::Nop);
  at(B, 0, B.create(Opcode::Ldarg_0));
  at(B, 1, B.createBranch(Opcode::Brtrue_S, Skip));
  at(B, 3, Handler);
  at(B, 4, Skip);
  at(B, 5, End);
  il::ExceptionRegion R;
  R.Kind = il::RegionKind::Catch;
  R.TryStart = B.instructions()[0];
  R.TryEnd = Handler;
  R.HandlerStart = Handler;
  R.HandlerEnd = Skip;
  B.Regions.push_back(R);
  EXPECT_FALSE(JumpCounts(B).taken(1, 1).has_value());
}

} // namespace
