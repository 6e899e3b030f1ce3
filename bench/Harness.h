//===- bench/Harness.h - What the benchmarks share ------------------------===//
//
// The command line every benchmark takes (--threads N, --repeat N, --corelib, --framework, files
// and folders), running the work over the files on a thread pool several times, and the figures
// printed after it: first and best wall time, CPU time of the best run, peak resident memory.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_BENCH_HARNESS_H
#define WEFT_BENCH_HARNESS_H

#include "metadata/Resolver.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string>
#include <sys/resource.h>
#include <vector>

namespace weft::bench {

struct Options {
  unsigned Threads = llvm::hardware_concurrency().compute_thread_count();
  unsigned Repeat = 1;
  std::vector<std::string> Flags; // the arguments starting with "--" the harness does not know
  std::vector<std::string> Files; // the .dll files named or found in the folders named
  std::string Label;              // what the figures are about
  uint64_t LargestInput = 0;      // bytes
};

inline std::string netCoreAppDir() {
  for (const std::string &D : metadata::AssemblyResolver::sharedFrameworkDirs())
    if (llvm::StringRef(D).contains("Microsoft.NETCore.App"))
      return D;
  return {};
}

/// Reads the command line; false (after printing \p Usage) when it names no input.
inline bool parseOptions(int argc, char **argv, llvm::StringRef Usage, Options &O) {
  std::vector<std::string> Inputs;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    if (A == "--threads" && I + 1 < argc)
      O.Threads = std::max(1, atoi(argv[++I]));
    else if (A == "--repeat" && I + 1 < argc)
      O.Repeat = std::max(1, atoi(argv[++I]));
    else if (A == "--corelib") {
      llvm::SmallString<256> P(netCoreAppDir());
      llvm::sys::path::append(P, "System.Private.CoreLib.dll");
      Inputs.push_back(std::string(P));
      O.Label = "System.Private.CoreLib.dll";
    } else if (A == "--framework") {
      Inputs.push_back(netCoreAppDir());
      O.Label = "Microsoft.NETCore.App folder";
    } else if (A.startswith("--"))
      O.Flags.push_back(A.str());
    else
      Inputs.push_back(A.str());
  }
  if (Inputs.empty()) {
    llvm::errs() << "usage: " << Usage << '\n';
    return false;
  }
  for (const std::string &In : Inputs) {
    if (!llvm::sys::fs::is_directory(In)) {
      O.Files.push_back(In);
      continue;
    }
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(In, EC), End; It != End && !EC; It.increment(EC))
      if (llvm::StringRef(It->path()).endswith(".dll"))
        O.Files.push_back(It->path());
  }
  std::sort(O.Files.begin(), O.Files.end());
  for (const std::string &F : O.Files) {
    uint64_t Size = 0;
    if (!llvm::sys::fs::file_size(F, Size))
      O.LargestInput = std::max(O.LargestInput, Size);
  }
  if (O.Label.empty())
    O.Label = O.Files.size() == 1 ? llvm::sys::path::filename(O.Files[0]).str()
                                  : std::to_string(O.Files.size()) + " files";
  return true;
}

inline double cpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_utime.tv_sec + U.ru_stime.tv_sec + (U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
}

inline double peakRssMiB() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss / 1024.0;
}

struct Timing {
  double First = 0, Best = 1e9, BestCpu = 0;
};

/// Runs \p Work on every file, on O.Threads threads, O.Repeat times; \p StartRun is called before
/// each run (to reset counters).
inline Timing runRepeatedly(const Options &O, llvm::function_ref<void()> StartRun,
                            llvm::function_ref<void(const std::string &)> Work) {
  Timing T;
  for (unsigned R = 0; R < O.Repeat; ++R) {
#ifdef __GLIBC__
    // What the last run freed goes back to the system: each run starts as a new process would,
    // without a heap it can reuse (peak memory and page faults as one weave has them).
    malloc_trim(0);
#endif
    StartRun();
    auto Start = std::chrono::steady_clock::now();
    double Cpu0 = cpuSeconds();
    if (O.Threads <= 1 || O.Files.size() == 1) {
      for (const std::string &F : O.Files)
        Work(F);
    } else {
      llvm::ThreadPool Pool(llvm::hardware_concurrency(O.Threads));
      for (const std::string &F : O.Files)
        Pool.async([&Work, F] { Work(F); });
      Pool.wait();
    }
    double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    if (R == 0)
      T.First = Wall;
    if (Wall < T.Best) {
      T.Best = Wall;
      T.BestCpu = cpuSeconds() - Cpu0;
    }
  }
  return T;
}

/// The second line every benchmark prints.
inline void printTiming(const Options &O, const Timing &T, uint64_t Failures) {
  double Peak = peakRssMiB(), Largest = O.LargestInput / 1048576.0;
  llvm::outs() << llvm::format("  first run %.3f s, best of %u %.3f s (cpu %.3f s), threads %u, "
                               "peak RSS %.1f MiB = %.2fx the largest input (%.1f MiB)",
                               T.First, O.Repeat, T.Best, T.BestCpu, O.Threads, Peak,
                               Peak / Largest, Largest)
               << (Failures ? ", " + std::to_string(Failures) + " FAILED" : std::string()) << '\n';
}

} // namespace weft::bench

#endif
