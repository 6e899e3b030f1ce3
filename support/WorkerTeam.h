//===- support/WorkerTeam.h - A fixed team of threads for loops -*- C++ -*-===//
//
// Runs loops over [0, N) on a fixed team: the calling thread and Threads - 1 helpers. Each member
// takes the same share of every loop (the same runs of indices), so what one loop makes
// for an index is used and freed by the same thread in the next: memory stays with the thread
// that allocated it, and no two threads contend for one allocator arena or one cache line of a
// shared counter. A balanced loop deals its runs to whichever member is free instead, and the
// loops after it over the same items follow its partition, so memory still stays with its
// thread. A helper spins briefly for the next loop before it sleeps, since loops follow
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

  /// Which member ran each run of a balanced loop (forEachBalanced), for the loops that follow
  /// it over the same indices (forEachAsBefore).
  using Partition = std::vector<uint16_t>;
  /// Runs \p F(I) for every I in [0, N), each run of indices taken by whichever member is free
  /// (so a member slowed down by its core or by large items does less), and notes in \p Taken
  /// who took each run.
  void forEachBalanced(size_t N, llvm::function_ref<void(size_t)> F, Partition &Taken);
  /// Runs \p F(I) for every I in [0, N) on the member that took I in the forEachBalanced that
  /// made \p Taken (with the same N), so that what it made for I is used and freed there.
  void forEachAsBefore(size_t N, llvm::function_ref<void(size_t)> F, const Partition &Taken);

private:
  enum class Mode { Shares, OncePerMember, Balanced, AsBefore };
  void helperLoop(unsigned Member);
  void runShare(unsigned Member);
  void runLoop(size_t N, llvm::function_ref<void(size_t)> F, Mode M, Partition *Taken = nullptr);
  void runRun(size_t Run);
  /// The loop on the calling thread alone (a team without helpers).
  static void runHere(size_t N, llvm::function_ref<void(size_t)> F);

  std::vector<std::thread> Helpers;
  std::mutex Lock;
  std::condition_variable Wake;
  // The current loop; written before Generation moves on.
  llvm::function_ref<void(size_t)> Job;
  size_t JobSize = 0;
  Mode JobMode = Mode::Shares;
  Partition *JobTaken = nullptr;    // Balanced: written; AsBefore: only read
  std::atomic<size_t> NextRun{0};   // Balanced: the next run to take
  std::atomic<uint64_t> Generation{0};
  std::atomic<unsigned> Pending{0}; // helpers that have not finished the current loop
  bool Stopping = false;
};

} // namespace weft

#endif
