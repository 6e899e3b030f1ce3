//===- bench/ReadBench.cpp - How fast weft reads assemblies ---------------===//
//
// Reads assemblies completely: every table (validated), every signature, custom attribute,
// marshalling descriptor, constant and permission set, every method body with its instructions
// and exception clauses. Prints wall time, CPU time and peak memory.
//
//   weft-read-bench [--threads N] [--repeat N] [--no-attributes] FILE-OR-FOLDER...
//   weft-read-bench --corelib      System.Private.CoreLib.dll of the newest installed runtime
//   weft-read-bench --framework    the whole Microsoft.NETCore.App folder
//
// Peak memory is the process's maximum resident set (getrusage), so run one case per process
// (bench/compare.sh does).
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "support/Allocator.h"
#include "weaver/ReadAll.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <sys/resource.h>

using namespace llvm;
using namespace weft;

namespace {

double cpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_utime.tv_sec + U.ru_stime.tv_sec + (U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
}

long peakRssKb() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

std::string netCoreAppDir() {
  for (const std::string &D : metadata::AssemblyResolver::sharedFrameworkDirs())
    if (StringRef(D).contains("Microsoft.NETCore.App"))
      return D;
  return {};
}

struct Totals {
  std::atomic<uint64_t> Files{0}, Bytes{0}, Bodies{0}, ILBytes{0}, Instructions{0}, Signatures{0},
      Attributes{0}, Failures{0};
};

void readOne(const std::string &Path, metadata::AssemblyResolver *Shared, bool Attributes,
             Totals &T) {
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Path);
  if (!Img) {
    consumeError(Img.takeError());
    return;
  }
  if (!(*Img)->isManaged())
    return;
  T.Bytes += (*Img)->bytes().size();
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    errs() << Path << ": " << toString(M.takeError()) << '\n';
    ++T.Failures;
    return;
  }
  metadata::AssemblyResolver Local({sys::path::parent_path(Path).str()}, Shared);
  ReadStats S;
  ReadOptions O;
  O.CustomAttributes = Attributes;
  O.Resolver = &Local;
  if (Error E = readEverything(**Img, **M, S, O)) {
    errs() << Path << ": " << toString(std::move(E)) << '\n';
    ++T.Failures;
    return;
  }
  ++T.Files;
  T.Bodies += S.MethodsWithBody;
  T.ILBytes += S.ILBytes;
  T.Instructions += S.Instructions;
  T.Signatures += S.Signatures;
  T.Attributes += S.CustomAttributes;
}

} // namespace

int main(int argc, char **argv) {
  tuneAllocator();
  unsigned Threads = hardware_concurrency().compute_thread_count();
  unsigned Repeat = 1;
  bool Attributes = true;
  std::vector<std::string> Inputs;
  std::string Label;
  for (int I = 1; I < argc; ++I) {
    StringRef A = argv[I];
    if (A == "--threads" && I + 1 < argc)
      Threads = std::max(1, atoi(argv[++I]));
    else if (A == "--repeat" && I + 1 < argc)
      Repeat = std::max(1, atoi(argv[++I]));
    else if (A == "--no-attributes")
      Attributes = false;
    else if (A == "--corelib") {
      SmallString<256> P(netCoreAppDir());
      sys::path::append(P, "System.Private.CoreLib.dll");
      Inputs.push_back(std::string(P));
      Label = "System.Private.CoreLib.dll";
    } else if (A == "--framework") {
      Inputs.push_back(netCoreAppDir());
      Label = "Microsoft.NETCore.App folder";
    } else
      Inputs.push_back(A.str());
  }
  if (Inputs.empty()) {
    errs() << "usage: weft-read-bench [--threads N] [--repeat N] [--no-attributes] "
              "(--corelib | --framework | FILE-OR-FOLDER...)\n";
    return 2;
  }
  std::vector<std::string> Files;
  for (const std::string &In : Inputs) {
    if (!sys::fs::is_directory(In)) {
      Files.push_back(In);
      continue;
    }
    std::error_code EC;
    for (sys::fs::directory_iterator It(In, EC), End; It != End && !EC; It.increment(EC))
      if (StringRef(It->path()).endswith(".dll"))
        Files.push_back(It->path());
  }
  std::sort(Files.begin(), Files.end());
  if (Label.empty())
    Label = Files.size() == 1 ? sys::path::filename(Files[0]).str()
                              : std::to_string(Files.size()) + " files";

  metadata::AssemblyResolver Shared(metadata::AssemblyResolver::sharedFrameworkDirs());
  double BestWall = 1e9, BestCpu = 0, FirstWall = 0;
  Totals Last;
  for (unsigned R = 0; R < Repeat; ++R) {
    Totals T;
    auto Start = std::chrono::steady_clock::now();
    double Cpu0 = cpuSeconds();
    if (Threads <= 1 || Files.size() == 1) {
      for (const std::string &F : Files)
        readOne(F, &Shared, Attributes, T);
    } else {
      ThreadPool Pool(hardware_concurrency(Threads));
      for (const std::string &F : Files)
        Pool.async([&, F] { readOne(F, &Shared, Attributes, T); });
      Pool.wait();
    }
    double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    double Cpu = cpuSeconds() - Cpu0;
    if (R == 0)
      FirstWall = Wall;
    if (Wall < BestWall) {
      BestWall = Wall;
      BestCpu = Cpu;
    }
    if (R + 1 == Repeat) {
      Last.Files = T.Files.load();
      Last.Bytes = T.Bytes.load();
      Last.Bodies = T.Bodies.load();
      Last.ILBytes = T.ILBytes.load();
      Last.Instructions = T.Instructions.load();
      Last.Signatures = T.Signatures.load();
      Last.Attributes = T.Attributes.load();
      Last.Failures = T.Failures.load();
    }
  }
  outs() << "weft read: " << Label << ": " << Last.Files << " assemblies, "
         << format("%.1f", Last.Bytes / 1048576.0) << " MiB, " << Last.Bodies << " method bodies, "
         << Last.Instructions << " instructions, " << Last.Signatures << " signatures, "
         << Last.Attributes << " custom attributes\n";
  outs() << format(
                "  first run %.3f s, best of %u %.3f s (cpu %.3f s), threads %u, peak RSS %.1f MiB",
                FirstWall, Repeat, BestWall, BestCpu, Threads, peakRssKb() / 1024.0)
         << (Last.Failures ? ", " + std::to_string(Last.Failures) + " FAILED" : std::string())
         << '\n';
  return Last.Failures ? 1 : 0;
}
