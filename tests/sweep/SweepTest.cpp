//===- tests/sweep/SweepTest.cpp - Read every assembly on the machine -----===//
//
// Every managed assembly (and portable PDB) of every installed shared framework, of every installed
// SDK, of the NuGet package folder, of the external robustness corpus and of the inputs the suite
// makes from the corpus (every program with "#-" metadata and *Ptr tables, and a mixed-mode
// image) is read completely (all tables, all signatures and blobs, all method bodies) and
// disassembled. Each one must either read cleanly or be refused with an error that is on the list
// of expected refusals below. The test prints what it read and why it refused what it refused.
//
// WEFT_SWEEP_LIMIT=N reads only every k-th file so that about N are read (for quick runs; the made
// inputs are always read); WEFT_SWEEP_EXTRA=dir1:dir2 adds folders. The round trip writes every
// other file of the machine's anew in the suite, every one with WEFT_FULL=1.
//
//===----------------------------------------------------------------------===//
#include "il/CallShapes.h"
#include "il/Encoder.h"
#include "il/MethodBody.h"
#include "il/ReadAll.h"
#include "il/StackDepth.h"
#include "il/Verifier.h"
#include "iltext/Disassembler.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "support/Format.h"
#include "tests/support/Env.h"
#include "tests/support/MixedModeImage.h"
#include "tests/support/PtrTablesImage.h"
#include "weaving/ModuleWriter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <gtest/gtest.h>
#include <map>
#include <mutex>

using namespace llvm;
using namespace weft;

