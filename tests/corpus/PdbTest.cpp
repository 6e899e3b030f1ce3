//===- tests/corpus/PdbTest.cpp - Woven assemblies keep their symbols -----===//
//
// `weft weave` rewrites the portable PDB next to its input when method bodies change:
//  - with nothing to move, the rewrite gives the PDB's own bytes (the corpus PDBs and the portable
//    PDBs of the external corpus (test::externalCorpusDir));
//  - for every corpus program and pass, every sequence point of the woven PDB lies on an
//    instruction of the woven body, the visible points are the original ones in the same order,
//    added code starts with a hidden point, the PDB id is the one the woven assembly's CodeView
//    entry names and the PDB checksum entry matches the file; and the independent checker of
//    tests/pdb-check (System.Reflection.Metadata's PDB reader) agrees. (That stack traces show the
//    same files and lines is checked by running the woven programs: tests/corpus/WeaveTest.cpp.)
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "metadata/pdb/Read.h"
#include "metadata/pdb/Rewrite.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <set>

#include "il/BodyReader.h"
#include "il/MethodBody.h"

using namespace llvm;
using namespace weft;
using namespace weft::metadata;

namespace {

std::string pdbOf(StringRef Dll) {
  SmallString<256> P(Dll);
  sys::path::replace_extension(P, "pdb");
  return std::string(P);
}

std::string checkerDll() {
  SmallString<256> Checker(test::binaryDir());
  sys::path::append(Checker, "pdb-check", "bin", "PdbCheck");
  sys::path::append(Checker, "debug", "PdbCheck.dll");
  return std::string(Checker);
}

std::vector<std::string> portablePdbs() {
  std::vector<std::string> Out;
  for (const std::string &P : test::corpusPrograms())
    Out.push_back(pdbOf(test::corpusDll(P)));
  std::string External = test::externalCorpusDir();
  for (std::string &F :
       External.empty() ? std::vector<std::string>() : test::filesUnder(External, {".pdb"}))
    if (pdb::PortablePdb::open(F))
      Out.push_back(F);
    else
      consumeError(pdb::PortablePdb::open(F).takeError()); // a Windows PDB
  return Out;
}

TEST(PdbRewrite, NothingToMoveGivesTheSameBytes) {
  unsigned Checked = 0;
  for (const std::string &Path : portablePdbs()) {
    Expected<std::unique_ptr<pdb::PortablePdb>> Pdb = pdb::PortablePdb::open(Path);
    ASSERT_TRUE(bool(Pdb)) << toString(Pdb.takeError());
    pdb::PdbStats Stats;
    Error Read = pdb::readPortablePdb((*Pdb)->module(), Stats);
    EXPECT_FALSE(bool(Read)) << Path << ": " << toString(std::move(Read));
    Expected<std::vector<uint8_t>> Bytes = pdb::rewritePdb((*Pdb)->module(), {});
    ASSERT_TRUE(bool(Bytes)) << Path << ": " << toString(Bytes.takeError());
    std::string Original = test::readFile(Path);
    EXPECT_TRUE(StringRef(reinterpret_cast<const char *>(Bytes->data()), Bytes->size()) == Original)
        << Path;
    ++Checked;
  }
  // The corpus's own PDBs, and the external corpus's portable ones where it is there.
  size_t ExternalPdbs = test::externalCorpusDir().empty() ? 0 : 5;
  EXPECT_GE(Checked, test::corpusPrograms().size() + ExternalPdbs);
}

std::vector<pdb::SequencePoint> visible(const std::vector<pdb::SequencePoint> &Points) {
  std::vector<pdb::SequencePoint> Out;
  for (const pdb::SequencePoint &P : Points)
    if (!P.isHidden())
      Out.push_back(P);
  return Out;
}

bool samePlace(const pdb::SequencePoint &A, const pdb::SequencePoint &B) {
  return A.Document == B.Document && A.StartLine == B.StartLine && A.EndLine == B.EndLine &&
         A.StartColumn == B.StartColumn && A.EndColumn == B.EndColumn;
}

using Param = std::tuple<std::string, std::string>;
class WovenPdb : public ::testing::TestWithParam<Param> {};

TEST_P(WovenPdb, MatchesTheWovenBodies) {
  auto [Name, Pass] = GetParam();
  std::string In = test::corpusDll(Name);
  std::string Dir = test::scratchDir("pdb-" + Name + "-" + Pass);
  std::string Out = Dir + "/" + Name + ".dll";
  std::string PassArg = Pass == "entry-exit" ? "entry-exit:probe-assembly=" + test::probesDll() +
                                                   ",probe-type=Weft.Probes.Recorder"
                                             : Pass;
  test::CommandResult W = test::run(test::weftTool(), {"weave", In, "-o", Out, "--pass", PassArg});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_EQ(W.Err.find("symbols were not updated"), std::string::npos) << W.Err;

  Expected<std::unique_ptr<pdb::PortablePdb>> Old = pdb::PortablePdb::open(pdbOf(In));
  Expected<std::unique_ptr<pdb::PortablePdb>> New = pdb::PortablePdb::open(pdbOf(Out));
  ASSERT_TRUE(Old && New) << "the woven PDB does not open: "
                          << (New ? toString(Old.takeError()) : toString(New.takeError()));
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Out);
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  Expected<std::unique_ptr<Module>> M =
      Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  ASSERT_TRUE(bool(M)) << toString(M.takeError());

