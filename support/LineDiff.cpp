//===- support/LineDiff.cpp - The lines two texts differ by ---------------===//
#include "support/LineDiff.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;

namespace weft {

std::vector<StringRef> splitLines(StringRef Text) {
  std::vector<StringRef> Lines;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Lines.push_back(Line);
    Text = Rest;
  }
  return Lines;
}

namespace {

/// Myers' algorithm on lines numbered by their text (equal lines, equal numbers).
class Differ {
public:
  Differ(ArrayRef<uint32_t> A, ArrayRef<uint32_t> B, std::vector<LineEdit> &Out)
      : A(A), B(B), Out(Out) {
    size_t Diagonals = 2 * (A.size() + B.size()) + 3;
    Forward.resize(Diagonals);
    Backward.resize(Diagonals);
  }
  void compare(int64_t ALo, int64_t AHi, int64_t BLo, int64_t BHi);

private:
  struct Snake {
    int64_t X, Y, U, V; // from (X, Y) to (U, V), in the whole lists' indices
  };
  Snake middleSnake(int64_t ALo, int64_t AHi, int64_t BLo, int64_t BHi);
  void same(int64_t X, int64_t Y, int64_t N) {
    for (int64_t I = 0; I < N; ++I)
      Out.push_back({LineOp::Same, uint32_t(X + I), uint32_t(Y + I)});
  }

  ArrayRef<uint32_t> A, B;
  std::vector<LineEdit> &Out;
  /// The furthest x reached on each diagonal, forward from the start of a range and backward
  /// (counted from its end) from its end; diagonal k is at index k + Offset.
  std::vector<int64_t> Forward, Backward;
};

void Differ::compare(int64_t ALo, int64_t AHi, int64_t BLo, int64_t BHi) {
  int64_t Prefix = 0;
  while (ALo + Prefix < AHi && BLo + Prefix < BHi && A[ALo + Prefix] == B[BLo + Prefix])
    ++Prefix;
  same(ALo, BLo, Prefix);
  ALo += Prefix;
  BLo += Prefix;
  int64_t Suffix = 0;
  while (AHi - Suffix > ALo && BHi - Suffix > BLo && A[AHi - Suffix - 1] == B[BHi - Suffix - 1])
    ++Suffix;
  AHi -= Suffix;
  BHi -= Suffix;
  if (ALo == AHi || BLo == BHi) {
    for (int64_t X = ALo; X < AHi; ++X)
      Out.push_back({LineOp::Removed, uint32_t(X), uint32_t(BLo)});
    for (int64_t Y = BLo; Y < BHi; ++Y)
      Out.push_back({LineOp::Added, uint32_t(AHi), uint32_t(Y)});
  } else {
    // Both sides are left with lines and differ at each end: at least two edits, so both
    // halves around the middle snake are smaller than the range.
    Snake S = middleSnake(ALo, AHi, BLo, BHi);
    compare(ALo, S.X, BLo, S.Y);
    same(S.X, S.Y, S.U - S.X);
    compare(S.U, AHi, S.V, BHi);
  }
  same(AHi, BHi, Suffix);
}

// The snake in the middle of a shortest path through the range: the forward search from its
// start and the backward search from its end take turns, one edit further each time, until
// their furthest points on a diagonal meet.
Differ::Snake Differ::middleSnake(int64_t ALo, int64_t AHi, int64_t BLo, int64_t BHi) {
  int64_t N = AHi - ALo, M = BHi - BLo, Delta = N - M, Offset = (N + M + 1) / 2 + 1;
  bool Odd = Delta & 1;
  auto F = [&](int64_t K) -> int64_t & { return Forward[size_t(K + Offset)]; };
  auto R = [&](int64_t K) -> int64_t & { return Backward[size_t(K + Offset)]; };
  F(1) = 0;
  R(1) = 0;
  for (int64_t D = 0; D <= (N + M + 1) / 2; ++D) {
    for (int64_t K = -D; K <= D; K += 2) {
      int64_t X = (K == -D || (K != D && F(K - 1) < F(K + 1))) ? F(K + 1) : F(K - 1) + 1;
      int64_t X0 = X;
      while (X < N && X - K < M && A[ALo + X] == B[BLo + X - K])
        ++X;
      F(K) = X;
      int64_t C = Delta - K; // the same diagonal, seen from the end
      if (Odd && C >= -(D - 1) && C <= D - 1 && X + R(C) >= N)
        return {ALo + X0, BLo + X0 - K, ALo + X, BLo + X - K};
    }
    for (int64_t C = -D; C <= D; C += 2) {
      int64_t X = (C == -D || (C != D && R(C - 1) < R(C + 1))) ? R(C + 1) : R(C - 1) + 1;
      int64_t X0 = X;
      while (X < N && X - C < M && A[AHi - 1 - X] == B[BHi - 1 - (X - C)])
        ++X;
      R(C) = X;
      int64_t K = Delta - C;
      if (!Odd && K >= -D && K <= D && X + F(K) >= N)
        return {AHi - X, BHi - (X - C), AHi - X0, BHi - (X0 - C)};
    }
  }
  // Not reached: the searches meet by the middle of the longest path.
  return {ALo, BLo, ALo, BLo};
}

/// Puts the removals of each run of changes before its additions.
void removalsFirst(std::vector<LineEdit> &Script) {
  for (auto It = Script.begin(); It != Script.end();) {
    if (It->Op == LineOp::Same) {
      ++It;
      continue;
    }
    auto End =
        std::find_if(It, Script.end(), [](const LineEdit &E) { return E.Op == LineOp::Same; });
    std::stable_partition(It, End, [](const LineEdit &E) { return E.Op == LineOp::Removed; });
    It = End;
  }
}

} // namespace

