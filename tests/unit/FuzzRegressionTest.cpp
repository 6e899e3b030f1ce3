//===- tests/unit/FuzzRegressionTest.cpp - Saved fuzz inputs, replayed ----===//
//
// Every input under tests/data/fuzz-regressions/{spec,weave} once showed a bug to FuzzSpec or
// FuzzWeave, and each under pdb/ is a portable PDB damaged in one way the reader must refuse;
// each goes through the same code as in the fuzz target (tests/fuzz/Targets.h), which aborts on
// a bug. A kind with no input left fails. The weave target is also given the host's own bodies
// with every pass set, as its seeds are.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/Targets.h"
#include "tests/support/Env.h"

#include "il/BodyReader.h"
#include "metadata/Module.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

using namespace weft;

namespace {

std::vector<std::string> saved(const std::string &Kind, const std::string &Extension) {
  return test::filesUnder(test::sourceDir() + "/tests/data/fuzz-regressions/" + Kind, {Extension});
}

llvm::ArrayRef<uint8_t> bytes(const std::string &Text) {
  return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Text.data()), Text.size());
}

void replay(const std::vector<std::string> &Files, void (*Target)(llvm::ArrayRef<uint8_t>)) {
  ASSERT_FALSE(Files.empty()) << "no saved input to replay";
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    Target(bytes(test::readFile(F)));
  }
}

TEST(FuzzRegressions, SpecInputs) { replay(saved("spec", ".json"), fuzz::specInput); }

// Each damaged PDB is refused, by the check its damage is for (the README says how each was made).
TEST(FuzzRegressions, PdbInputs) {
  const std::map<std::string, std::string> Refusals = {
      {"truncated-in-table-stream.pdb", "stream [0xd4, +0x16c) extends beyond the metadata"},
      {"rows-past-table-stream.pdb", "16777215 rows of 4 bytes extend beyond the table stream"},
      {"document-name-part-outside-blob-heap.pdb", "part outside the #Blob heap"},
      {"sequence-points-name-document-0.pdb", "document record naming no document"},
  };
  std::vector<std::string> Files = saved("pdb", ".pdb");
  ASSERT_EQ(Files.size(), Refusals.size());
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    auto It = Refusals.find(llvm::sys::path::filename(F).str());
    ASSERT_NE(It, Refusals.end());
    std::string Refused = fuzz::pdbInput(bytes(test::readFile(F)));
    EXPECT_NE(Refused.find(It->second), std::string::npos) << Refused;
  }
}

// Found while writing FuzzPdb (by reading the decoder; the fuzzer had not reached it): a document
// record whose document is a malformed compressed integer. The reader stopped but the loop did
// not, reading nothing forever.
TEST(FuzzRegressions, SequencePointsEndAtAMalformedDocumentRecord) {
  const uint8_t Blob[] = {0x00,              // local signature
                          0x01,              // initial document
                          0x00, 0x00, 0x01,  // IL 0, no lines, one column
                          0x01, 0x01,        // line 1, column 1
                          0x00, 0xFF};       // a document record: 0xFF is no compressed integer
  auto Points = metadata::pdb::decodeSequencePoints(Blob, 0);
  ASSERT_FALSE(bool(Points));
  EXPECT_NE(llvm::toString(Points.takeError()).find("malformed compressed integer"),
            std::string::npos);
}

TEST(FuzzRegressions, WeaveInputs) { replay(saved("weave", ".body"), fuzz::weaveInput); }

// The host's own bodies, each woven with every pass set: they verify, so the output must. With
// WEFT_WRITE_FUZZ_SEEDS=DIR, each is also written to DIR as a seed of FuzzWeave (with all passes);
// tests/fuzz/seeds/weave holds them.
TEST(FuzzRegressions, WeaveHostBodies) {
  const char *SeedDir = std::getenv("WEFT_WRITE_FUZZ_SEEDS");
  auto Img = pe::Image::open(test::sourceDir() + "/tests/data/fuzz-weave/FuzzHost.dll");
  ASSERT_TRUE(bool(Img)) << llvm::toString(Img.takeError());
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  unsigned Index = 0;
  for (uint32_t Row = 1; Row <= (*M)->rowCount(metadata::TableId::MethodDef); ++Row) {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    ASSERT_TRUE(bool(Raw)) << llvm::toString(Raw.takeError());
    if (!*Raw)
      continue;
    llvm::ArrayRef<uint8_t> Body =
        (*Img)->bytes().slice((*Raw)->FileOffset, (*Raw)->TotalSize);
    for (unsigned Set = 0; Set < fuzz::WeavePassSets; ++Set) {
      std::vector<uint8_t> Input{uint8_t(Set), uint8_t(Index)};
      Input.insert(Input.end(), Body.begin(), Body.end());
      fuzz::weaveInput(Input);
      if (SeedDir && Set + 1 == fuzz::WeavePassSets) {
        std::error_code EC;
        llvm::raw_fd_ostream OS(std::string(SeedDir) + "/method-" + std::to_string(Row) + ".body",
                                EC);
        ASSERT_FALSE(EC) << EC.message();
        OS.write(reinterpret_cast<const char *>(Input.data()), Input.size());
      }
    }
    ++Index;
  }
  EXPECT_GT(Index, 5u);
}

} // namespace