  // The id and the checksum.
  Expected<std::vector<pe::DebugEntry>> Entries = (*Img)->debugEntries();
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  bool Named = false, Summed = false;
  std::string PdbBytes = test::readFile(pdbOf(Out));
  for (const pe::DebugEntry &E : *Entries) {
    if (E.CV)
      Named |= std::equal(E.CV->Guid.begin(), E.CV->Guid.end(), (*New)->id().begin());
    if (E.Checksum) {
      Expected<std::vector<uint8_t>> Sum = pdb::pdbChecksum(
          arrayRefFromStringRef(PdbBytes), (*New)->module(), E.Checksum->Algorithm);
      ASSERT_TRUE(bool(Sum)) << toString(Sum.takeError());
      EXPECT_TRUE(ArrayRef<uint8_t>(*Sum) == E.Checksum->Checksum) << "the checksum is stale";
      Summed = true;
    }
  }
  EXPECT_TRUE(Named) << "the CodeView entry does not name the PDB";
  EXPECT_TRUE(Summed) << "the corpus builds carry a PDB checksum entry";

  unsigned Methods = 0, Hidden = 0;
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::MethodDef); ++Row) {
    Expected<std::vector<pdb::SequencePoint>> Before =
        pdb::methodSequencePoints((*Old)->module(), Row);
    Expected<std::vector<pdb::SequencePoint>> After =
        pdb::methodSequencePoints((*New)->module(), Row);
    ASSERT_TRUE(Before && After) << "row " << Row;
    if (After->empty())
      continue;
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    ASSERT_TRUE(Raw && *Raw) << "row " << Row;
    auto Body = il::MethodBody::decode(**Raw);
    ASSERT_TRUE(bool(Body)) << toString(Body.takeError());
    std::set<uint32_t> Starts;
    for (const il::Instr *I : Body->instructions())
      Starts.insert(I->OriginalOffset);
    for (const pdb::SequencePoint &P : *After) {
      EXPECT_TRUE(Starts.count(P.ILOffset)) << Name << " row " << Row << ": a sequence point at IL_"
                                            << P.ILOffset << " is not on an instruction";
      Hidden += P.isHidden();
    }
    std::vector<pdb::SequencePoint> A = visible(*Before), B = visible(*After);
    ASSERT_EQ(A.size(), B.size()) << Name << " row " << Row;
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_TRUE(samePlace(A[I], B[I])) << Name << " row " << Row << " point " << I;
    ++Methods;
  }
  EXPECT_GT(Methods, 0u);
  EXPECT_GT(Hidden, 0u) << "added code has no hidden sequence points";

  // The same, read by System.Reflection.Metadata (tests/pdb-check).
  test::CommandResult C = test::run("dotnet", {checkerDll(), In, Out}, {}, 120);
  EXPECT_EQ(C.ExitCode, 0) << C.Out << C.Err;
}

