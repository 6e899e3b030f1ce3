//===- tests/cli/WeaveManyTest.cpp - weft weave with many inputs ----------===//
//
// `weft weave IN... --out-dir DIR` and `weft weave FOLDER --out-dir DIR` as a user sees them:
//  - every output (assembly, PDB, side files) is the same bytes as when its input is woven alone,
//    and the woven programs run;
//  - a folder stands for the .NET assemblies directly in it: native images and files that are no
//    PE image are passed over, but named on the command line they are errors;
//  - an input that fails is named, the others are still written and the exit code is 1;
//    --fail-fast stops at it;
//  - usage errors (-o with several inputs, --out-dir with -o or --in-place, two outputs of one
//    name) exit with 2 and write nothing;
//  - inputs much smaller than the largest are woven side by side, and what each says is still
//    printed whole and in input order;
//  - without a terminal (as here) or with --quiet there is no progress line;
//  - a probe assembly is opened once for all the modules of a run;
//  - --keep-originals keeps what --in-place replaces, --side-files-dir puts the side files in a
//    folder of their own; --require-woven exits with 3 when no pass changed a method.
//
//===----------------------------------------------------------------------===//
#include "metadata/AssemblyCache.h"
#include "metadata/Editor.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <map>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

using test::frameworkFile;