namespace {

struct Source {
  std::string Label;
  std::string Dir;
  bool Sampled = true; // WEFT_SWEEP_LIMIT may leave some of its files out
};

enum class Outcome { Read, Refused, Native, NotPE, WindowsPdb };

struct Result {
  std::string Path;
  std::string Label;
  Outcome What = Outcome::Read;
  std::string Why;
  ReadStats Stats;
};

// Files that weft refuses on purpose, with the reason it must give. Anything else refused fails
// the test.
struct ExpectedRefusal {
  const char *PathPart; // a part of the file's path
  const char *Reason;   // a part of the message
};
const ExpectedRefusal ExpectedRefusals[] = {
    // The .NET Framework reference assemblies (NuGet's Microsoft.NETFramework.ReferenceAssemblies,
    // which projects targeting net4x restore) keep some method bodies cut short by the tool that
    // made them: a branch past the end of the code (mscorlib's 0x06000B33 in 4.6.2). Nothing runs
    // them; weft names the method and the branch.
    {"/microsoft.netframework.referenceassemblies.", "is not the start of an instruction"},
};

// The inputs the suite makes from the corpus programs (tests/support), made once per process:
// each program with its metadata in the "#-" stream with *Ptr tables, and one mixed-mode image.
struct MadeInputs {
  std::string Dir, MixedMode;
  std::vector<std::string> Problems;
};

const MadeInputs &madeInputs() {
  static const MadeInputs Made = [] {
    MadeInputs M;
    // CTest runs the sweep's tests side by side: a folder for each, or one would delete the
    // inputs another is reading.
    const ::testing::TestInfo *Test = ::testing::UnitTest::GetInstance()->current_test_info();
    M.Dir = test::scratchDir(std::string("sweep-made-inputs-") + (Test ? Test->name() : "all"));
    auto Write = [&](StringRef File, ArrayRef<uint8_t> Bytes) {
      if (!test::writeFile(M.Dir + "/" + File.str(), toStringRef(Bytes)))
        M.Problems.push_back("cannot write " + File.str());
    };
    for (const std::string &Name : test::corpusPrograms()) {
      if (Expected<test::PtrTablesImage> P = test::makePtrTablesImage(test::corpusDll(Name)))
        Write(Name + ".ptr-tables.dll", P->Bytes);
      else
        M.Problems.push_back(toString(P.takeError()));
    }
    M.MixedMode = M.Dir + "/Closures.mixed-mode.dll";
    if (Expected<test::MixedModeImage> Mixed =
            test::makeMixedModeImage(test::corpusDll("Closures")))
      Write(sys::path::filename(M.MixedMode), Mixed->Bytes);
    else
      M.Problems.push_back(toString(Mixed.takeError()));
    return M;
  }();
  return Made;
}

std::vector<Source> sources() {
  std::vector<Source> S;
  for (const test::Installed &F : test::sharedFrameworks())
    S.push_back({F.Name + " " + F.Version, F.Dir});
  for (const test::Installed &K : test::sdks())
    S.push_back({"SDK " + K.Version, K.Dir});
  std::string NuGet = test::nugetPackagesDir();
  if (!NuGet.empty() && sys::fs::is_directory(NuGet))
    S.push_back({"NuGet packages", NuGet});
  if (std::string External = test::externalCorpusDir(); !External.empty())
    S.push_back({"external corpus", External});
  else
    outs() << "the sweep goes without the external corpus: " << test::externalCorpusMissing()
           << '\n';
  S.push_back({"made from the corpus", madeInputs().Dir, /*Sampled=*/false});
  if (Optional<std::string> Extra = sys::Process::GetEnv("WEFT_SWEEP_EXTRA")) {
    SmallVector<StringRef, 4> Dirs;
    StringRef(*Extra).split(Dirs, ':', -1, false);
    for (StringRef D : Dirs)
      S.push_back({"extra " + D.str(), D.str()});
  }
  return S;
}

Result readOne(const std::string &Path, const std::string &Label,
               metadata::AssemblyResolver &Framework) {
  Result R;
  R.Path = Path;
  R.Label = Label;
  auto Buf = MemoryBuffer::getFile(Path, false, false);
  if (!Buf) {
    R.What = Outcome::Refused;
    R.Why = "cannot read: " + Buf.getError().message();
    return R;
  }
  ArrayRef<uint8_t> Bytes = arrayRefFromStringRef((*Buf)->getBuffer());
  if (metadata::looksLikeWindowsPdb(Bytes)) {
    R.What = Outcome::WindowsPdb;
    return R;
  }
  if (metadata::looksLikePortablePdb(Bytes)) {
    // A standalone portable PDB: every table read and validated.
    Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(Bytes, 0);
    if (!M) {
      R.What = Outcome::Refused;
      R.Why = toString(M.takeError());
    }
    return R;
  }
  if (!pe::looksLikePE(Bytes)) {
    R.What = Outcome::NotPE;
    return R;
  }
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(Bytes, Path);
  if (!Img) {
    R.What = Outcome::Refused;
    R.Why = toString(Img.takeError());
    return R;
  }
  if (!(*Img)->isManaged()) {
    R.What = Outcome::Native;
    return R;
  }
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    R.What = Outcome::Refused;
    R.Why = toString(M.takeError());
    return R;
  }
  metadata::AssemblyResolver Local({sys::path::parent_path(Path).str()}, &Framework);
  ReadOptions Opts;
  Opts.Resolver = &Local;
  if (Error E = readEverything(**Img, **M, R.Stats, Opts)) {
    R.What = Outcome::Refused;
    R.Why = toString(std::move(E));
    return R;
  }
  raw_null_ostream Null;
  text::DisassemblerOptions DO;
  DO.Resolver = &Local;
  if (Error E = text::disassemble(Null, **Img, **M, DO)) {
    R.What = Outcome::Refused;
    R.Why = "disassembly: " + toString(std::move(E));
  }
  return R;
}

bool expectedRefusal(const Result &R) {
  for (const ExpectedRefusal &E : ExpectedRefusals)
    if (StringRef(R.Path).contains(E.PathPart) && StringRef(R.Why).contains(E.Reason))
      return true;
  return false;
}