// The assemblies of the external corpus (test::externalCorpusDir) that have a portable PDB, next
// to them or embedded, woven with trace (which changes every method): the PDB is rewritten (or
// re-embedded) and the independent checker accepts it.
TEST(PdbRewrite, ExternalAssembliesKeepTheirPdbs) {
  if (test::externalCorpusDir().empty())
    GTEST_SKIP() << test::externalCorpusMissing();
  std::string Dir = test::scratchDir("pdb-external");
  unsigned Separate = 0, Embedded = 0, Mismatched = 0;
  for (const std::string &F : test::filesUnder(test::externalCorpusDir(), {".dll", ".exe"})) {
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(F);
    if (!Img) {
      consumeError(Img.takeError());
      continue;
    }
    Expected<std::vector<pe::DebugEntry>> Entries = (*Img)->debugEntries();
    if (!Entries) {
      consumeError(Entries.takeError());
      continue;
    }
    bool HasEmbedded = false;
    for (const pe::DebugEntry &E : *Entries)
      HasEmbedded |= bool(E.Embedded);
    std::string Pdb = pdbOf(F);
    bool HasPortable = false;
    if (sys::fs::exists(Pdb)) {
      Expected<std::unique_ptr<pdb::PortablePdb>> P = pdb::PortablePdb::open(Pdb);
      HasPortable = bool(P);
      if (!P)
        consumeError(P.takeError());
    }
    if (!HasEmbedded && !HasPortable)
      continue;
    std::string Out = Dir + "/" + sys::path::filename(F).str();
    test::CommandResult W =
        test::run(test::weftTool(), {"weave", F, "-o", Out, "--pass", "trace", "-v"});
    if (W.ExitCode != 0)
      continue; // inputs weave refuses (C++/CLI and the like) are tested elsewhere
    if (W.Err.find("weft: 0 methods changed") != std::string::npos)
      continue; // the PDB is copied as it is
    if (W.Err.find("is not the one the assembly's CodeView entry names") != std::string::npos) {
      EXPECT_FALSE(sys::fs::exists(pdbOf(Out))) << F << ": a PDB of another build was written";
      ++Mismatched;
      continue;
    }
    EXPECT_EQ(W.Err.find("symbols were not updated"), std::string::npos) << F << ": " << W.Err;
    test::CommandResult C = test::run("dotnet", {checkerDll(), F, Out}, {}, 120);
    EXPECT_EQ(C.ExitCode, 0) << F << ":\n" << C.Out << C.Err;
    (HasPortable ? Separate : Embedded)++;
  }
  EXPECT_GE(Separate, 5u);
  EXPECT_GE(Embedded, 2u);
  outs() << Separate << " separate and " << Embedded << " embedded external PDBs rewritten, "
         << Mismatched << " of another build left alone\n";
}

// A Windows PDB is no error: the assembly is woven and the message says the symbols were not
// updated.
TEST(PdbRewrite, WindowsPdbsAreLeftAlone) {
  if (test::externalCorpusDir().empty())
    GTEST_SKIP() << test::externalCorpusMissing();
  std::string Dir = test::scratchDir("pdb-windows");
  SmallString<256> Lib(test::externalCorpusDir());
  sys::path::append(Lib, "libpdb.dll");
  test::CommandResult W = test::run(
      test::weftTool(), {"weave", std::string(Lib), "-o", Dir + "/libpdb.dll", "--pass", "trace"});
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_NE(W.Err.find("a Windows PDB"), std::string::npos) << W.Err;
  EXPECT_NE(W.Err.find("the symbols were not updated"), std::string::npos) << W.Err;
  EXPECT_FALSE(sys::fs::exists(Dir + "/libpdb.pdb"));
}

