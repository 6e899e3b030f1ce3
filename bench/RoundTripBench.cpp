//===- bench/RoundTripBench.cpp - Read, re-encode, write ------------------===//
//
// The round trip with every method body decoded into the instruction graph and encoded again
// (not copied): read the assembly, decode and re-encode each body, write the image anew to a file.
// Prints wall time, CPU time and peak memory beside the size of the largest input.
//
//   weft-roundtrip-bench [--threads N] [--repeat N] (--corelib | --framework | FILE-OR-FOLDER...)
//
//===----------------------------------------------------------------------===//
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "support/Allocator.h"
#include "weaver/ModuleWriter.h"
#include "weaver/il/BodyReader.h"
#include "weaver/il/CallShapes.h"
#include "weaver/il/Encoder.h"
#include "weaver/il/MethodBody.h"

#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <sys/resource.h>

using namespace llvm;
using namespace weft;
using namespace weft::metadata;

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
  for (const std::string &D : AssemblyResolver::sharedFrameworkDirs())
    if (StringRef(D).contains("Microsoft.NETCore.App"))
      return D;
  return {};
}

struct Totals {
  std::atomic<uint64_t> Files{0}, Bodies{0}, InBytes{0}, OutBytes{0}, Failures{0};
};

void roundTrip(const std::string &Path, const std::string &OutDir, Totals &T) {
  auto Img = pe::Image::open(Path);
  if (!Img) {
    consumeError(Img.takeError());
    return;
  }
  if (!(*Img)->isManaged() || (*Img)->isMixedMode())
    return;
  auto Fail = [&](Error E) {
    errs() << Path << ": " << toString(std::move(E)) << '\n';
    ++T.Failures;
  };
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return Fail(M.takeError());
  Editor E(**M);
  il::ModuleCallShapes Shapes(**M);
  // Each body is decoded and encoded when the writer reaches it.
  uint64_t Count = 0;
  auto Reencode = [&](uint32_t Row) -> Expected<std::optional<NewBody>> {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw || !*Raw)
      return Raw ? std::nullopt : Expected<std::optional<NewBody>>(Raw.takeError());
    auto Body = il::MethodBody::decode(**Raw);
    if (!Body)
      return Body.takeError();
    auto Enc = il::encode(*Body, il::EncodeOptions::forMethod(Shapes, Row));
    if (!Enc)
      return Enc.takeError();
    ++Count;
    return NewBody{std::move(Enc->Bytes), Enc->Fat};
  };
  auto W = writeModule(**Img, E, Reencode);
  if (!W)
    return Fail(W.takeError());
  SmallString<256> Out(OutDir);
  sys::path::append(Out, sys::path::filename(Path));
  std::error_code EC;
  raw_fd_ostream OS(Out, EC);
  if (EC)
    return Fail(errorCodeToError(EC));
  OS.write(reinterpret_cast<const char *>(W->Bytes.data()), W->Bytes.size());
  ++T.Files;
  T.Bodies += Count;
  T.InBytes += (*Img)->bytes().size();
  T.OutBytes += W->Bytes.size();
}

} // namespace

int main(int argc, char **argv) {
  tuneAllocator();
  unsigned Threads = hardware_concurrency().compute_thread_count();
  unsigned Repeat = 1;
  std::vector<std::string> Inputs;
  std::string Label;
  for (int I = 1; I < argc; ++I) {
    StringRef A = argv[I];
    if (A == "--threads" && I + 1 < argc)
      Threads = std::max(1, atoi(argv[++I]));
    else if (A == "--repeat" && I + 1 < argc)
      Repeat = std::max(1, atoi(argv[++I]));
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
    errs() << "usage: weft-roundtrip-bench [--threads N] [--repeat N] (--corelib | --framework | "
              "FILE-OR-FOLDER...)\n";
    return 2;
  }
  std::vector<std::string> Files;
  uint64_t Largest = 0;
  for (const std::string &In : Inputs) {
    if (!sys::fs::is_directory(In)) {
      Files.push_back(In);
    } else {
      std::error_code EC;
      for (sys::fs::directory_iterator It(In, EC), End; It != End && !EC; It.increment(EC))
        if (StringRef(It->path()).endswith(".dll"))
          Files.push_back(It->path());
    }
  }
  for (const std::string &F : Files) {
    uint64_t Size = 0;
    if (!sys::fs::file_size(F, Size))
      Largest = std::max(Largest, Size);
  }
  SmallString<128> OutDir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("weft-roundtrip-bench", OutDir)) {
    errs() << "cannot make a temporary folder: " << EC.message() << '\n';
    return 1;
  }
  double Best = 1e9, BestCpu = 0, First = 0;
  Totals Last;
  for (unsigned R = 0; R < Repeat; ++R) {
    Totals T;
    auto Start = std::chrono::steady_clock::now();
    double Cpu0 = cpuSeconds();
    {
      ThreadPool Pool(hardware_concurrency(Threads));
      for (const std::string &F : Files)
        Pool.async([&, F] { roundTrip(F, std::string(OutDir), T); });
      Pool.wait();
    }
    double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    if (R == 0)
      First = Wall;

    if (Wall < Best) {
      Best = Wall;
      BestCpu = cpuSeconds() - Cpu0;
    }
    Last.Files = T.Files.load();
    Last.Bodies = T.Bodies.load();
    Last.InBytes = T.InBytes.load();
    Last.OutBytes = T.OutBytes.load();
    Last.Failures = T.Failures.load();
  }
  sys::fs::remove_directories(OutDir);
  outs() << "weft round trip: " << (Label.empty() ? std::to_string(Files.size()) + " files" : Label)
         << ": " << Last.Files << " assemblies, " << Last.Bodies
         << " method bodies decoded and re-encoded, "
         << format("%.1f MiB in, %.1f MiB written", Last.InBytes / 1048576.0,
                   Last.OutBytes / 1048576.0)
         << '\n';
  double Peak = peakRssKb() / 1024.0;
  outs() << format("  first run %.3f s, best of %u %.3f s (cpu %.3f s), threads %u, peak RSS %.1f "
                   "MiB = %.2fx the largest input (%.1f MiB)",
                   First, Repeat, Best, BestCpu, Threads, Peak, Peak / (Largest / 1048576.0),
                   Largest / 1048576.0)
         << (Last.Failures ? ", " + std::to_string(Last.Failures) + " FAILED" : std::string())
         << '\n';
  return Last.Failures ? 1 : 0;
}