// The files of every source (path and label): every Stride-th of those that are sampled
// (WEFT_SWEEP_LIMIT; else \p SuiteStride in the suite, 1 with WEFT_FULL=1), and all of the
// others.
struct SweepFiles {
  std::vector<std::pair<std::string, std::string>> Files;
  size_t Stride = 1, Total = 0;
};

SweepFiles sweepFiles(ArrayRef<StringRef> Extensions, size_t SuiteStride = 1) {
  std::vector<std::pair<std::string, std::string>> Sampled, Kept;
  for (const Source &S : sources())
    for (std::string &F : test::filesUnder(S.Dir, Extensions))
      (S.Sampled ? Sampled : Kept).emplace_back(std::move(F), S.Label);
  SweepFiles Out;
  Out.Total = Sampled.size() + Kept.size();
  Out.Stride = test::fullRun() ? 1 : SuiteStride;
  if (Optional<std::string> Limit = sys::Process::GetEnv("WEFT_SWEEP_LIMIT")) {
    size_t N = std::max<size_t>(1, std::stoul(*Limit));
    Out.Stride = std::max<size_t>(1, Sampled.size() / N);
  }
  for (size_t I = 0; I < Sampled.size(); I += Out.Stride)
    Out.Files.push_back(std::move(Sampled[I]));
  for (auto &F : Kept)
    Out.Files.push_back(std::move(F));
  return Out;
}

TEST(Sweep, EveryAssemblyOnTheMachineIsReadOrRefusedClearly) {
  ASSERT_FALSE(test::sharedFrameworks().empty())
      << "no shared framework found through `dotnet --list-runtimes`";
  for (const std::string &P : madeInputs().Problems)
    ADD_FAILURE() << "could not make an input: " << P;
  SweepFiles Sweep = sweepFiles({".dll", ".exe", ".winmd", ".netmodule", ".pdb"});
  const auto &Files = Sweep.Files;

  metadata::AssemblyResolver Framework(metadata::AssemblyResolver::sharedFrameworkDirs());
  std::vector<Result> Results(Files.size());
  {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Results[I] = readOne(Files[I].first, Files[I].second, Framework); });
    Pool.wait();
  }

  struct Tally {
    unsigned Read = 0, Refused = 0, Native = 0, NotPE = 0, WindowsPdb = 0;
    ReadStats Stats;
  };
  std::map<std::string, Tally> BySource;
  std::vector<const Result *> Unexpected;
  std::map<std::string, std::vector<std::string>> Refusals;
  for (const Result &R : Results) {
    Tally &T = BySource[R.Label];
    switch (R.What) {
    case Outcome::Read:
      ++T.Read;
      T.Stats.Signatures += R.Stats.Signatures;
      T.Stats.CustomAttributes += R.Stats.CustomAttributes;
      T.Stats.UnresolvedEnumAttributes += R.Stats.UnresolvedEnumAttributes;
      T.Stats.MethodsWithBody += R.Stats.MethodsWithBody;
      T.Stats.ILBytes += R.Stats.ILBytes;
      T.Stats.Instructions += R.Stats.Instructions;
      break;
    case Outcome::Refused:
      ++T.Refused;
      Refusals[R.Label].push_back(sys::path::filename(R.Path).str() + ": " + R.Why);
      if (!expectedRefusal(R))
        Unexpected.push_back(&R);
      break;
    case Outcome::Native: ++T.Native; break;
    case Outcome::NotPE: ++T.NotPE; break;
    case Outcome::WindowsPdb: ++T.WindowsPdb; break;
    }
  }
  outs() << "Sweep of " << Files.size() << " files";
  if (Sweep.Stride > 1)
    outs() << " (every " << Sweep.Stride << "th of the machine's, of " << Sweep.Total << ")";
  outs() << ":\n";
  for (auto &[Label, T] : BySource) {
    outs() << "  " << left_justify(Label, 34) << " read " << T.Read << ", refused " << T.Refused
           << ", native (no CLI header) " << T.Native << ", not PE " << T.NotPE << ", Windows PDB "
           << T.WindowsPdb << "; " << T.Stats.MethodsWithBody << " method bodies, "
           << T.Stats.Instructions << " instructions, " << T.Stats.Signatures << " signatures, "
           << T.Stats.CustomAttributes << " custom attributes";
    if (T.Stats.UnresolvedEnumAttributes)
      outs() << " (" << T.Stats.UnresolvedEnumAttributes << " with an enum not found)";
    outs() << '\n';
    for (const std::string &Why : Refusals[Label])
      outs() << "    refused " << Why << '\n';
  }
  for (const Result *R : Unexpected)
    ADD_FAILURE() << "unexpected refusal of " << R->Path << ": " << R->Why;
}

