//===- bench/RoundTripBench.cpp - Read, re-encode, write ------------------===//
//
// The round trip with every method body decoded into the instruction graph and encoded again
// (not copied): read the assembly, decode and re-encode each body, write the image anew to a file.
// Prints wall time, CPU time and peak memory beside the size of the largest input.
//
//   weft-roundtrip-bench [--threads N] [--repeat N] (--corelib | --framework | FILE-OR-FOLDER...)
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "il/CallShapes.h"
#include "il/Encoder.h"
#include "il/MethodBody.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "weaving/ModuleWriter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

#include "bench/Harness.h"

using namespace llvm;
using namespace weft;
using namespace weft::metadata;

namespace {

struct Totals {
  std::atomic<uint64_t> Files{0}, Bodies{0}, InBytes{0}, OutBytes{0}, Failures{0};
  void reset() { Files = Bodies = InBytes = OutBytes = Failures = 0; }
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
  std::vector<uint8_t> Last; // the body handed over last
  auto Reencode = [&](uint32_t Row) -> Expected<std::optional<BodyBytes>> {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw || !*Raw)
      return Raw ? std::nullopt : Expected<std::optional<BodyBytes>>(Raw.takeError());
    auto Body = il::MethodBody::decode(**Raw);
    if (!Body)
      return Body.takeError();
    auto Enc = il::encode(*Body, il::EncodeOptions::forMethod(Shapes, Row));
    if (!Enc)
      return Enc.takeError();
    ++Count;
    Last = std::move(Enc->Bytes);
    return BodyBytes{Last, Enc->Fat};
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
  bench::Options O;
  if (!bench::parseOptions(argc, argv,
                           "weft-roundtrip-bench [--threads N] [--repeat N] (--corelib | "
                           "--framework | FILE-OR-FOLDER...)",
                           O))
    return 2;
  SmallString<128> OutDir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("weft-roundtrip-bench", OutDir)) {
    errs() << "cannot make a temporary folder: " << EC.message() << '\n';
    return 1;
  }
  Totals T;
  bench::Timing Time = bench::runRepeatedly(
      O, [&] { T.reset(); }, [&](const std::string &F) { roundTrip(F, std::string(OutDir), T); });
  sys::fs::remove_directories(OutDir);
  outs() << "weft round trip: " << O.Label << ": " << T.Files << " assemblies, " << T.Bodies
         << " method bodies decoded and re-encoded, "
         << format("%.1f MiB in, %.1f MiB written", T.InBytes / 1048576.0, T.OutBytes / 1048576.0)
         << '\n';
  bench::printTiming(O, Time, T.Failures);
  return T.Failures ? 1 : 0;
}