std::vector<LineEdit> diffLines(ArrayRef<StringRef> A, ArrayRef<StringRef> B) {
  DenseMap<StringRef, uint32_t> Numbers;
  auto Number = [&](ArrayRef<StringRef> Lines) {
    std::vector<uint32_t> Out;
    Out.reserve(Lines.size());
    for (StringRef L : Lines)
      Out.push_back(Numbers.try_emplace(L, uint32_t(Numbers.size())).first->second);
    return Out;
  };
  std::vector<uint32_t> NA = Number(A), NB = Number(B);
  std::vector<LineEdit> Script;
  Script.reserve(std::max(A.size(), B.size()));
  Differ(NA, NB, Script).compare(0, int64_t(NA.size()), 0, int64_t(NB.size()));
  removalsFirst(Script);
  return Script;
}

std::vector<Hunk> makeHunks(ArrayRef<LineEdit> Script, unsigned Context) {
  std::vector<Hunk> Hunks;
  size_t N = Script.size();
  // The lines of each side before Script[Counted].
  size_t Counted = 0;
  uint32_t ALine = 0, BLine = 0;
  auto CountTo = [&](size_t To) {
    for (; Counted < To; ++Counted) {
      ALine += Script[Counted].Op != LineOp::Added;
      BLine += Script[Counted].Op != LineOp::Removed;
    }
  };
  for (size_t I = 0; I < N;) {
    if (Script[I].Op == LineOp::Same) {
      ++I;
      continue;
    }
    // A change at I: the hunk takes Context lines before it, and goes on until more than twice
    // Context unchanged lines follow a change (the next change then has a hunk of its own).
    size_t Begin = I >= Context ? I - Context : 0, End = I + 1, SameRun = 0;
    for (size_t J = I; J < N; ++J) {
      if (Script[J].Op != LineOp::Same) {
        End = J + 1;
        SameRun = 0;
      } else if (++SameRun > 2 * size_t(Context)) {
        break;
      }
    }
    size_t Stop = std::min(N, End + Context);
    CountTo(Begin);
    Hunk H;
    H.AStart = ALine;
    H.BStart = BLine;
    H.Lines.assign(Script.begin() + Begin, Script.begin() + Stop);
    CountTo(Stop);
    H.ALines = ALine - H.AStart;
    H.BLines = BLine - H.BStart;
    Hunks.push_back(std::move(H));
    I = Stop;
  }
  return Hunks;
}

} // namespace weft