// The image and metadata of a managed file; nothing for one the reading sweep accounts for (not
// managed, or refused), which the later sweeps skip.
struct OpenedModule {
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
};

std::optional<OpenedModule> openManaged(const std::string &Path) {
  auto Img = pe::Image::open(Path);
  if (!Img) {
    consumeError(Img.takeError());
    return std::nullopt;
  }
  if (!(*Img)->isManaged())
    return std::nullopt;
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    consumeError(M.takeError());
    return std::nullopt;
  }
  return OpenedModule{std::move(*Img), std::move(*M)};
}

// Every method body of every assembly of the sweep, decoded into the instruction graph and encoded
// again without edits, gives its own bytes. Encoding with the shortest branch forms instead shows
// which bodies use a long branch where a short one reaches.
struct ReencodeTally {
  uint64_t Bodies = 0, Same = 0, Differ = 0, BranchFormsOnly = 0, Unreadable = 0,
           StackComputedLarger = 0, StackComputedSmaller = 0, StackProblems = 0;
  std::vector<std::string> Examples;
};

void reencodeOne(const std::string &Path, ReencodeTally &T, std::mutex &Lock) {
  std::optional<OpenedModule> Opened = openManaged(Path);
  if (!Opened)
    return;
  const std::unique_ptr<pe::Image> &Img = Opened->Img;
  const std::unique_ptr<metadata::Module> &M = Opened->M;
  using namespace metadata;
  il::ModuleCallShapes Shapes(*M);
  ReencodeTally Local;
  for (uint32_t R = 1; R <= M->rowCount(TableId::MethodDef); ++R) {
    uint32_t RVA = M->get(TableId::MethodDef, R, MethodDefCol::RVA);
    if (!RVA || (M->get(TableId::MethodDef, R, MethodDefCol::ImplFlags) & 3))
      continue;
    uint64_t Off = 0;
    ArrayRef<uint8_t> Tail = Img->rvaTail(RVA, &Off);
    Expected<il::RawMethodBody> Raw = il::readMethodBody(Tail, Off);
    if (!Raw) {
      consumeError(Raw.takeError());
      ++Local.Unreadable;
      continue;
    }
    ArrayRef<uint8_t> Original = Tail.take_front(Raw->TotalSize);
    ++Local.Bodies;
    std::optional<il::CallShape> Own = Shapes.methodDef(R);
    il::EncodeOptions Opts;
    Opts.Shapes = &Shapes;
    Opts.ReturnsValue = Own && Own->ReturnsValue;
    Expected<il::MethodBody> Body = il::MethodBody::decode(*Raw);
    if (!Body) {
      consumeError(Body.takeError());
      ++Local.Unreadable;
      continue;
    }
    weft::analysis::StackInfo S = weft::analysis::analyzeStack(*Body, Shapes, Opts.ReturnsValue);
    if (!S.Problems.empty())
      ++Local.StackProblems;
    if (S.MaxStack > Raw->MaxStack)
      ++Local.StackComputedLarger;
    else if (S.MaxStack < Raw->MaxStack && Raw->Fat) // a tiny header always says 8
      ++Local.StackComputedSmaller;
    Expected<il::EncodedBody> E = il::encode(*Body, Opts);
    if (!E) {
      Local.Examples.push_back(Path + " method " + hex(makeToken(TableId::MethodDef, R)) + ": " +
                               toString(E.takeError()));
      ++Local.Differ;
      continue;
    }
    if (ArrayRef<uint8_t>(E->Bytes) == Original) {
      ++Local.Same;
    } else {
      ++Local.Differ;
      if (Local.Examples.size() < 3)
        Local.Examples.push_back(Path + " method " + hex(makeToken(TableId::MethodDef, R)) +
                                 ": re-encoded body differs (" + Twine(E->Bytes.size()).str() +
                                 " bytes, original " + Twine(Original.size()).str() + ")");
    }
    // The shortest forms: a body that differs only in branch forms has the same number of
    // instructions, all the same except branches whose form changed.
    Expected<il::MethodBody> Again = il::MethodBody::decode(*Raw);
    if (Again) {
      il::EncodeOptions Shortest = Opts;
      Shortest.KeepBranchForms = false;
      Expected<il::EncodedBody> Short = il::encode(*Again, Shortest);
      if (Short && Short->Bytes.size() < Original.size())
        ++Local.BranchFormsOnly;
      else if (!Short)
        consumeError(Short.takeError());
    } else {
      consumeError(Again.takeError());
    }
  }
  std::lock_guard<std::mutex> G(Lock);
  T.Bodies += Local.Bodies;
  T.Same += Local.Same;
  T.Differ += Local.Differ;
  T.BranchFormsOnly += Local.BranchFormsOnly;
  T.Unreadable += Local.Unreadable;
  T.StackComputedLarger += Local.StackComputedLarger;
  T.StackComputedSmaller += Local.StackComputedSmaller;
  T.StackProblems += Local.StackProblems;
  for (std::string &E : Local.Examples)
    if (T.Examples.size() < 20)
      T.Examples.push_back(std::move(E));
}

