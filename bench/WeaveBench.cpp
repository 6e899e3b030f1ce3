//===- bench/WeaveBench.cpp - Weave a pass into every method --------------===//
//
// What `weft weave IN -o OUT --pass entry-exit:probe-assembly=P,probe-type=Weft.Probes.Empty`
// (or another pass) does, step for step as cli/WeaveCommand.cpp does it, in one process and
// several times: open the input, read it whole, select every method, run the pass as the writer
// asks for the bodies, rewrite a portable PDB found next to the input, write the module and the
// output files. Prints wall time, CPU time and peak memory beside the number of methods changed,
// the least time each step took over the runs, the peak memory when the steps ended, and what one
// runOnMethod call cost (median, 90th and 99th percentile, in microseconds).
//
//   weft-weave-bench --probe PROBES.dll [--pass entry-exit|coverage|trace|single-ret]
//                    [--threads N] [--repeat N] (--corelib | --csharp | --file PATH | FILE...)
//
// --csharp is Roslyn's Microsoft.CodeAnalysis.CSharp.dll of the newest SDK `dotnet --list-sdks`
// names. The probes are tests/probes (Weft.Probes.Empty: OnEnter(int), OnExit(int)), so the woven
// code calls probes that do nothing. --threads is the pass's thread count (the CLI's default is one
// per core, and so is this one's).
//
//===----------------------------------------------------------------------===//
#include "il/ReadAll.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "metadata/pdb/Rewrite.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "support/Allocator.h"
#include "support/AtomicFile.h"
#include "support/WorkerTeam.h"
#include "weaving/ModuleWriter.h"
#include "weaving/Pass.h"
#include "weaving/Symbols.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>

#include "bench/Harness.h"

using namespace llvm;
using namespace weft;

namespace {

constexpr const char *ProbeType = "Weft.Probes.Empty";

struct Totals {
  std::atomic<uint64_t> Files{0}, Changed{0}, Skipped{0}, Lengthened{0}, InBytes{0}, OutBytes{0},
      Failures{0};
  void reset() { Files = Changed = Skipped = Lengthened = InBytes = OutBytes = Failures = 0; }
  // Seconds per step of the current run (the files go one at a time), and the least over the
  // runs, which says where the time goes. The weave's own steps happen while the writer asks for
  // the bodies; "write" is what writeModule spends besides them.
  enum Step {
    Read, Select, Begin, Decode, Passes, Serial, Encode, End, Pdb, Write, Output, Steps
  };
  static constexpr const char *Names[Steps] = {"open and read",
                                               "select",
                                               "beginModule",
                                               "decode and runOnMethod",
                                               "of which runOnMethod (thread time)",
                                               "tokens and finishMethod",
                                               "encode",
                                               "endModule",
                                               "PDB",
                                               "write",
                                               "output files"};
  double Seconds[Steps] = {}, BestSeconds[Steps] = {};
  // The process's peak resident memory when each step ended in the first run.
  double PeakMiB[Steps] = {};
  bool First = true;
  std::chrono::steady_clock::time_point Mark;
  void startRun() {
    if (Files)
      for (int I = 0; I < Steps; ++I)
        BestSeconds[I] = First ? Seconds[I] : std::min(BestSeconds[I], Seconds[I]);
    First = First && !Files;
    std::fill(std::begin(Seconds), std::end(Seconds), 0.0);
    reset();
  }
  void lap(Step S) {
    auto Now = std::chrono::steady_clock::now();
    Seconds[S] += std::chrono::duration<double>(Now - Mark).count();
    if (First)
      PeakMiB[S] = bench::peakRssMiB();
    Mark = Now;
  }
  void addWeaveTimes(const passes::WeaveTimes &W) {
    Seconds[Begin] += W.Begin;
    Seconds[Decode] += W.DecodeAndFirstPass + W.LaterPasses;
    Seconds[Passes] += W.PassSeconds;
    Seconds[Serial] += W.Serial;
    Seconds[Encode] += W.Encode;
    Seconds[End] += W.End;
  }
  // Per pass and method: the microseconds of runOnMethod over all runs.
  std::vector<float> MethodMicros;
  // Warnings the CLI would print, once each over all runs.
  std::mutex Lock;
  std::set<std::string> Warnings;
  void warn(const std::string &W) {
    std::lock_guard<std::mutex> G(Lock);
    Warnings.insert(W);
  }
};

/// The newest SDK's Roslyn, found the way tests/support/Env.cpp finds SDKs: the last line of
/// `dotnet --list-sdks` ("10.0.401 [/usr/share/dotnet/sdk]"), which lists them in ascending order.
std::string newestSdkCSharp() {
  ErrorOr<std::string> Dotnet = sys::findProgramByName("dotnet");
  if (!Dotnet)
    return {};
  SmallString<128> Listing;
  if (sys::fs::createTemporaryFile("weft-weave-bench-sdks", "txt", Listing))
    return {};
  StringRef Argv[] = {*Dotnet, "--list-sdks"};
  Optional<StringRef> Redirects[] = {StringRef(""), StringRef(Listing), StringRef("")};
  int Exit = sys::ExecuteAndWait(*Dotnet, Argv, None, Redirects);
  auto Text = MemoryBuffer::getFile(Listing);
  sys::fs::remove(Listing);
  if (Exit != 0 || !Text)
    return {};
  std::string Found;
  SmallVector<StringRef, 8> Lines;
  (*Text)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    L = L.trim();
    size_t Open = L.find('['), Close = L.rfind(']');
    if (Open == StringRef::npos || Close == StringRef::npos)
      continue;
    SmallString<256> P(L.slice(Open + 1, Close));
    sys::path::append(P, L.substr(0, Open).trim(), "Roslyn", "bincore",
                      "Microsoft.CodeAnalysis.CSharp.dll");
    if (sys::fs::exists(P))
      Found = std::string(P);
  }
  return Found;
}

