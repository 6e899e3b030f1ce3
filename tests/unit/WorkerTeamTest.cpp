//===- tests/unit/WorkerTeamTest.cpp - Loops on a fixed team --------------===//
#include "support/WorkerTeam.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

// A balanced loop runs every index once; the loops that follow its partition run each index on
// the thread that ran it there, however the runs were dealt.
TEST(WorkerTeam, LaterLoopsFollowABalancedLoopsPartition) {
  for (unsigned Threads : {1u, 2u, 3u}) {
    WorkerTeam Team(Threads);
    for (size_t N : {0u, 1u, 9u, 1000u}) {
      WorkerTeam::Partition Taken;
      std::vector<std::atomic<int>> Runs(N);
      std::vector<std::thread::id> Who(N);
      Team.forEachBalanced(N, [&](size_t I) {
        ++Runs[I];
        Who[I] = std::this_thread::get_id();
        if (I % 16 == 0) // uneven items, so that the dealing varies
          std::this_thread::sleep_for(std::chrono::microseconds(50));
      }, Taken);
      for (size_t I = 0; I < N; ++I)
        EXPECT_EQ(Runs[I].load(), 1) << Threads << " threads, index " << I;
      for (int Again = 0; Again < 2; ++Again) {
        std::vector<std::atomic<int>> Later(N);
        std::vector<std::thread::id> LaterWho(N);
        Team.forEachAsBefore(N, [&](size_t I) {
          ++Later[I];
          LaterWho[I] = std::this_thread::get_id();
        }, Taken);
        for (size_t I = 0; I < N; ++I)
          EXPECT_EQ(Later[I].load(), 1) << Threads << " threads, index " << I;
        EXPECT_EQ(LaterWho, Who) << Threads << " threads, " << N << " indices";
      }
    }
  }
}

TEST(WorkerTeam, EachMemberRunsOnceOnAThreadOfItsOwn) {
  for (unsigned Threads : {1u, 2u, 3u}) {
    WorkerTeam Team(Threads);
    for (int Round = 0; Round < 3; ++Round) {
      std::vector<std::atomic<int>> Runs(Threads);
      std::vector<std::thread::id> Who(Threads);
      Team.forEachMember([&](unsigned K) {
        ++Runs[K];
        Who[K] = std::this_thread::get_id();
      });
      EXPECT_EQ(Who[0], std::this_thread::get_id()) << "member 0 is the caller";
      for (unsigned K = 0; K < Threads; ++K) {
        EXPECT_EQ(Runs[K].load(), 1) << Threads << " threads, member " << K;
        for (unsigned L = 0; L < K; ++L)
          EXPECT_NE(Who[K], Who[L]) << Threads << " threads, members " << L << " and " << K;
      }
      // Members that share out work among themselves (as inputs woven side by side).
      std::atomic<size_t> Next{0};
      std::vector<std::atomic<int>> Done(100);
      Team.forEachMember([&](unsigned) {
        for (size_t I; (I = Next.fetch_add(1)) < Done.size();)
          ++Done[I];
      });
      for (size_t I = 0; I < Done.size(); ++I)
        EXPECT_EQ(Done[I].load(), 1) << I;
      // The team still runs loops afterwards.
      std::atomic<size_t> Sum{0};
      Team.forEach(10, [&](size_t I) { Sum += I; });
      EXPECT_EQ(Sum.load(), 45u);
    }
  }
}

} // namespace