TEST(Sweep, EveryMethodBodyReencodesToItsOwnBytes) {
  // Every other file of the machine's in the suite (each is read whole by the test above), all
  // of them with WEFT_FULL=1.
  std::vector<std::pair<std::string, std::string>> Files =
      sweepFiles({".dll", ".exe", ".winmd", ".netmodule"}, /*SuiteStride=*/2).Files;
  ReencodeTally T;
  std::mutex Lock;
  {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { reencodeOne(Files[I].first, T, Lock); });
    Pool.wait();
  }
  outs() << "Re-encoded " << T.Bodies << " method bodies: " << T.Same << " identical, " << T.Differ
         << " different, " << T.Unreadable << " not decodable into a graph.\n"
         << "  With the shortest branch forms, " << T.BranchFormsOnly
         << " bodies get shorter: their compiler used a long branch where a short one reaches.\n"
         << "  Stack analysis: " << T.StackComputedLarger
         << " bodies need more stack than their header says, " << T.StackComputedSmaller
         << " fat-header bodies less (the header's value is kept), " << T.StackProblems
         << " have unreachable-path or depth problems.\n";
  for (const std::string &E : T.Examples)
    outs() << "  " << E << '\n';
  EXPECT_EQ(T.Differ, 0u);
  EXPECT_GT(T.Bodies, 100000u);
}

// The metadata editor writes every module's metadata back: untouched, and with every table
// rewritten cell by cell. Both must read back to the same tables and heaps; the untouched one is
// compared with the original bytes.
struct RewriteTally {
  uint64_t Modules = 0, SameBytes = 0, FullRewriteSameBytes = 0, Failed = 0;
  std::vector<std::string> Examples, NotSameBytes;
};

