//===- support/WorkerTeam.h - A fixed team of threads for loops -*- C++ -*-===//
//
// Runs loops over [0, N) on a fixed team: the calling thread and Threads - 1 helpers. Each member
// takes the same share of every loop (the same runs of indices), so what one loop makes
// for an index is used and freed by the same thread in the next: memory stays with the thread
// that allocated it, and no two threads contend for one allocator arena or one cache line of a
// shared counter. A helper spins briefly for the next loop before it sleeps, since loops follow
// each other closely (a batch of methods: decode, encode), and waking a thread costs more than a
// short loop on a virtual machine.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_WORKERTEAM_H
#define WEFT_SUPPORT_WORKERTEAM_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace weft {

class WorkerTeam {
public:
  /// A team of \p Threads threads in all (at least one: the caller).
  explicit WorkerTeam(unsigned Threads);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam &) = delete;
  WorkerTeam &operator=(const WorkerTeam &) = delete;

  unsigned size() const { return unsigned(Helpers.size()) + 1; }
  /// Runs \p F(I) for every I in [0, N) and returns when all have run.
  void forEach(size_t N, llvm::function_ref<void(size_t)> F);
  /// Runs \p F(K) once on each member K (0 is the caller) and returns when all have run: for
  /// work the members share out among themselves.
  void forEachMember(llvm::function_ref<void(unsigned)> F);

private:
  void helperLoop(unsigned Member);
  void runShare(unsigned Member);
  void runLoop(size_t N, llvm::function_ref<void(size_t)> F, bool OncePerMember);

  std::vector<std::thread> Helpers;
  std::mutex Lock;
  std::condition_variable Wake;
  // The current loop; written before Generation moves on.
  llvm::function_ref<void(size_t)> Job;
  size_t JobSize = 0;
  bool OncePerMember = false; // Job(Member) once, not a share of [0, JobSize)
  std::atomic<uint64_t> Generation{0};
  std::atomic<unsigned> Pending{0}; // helpers that have not finished the current loop
  bool Stopping = false;
};

} // namespace weft

#endif
