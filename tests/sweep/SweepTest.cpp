//===- tests/sweep/SweepTest.cpp - Read every assembly on the machine -----===//
//
// Every managed assembly (and portable PDB) of every installed shared framework, of every installed
// SDK, of the NuGet package folder and of the external robustness corpus is read completely (all
// tables, all signatures and blobs, all method bodies) and disassembled. Each one must either read
// cleanly or be refused with an error that is on the list of expected refusals below. The test
// prints what it read and why it refused what it refused.
//
// WEFT_SWEEP_LIMIT=N reads only every k-th file so that about N are read (for quick runs);
// WEFT_SWEEP_EXTRA=dir1:dir2 adds folders.
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "weaver/ReadAll.h"
#include "weaver/text/Disassembler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
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
  const char *FileName;
  const char *Reason; // a part of the message
};
const ExpectedRefusal ExpectedRefusals[] = {
    {"", ""}, // (none so far; entries look like {"file.dll", "part of the message"})
};

std::vector<Source> sources() {
  std::vector<Source> S;
  for (const test::Installed &F : test::sharedFrameworks())
    S.push_back({F.Name + " " + F.Version, F.Dir});
  for (const test::Installed &K : test::sdks())
    S.push_back({"SDK " + K.Version, K.Dir});
  std::string NuGet = test::nugetPackagesDir();
  if (!NuGet.empty() && sys::fs::is_directory(NuGet))
    S.push_back({"NuGet packages", NuGet});
  SmallString<256> External(test::sourceDir());
  sys::path::append(External, "..", "shared", "corpus-external", "cecil");
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_EXTERNAL_CORPUS"))
    External = *Env;
  if (sys::fs::is_directory(External))
    S.push_back({"external corpus", std::string(External)});
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
  StringRef Name = sys::path::filename(R.Path);
  for (const ExpectedRefusal &E : ExpectedRefusals)
    if (*E.FileName && Name == E.FileName && StringRef(R.Why).contains(E.Reason))
      return true;
  return false;
}

TEST(Sweep, EveryAssemblyOnTheMachineIsReadOrRefusedClearly) {
  std::vector<Source> Sources = sources();
  ASSERT_FALSE(Sources.empty()) << "no shared framework found through `dotnet --list-runtimes`";
  std::vector<std::pair<std::string, std::string>> Files; // path, label
  for (const Source &S : Sources)
    for (std::string &F : test::filesUnder(S.Dir, {".dll", ".exe", ".winmd", ".netmodule", ".pdb"}))
      Files.emplace_back(std::move(F), S.Label);
  size_t Stride = 1;
  if (Optional<std::string> Limit = sys::Process::GetEnv("WEFT_SWEEP_LIMIT")) {
    size_t N = std::max<size_t>(1, std::stoul(*Limit));
    Stride = std::max<size_t>(1, Files.size() / N);
  }

  metadata::AssemblyResolver Framework(metadata::AssemblyResolver::sharedFrameworkDirs());
  std::vector<Result> Results(Files.size());
  {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Files.size(); I += Stride)
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
  for (size_t I = 0; I < Files.size(); I += Stride) {
    const Result &R = Results[I];
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
  outs() << "Sweep of " << (Files.size() + Stride - 1) / Stride << " files";
  if (Stride > 1)
    outs() << " (every " << Stride << "th of " << Files.size() << ")";
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

} // namespace