std::string compareModules(const metadata::Module &A, const metadata::Module &B) {
  using namespace metadata;
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!tableSpec(T).exists())
      continue;
    if (A.rowCount(TableId(T)) != B.rowCount(TableId(T)))
      return "table " + tableName(T).str() + " has a different row count";
    for (uint32_t R = 1; R <= A.rowCount(TableId(T)); ++R)
      for (unsigned C = 0; C < tableSpec(T).NumColumns; ++C) {
        bool Coded = tableSpec(T).Columns[C].Kind == ColumnKind::Coded;
        uint32_t VA = Coded ? A.getToken(TableId(T), R, C) : A.get(TableId(T), R, C);
        uint32_t VB = Coded ? B.getToken(TableId(T), R, C) : B.get(TableId(T), R, C);
        if (VA != VB)
          return "table " + tableName(T).str() + " row " + std::to_string(R) + " column " +
                 tableSpec(T).Columns[C].Name + " differs";
      }
  }
  for (StringRef H : {"#Strings", "#Blob", "#GUID", "#US"})
    if (!B.streamBytes(H).take_front(A.streamBytes(H).size()).equals(A.streamBytes(H)))
      return "heap " + H.str() + " differs";
  return "";
}

void rewriteOne(const std::string &Path, RewriteTally &T, std::mutex &Lock) {
  std::optional<OpenedModule> Opened = openManaged(Path);
  if (!Opened)
    return;
  const std::unique_ptr<metadata::Module> &M = Opened->M;
  std::string Problem;
  bool Same = false, FullSame = false;
  for (bool Full : {false, true}) {
    metadata::Editor E(*M);
    if (Full)
      E.materializeAll();
    Expected<std::vector<uint8_t>> Bytes = E.serialize();
    if (!Bytes) {
      Problem = toString(Bytes.takeError());
      break;
    }
    (Full ? FullSame : Same) = ArrayRef<uint8_t>(*Bytes).equals(M->bytes());
    auto Back = metadata::Module::create(*Bytes, 0);
    if (!Back) {
      Problem = "rewritten metadata does not read: " + toString(Back.takeError());
      break;
    }
    Problem = compareModules(*M, **Back);
    if (!Problem.empty())
      break;
  }
  std::lock_guard<std::mutex> G(Lock);
  ++T.Modules;
  T.SameBytes += Same;
  T.FullRewriteSameBytes += FullSame;
  if (Problem.empty() && !Same && T.NotSameBytes.size() < 10)
    T.NotSameBytes.push_back(Path + " (metadata version '" + M->versionString().str() +
                             "', #~ stream named '" + (M->streamBytes("#-").empty() ? "#~" : "#-") +
                             "')");
  if (!Problem.empty()) {
    ++T.Failed;
    if (T.Examples.size() < 20)
      T.Examples.push_back(Path + ": " + Problem);
  }
}

TEST(Sweep, EveryModuleRewritesItsMetadata) {
  // Every other file of the machine's in the suite (each is read whole by the test above), all
  // of them with WEFT_FULL=1.
  std::vector<std::pair<std::string, std::string>> Files =
      sweepFiles({".dll", ".exe", ".winmd", ".netmodule"}, /*SuiteStride=*/2).Files;
  RewriteTally T;
  std::mutex Lock;
  {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { rewriteOne(Files[I].first, T, Lock); });
    Pool.wait();
  }
  outs() << "Rewrote the metadata of " << T.Modules << " modules: untouched, " << T.SameBytes
         << " came out byte for byte; with every table rewritten, " << T.FullRewriteSameBytes
         << " did; " << T.Failed << " failed.\n";
  for (const std::string &E : T.NotSameBytes)
    outs() << "  equal in content, not in bytes: " << E << '\n';
  for (const std::string &E : T.Examples)
    outs() << "  " << E << '\n';
  EXPECT_EQ(T.Failed, 0u);
}

