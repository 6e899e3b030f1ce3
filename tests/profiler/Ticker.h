//===- tests/profiler/Ticker.h - A program to attach to ---------*- C++ -*-===//
//
// tests/ticker runs until told to stop, printing a line a tick: the program the tests attach the
// profiler to, detach it from, and edit the spec of while it runs.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_PROFILER_TICKER_H
#define WEFT_TESTS_PROFILER_TICKER_H

#include "tests/support/Env.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

namespace weft::test {

/// Waits up to \p Seconds for \p Pred, checking every 50 ms.
template <typename Fn> inline bool waitFor(double Seconds, Fn &&Pred) {
  for (int I = 0; I < Seconds * 20; ++I) {
    if (Pred())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Pred();
}

inline size_t countOf(llvm::StringRef Text, llvm::StringRef What) { return Text.count(What); }

/// What tests/ticker prints for tick \p N.
inline std::string tickLine(int N) {
  static const char *Colors[] = {"Red", "Green", "Blue"};
  char Ratio[32];
  std::snprintf(Ratio, sizeof Ratio, "%g", N / 4.0);
  std::string Check = N % 10 == 9 ? "nine " + std::to_string(N) : std::to_string(N);
  return "tick " + std::to_string(N) + " = " + std::to_string(N * N % 97) + " L" +
         std::to_string(N) + "/" + Colors[N % 3] + "/" + Ratio + "/c" + std::to_string(N) + " " +
         Check;
}

/// tests/ticker running in its own folder until its stop file exists: \p Prefix (empty, or `weft
/// run ... --`) then `dotnet Ticker.dll STOP`, with the environment's CORECLR_ and DOTNET_
/// variables left out and \p Extra added.
struct Ticker {
  std::string Dir, Out, Err, Stop;
  llvm::sys::ProcessInfo PI;

  Ticker(llvm::StringRef Name, std::vector<std::string> Prefix, std::vector<std::string> Extra) {
    std::string Built = llvm::sys::path::parent_path(helperDll("Ticker")).str();
    Dir = scratchDir(Name);
    for (const char *F : {"Ticker.dll", "Ticker.runtimeconfig.json"})
      EXPECT_FALSE(llvm::sys::fs::copy_file(Built + "/" + F, Dir + "/" + F)) << F;
    // The probe assembly a spec may name, there before the program starts: the runtime lists
    // the application's folder once, as it starts, and finds no file added later.
    EXPECT_FALSE(llvm::sys::fs::copy_file(probesDll(), Dir + "/Probes.dll"));
    Out = Dir + "/out.txt", Err = Dir + "/err.txt", Stop = Dir + "/stop";
    llvm::ErrorOr<std::string> Dotnet = llvm::sys::findProgramByName("dotnet");
    EXPECT_TRUE(bool(Dotnet));
    std::string Program = Prefix.empty() ? Dotnet.get() : Prefix[0];
    std::vector<std::string> Words = Prefix.empty() ? std::vector<std::string>{"dotnet"} : Prefix;
    for (std::string W : {std::string("dotnet"), Dir + "/Ticker.dll", Stop})
      if (!Prefix.empty() || W != "dotnet")
        Words.push_back(W);
    std::vector<llvm::StringRef> Args(Words.begin(), Words.end());
    std::vector<llvm::StringRef> Env;
    for (char **E = environ; *E; ++E)
      if (!llvm::StringRef(*E).startswith("CORECLR_") && !llvm::StringRef(*E).startswith("DOTNET_"))
        Env.push_back(*E);
    for (const std::string &E : Extra)
      Env.push_back(E);
    llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(Out),
                                                   llvm::StringRef(Err)};
    std::string Why;
    PI = llvm::sys::ExecuteNoWait(Program, Args, llvm::ArrayRef(Env), Redirects, 0, &Why);
    EXPECT_NE(PI.Pid, 0) << Why;
  }
  ~Ticker() {
    if (PI.Pid) {
      writeFile(Stop, "");
      llvm::sys::Wait(PI, 30, /*WaitUntilTerminates=*/true);
    }
  }
  size_t ticks() const { return readFile(Out).size() ? countOf(readFile(Out), "\n") : 0; }
  /// Waits until \p N more ticks were printed.
  bool waitTicks(size_t N) const {
    size_t Now = ticks();
    return waitFor(30, [&] { return ticks() >= Now + N; });
  }
  /// Stops it: its exit status.
  int stop() {
    writeFile(Stop, "");
    llvm::sys::ProcessInfo Done = llvm::sys::Wait(PI, 30, /*WaitUntilTerminates=*/true);
    PI.Pid = 0;
    return Done.ReturnCode;
  }
  /// Checks that it printed what it prints unwoven, and "done"; the number of ticks.
  size_t expectUnchangedOutput() const {
    llvm::SmallVector<llvm::StringRef, 64> Lines;
    std::string Printed = readFile(Out);
    llvm::StringRef(Printed).split(Lines, '\n', -1, false);
    EXPECT_GT(Lines.size(), 20u);
    EXPECT_EQ(Lines.empty() ? "" : Lines.back(), "done");
    for (size_t N = 0; N + 1 < Lines.size(); ++N)
      EXPECT_EQ(Lines[N], tickLine(int(N)));
    return Lines.size() - 1;
  }
};

} // namespace weft::test

#endif