void weaveOne(const std::string &Path, const std::string &PassName, const std::string &Probe,
              WorkerTeam &Team, const std::string &OutDir, Totals &T) {
  auto Fail = [&](Error E) {
    errs() << Path << ": " << toString(std::move(E)) << '\n';
    ++T.Failures;
  };
  T.Mark = std::chrono::steady_clock::now();
  // The spec --pass makes (the CLI makes it before opening the input).
  spec::PassUse Use;
  Use.Pass = PassName;
  Use.Rule = "--pass " + PassName;
  if (PassName == "entry-exit")
    Use.Options = {{"probe-assembly", Probe}, {"probe-type", ProbeType}};
  std::vector<spec::PassUse> Uses;
  Uses.push_back(std::move(Use));
  spec::Spec Spec = spec::Spec::forPasses(std::move(Uses));
  for (const spec::PassUse *U : Spec.passUses())
    if (!passes::PassRegistry::global().find(U->Pass))
      return Fail(createStringError(inconvertibleErrorCode(), "unknown pass " + U->Pass));

  // cli/Tool.cpp's openInput.
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return Fail(errorCodeToError(Buf.getError()));
  auto Img = pe::Image::create(std::move(*Buf));
  if (!Img)
    return Fail(Img.takeError());
  if (!(*Img)->isManaged())
    return Fail(createStringError(inconvertibleErrorCode(), "not a .NET assembly"));
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return Fail(M.takeError());

  // Selected first (as the CLI does), so that the bodies the weave decodes are read once.
  auto Selecting = std::chrono::steady_clock::now();
  Expected<spec::Selection> Sel = spec::select(Spec, **M);
  if (!Sel)
    return Fail(Sel.takeError());
  double SelectSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Selecting).count();
  ReadStats Stats;
  ReadOptions RO;
  RO.CustomAttributes = false; // as the CLI: their blobs are copied, not re-encoded
  RO.Team = &Team;
  auto DecodedByWeave = [&](uint32_t Row) {
    return Row <= Sel->methodCount() && !Sel->passesOf(Row).empty();
  };
  RO.DecodedLater = DecodedByWeave; // as the CLI: the weave checks what it decodes
  if (Error E = readEverything(**Img, **M, Stats, RO))
    return Fail(std::move(E));
  T.lap(Totals::Read);
  T.Seconds[Totals::Read] -= SelectSeconds;
  T.Seconds[Totals::Select] += SelectSeconds;

  metadata::Editor Editor(**M);
  metadata::AssemblyResolver Resolver(metadata::AssemblyResolver::searchDirsFor(Path));
  passes::WeaveOptions WO;
  WO.Team = &Team;
  WO.Resolver = &Resolver;
  WO.InputPath = Path;
  WO.KeepRemaps = sys::fs::exists(separatePdbPath(**Img, Path)) || hasEmbeddedPdb(**Img);
  WO.MethodTimes = true;
  T.lap(Totals::Select);

  // The bodies are woven as the writer asks for them (as cli/WeaveCommand.cpp does).
  Expected<std::unique_ptr<passes::ModuleWeave>> Weave =
      passes::ModuleWeave::start(**Img, Editor, *Sel, WO);
  if (!Weave)
    return Fail(Weave.takeError());
  passes::ModuleWeave &W8 = **Weave;
  SmallString<256> Out(OutDir);
  sys::path::append(Out, sys::path::filename(Path));
  SmallString<256> InPdb(separatePdbPath(**Img, Path)), OutPdb(Out);
  sys::path::replace_extension(OutPdb, "pdb");
  std::optional<PdbUpdate> Pdb;
  double PdbSeconds = 0;
  WriteOptions Write;
  Write.AfterOriginalBodies = [&](pe::DebugDataOverrides &Data) -> Error {
    if (Error E = W8.finish())
      return E;
    releaseFreeMemory(); // as the CLI does after a large input's weave
    auto Start = std::chrono::steady_clock::now();
    const passes::WeaveOutcome &Woven = W8.outcome();
    if (!Woven.Remaps.empty()) {
      std::string Warning;
      Pdb = updatePdb(**Img, Path, InPdb, Woven.Remaps, Warning);
      if (!Warning.empty())
        T.warn(Warning);
      if (Pdb)
        for (auto &[Type, Bytes] : Pdb->DebugData)
          Data[Type] = Bytes;
    }
    PdbSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    return Error::success();
  };
  Expected<WrittenModule> Written = writeModule(
      **Img, Editor, [&](uint32_t Row) { return W8.body(Row); }, Write);
  if (!Written)
    return Fail(Written.takeError());
  const passes::WeaveOutcome &Woven = W8.outcome();
  for (const std::string &W : Woven.Warnings)
    T.warn(W);
  // writeModule's time holds the weave's steps, taken out of it.
  T.lap(Totals::Write);
  const passes::WeaveTimes &WT = Woven.Times;
  T.Seconds[Totals::Write] -=
      WT.Begin + WT.DecodeAndFirstPass + WT.LaterPasses + WT.Serial + WT.Encode + WT.End +
      PdbSeconds;
  T.addWeaveTimes(WT);
  T.Seconds[Totals::Pdb] += PdbSeconds;
  for (const std::vector<float> &Pass : Woven.MethodMicros)
    T.MethodMicros.insert(T.MethodMicros.end(), Pass.begin(), Pass.end());

  if (Error E = writeFileAtomically(Out, Written->Bytes))
    return Fail(std::move(E));
  if (Error E = passes::writeSideFiles(W8.outcome(), Out))
    return Fail(std::move(E));
  if (Pdb && !Pdb->Embedded) {
    if (Error E = writeFileAtomically(OutPdb, Pdb->Bytes))
      return Fail(std::move(E));
  } else if (sys::fs::exists(InPdb) && Woven.Remaps.empty()) {
    auto Copy = MemoryBuffer::getFile(InPdb, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Copy)
      return Fail(errorCodeToError(Copy.getError()));
    if (Error E = writeFileAtomically(OutPdb, arrayRefFromStringRef((*Copy)->getBuffer())))
      return Fail(std::move(E));
  }
  T.lap(Totals::Output);

  ++T.Files;
  T.Changed += Woven.MethodsChanged;
  T.Skipped += Woven.Skipped.size();
  T.Lengthened += Woven.BranchesLengthened;
  T.InBytes += (*Img)->bytes().size();
  T.OutBytes += Written->Bytes.size();
}

} // namespace