// Every assembly of the sweep, written anew with no edits (the round trip `weft weave IN -o OUT`
// does), must read fully, pass the verifier, and disassemble to exactly the text of the input.
// Inputs weft refuses to write are listed with the reason, which must be an expected one.
struct RoundTripTally {
  uint64_t Written = 0, Refused = 0, Failed = 0, ReadyToRun = 0;
  uint64_t InputBytes = 0, OutputBytes = 0;
  std::vector<std::string> Refusals, Failures;
};

bool expectedWriteRefusal(StringRef Path, StringRef Why) {
  // C++/CLI images carry native code weft does not write; the C++/CLI .NET Framework reference
  // assemblies have static data of native types whose layout was left out (no size to copy).
  return Why.contains("mixed-mode (C++/CLI)") ||
         (Path.contains("/microsoft.netframework.referenceassemblies.") &&
          Why.contains("cannot be worked out from its type"));
}

void roundTripOne(const std::string &Path, metadata::AssemblyResolver &Framework, RoundTripTally &T,
                  std::mutex &Lock) {
  std::optional<OpenedModule> Opened = openManaged(Path);
  if (!Opened)
    return;
  const std::unique_ptr<pe::Image> &Img = Opened->Img;
  const std::unique_ptr<metadata::Module> &M = Opened->M;
  metadata::Editor E(*M);
  Expected<WrittenModule> W = writeModule(*Img, E, std::map<uint32_t, NewBody>{});
  std::string Failure;
  bool Refused = false;
  if (!W) {
    Failure = toString(W.takeError());
    Refused = true;
  } else {
    auto Out = pe::Image::create(W->Bytes, Path + " (written)");
    if (!Out) {
      Failure = "output does not read: " + toString(Out.takeError());
    } else if (auto OM = metadata::Module::create((*Out)->metadata(), (*Out)->metadataOffset());
               !OM) {
      Failure = "output metadata does not read: " + toString(OM.takeError());
    } else {
      metadata::AssemblyResolver Local({sys::path::parent_path(Path).str()}, &Framework);
      ReadStats Stats;
      ReadOptions RO;
      RO.Resolver = &Local;
      // Bodies that do not read or verify are the writer's fault only where the input's do.
      auto InputReads = [&] {
        ReadStats InStats;
        Error InRead = readEverything(*Img, *M, InStats, RO);
        bool Reads = !InRead;
        consumeError(std::move(InRead));
        return Reads;
      };
      if (Error Err = readEverything(**Out, **OM, Stats, RO)) {
        if (InputReads())
          Failure = "output does not read fully: " + toString(std::move(Err));
        else
          consumeError(std::move(Err));
      } else {
        analysis::VerifyResult V = analysis::verifyModule(**Out, **OM);
        if (!V.Problems.empty() && analysis::verifyModule(*Img, *M).Problems.empty()) {
          Failure = "output fails verification: " + V.Problems.front().Where + ": " +
                    V.Problems.front().What;
        } else {
          std::string A, B;
          raw_string_ostream OA(A), OB(B);
          text::DisassemblerOptions DO;
          DO.Resolver = &Local;
          Error EA = text::disassemble(OA, *Img, *M, DO);
          Error EB = text::disassemble(OB, **Out, **OM, DO);
          consumeError(std::move(EA));
          consumeError(std::move(EB));
          // A ReadyToRun input loses its native code (image base, stack size and CLI flags
          // change with it) and an unsigned output loses the strong-name flag: those header
          // lines, and the text's comments about them, are left out of the comparison; the rest
          // must be the same. The file alignment is compared with the one the writer reports
          // (Windows' runtime packs align their native code to pages; the IL-only output takes
          // 0x200), and the writer's must be the input's unless the input was ReadyToRun.
          std::string Alignment;
          raw_string_ostream(Alignment)
              << ".file alignment " << format_hex(W->Report.FileAlignment, 10);
          auto Strip = [&](std::string &Text, bool Input) {
            std::string Kept;
            for (StringRef L : split(Text, '\n')) {
              if (Input && L.startswith(".file alignment ")) {
                if (!W->Report.WasReadyToRun && L != Alignment && Failure.empty())
                  Failure = "the writer reports " + Alignment + " for an input with " + L.str();
                Kept += Alignment + "\n";
                continue;
              }
              if ((W->Report.WasReadyToRun || W->Report.StrongNameRemoved) &&
                  (L.startswith(".imagebase ") || L.startswith(".stackreserve ") ||
                   L.startswith(".corflags ") ||
                   L.startswith("// the ReadyToRun image has .corflags ") ||
                   L.ltrim(' ').startswith("// strong-name signed: ")))
                continue;
              Kept += L.str() + "\n";
            }
            Text = std::move(Kept);
          };
          Strip(OA.str(), true);
          Strip(OB.str(), false);
          if (OA.str() != OB.str()) {
            size_t I = 0;
            while (I < A.size() && I < B.size() && A[I] == B[I])
              ++I;
            size_t LineStart = A.rfind('\n', I);
            LineStart = LineStart == std::string::npos ? 0 : LineStart + 1;
            Failure = "the dumps differ at: " + A.substr(LineStart, 160);
          }
        }
      }
    }
  }
  std::lock_guard<std::mutex> G(Lock);
  if (Refused) {
    ++T.Refused;
    T.Refusals.push_back(sys::path::filename(Path).str() + ": " + Failure);
    if (!expectedWriteRefusal(Path, Failure))
      T.Failures.push_back(Path + ": refused: " + Failure);
    return;
  }
  if (!Failure.empty()) {
    ++T.Failed;
    T.Failures.push_back(Path + ": " + Failure);
    return;
  }
  ++T.Written;
  T.ReadyToRun += W->Report.WasReadyToRun;
  T.InputBytes += Img->bytes().size();
  T.OutputBytes += W->Bytes.size();
}

