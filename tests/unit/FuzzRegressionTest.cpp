//===- tests/unit/FuzzRegressionTest.cpp - Saved fuzz inputs, replayed ----===//
//
// Every input under tests/data/fuzz-regressions/{spec,pdb,weave} once showed a bug to FuzzSpec,
// FuzzPdb or FuzzWeave; each goes through the same code as in the fuzz target (tests/fuzz/
// Targets.h), which aborts on a bug. The weave target is also given the host's own bodies with
// every pass set, as its seeds are.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/Targets.h"
#include "tests/support/Env.h"

#include "metadata/Module.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "weaver/il/BodyReader.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace weft;

namespace {

std::vector<std::string> saved(const std::string &Kind, const std::string &Extension) {
  return test::filesUnder(test::sourceDir() + "/tests/data/fuzz-regressions/" + Kind, {Extension});
}

void replay(const std::vector<std::string> &Files, void (*Target)(llvm::ArrayRef<uint8_t>)) {
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    std::string Text = test::readFile(F);
    Target(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Text.data()), Text.size()));
  }
}

TEST(FuzzRegressions, SpecInputs) { replay(saved("spec", ".json"), fuzz::specInput); }

TEST(FuzzRegressions, PdbInputs) { replay(saved("pdb", ".pdb"), fuzz::pdbInput); }

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
