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
#include "il/ReadAll.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

#include "bench/Harness.h"

using namespace llvm;
using namespace weft;

namespace {

struct Totals {
  std::atomic<uint64_t> Files{0}, Bytes{0}, Bodies{0}, ILBytes{0}, Instructions{0}, Signatures{0},
      Attributes{0}, Failures{0};
  void reset() {
    Files = Bytes = Bodies = ILBytes = Instructions = Signatures = Attributes = Failures = 0;
  }
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
  bench::Options O;
  if (!bench::parseOptions(argc, argv,
                           "weft-read-bench [--threads N] [--repeat N] [--no-attributes] "
                           "(--corelib | --framework | FILE-OR-FOLDER...)",
                           O))
    return 2;
  bool Attributes = std::find(O.Flags.begin(), O.Flags.end(), "--no-attributes") == O.Flags.end();
  metadata::AssemblyResolver Shared(metadata::AssemblyResolver::sharedFrameworkDirs());
  Totals T;
  bench::Timing Time = bench::runRepeatedly(
      O, [&] { T.reset(); }, [&](const std::string &F) { readOne(F, &Shared, Attributes, T); });
  outs() << "weft read: " << O.Label << ": " << T.Files << " assemblies, "
         << format("%.1f", T.Bytes / 1048576.0) << " MiB, " << T.Bodies << " method bodies, "
         << T.Instructions << " instructions, " << T.Signatures << " signatures, " << T.Attributes
         << " custom attributes\n";
  bench::printTiming(O, Time, T.Failures);
  return T.Failures ? 1 : 0;
}