TEST(Sweep, EveryAssemblyRoundTrips) {
  // Every other file of the machine's in the suite (each is read whole by the test above), all
  // of them with WEFT_FULL=1.
  std::vector<std::pair<std::string, std::string>> Files =
      sweepFiles({".dll", ".exe", ".winmd", ".netmodule"}, /*SuiteStride=*/2).Files;
  metadata::AssemblyResolver Framework(metadata::AssemblyResolver::sharedFrameworkDirs());
  RoundTripTally T;
  std::mutex Lock;
  {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { roundTripOne(Files[I].first, Framework, T, Lock); });
    Pool.wait();
  }
  outs() << "Round trip: " << T.Written << " assemblies written anew (" << T.ReadyToRun
         << " of them ReadyToRun, written as IL only), each read fully, verified and "
            "disassembled to the same text as its input; "
         << T.Refused << " refused; " << T.Failed << " failed. Sizes: " << T.InputBytes / 1048576
         << " MiB in, " << T.OutputBytes / 1048576 << " MiB out.\n";
  for (const std::string &R : T.Refusals)
    outs() << "  refused " << R << '\n';
  for (const std::string &F : T.Failures)
    ADD_FAILURE() << F;
  EXPECT_GT(T.Written, 100u);
  // Mixed-mode images are refused with the reason: the one the suite makes always, and the C++/CLI
  // library of the external corpus when it is there (and sampled).
  std::vector<std::string> MixedMode{madeInputs().MixedMode};
  std::string CppCli = test::externalCorpusDir() + "/cppcli.dll";
  if (any_of(Files, [&](const auto &F) { return F.first == CppCli; }))
    MixedMode.push_back(CppCli);
  for (const std::string &F : MixedMode) {
    std::string Prefix = sys::path::filename(F).str() + ": ";
    EXPECT_TRUE(any_of(
        T.Refusals,
        [&](StringRef R) { return R.startswith(Prefix) && R.contains("mixed-mode (C++/CLI)"); }))
        << F << " was not refused as a mixed-mode image";
  }
}

} // namespace
