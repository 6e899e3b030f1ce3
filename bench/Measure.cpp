//===- bench/Measure.cpp - A whole process's time and memory --------------===//
//
// Runs a command several times and prints its wall time (least and median) and peak resident
// memory, as the figures of a whole process: start-up, reading, writing and exit included.
//
//   weft-measure [--repeat N] [--label TEXT] -- COMMAND ARGS... [';;' [--label TEXT] -- COMMAND ...]...
//
// Several commands (separated by the argument ';;') are run in turn, one run of each per round,
// so that a machine whose speed drifts over minutes slows them all alike and their figures can
// be compared. The commands' own output is discarded; a failing run is reported with its exit
// status.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Run {
  double Seconds = 0;
  long PeakKiB = 0;
  int Status = 0;
};

Run runOnce(char **Argv) {
  Run R;
  auto Start = std::chrono::steady_clock::now();
  pid_t Pid = fork();
  if (Pid == 0) {
    int Null = open("/dev/null", O_WRONLY);
    dup2(Null, 1);
    dup2(Null, 2);
    execvp(Argv[0], Argv);
    _exit(127);
  }
  rusage U{};
  int Status = 0;
  wait4(Pid, &Status, 0, &U);
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  R.PeakKiB = U.ru_maxrss;
  R.Status = WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
  return R;
}

} // namespace

namespace {

struct Measured {
  std::string Label;
  std::vector<char *> Command; // null-terminated
  std::vector<Run> Runs;
};

void report(const Measured &M) {
  std::vector<double> Times;
  long Peak = 0;
  int Failed = 0;
  for (const Run &R : M.Runs) {
    Times.push_back(R.Seconds);
    Peak = std::max(Peak, R.PeakKiB);
    Failed = Failed ? Failed : R.Status;
  }
  std::sort(Times.begin(), Times.end());
  llvm::outs() << llvm::format("  %-46s process: least %.3f s, median %.3f s of %u, peak RSS "
                               "%.1f MiB",
                               M.Label.empty() ? M.Command[0] : M.Label.c_str(), Times.front(),
                               Times[Times.size() / 2], unsigned(Times.size()), Peak / 1024.0)
               << (Failed ? ", FAILED (exit " + std::to_string(Failed) + ")" : std::string())
               << '\n';
}

} // namespace

int main(int argc, char **argv) {
  unsigned Repeat = 5;
  std::vector<Measured> All;
  for (int I = 1; I < argc;) {
    Measured M;
    for (; I < argc && std::strcmp(argv[I], "--") != 0; ++I) {
      if (!std::strcmp(argv[I], "--repeat") && I + 1 < argc)
        Repeat = unsigned(std::max(1, std::atoi(argv[++I])));
      else if (!std::strcmp(argv[I], "--label") && I + 1 < argc)
        M.Label = argv[++I];
    }
    for (++I; I < argc && std::strcmp(argv[I], ";;") != 0; ++I)
      M.Command.push_back(argv[I]);
    ++I; // past ';;'
    if (M.Command.empty()) {
      llvm::errs() << "usage: weft-measure [--repeat N] [--label TEXT] -- COMMAND ARGS... "
                      "[';;' [--label TEXT] -- COMMAND ARGS...]...\n";
      return 2;
    }
    M.Command.push_back(nullptr);
    All.push_back(std::move(M));
  }
  if (All.empty()) {
    llvm::errs() << "usage: weft-measure [--repeat N] [--label TEXT] -- COMMAND ARGS...\n";
    return 2;
  }
  for (unsigned K = 0; K < Repeat; ++K)
    for (Measured &M : All)
      M.Runs.push_back(runOnce(M.Command.data()));
  bool Failed = false;
  for (const Measured &M : All) {
    report(M);
    for (const Run &R : M.Runs)
      Failed |= R.Status != 0;
  }
  return Failed ? 1 : 0;
}