int main(int argc, char **argv) {
  const char *Usage = "weft-weave-bench --probe PROBES.dll [--pass NAME] [--threads N] "
                      "[--repeat N] (--corelib | --csharp | --file PATH | FILE...)";
  // The options only this benchmark has are taken out before the harness reads the rest.
  std::string Probe, PassName = "entry-exit";
  std::vector<std::string> Args{argv[0]};
  for (int I = 1; I < argc; ++I) {
    StringRef A = argv[I];
    if (A == "--probe" && I + 1 < argc) {
      Probe = argv[++I];
    } else if (A == "--pass" && I + 1 < argc) {
      PassName = argv[++I];
    } else if (A == "--file" && I + 1 < argc) {
      Args.push_back(argv[++I]);
    } else if (A == "--csharp") {
      std::string CSharp = newestSdkCSharp();
      if (CSharp.empty()) {
        errs() << "--csharp: no SDK with Roslyn/bincore/Microsoft.CodeAnalysis.CSharp.dll "
                  "in `dotnet --list-sdks`\n";
        return 1;
      }
      Args.push_back(CSharp);
    } else {
      Args.push_back(A.str());
    }
  }
  std::vector<char *> Argv;
  for (std::string &A : Args)
    Argv.push_back(A.data());
  bench::Options O;
  if (!bench::parseOptions(static_cast<int>(Argv.size()), Argv.data(), Usage, O))
    return 2;
  if (Probe.empty() || !sys::fs::exists(Probe)) {
    errs() << "usage: " << Usage << "\n--probe: the probe assembly (tests/probes built) "
           << (Probe.empty() ? "is required" : "'" + Probe + "' does not exist") << '\n';
    return 2;
  }
  SmallString<128> OutDir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("weft-weave-bench", OutDir)) {
    errs() << "cannot make a temporary folder: " << EC.message() << '\n';
    return 1;
  }
  Totals T;
  // The files go one after another, as in the CLI: the threads of one team read each file's
  // bodies and run its method phases.
  WorkerTeam Team(O.Threads);
  bench::Options Serial = O;
  Serial.Threads = 1;
  bench::Timing Time = bench::runRepeatedly(
      Serial, [&] { T.startRun(); },
      [&](const std::string &F) { weaveOne(F, PassName, Probe, Team, std::string(OutDir), T); });
  sys::fs::remove_directories(OutDir);
  outs() << "weft weave " << PassName
         << (PassName == "entry-exit" ? std::string(" (") + ProbeType +
                                            ": OnEnter/OnExit(int token), called directly as they "
                                            "cannot throw; one exit block)"
                                      : std::string())
         << ": " << O.Label << ": " << T.Files << " assemblies, " << T.Changed << " methods changed, "
         << T.Skipped << " left alone, " << T.Lengthened << " short branches made long, "
         << format("%.1f MiB in, %.1f MiB written", T.InBytes / 1048576.0, T.OutBytes / 1048576.0)
         << '\n';
  bench::printTiming(O, Time, T.Failures);
  uint64_t Failures = T.Failures;
  T.startRun(); // folds the last run into the least step times
  outs() << "  least per step:";
  for (int S = 0; S < Totals::Steps; ++S)
    outs() << (S ? ", " : " ") << Totals::Names[S] << format(" %.3f s", T.BestSeconds[S]);
  outs() << "\n  peak RSS when each step ended (first run):";
  for (int S = 0; S < Totals::Steps; ++S)
    if (S != Totals::Passes && S != Totals::Serial && S != Totals::Decode &&
        S != Totals::Encode && S != Totals::Begin && S != Totals::End)
      outs() << (S ? ", " : " ") << Totals::Names[S] << format(" %.1f MiB", T.PeakMiB[S]);
  outs() << '\n';
  if (!T.MethodMicros.empty()) {
    std::vector<float> &U = T.MethodMicros;
    std::sort(U.begin(), U.end());
    auto At = [&](double Q) { return U[std::min(U.size() - 1, size_t(Q * U.size()))]; };
    outs() << "  " << PassName
           << format(" runOnMethod per method, all runs (%zu calls): median %.2f us, p90 %.2f us, "
                     "p99 %.2f us, max %.0f us\n",
                     U.size(), At(0.5), At(0.9), At(0.99), U.back());
  }
  for (const std::string &W : T.Warnings)
    errs() << "  warning: " << W << '\n';
  return Failures ? 1 : 0;
}
