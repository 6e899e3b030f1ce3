//===- tests/unit/WorkerTeamTest.cpp - Loops on a fixed team --------------===//
#include "support/WorkerTeam.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace weft;

namespace {

TEST(WorkerTeam, RunsEveryIndexOnceAndAlwaysOnTheSameThread) {
  for (unsigned Threads : {1u, 2u, 3u}) {
    WorkerTeam Team(Threads);
    EXPECT_EQ(Team.size(), Threads);
    std::vector<std::thread::id> First;
    for (size_t N : {0u, 1u, 7u, 1000u, 1000u, 1000u}) {
      std::vector<std::atomic<int>> Runs(N);
      std::vector<std::thread::id> Who(N);
      Team.forEach(N, [&](size_t I) {
        ++Runs[I];
        Who[I] = std::this_thread::get_id();
      });
      for (size_t I = 0; I < N; ++I)
        EXPECT_EQ(Runs[I].load(), 1) << Threads << " threads, index " << I;
      // What a loop made for an index is used by the same thread in the next loop.
      if (N == 1000) {
        if (First.empty())
          First = Who;
        EXPECT_EQ(Who, First) << Threads << " threads";
      }
    }
  }
}

TEST(WorkerTeam, ShareTheWorkWhenThereAreHelpers) {
  WorkerTeam Team(2);
  std::vector<std::thread::id> Who(64);
  Team.forEach(Who.size(), [&](size_t I) { Who[I] = std::this_thread::get_id(); });
  size_t Here = 0;
  for (std::thread::id Id : Who)
    Here += Id == std::this_thread::get_id();
  EXPECT_EQ(Here, Who.size() / 2); // runs of 8 dealt in turn
}

} // namespace
