//===- tests/support/DotnetSample.cpp -------------------------------------===//
#include "tests/support/DotnetSample.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace llvm;

namespace weft::test {

DotnetSample::DotnetSample(StringRef From, StringRef Name, StringRef Version)
    : Root(scratchDir(Name)), Dir(Root + "/sample"), Version(Version.str()) {
  SmallString<256> Source(sourceDir());
  sys::path::append(Source, From);
  EXPECT_FALSE(sys::fs::create_directories(Dir));
  CommandResult R = run("cp", {"-R", std::string(Source) + "/.", Dir});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
}

std::string DotnetSample::path(StringRef Relative) const {
  return Relative.empty() ? Dir : Dir + "/" + Relative.str();
}

CommandResult DotnetSample::dotnet(std::vector<std::string> Args, StringRef In) const {
  // Before `--`: what follows it is the test run's own (run settings, the test application's
  // options).
  auto Own = std::find(Args.begin(), Args.end(), "--");
  std::vector<std::string> Restore = packageRestoreArgs(Version);
  Args.insert(Own, Restore.begin(), Restore.end());
  // dotnet test takes its runner from the global.json of the folder it runs in.
  std::vector<std::string> Command = {"-C", path(In), "dotnet"};
  Command.insert(Command.end(), Args.begin(), Args.end());
  // The woven code writes its hits as the test host exits, and VSTest kills a test host that has
  // not exited 100 ms after the tests end: the setting users are told to give.
  CommandResult R = run("env", Command, {"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=60000"}, 900);
  R.Out += R.Err;
  return R;
}

CoverageFigures weftLcovFile(const std::string &Path) {
  CoverageFigures F;
  if (!sys::fs::exists(Path)) {
    F.Error = "no report at " + Path;
    return F;
  }
  addWeftLcov(F, readFile(Path));
  return F;
}

CoverageFigures coverletJsonFiles(const std::string &Dir) {
  CoverageFigures F;
  std::error_code EC;
  unsigned Read = 0;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (Name.startswith("coverage") && Name.endswith(".json")) {
      addCoverletJson(F, readFile(It->path()));
      ++Read;
    }
  }
  if (!Read)
    F.Error = "no coverlet JSON report in " + Dir;
  return F;
}

void expectSameAsCoverlet(const CoverageFigures &Weft, const CoverageFigures &Coverlet,
                          StringRef What) {
  EXPECT_GT(Coverlet.Lines.size(), 20u) << What;
  EXPECT_GT(Coverlet.Branches.size(), 10u) << What;
  std::string Differences = coverageDifferences(Weft, Coverlet);
  EXPECT_TRUE(Differences.empty()) << What << ":\n" << Differences;
}

} // namespace weft::test
