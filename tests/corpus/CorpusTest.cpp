//===- tests/corpus/CorpusTest.cpp - The corpus programs, run and dumped ---===//
//
// Each corpus program (compiled by the SDK before these tests) must run on CoreCLR with exactly
// its expected output, and `weft dump` of it must equal the checked-in golden text in
// tests/golden/<Name>.il. WEFT_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing
// (review the diff before committing it).
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"
#include "tests/support/Golden.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

class CorpusProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusProgram, RunsWithItsExpectedOutput) {
  std::string Dll = test::corpusDll(GetParam());
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  test::CommandResult R = test::run("dotnet", {Dll}, {}, 120);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  SmallString<256> Expected(test::sourceDir());
  sys::path::append(Expected, "corpus", GetParam(), "expected.txt");
  std::string Want = test::readFile(Expected);
  ASSERT_FALSE(Want.empty()) << "missing " << Expected.str();
  EXPECT_EQ(R.Out, Want) << test::firstDifference(Want, R.Out);
}

TEST_P(CorpusProgram, DumpMatchesGoldenText) {
  std::string Dll = test::corpusDll(GetParam());
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  test::CommandResult R = test::run(test::weftTool(), {"dump", Dll});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(R.Err.empty()) << R.Err;
  test::expectGolden(R.Out, GetParam() + ".il", "weft dump");
}

// The dump is the same every time: no addresses, no hash order, no time.
TEST_P(CorpusProgram, DumpIsDeterministic) {
  std::string Dll = test::corpusDll(GetParam());
  test::CommandResult A = test::run(test::weftTool(), {"dump", Dll});
  test::CommandResult B = test::run(test::weftTool(), {"dump", Dll});
  ASSERT_EQ(A.ExitCode, 0);
  EXPECT_TRUE(A.Out == B.Out);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusProgram, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

} // namespace