/// The names of the files directly in \p Dir, sorted.
std::vector<std::string> filesIn(StringRef Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    Names.push_back(sys::path::filename(It->path()).str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

std::vector<std::string> concat(std::vector<std::string> A, ArrayRef<std::string> B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

/// Entry-exit with the empty probes (opened through the run's cache) and coverage (a side file
/// next to each output).
std::vector<std::string> passArgs() {
  return {"--pass", test::probeOption("Empty"), "--pass", "coverage"};
}

/// A copy of corpus program \p Name cut to a third: a damaged assembly.
std::string damagedCopy(StringRef Dir, StringRef Name) {
  std::string Bytes = test::readFile(test::corpusDll(Name));
  std::string Path = (Dir + "/" + Name + ".dll").str();
  EXPECT_TRUE(test::writeFile(Path, Bytes.substr(0, Bytes.size() / 3)));
  return Path;
}

/// A native image: a framework assembly with its CLI directory cleared.
std::string nativeImage(StringRef Path) {
  std::string Bytes = test::readFile(frameworkFile("System.Runtime.dll"));
  uint32_t Lfanew = uint8_t(Bytes[0x3C]) | uint8_t(Bytes[0x3D]) << 8;
  bool Plus = uint8_t(Bytes[Lfanew + 24]) == 0x0B && uint8_t(Bytes[Lfanew + 25]) == 0x02;
  size_t Dir = Lfanew + 24 + (Plus ? 112 : 96) + 14 * 8;
  std::fill(Bytes.begin() + Dir, Bytes.begin() + Dir + 8, '\0');
  EXPECT_TRUE(test::writeFile(Path, Bytes));
  return Path.str();
}

TEST(WeaveMany, EveryOutputIsTheBytesOfItsSingleRunAndRuns) {
  std::vector<std::string> Inputs = {
      test::corpusDll("Closures"), test::corpusDll("Generics"), test::corpusDll("Records"),
      frameworkFile("System.Runtime.dll"), frameworkFile("System.Collections.dll")};
  std::string Single = test::scratchDir("weave-many-single");
  for (const std::string &In : Inputs) {
    std::string Out = Single + "/" + sys::path::filename(In).str();
    test::CommandResult R = weft(concat({"weave", In, "-o", Out}, passArgs()));
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
  }
  // The passes before the inputs: each --pass takes one value, the inputs stay inputs. The
  // output folder is as deep as the single runs' (the marker records the input's path from it).
  std::string Many = test::scratchDir("weave-many-multi");
  test::CommandResult R =
      weft(concat(concat(concat({"weave"}, passArgs()), Inputs), {"--out-dir", Many}));
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("weft: woven 5 of 5 assemblies, 0 failed\n"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find('\r'), std::string::npos) << "no progress line without a terminal";

  std::vector<std::string> Files = filesIn(Many);
  EXPECT_EQ(Files, filesIn(Single));
  EXPECT_NE(std::find(Files.begin(), Files.end(), "Closures.pdb"), Files.end());
  EXPECT_NE(std::find(Files.begin(), Files.end(), "Records.dll.coverage.json"), Files.end());
  for (const std::string &F : Files)
    EXPECT_TRUE(test::readFile(Many + "/" + F) == test::readFile(Single + "/" + F)) << F;

  // The woven programs run as they did.
  for (const char *Name : {"Closures", "Generics"}) {
    std::string Dir = test::scratchDir(std::string("weave-many-run-") + Name);
    for (const char *Ext : {".dll", ".pdb"})
      ASSERT_FALSE(sys::fs::copy_file(Many + "/" + Name + Ext, Dir + "/" + Name + Ext));
    ASSERT_TRUE(test::copyCorpusCompanions(Name, Dir));
    ASSERT_FALSE(sys::fs::copy_file(test::probesDll(), Dir + "/Probes.dll"));
    test::CommandResult Run = test::run("dotnet", {Dir + "/" + Name + ".dll"},
                                        {"WEFT_COVERAGE_FILE=" + Dir + "/hits"}, 120);
    EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
    EXPECT_EQ(Run.Out, test::expectedOutput(Name));
  }
}

// Closures, Generics and Records are far smaller than System.Collections: with two threads they
// are woven side by side, after it. Their messages still come in input order, each input's
// together.
TEST(WeaveMany, InputsWovenSideBySideAreReportedInInputOrder) {
  std::vector<std::string> Inputs = {test::corpusDll("Closures"),
                                     frameworkFile("System.Collections.dll"),
                                     test::corpusDll("Generics"), test::corpusDll("Records")};
  std::string Out = test::scratchDir("weave-many-side-by-side");
  test::CommandResult R = weft(concat(
      concat(concat({"weave", "-v", "--threads", "2"}, passArgs()), Inputs), {"--out-dir", Out}));
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  // Each input: "weaving 'IN' into ...", then its own lines, then its summary: one summary
  // between one input's first line and the next's.
  std::vector<std::string> Order;
  std::vector<int> Summaries;
  StringRef Rest = R.Err;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    if (Line.startswith("weft: weaving '")) {
      Order.push_back(Line.drop_front(15).split('\'').first.str());
      Summaries.push_back(0);
    } else if (Line.startswith("weft: ") && Line.contains(" methods changed, ")) {
      ASSERT_FALSE(Summaries.empty()) << Line.str();
      ++Summaries.back();
    }
  }
  EXPECT_EQ(Order, Inputs) << R.Err;
  EXPECT_EQ(Summaries, std::vector<int>(Inputs.size(), 1)) << R.Err;
  EXPECT_NE(R.Err.find("weft: woven 4 of 4 assemblies, 0 failed\n"), std::string::npos) << R.Err;
  for (const std::string &In : Inputs) {
    std::string Single =
        test::scratchDir("weave-many-side-by-side-single") + "/" + sys::path::filename(In).str();
    ASSERT_EQ(weft(concat({"weave", In, "-o", Single, "--threads", "1"}, passArgs())).ExitCode, 0);
    EXPECT_TRUE(test::readFile(Out + "/" + sys::path::filename(In).str()) == test::readFile(Single))
        << In;
  }
}

TEST(WeaveMany, AFolderStandsForTheAssembliesInIt) {
  std::string Base = test::scratchDir("weave-many-folder");
  std::string Dir = Base + "/in";
  ASSERT_FALSE(sys::fs::create_directories(Dir));
  for (const char *Name : {"Closures", "Generics"}) {
    std::string Dll = test::corpusDll(Name);
    ASSERT_FALSE(sys::fs::copy_file(Dll, Dir + "/" + Name + ".dll"));
    ASSERT_FALSE(
        sys::fs::copy_file(Dll.substr(0, Dll.size() - 4) + ".pdb", Dir + "/" + Name + ".pdb"));
  }
  // Passed over: a native image, a native library of this platform (named as a .dll too),
  // files that are no PE image, and a folder.
  std::string Native = nativeImage(Dir + "/native.dll");
  ASSERT_FALSE(
      sys::fs::copy_file(frameworkFile("libSystem.Native.so"), Dir + "/libSystem.Native.so"));
  ASSERT_FALSE(
      sys::fs::copy_file(frameworkFile("libSystem.Native.so"), Dir + "/System.Native.dll"));
  ASSERT_TRUE(test::writeFile(Dir + "/notes.exe", "not an image"));
  ASSERT_TRUE(test::writeFile(Dir + "/readme.txt", "not an image"));
  ASSERT_FALSE(sys::fs::create_directories(Dir + "/sub.dll"));

  std::string Out = Base + "/out";
  test::CommandResult R = weft({"weave", Dir, "--out-dir", Out, "--pass", "trace"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "weft: woven 2 of 2 assemblies, 0 failed\n");
  EXPECT_EQ(filesIn(Out), (std::vector<std::string>{"Closures.dll", "Closures.pdb", "Generics.dll",
                                                    "Generics.pdb"}));
  // The same bytes as the files woven one by one (into a folder beside the output folder: the
  // marker records the input's path from it).
  std::string Single = Base + "/single";
  ASSERT_FALSE(sys::fs::create_directories(Single));
  for (const char *Name : {"Closures", "Generics"}) {
    std::string File = std::string(Name) + ".dll";
    ASSERT_EQ(
        weft({"weave", Dir + "/" + File, "-o", Single + "/" + File, "--pass", "trace"}).ExitCode,
        0);
    EXPECT_TRUE(test::readFile(Out + "/" + File) == test::readFile(Single + "/" + File)) << File;
  }

  // --quiet: no summary; nothing at all here.
  std::string Quiet = test::scratchDir("weave-many-folder-quiet");
  R = weft({"weave", "--quiet", Dir, "--out-dir", Quiet});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");

  // Named on the command line, what is no assembly is an error.
  R = weft({"weave", Dir + "/Closures.dll", Native, Dir + "/notes.exe", "--out-dir",
            test::scratchDir("weave-many-named")});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("weft: error: '" + Native + "': not a .NET assembly"), std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("weft: error: '" + Dir + "/notes.exe': "), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("weft: woven 1 of 3 assemblies, 2 failed"), std::string::npos) << R.Err;

  // A folder with no assembly is said so, and is no failure.
  std::string Empty = test::scratchDir("weave-many-empty");
  R = weft({"weave", Empty, "--out-dir", Empty + "/out"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("holds no .NET assembly"), std::string::npos) << R.Err;
}

TEST(WeaveMany, AFailedInputIsNamedAndTheOthersAreWritten) {
  std::string Dir = test::scratchDir("weave-many-bad");
  std::string Bad = damagedCopy(Dir, "Generics");
  // An input a pass refuses: one weft has woven already.
  std::string Woven = Dir + "/woven/Records.dll";
  ASSERT_FALSE(sys::fs::create_directories(Dir + "/woven"));
  ASSERT_EQ(weft({"weave", test::corpusDll("Records"), "-o", Woven, "--pass", "trace"}).ExitCode,
            0);
  std::string Out = Dir + "/out";
  test::CommandResult R = weft({"weave", test::corpusDll("Closures"), Bad, Woven,
                                test::corpusDll("Switches"), "--out-dir", Out, "--pass", "trace"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("weft: error: '" + Bad + "': "), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("weft: error: '" + Woven + "': the assembly was already woven by weft"),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("weft: woven 2 of 4 assemblies, 2 failed\n"), std::string::npos) << R.Err;
  EXPECT_EQ(filesIn(Out), (std::vector<std::string>{"Closures.dll", "Closures.pdb", "Switches.dll",
                                                    "Switches.pdb"}));
}

TEST(WeaveMany, FailFastStopsAtTheFirstFailure) {
  std::string Dir = test::scratchDir("weave-many-fail-fast");
  std::string Bad = damagedCopy(Dir, "Generics");
  std::string Out = Dir + "/out";
  test::CommandResult R = weft({"weave", "--fail-fast", test::corpusDll("Closures"), Bad,
                                test::corpusDll("Switches"), "--out-dir", Out});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("weft: error: '" + Bad + "': "), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("weft: woven 1 of 3 assemblies, 1 failed (--fail-fast: stopped at the "
                       "first failure)"),
            std::string::npos)
      << R.Err;
  EXPECT_EQ(filesIn(Out), (std::vector<std::string>{"Closures.dll", "Closures.pdb"}));
}

TEST(WeaveMany, UsageErrorsWriteNothing) {
  std::string Dir = test::scratchDir("weave-many-usage");
  std::string A = test::corpusDll("Closures"), B = test::corpusDll("Generics");
  std::string Out = Dir + "/out";
  struct Case {
    std::vector<std::string> Args;
    const char *Message;
  };
  // Two inputs of one file name, from two folders.
  std::string Other = Dir + "/other";
  ASSERT_FALSE(sys::fs::create_directories(Other));
  ASSERT_FALSE(sys::fs::copy_file(A, Other + "/Closures.dll"));
  std::vector<Case> Cases = {
      {{"weave", A, B, "-o", Out + "/x.dll"}, "-o names the output of one input"},
      {{"weave", Other, "-o", Out + "/x.dll"}, "-o names the output of one input"},
      {{"weave", A, "-o", Out + "/x.dll", "--out-dir", Out}, "--out-dir excludes -o"},
      {{"weave", A, B, "--in-place", "--out-dir", Out}, "--out-dir excludes -o and --in-place"},
      {{"weave", A, B}, "weave needs -o OUTPUT, --out-dir DIR or --in-place"},
      {{"weave", A, Other + "/Closures.dll", "--out-dir", Out}, "two inputs named 'Closures.dll'"},
      {{"weave", A, Other, "--out-dir", Out}, "would both be written to"},
      {{"weave", "--out-dir", Out}, "inputs is required"},
  };
  for (const Case &C : Cases) {
    test::CommandResult R = weft(C.Args);
    EXPECT_EQ(R.ExitCode, 2) << C.Message;
    EXPECT_NE(R.Err.find(std::string("weft: error: ")), std::string::npos) << R.Err;
    EXPECT_NE(R.Err.find(C.Message), std::string::npos) << R.Err;
    EXPECT_FALSE(sys::fs::exists(Out)) << C.Message;
  }
}

TEST(WeaveMany, InPlaceReplacesEach) {
  std::string Dir = test::scratchDir("weave-many-in-place");
  std::string Single = test::scratchDir("weave-many-in-place-single");
  std::vector<std::string> Args = {"weave", "--in-place", "--pass", "single-ret"};
  for (const char *Name : {"Closures", "Switches"}) {
    std::string File = std::string(Name) + ".dll", Dll = test::corpusDll(Name);
    ASSERT_FALSE(sys::fs::copy_file(Dll, Dir + "/" + File));
    ASSERT_FALSE(
        sys::fs::copy_file(Dll.substr(0, Dll.size() - 4) + ".pdb", Dir + "/" + Name + ".pdb"));
    // Each alone, in place too (the marker records the input's path).
    ASSERT_FALSE(sys::fs::copy_file(Dll, Single + "/" + File));
    ASSERT_FALSE(
        sys::fs::copy_file(Dll.substr(0, Dll.size() - 4) + ".pdb", Single + "/" + Name + ".pdb"));
    ASSERT_EQ(weft({"weave", Single + "/" + File, "--in-place", "--pass", "single-ret"}).ExitCode,
              0);
    Args.push_back(Dir + "/" + File);
  }
  test::CommandResult R = weft(Args);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  std::vector<std::string> Files = filesIn(Dir);
  EXPECT_EQ(Files, (std::vector<std::string>{"Closures.dll", "Closures.pdb", "Switches.dll",
                                             "Switches.pdb"}));
  EXPECT_EQ(Files, filesIn(Single));
  for (const std::string &F : Files)
    EXPECT_TRUE(test::readFile(Dir + "/" + F) == test::readFile(Single + "/" + F)) << F;
}

// An option between the inputs takes its one value; the inputs after it are still inputs.
// --keep-originals DIR keeps what --in-place replaces (each assembly, the PDBs it rewrites) as
// it was, and refuses to be given without --in-place; a second run keeps what the first wrote.
// --side-files-dir DIR writes the side files there.
TEST(WeaveMany, KeepOriginalsAndSideFilesDir) {
  std::string Dir = test::scratchDir("weave-many-keep");
  std::string Kept = Dir + "/originals";
  std::vector<std::string> Args = {"weave",   "--in-place", "--keep-originals", Kept,
                                   "--force", "--pass",     "single-ret"};
  std::map<std::string, std::string> Before;
  for (const char *Name : {"Closures", "Switches"}) {
    std::string Dll = test::corpusDll(Name), Pdb = Dll.substr(0, Dll.size() - 4) + ".pdb";
    for (const std::string &From : {Dll, Pdb}) {
      std::string To = Dir + "/" + sys::path::filename(From).str();
      ASSERT_FALSE(sys::fs::copy_file(From, To));
      Before[sys::path::filename(From).str()] = test::readFile(To);
    }
    Args.push_back(Dir + "/" + Name + ".dll");
  }
  test::CommandResult R = weft(Args);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(filesIn(Kept), (std::vector<std::string>{"Closures.dll", "Closures.pdb", "Switches.dll",
                                                     "Switches.pdb"}));
  for (const auto &[Name, Bytes] : Before) {
    EXPECT_TRUE(test::readFile(Kept + "/" + Name) == Bytes) << Name;
    EXPECT_FALSE(test::readFile(Dir + "/" + Name) == Bytes) << Name << " was not replaced";
  }
  // Again: what is kept now is what the first run wrote.
  std::string Woven = test::readFile(Dir + "/Closures.dll");
  R = weft(Args);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(test::readFile(Kept + "/Closures.dll") == Woven);

  // The side files into a folder of their own, named after their outputs.
  R = weft({"weave", Dir + "/Switches.dll", "--in-place", "--force", "--pass", "coverage",
            "--side-files-dir", Dir + "/maps"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(filesIn(Dir + "/maps"), (std::vector<std::string>{"Switches.dll.coverage.json"}));
  EXPECT_FALSE(sys::fs::exists(Dir + "/Switches.dll.coverage.json"));

  std::string Out = Dir + "/out";
  R = weft({"weave", test::corpusDll("Closures"), "--out-dir", Out, "--keep-originals", Kept,
            "--pass", "coverage"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_NE(R.Err.find("--keep-originals keeps what --in-place replaces"), std::string::npos)
      << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
}

// --require-woven: exit code 3 and a note naming the inputs when no pass changed a method (a
// coverage filter that leaves out every type), the outputs written all the same; 0 when a pass
// changed one.
TEST(WeaveMany, RequireWovenSaysWhenNothingWasWoven) {
  std::string Dir = test::scratchDir("weave-many-require");
  std::string A = test::corpusDll("Closures"), B = test::corpusDll("Switches");
  test::CommandResult R = weft({"weave", A, B, "--out-dir", Dir + "/none", "-q", "--require-woven",
                                "--pass", "coverage:include=[NoSuchAssembly]*"});
  EXPECT_EQ(R.ExitCode, 3) << R.Err;
  EXPECT_NE(R.Err.find("weft: note: nothing was woven: no pass changed a method of Closures.dll, "
                       "Switches.dll"),
            std::string::npos)
      << R.Err;
  EXPECT_TRUE(sys::fs::exists(Dir + "/none/Closures.dll"));
  EXPECT_TRUE(sys::fs::exists(Dir + "/none/Switches.dll"));

  R = weft({"weave", A, B, "--out-dir", Dir + "/some", "-q", "--require-woven", "--pass",
            "coverage:include=[Switches]*"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");
}

TEST(WeaveMany, OptionsBetweenInputsTakeOneValue) {
  std::string Out = test::scratchDir("weave-many-options") + "/out";
  test::CommandResult R = weft({"weave", test::corpusDll("Closures"), "--load", WEFT_HELLO_PLUGIN,
                                test::corpusDll("Generics"), "--pass", "trace",
                                test::corpusDll("Switches"), "--pass", "hello", "--out-dir", Out});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(filesIn(Out),
            (std::vector<std::string>{"Closures.dll", "Closures.pdb", "Generics.dll",
                                      "Generics.pdb", "Switches.dll", "Switches.pdb"}));
}

/// Weaves corpus program \p Name in process with entry-exit, its probe assembly served by \p Cache.
void weaveWithCache(StringRef Name, metadata::AssemblyCache &Cache) {
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(test::corpusDll(Name));
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  spec::PassUse Use;
  Use.Pass = "entry-exit";
  Use.Rule = "--pass entry-exit";
  Use.Options = {{"probe-assembly", test::probesDll()}, {"probe-type", "Weft.Probes.Empty"}};
  spec::Spec S = spec::Spec::forPasses({Use});
  Expected<spec::Selection> Sel = spec::select(S, **M);
  ASSERT_TRUE(bool(Sel)) << toString(Sel.takeError());
  metadata::Editor E(**M);
  passes::WeaveOptions WO;
  WO.Assemblies = &Cache;
  Expected<passes::WeaveOutcome> Out = passes::weave(**Img, E, *Sel, WO);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_GT(Out->MethodsChanged, 0u);
}

TEST(WeaveMany, AProbeAssemblyIsOpenedOncePerRun) {
  metadata::AssemblyCache Cache;
  weaveWithCache("Closures", Cache);
  ASSERT_EQ(Cache.size(), 1u);
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> First = Cache.open(test::probesDll());
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  weaveWithCache("Generics", Cache);
  EXPECT_EQ(Cache.size(), 1u);
  // Another spelling of the same file is the same entry.
  SmallString<256> Other(sys::path::parent_path(test::probesDll()));
  sys::path::append(Other, ".", sys::path::filename(test::probesDll()));
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> Again = Cache.open(Other);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(First->get(), Again->get());
  // What is no assembly is refused, naming the file, and not remembered.
  std::string Text = test::scratchDir("weave-many-cache") + "/text.dll";
  ASSERT_TRUE(test::writeFile(Text, "text"));
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> Bad = Cache.open(Text);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("'" + Text + "': "), std::string::npos);
  EXPECT_EQ(Cache.size(), 1u);
}

} // namespace
