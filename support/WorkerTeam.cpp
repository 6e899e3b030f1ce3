//===- support/WorkerTeam.cpp ---------------------------------------------===//
#include "support/WorkerTeam.h"

#include <algorithm>
#include <cassert>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WEFT_PAUSE() _mm_pause()
#else
#define WEFT_PAUSE() std::this_thread::yield()
#endif

namespace weft {

namespace {
// Pauses before a helper sleeps: about 0.4 ms on the x86-64 build machine (a pause there is about
// 19 ns), longer than the serial step between two loops of a weave (tens of microseconds), so a
// helper sleeps about once per loop in a hundred.
constexpr unsigned SpinRounds = 20000;
} // namespace

WorkerTeam::WorkerTeam(unsigned Threads) {
  for (unsigned K = 1; K < Threads; ++K)
    Helpers.emplace_back([this, K] { helperLoop(K); });
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard<std::mutex> G(Lock);
    Stopping = true;
    Generation.fetch_add(1);
  }
  Wake.notify_all();
  for (std::thread &T : Helpers)
    T.join();
}

namespace {
// Runs of a few indices: large items (methods) cluster, so halves would not balance, and single
// indices would make neighbours in the loop's arrays share cache lines.
constexpr size_t RunLength = 8;
size_t runsOf(size_t N) { return (N + RunLength - 1) / RunLength; }
} // namespace

void WorkerTeam::runRun(size_t Run) {
  for (size_t I = Run * RunLength, E = std::min(I + RunLength, JobSize); I < E; ++I)
    Job(I);
}

void WorkerTeam::runShare(unsigned Member) {
  size_t Runs = runsOf(JobSize);
  switch (JobMode) {
  case Mode::OncePerMember: Job(Member); return;
  case Mode::Shares: // dealt in turn
    for (size_t R = Member; R < Runs; R += size())
      runRun(R);
    return;
  case Mode::Balanced:
    for (size_t R; (R = NextRun.fetch_add(1, std::memory_order_relaxed)) < Runs;) {
      (*JobTaken)[R] = uint16_t(Member);
      runRun(R);
    }
    return;
  case Mode::AsBefore:
    for (size_t R = 0; R < Runs; ++R)
      if ((*JobTaken)[R] == Member)
        runRun(R);
    return;
  }
}

void WorkerTeam::runHere(size_t N, llvm::function_ref<void(size_t)> F) {
  for (size_t I = 0; I < N; ++I)
    F(I);
}

void WorkerTeam::forEach(size_t N, llvm::function_ref<void(size_t)> F) {
  if (Helpers.empty() || N < 2)
    return runHere(N, F);
  runLoop(N, F, Mode::Shares);
}

void WorkerTeam::forEachMember(llvm::function_ref<void(unsigned)> F) {
  auto Each = [&](size_t Member) { F(unsigned(Member)); };
  if (Helpers.empty())
    return Each(0);
  runLoop(size(), Each, Mode::OncePerMember);
}

void WorkerTeam::forEachBalanced(size_t N, llvm::function_ref<void(size_t)> F,
                                 Partition &Taken) {
  Taken.assign(runsOf(N), 0);
  if (Helpers.empty())
    return runHere(N, F);
  runLoop(N, F, Mode::Balanced, &Taken);
}

void WorkerTeam::forEachAsBefore(size_t N, llvm::function_ref<void(size_t)> F,
                                 const Partition &Taken) {
  assert(Taken.size() == runsOf(N) && "a partition made for another loop");
  if (Helpers.empty())
    return runHere(N, F);
  runLoop(N, F, Mode::AsBefore, const_cast<Partition *>(&Taken)); // AsBefore only reads it
}

void WorkerTeam::runLoop(size_t N, llvm::function_ref<void(size_t)> F, Mode M,
                         Partition *Taken) {
  {
    std::lock_guard<std::mutex> G(Lock);
    Job = F;
    JobSize = N;
    JobMode = M;
    JobTaken = Taken;
    NextRun.store(0, std::memory_order_relaxed);
    Pending.store(unsigned(Helpers.size()));
    Generation.fetch_add(1);
  }
  Wake.notify_all();
  runShare(0);
  while (Pending.load(std::memory_order_acquire))
    WEFT_PAUSE();
}

void WorkerTeam::helperLoop(unsigned Member) {
  uint64_t Seen = 0;
  for (;;) {
    for (unsigned R = 0; R < SpinRounds && Generation.load() == Seen; ++R)
      WEFT_PAUSE();
    {
      std::unique_lock<std::mutex> G(Lock);
      Wake.wait(G, [&] { return Generation.load() != Seen; });
      Seen = Generation.load();
      if (Stopping)
        return;
    }
    runShare(Member);
    Pending.fetch_sub(1, std::memory_order_release);
  }
}

} // namespace weft
