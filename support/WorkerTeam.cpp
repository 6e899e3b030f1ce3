//===- support/WorkerTeam.cpp ---------------------------------------------===//
#include "support/WorkerTeam.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WEFT_PAUSE() _mm_pause()
#else
#define WEFT_PAUSE() std::this_thread::yield()
#endif

namespace weft {

namespace {
// About 50 microseconds of pauses before a helper sleeps.
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

void WorkerTeam::runShare(unsigned Member) {
  if (OncePerMember) {
    Job(Member);
    return;
  }
  // Runs of a few indices dealt in turn: large items (methods) cluster, so halves would not
  // balance, and single indices would make neighbours in the loop's arrays share cache lines.
  constexpr size_t Run = 8;
  size_t Members = size();
  for (size_t Begin = Member * Run; Begin < JobSize; Begin += Members * Run)
    for (size_t I = Begin; I < std::min(Begin + Run, JobSize); ++I)
      Job(I);
}

void WorkerTeam::forEach(size_t N, llvm::function_ref<void(size_t)> F) {
  if (Helpers.empty() || N < 2) {
    for (size_t I = 0; I < N; ++I)
      F(I);
    return;
  }
  runLoop(N, F, false);
}

void WorkerTeam::forEachMember(llvm::function_ref<void(unsigned)> F) {
  auto Each = [&](size_t Member) { F(unsigned(Member)); };
  if (Helpers.empty())
    return Each(0);
  runLoop(size(), Each, true);
}

void WorkerTeam::runLoop(size_t N, llvm::function_ref<void(size_t)> F, bool Once) {
  {
    std::lock_guard<std::mutex> G(Lock);
    Job = F;
    JobSize = N;
    OncePerMember = Once;
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
