//===- tests/cli/InProcessTest.cpp - weft_main in the caller's process ----===//
//
// libweft_inprocess.so, loaded as the package's MSBuild task loads it (dlopen, weft_main):
//  - what weft prints reaches the caller's callback, stream by stream, and the exit codes are
//    the executable's;
//  - a run starts afresh: one run's --message-format does not outlive it;
//  - what belongs to the whole process is refused: plugins (--load), `run`, `attach`, `detach`;
//  - a coverage weave and its report are the executable's, byte for byte;
//  - the maps a weave wrote are read while the tests run, and the report takes them only while
//    their files are the ones read;
//  - runs from two threads at once both complete.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

using namespace llvm;
using namespace weft;

namespace {

using WriteFn = void (*)(void *, int, const char *, size_t);
using MainFn = int (*)(int, const char *const *, WriteFn, void *);

MainFn weftMain() {
  static MainFn Main = [] {
    void *Lib = ::dlopen(WEFT_INPROCESS, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(Lib, nullptr) << ::dlerror();
    return Lib ? reinterpret_cast<MainFn>(::dlsym(Lib, "weft_main")) : nullptr;
  }();
  return Main;
}

/// One in-process run of weft with \p Args: its exit code and what it wrote to each stream.
test::CommandResult inProcess(std::vector<std::string> Args) {
  test::CommandResult R;
  MainFn Main = weftMain();
  if (!Main)
    return R;
  std::vector<const char *> Argv = {"weft"};
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  R.ExitCode = Main(
      int(Argv.size()), Argv.data(),
      [](void *Context, int Stream, const char *Data, size_t Size) {
        auto *Into = static_cast<test::CommandResult *>(Context);
        (Stream == 1 ? Into->Out : Into->Err).append(Data, Size);
      },
      &R);
  return R;
}

test::CommandResult executable(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

TEST(InProcess, OutputReachesTheCallbackWithTheExitCodes) {
  test::CommandResult R = inProcess({"--version"});
  EXPECT_EQ(R.ExitCode, 0);
  EXPECT_EQ(R.Out, executable({"--version"}).Out);
  EXPECT_EQ(R.Err, "");

  std::string Missing = test::scratchDir("in-process-missing") + "/none.dll";
  R = inProcess({"weave", Missing, "-o", Missing + ".out", "--message-format", "msbuild"});
  test::CommandResult E =
      executable({"weave", Missing, "-o", Missing + ".out", "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.ExitCode, E.ExitCode);
  EXPECT_EQ(R.Err, E.Err);
  EXPECT_NE(R.Err.find(": error WEFT0002: "), std::string::npos) << R.Err;
  EXPECT_EQ(R.Out, "");

  // The next run prints as plain runs do: the format was that run's.
  R = inProcess({"weave", Missing, "-o", Missing + ".out"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err.rfind("weft: error: ", 0), 0u) << R.Err;
  EXPECT_EQ(R.Err, executable({"weave", Missing, "-o", Missing + ".out"}).Err);

  R = inProcess({"weave"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_NE(R.Err.find("inputs is required"), std::string::npos) << R.Err;
}

TEST(InProcess, WhatIsTheWholeProcesssIsRefused) {
  std::string Spec = test::scratchDir("in-process-refused") + "/spec.json";
  ASSERT_TRUE(test::writeFile(Spec, "{}"));
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"run", "dotnet", "missing.dll"},
        std::vector<std::string>{"attach", "--pid", "1", "--spec", Spec},
        std::vector<std::string>{"detach", "--pid", "1"}}) {
    test::CommandResult R = inProcess(Args);
    EXPECT_EQ(R.ExitCode, 2) << Args[0];
    EXPECT_NE(R.Err.find("'weft " + Args[0] + "' runs in a process of its own"), std::string::npos)
        << R.Err;
  }
  test::CommandResult R = inProcess({"--load", WEFT_INPROCESS, "passes"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_NE(R.Err.find("plugins (--load) are not loaded into another program's process"),
            std::string::npos)
      << R.Err;
}

TEST(InProcess, ACoverageWeaveAndItsReportAreTheExecutables) {
  std::string Dir = test::scratchDir("in-process-coverage");
  std::string Dll = test::corpusDll("Switches");
  auto WeaveInto = [&](const std::string &Out, auto Run) {
    return Run({"weave", Dll, "--out-dir", Dir + "/" + Out, "-q", "--pass",
                "coverage:hits-file=" + Dir + "/{assembly}.weft-hits"});
  };
  test::CommandResult R = WeaveInto("in", inProcess);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  ASSERT_EQ(WeaveInto("ex", executable).ExitCode, 0);
  for (const char *File : {"Switches.dll", "Switches.pdb", "Switches.dll.coverage.json"})
    EXPECT_TRUE(test::readFile(Dir + "/in/" + File) == test::readFile(Dir + "/ex/" + File)) << File;
  // The woven program's hits, then the report of them both ways.
  ASSERT_TRUE(test::copyCorpusCompanions("Switches", Dir + "/in"));
  test::CommandResult Ran = test::run("dotnet", {Dir + "/in/Switches.dll"});
  ASSERT_EQ(Ran.ExitCode, 0) << Ran.Err;
  auto Report = [&](const std::string &Out, auto Run) {
    return Run({"coverage", "report", "--map", Dir + "/in/Switches.dll.coverage.json", "--hits",
                Dir + "/Switches.weft-hits", "--format", "cobertura", "-o", Dir + "/" + Out,
                "--summary"});
  };
  R = Report("in.xml", inProcess);
  test::CommandResult E = Report("ex.xml", executable);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out.substr(R.Out.find(" (")), E.Out.substr(E.Out.find(" (")));
  EXPECT_EQ(R.Out.rfind("coverage report: " + Dir + "/in.xml (lines ", 0), 0u) << R.Out;
  std::string In = test::readFile(Dir + "/in.xml"), Ex = test::readFile(Dir + "/ex.xml");
  // The reports differ in their file name and timestamp only.
  auto Strip = [](std::string S) {
    size_t T = S.find("timestamp=\"");
    if (T != std::string::npos)
      S.erase(T, S.find('"', T + 11) + 1 - T);
    return S;
  };
  EXPECT_GT(In.size(), 1000u);
  EXPECT_EQ(Strip(In), Strip(Ex));
}

/// Writes \p Byte over every byte of \p Path in place: the same file, size and time stamp.
void overwriteInPlace(const std::string &Path, char Byte) {
  sys::fs::file_status St;
  ASSERT_FALSE(sys::fs::status(Path, St));
  Expected<sys::fs::file_t> F =
      sys::fs::openNativeFileForReadWrite(Path, sys::fs::CD_OpenExisting, sys::fs::OF_None);
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  std::string Bytes(St.getSize(), Byte);
  ASSERT_EQ(::pwrite(*F, Bytes.data(), Bytes.size(), 0), ssize_t(Bytes.size()));
  EXPECT_FALSE(sys::fs::setLastAccessAndModificationTime(*F, St.getLastAccessedTime(),
                                                         St.getLastModificationTime()));
  sys::fs::closeFile(*F);
}

TEST(InProcess, MapsReadWhileTheTestsRunAreTakenWhileTheirFilesAreTheOnesRead) {
  std::string Dir = test::scratchDir("in-process-read-ahead");
  std::string Dll = test::corpusDll("Switches");
  std::string Map = Dir + "/out/Switches.dll.coverage.json", Hits = Dir + "/Switches.weft-hits";
  auto Weave = [&] {
    return inProcess({"weave", Dll, "--out-dir", Dir + "/out", "-q", "--pass",
                      "coverage:hits-file=" + Dir + "/{assembly}.weft-hits"});
  };
  auto Report = [&](const std::string &MapPath, const std::string &Out, auto Run) {
    return Run({"coverage", "report", "--map", MapPath, "--hits", Hits, "--format", "lcov", "-o",
                Dir + "/" + Out});
  };
  test::CommandResult R = Weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  ASSERT_TRUE(test::copyCorpusCompanions("Switches", Dir + "/out"));
  test::CommandResult Ran = test::run("dotnet", {Dir + "/out/Switches.dll"});
  ASSERT_EQ(Ran.ExitCode, 0) << Ran.Err;
  std::string Kept = Dir + "/kept.coverage.json";
  ASSERT_TRUE(test::writeFile(Kept, test::readFile(Map)));
  ASSERT_EQ(Report(Kept, "expected.info", executable).ExitCode, 0);

  // The map's bytes spoilt in place, its size and time kept: the report takes the map the weave
  // read (a report reading the file fails).
  overwriteInPlace(Map, ' ');
  ASSERT_NE(Report(Map, "spoilt.info", executable).ExitCode, 0);
  R = Report(Map, "ahead.info", inProcess);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(test::readFile(Dir + "/ahead.info"), test::readFile(Dir + "/expected.info"));
  // Taken once: the next report reads the file.
  R = Report(Map, "again.info", inProcess);
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_NE(R.Err.find(Map), std::string::npos) << R.Err;

  // Woven again, then the file changed (a later time): the report reads it.
  R = Weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  overwriteInPlace(Map, ' ');
  sys::fs::file_status St;
  ASSERT_FALSE(sys::fs::status(Map, St));
  {
    Expected<sys::fs::file_t> F =
        sys::fs::openNativeFileForReadWrite(Map, sys::fs::CD_OpenExisting, sys::fs::OF_None);
    ASSERT_TRUE(bool(F)) << toString(F.takeError());
    EXPECT_FALSE(sys::fs::setLastAccessAndModificationTime(
        *F, St.getLastAccessedTime(), St.getLastModificationTime() + std::chrono::seconds(1)));
    sys::fs::closeFile(*F);
  }
  R = Report(Map, "changed.info", inProcess);
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_NE(R.Err.find("coverage map"), std::string::npos) << R.Err;
}

TEST(InProcess, RunsFromTwoThreadsBothComplete) {
  test::CommandResult A, B;
  std::thread T1([&] { A = inProcess({"passes"}); });
  std::thread T2([&] { B = inProcess({"passes"}); });
  T1.join();
  T2.join();
  EXPECT_EQ(A.ExitCode, 0);
  EXPECT_EQ(B.ExitCode, 0);
  EXPECT_EQ(A.Out, B.Out);
  EXPECT_NE(A.Out.find("coverage"), std::string::npos);
}

} // namespace
