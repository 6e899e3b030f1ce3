//===- tests/corpus/PdbTest.cpp - Woven assemblies keep their symbols -----===//
//
// `weft weave` rewrites the portable PDB next to its input when method bodies change:
//  - with nothing to move, the rewrite gives the PDB's own bytes (the corpus PDBs and the portable
//    PDBs of ../shared/corpus-external/cecil);
//  - for every corpus program and pass, every sequence point of the woven PDB lies on an
//    instruction of the woven body, the visible points are the original ones in the same order,
//    added code starts with a hidden point, the PDB id is the one the woven assembly's CodeView
//    entry names and the PDB checksum entry matches the file. (That stack traces show the same
//    files and lines is checked by running the woven programs: tests/corpus/WeaveTest.cpp.)
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "metadata/pdb/Rewrite.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "weaver/il/BodyReader.h"
#include "weaver/il/MethodBody.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <set>

using namespace llvm;
using namespace weft;
using namespace weft::metadata;

namespace {

std::string pdbOf(StringRef Dll) {
  SmallString<256> P(Dll);
  sys::path::replace_extension(P, "pdb");
  return std::string(P);
}

std::string probesDll() {
  SmallString<256> P(test::binaryDir());
  sys::path::append(P, "probes", "bin", "Probes");
  sys::path::append(P, "debug", "Probes.dll");
  return std::string(P);
}

std::vector<std::string> portablePdbs() {
  std::vector<std::string> Out;
  for (const std::string &P : test::corpusPrograms())
    Out.push_back(pdbOf(test::corpusDll(P)));
  SmallString<256> External(test::sourceDir());
  sys::path::append(External, "..", "shared", "corpus-external", "cecil");
  for (std::string &F : test::filesUnder(External, {".pdb"}))
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
    Expected<std::vector<uint8_t>> Bytes = pdb::rewritePdb((*Pdb)->module(), {});
    ASSERT_TRUE(bool(Bytes)) << Path << ": " << toString(Bytes.takeError());
    std::string Original = test::readFile(Path);
    EXPECT_TRUE(StringRef(reinterpret_cast<const char *>(Bytes->data()), Bytes->size()) == Original)
        << Path;
    ++Checked;
  }
  EXPECT_GE(Checked, test::corpusPrograms().size() + 5);
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
  std::string PassArg = Pass == "entry-exit" ? "entry-exit:probe-assembly=" + probesDll() +
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