// The same input woven twice, on one thread and on two, gives the same PDB.
TEST(PdbRewrite, OutputIsDeterministic) {
  std::string Dir = test::scratchDir("pdb-deterministic");
  std::string In = test::corpusDll("AsyncAwait");
  std::string Pdbs[2];
  for (int I = 0; I < 2; ++I) {
    std::string Out = Dir + "/run" + std::to_string(I) + "/AsyncAwait.dll";
    sys::fs::create_directories(sys::path::parent_path(Out));
    test::CommandResult R = test::run(
        test::weftTool(), {"weave", In, "-o", Out, "--pass", "trace", "--threads", I ? "1" : "2"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    Pdbs[I] = test::readFile(pdbOf(Out));
  }
  EXPECT_FALSE(Pdbs[0].empty());
  EXPECT_TRUE(Pdbs[0] == Pdbs[1]);
}

// Every PDB of the external corpus (test::externalCorpusDir) reads (every table and every blob:
// documents, sequence points, constants, imports, custom debug information) or is refused with a
// message that names the file; so does `weft dump --source` of every assembly there, whose PDB may
// be next to it or embedded.
TEST(PdbRead, ExternalPdbsReadOrAreRefusedClearly) {
  if (test::externalCorpusDir().empty())
    GTEST_SKIP() << test::externalCorpusMissing();
  unsigned Read = 0, Shown = 0, Imports = 0, Constants = 0, Debug = 0;
  for (const std::string &F : test::filesUnder(test::externalCorpusDir(), {".pdb"})) {
    Expected<std::unique_ptr<pdb::PortablePdb>> P = pdb::PortablePdb::open(F);
    if (!P) {
      std::string Msg = toString(P.takeError());
      EXPECT_NE(Msg.find(sys::path::filename(F).str()), std::string::npos) << Msg;
      continue;
    }
    pdb::PdbStats Stats;
    Error E = pdb::readPortablePdb((*P)->module(), Stats);
    EXPECT_FALSE(bool(E)) << F << ": " << toString(std::move(E));
    Imports += Stats.Imports;
    Constants += Stats.Constants;
    Debug += Stats.CustomDebugInformation - Stats.UnknownCustomDebugInformation;
    ++Read;
  }
  std::string Scratch = test::scratchDir("external-pdb-dumps") + "/dump.il";
  for (const std::string &F : test::filesUnder(test::externalCorpusDir(), {".dll", ".exe"})) {
    test::CommandResult R = test::run(test::weftTool(), {"dump", F, "--source", "-o", Scratch});
    if (R.ExitCode == 0)
      ++Shown;
    else // the message names the assembly or its PDB
      EXPECT_NE(R.Err.find(sys::path::stem(F).str()), std::string::npos) << R.Err;
  }
  EXPECT_GE(Read, 10u);
  EXPECT_GE(Shown, 10u);
  EXPECT_GT(Imports, 0u);
  EXPECT_GT(Constants, 0u);
  EXPECT_GT(Debug, 0u);
  outs() << Read << " external PDBs read, " << Shown << " assemblies dumped with --source\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, WovenPdb,
                         ::testing::Combine(::testing::ValuesIn(test::corpusPrograms()),
                                            ::testing::Values("single-ret", "entry-exit", "trace",
                                                              "coverage")),
                         [](const auto &Info) {
                           std::string N = std::get<0>(Info.param) + "_" + std::get<1>(Info.param);
                           std::replace(N.begin(), N.end(), '-', '_');
                           return N;
                         });

} // namespace
