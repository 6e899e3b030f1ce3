//===- tests/corpus/CoverageTest.cpp - The coverage pass, end to end ------===//
//
// Every corpus program woven with `--pass coverage` verifies, runs on CoreCLR with its expected
// output and writes a hits file that matches its map; the LCOV reports of three programs equal
// the checked-in tests/golden/coverage/<Name>.lcov (WEFT_UPDATE_GOLDEN=1 rewrites them); known
// lines of Switches have the counts its source implies. Also: the portable-PDB sequence-point
// reader, the options, the report's checks and determinism across thread counts.
//
//===----------------------------------------------------------------------===//
#include "coverage/Report.h"
#include "metadata/Module.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Golden.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace llvm;
using namespace weft;
using test::expectedOutput;

namespace {

struct Woven {
  std::string Dir, Dll, Map, Hits;
  test::CommandResult Weave, Run;
};

/// Weaves corpus program \p Name with \p Pass into a fresh scratch directory named after \p Tag
/// (with the program's companions, not its PDB or deps.json).
Woven weave(const std::string &Name, const std::string &Tag, const std::string &Pass = "coverage",
            std::vector<std::string> Extra = {}) {
  Woven W;
  W.Dir = test::scratchDir("coverage-" + Tag);
  W.Dll = W.Dir + "/" + Name + ".dll";
  W.Map = W.Dll + ".coverage.json";
  W.Hits = W.Dir + "/" + Name + ".weft-hits";
  std::string In = test::corpusDll(Name);
  std::vector<std::string> Args{"weave", In, "-o", W.Dll, "--pass", Pass, "--verify-each"};
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  W.Weave = test::run(test::weftTool(), Args);
  test::copyCorpusCompanions(Name, W.Dir);
  return W;
}

/// Runs the woven program; the hits go to W.Hits through WEFT_COVERAGE_FILE.
void run(Woven &W, std::vector<std::string> Args = {}) {
  std::vector<std::string> All{W.Dll};
  All.insert(All.end(), Args.begin(), Args.end());
  W.Run = test::run("dotnet", All, {"WEFT_COVERAGE_FILE=" + W.Dir + "/{assembly}.weft-hits"}, 300);
}

std::string report(const Woven &W, StringRef Format, test::CommandResult *R = nullptr) {
  test::CommandResult C = test::run(test::weftTool(), {"coverage", "report", "--map", W.Map,
                                                       "--hits", W.Hits, "--format", Format.str()});
  EXPECT_EQ(C.ExitCode, 0) << C.Err;
  if (R)
    *R = C;
  return C.Out;
}

/// "DA:<line>,<hits>" and "FNDA:<hits>,<name>" of an LCOV report.
struct Lcov {
  std::map<unsigned, uint64_t> Lines;
  std::map<std::string, uint64_t> Functions;
  std::map<std::string, std::string> Totals; // LF, LH, ... of the last record
};
Lcov parseLcov(StringRef Text) {
  Lcov L;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef Line : Lines) {
    auto [Key, Value] = Line.split(':');
    auto [A, B] = Value.split(',');
    if (Key == "DA") {
      unsigned N = 0;
      uint64_t H = 0;
      A.getAsInteger(10, N);
      B.getAsInteger(10, H);
      L.Lines[N] = H;
    } else if (Key == "FNDA") {
      uint64_t H = 0;
      A.getAsInteger(10, H);
      L.Functions[B.str()] = H;
    } else if (!Value.empty()) {
      L.Totals[Key.str()] = Value.str();
    }
  }
  return L;
}

// --- every program ---

class CoveredProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(CoveredProgram, VerifiesRunsAndCounts) {
  std::string Name = GetParam();
  ASSERT_TRUE(sys::fs::exists(test::corpusDll(Name))) << "the corpus.build test builds it";
  Woven W = weave(Name, Name);
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", W.Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Out.substr(0, 3000) << V.Err.substr(0, 3000);

  run(W);
  EXPECT_EQ(W.Run.ExitCode, 0) << W.Run.Err.substr(0, 3000);
  std::string Want = expectedOutput(Name);
  ASSERT_FALSE(Want.empty());
  EXPECT_TRUE(W.Run.Out == Want) << test::firstDifference(Want, W.Run.Out);

  // The hits belong to this map, and the entry point ran once.
  ASSERT_TRUE(sys::fs::exists(W.Hits)) << "the program wrote no hits file";
  Expected<coverage::Map> M = coverage::readMap(test::readFile(W.Map));
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  Expected<coverage::Hits> H = coverage::readHits(test::readFile(W.Hits));
  ASSERT_TRUE(bool(H)) << toString(H.takeError());
  EXPECT_EQ(H->Assembly, Name);
  if (Error E = coverage::addHits(*M, *H))
    FAIL() << toString(std::move(E));
  EXPECT_GT(M->Counters, 0u);
  EXPECT_TRUE(M->hasLines()) << "the map has no lines from " << Name << ".pdb";
  unsigned Mains = 0, Run = 0, Blocks = 0;
  for (const coverage::Method &Me : M->Methods) {
    // C#'s Main, or the `[<EntryPoint>] let main` of an F# program's module Program.
    bool Entry = Me.Name == "Main" || Me.Name == "main";
    if (Entry && Me.Type.find("Program") != std::string::npos) {
      ++Mains;
      EXPECT_EQ(Me.Blocks.front().Hits, 1u) << Me.fullName();
    }
    for (const coverage::Block &B : Me.Blocks) {
      ++Blocks;
      Run += B.Hits != 0;
    }
  }
  EXPECT_EQ(Mains, 1u);
  // A C# program runs more than a quarter of its blocks (each over half, here). An F# program
  // has, for each union and record, the structural equality, comparison, hashing, ToString and
  // case accessors F# makes, which a program seldom calls (FSharpTailCalls runs 77 of its 310
  // blocks, the rest nearly all those): a fifth for F#. (Constructors the compiler made, F#'s
  // closures' and unions' among them, have no counters at all: coverlet does not measure them.)
  if (test::isFSharpProgram(Name))
    EXPECT_GT(Run, Blocks / 5) << "much of an F# corpus program runs";
  else
    EXPECT_GT(Run, Blocks / 4) << "much of a C# corpus program runs";
  outs() << Name << ": " << M->Methods.size() << " methods, " << Blocks << " blocks, " << Run
         << " run\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, CoveredProgram, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

// --- reports against checked-in expectations ---

class GoldenReport : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenReport, LcovMatchesGolden) {
  std::string Name = GetParam();
  Woven W = weave(Name, "golden-" + Name);
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  run(W);
  ASSERT_EQ(W.Run.ExitCode, 0) << W.Run.Err;
  std::string Lcov = report(W, "lcov");
  test::expectGolden(Lcov, "coverage/" + Name + ".lcov", "the LCOV report");
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenReport,
                         ::testing::Values("Switches", "Exceptions", "Generics"),
                         [](const auto &Info) { return Info.param; });

// Counts that follow from corpus/Switches/Program.cs.
TEST(Coverage, KnownLinesOfSwitches) {
  Woven W = weave("Switches", "known");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  run(W);
  ASSERT_EQ(W.Run.ExitCode, 0) << W.Run.Err;
  Lcov L = parseLcov(report(W, "lcov"));
  // Dense(sel, acc) runs for sel = -2..99 in three rounds, then for 0, 9, ..., 99 once. As in
  // coverlet's LCOV, a function's count is its first line's hits (case 0's line: optimized, the
  // switch has no statement of its own).
  // A function is named as coverlet names it (Cecil's full name).
  EXPECT_EQ(
      L.Functions["System.Int32 Weft.Corpus.Switches.Program::Dense(System.Int32,System.Int32)"],
      2u * 4);
  EXPECT_EQ(L.Lines[119], 3u * 102 + 12); // return acc;
  // case 0: three rounds and the sample; two statements on the line (as coverlet adds them)
  EXPECT_EQ(L.Lines[21], 2u * 4);
  EXPECT_EQ(L.Lines[117], 3u * 6 + 1);    // default: -2, -1, 96..99 per round; 99 once
  EXPECT_EQ(L.Lines[328], 3u);            // the body of `for (round < 3)`
  // Branches never taken.
  EXPECT_EQ(L.Lines.count(156), 1u);
  EXPECT_EQ(L.Lines[156], 0u); // case 1002: return "high-2";
  EXPECT_EQ(L.Lines[249], 0u); // case Opcode.Pop
  EXPECT_EQ(L.Lines[265], 0u); // throw new InvalidOperationException("bad opcode");
  // "red" => "#f00" never matched: the switch expression (3 runs) spans the line, but as in
  // coverlet's count a statement inside it (the arm) counts there, not the expression.
  EXPECT_EQ(L.Lines.count(216), 1u);
  EXPECT_EQ(L.Lines[216], 0u);
  EXPECT_EQ(L.Lines.count(118), 0u) << "a closing brace has no code";

  std::string Xml = report(W, "cobertura");
  EXPECT_NE(Xml.find("<source>/_/corpus/Switches</source>"), std::string::npos);
  EXPECT_NE(Xml.find("<class name=\"Weft.Corpus.Switches.Program\" filename=\"Program.cs\""),
            std::string::npos);
  EXPECT_NE(Xml.find("<method name=\"Dense\" signature=\"(System.Int32,System.Int32)\""),
            std::string::npos);
  EXPECT_NE(Xml.find("<line number=\"156\" hits=\"0\" branch=\"False\"/>"), std::string::npos);
  EXPECT_NE(Xml.find("<line number=\"119\" hits=\"318\" branch=\"False\"/>"), std::string::npos);

  std::string Text = report(W, "text");
  EXPECT_NE(Text.find("Weft.Corpus.Switches.Program::Dense(int32, int32) [0x"), std::string::npos);
  EXPECT_NE(Text.find("entered 318 times"), std::string::npos);
}

// Without a PDB the reports list blocks: one "line" per counter, the file being the assembly.
// --- lines after code that throws ---

/// The "// hits: N" comments of a source file: line number -> N.
std::map<unsigned, uint64_t> annotatedHits(StringRef Source) {
  std::map<unsigned, uint64_t> Out;
  SmallVector<StringRef, 0> Lines;
  Source.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    size_t At = Lines[I].find("// hits: ");
    uint64_t N = 0;
    if (At != StringRef::npos && !Lines[I].substr(At + 9).trim().getAsInteger(10, N))
      Out[unsigned(I + 1)] = N;
  }
  return Out;
}

// tests/coverage-lines, built as `dotnet test` builds (Debug): every annotated line has the hits
// its comment says, so statements after a call, a field access or a division that threw are not
// credited, while a method in which nothing can throw keeps a single counter.
TEST(Coverage, LinesAfterCodeThatThrowsAreNotCredited) {
  std::string In = test::helperDll("CoverageLines");
  ASSERT_TRUE(sys::fs::exists(In)) << "the coveragelines.build test builds " << In;
  Woven W;
  W.Dir = test::scratchDir("coverage-lines");
  W.Dll = W.Dir + "/CoverageLines.dll";
  W.Map = W.Dll + ".coverage.json";
  W.Hits = W.Dir + "/CoverageLines.weft-hits";
  W.Weave = test::run(test::weftTool(),
                      {"weave", In, "-o", W.Dll, "--pass", "coverage", "--verify-each"});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "CoverageLines.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, W.Dir + "/CoverageLines.runtimeconfig.json"));
  run(W);
  ASSERT_EQ(W.Run.ExitCode, 0) << W.Run.Err;
  EXPECT_EQ(W.Run.Out, "ok,InvalidOperationException,InvalidOperationException,ok,"
                       "NullReferenceException,DivideByZeroException,no failure,caught,"
                       "InvalidOperationException,ok,ArgumentOutOfRangeException,63\n");

  Lcov L = parseLcov(report(W, "lcov"));
  SmallString<256> Source(test::sourceDir());
  sys::path::append(Source, "tests", "coverage-lines", "Program.cs");
  std::map<unsigned, uint64_t> Want = annotatedHits(test::readFile(Source));
  ASSERT_GT(Want.size(), 25u);
  for (auto [Line, Hits] : Want) {
    auto It = L.Lines.find(Line);
    if (It == L.Lines.end())
      ADD_FAILURE() << "line " << Line << " is not in the report";
    else
      EXPECT_EQ(It->second, Hits) << "line " << Line;
  }

  // Straight-line code that cannot throw keeps one counter; the method with a call in the middle
  // of a block has segments that continue it, which are no branches.
  Expected<coverage::Map> M = coverage::readMap(test::readFile(W.Map));
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  for (const coverage::Method &Me : M->Methods) {
    unsigned Segments = unsigned(llvm::count_if(Me.Blocks, [](auto &B) { return B.Continues; }));
    if (Me.Name == "StraightLine") {
      EXPECT_EQ(Segments, 0u);
    }
    if (Me.Name == "CallThrowsMidBlock") {
      EXPECT_GE(Segments, 2u);
    }
  }
  // Its lines hold no branch: a segment is none.
  SmallVector<StringRef, 0> Records;
  StringRef(report(W, "lcov")).split(Records, '\n');
  for (StringRef R : Records)
    for (unsigned Line : {17u, 18u, 19u, 20u, 21u})
      EXPECT_FALSE(R.startswith(("BRDA:" + Twine(Line) + ",").str())) << R;
}

TEST(Coverage, WithoutLinesReportsBlocks) {
  Woven W = weave("Switches", "blocks", "coverage:pdb=");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  run(W);
  ASSERT_EQ(W.Run.ExitCode, 0) << W.Run.Err;
  Expected<coverage::Map> M = coverage::readMap(test::readFile(W.Map));
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_FALSE(M->hasLines());
  EXPECT_NE(test::readFile(W.Map).find("\"pdb\": null"), std::string::npos);
  std::string Text = report(W, "lcov");
  Lcov L = parseLcov(Text);
  EXPECT_EQ(StringRef(Text).substr(0, 12), "SF:Switches\n");
  EXPECT_EQ(L.Lines.size(), M->Counters);
  EXPECT_EQ(L.Totals["LF"], std::to_string(M->Counters));
  // Dense's first "line" is its first block: its entries.
  EXPECT_EQ(
      L.Functions["System.Int32 Weft.Corpus.Switches.Program::Dense(System.Int32,System.Int32)"],
      318u);
}

// The weave does not depend on the thread count.
TEST(Coverage, SameBytesWhateverTheThreadCount) {
  for (const char *Name : {"Linq", "BigMethod"}) {
    Woven One = weave(Name, std::string("threads1-") + Name, "coverage", {"--threads", "1"});
    Woven Two = weave(Name, std::string("threads2-") + Name, "coverage", {"--threads", "2"});
    ASSERT_EQ(One.Weave.ExitCode, 0) << One.Weave.Err;
    ASSERT_EQ(Two.Weave.ExitCode, 0) << Two.Weave.Err;
    std::string A = test::readFile(One.Dll), B = test::readFile(Two.Dll);
    EXPECT_FALSE(A.empty());
    EXPECT_TRUE(A == B) << Name << ": the woven assemblies differ";
    EXPECT_TRUE(test::readFile(One.Map) == test::readFile(Two.Map)) << Name;
  }
}

// The option hits-file, in the directory the program runs in; and Flush is public.
TEST(Coverage, HitsFileOption) {
  Woven W = weave("Switches", "option", "coverage:hits-file=run-{assembly}.txt");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R =
      test::run("sh", {"-c", "cd '" + W.Dir + "' && exec dotnet Switches.dll"}, {}, 300);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  std::string Hits = test::readFile(W.Dir + "/run-Switches.txt");
  EXPECT_EQ(StringRef(Hits).substr(0, 12), "weft-hits 1 ");
  EXPECT_FALSE(sys::fs::exists(W.Dir + "/Switches.weft-hits"));

  test::CommandResult D = test::run(test::weftTool(), {"dump", W.Dll, "--type", "<weft>.Coverage"});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  // The threads' counters: each thread's block, found from its stack through Map.
  EXPECT_NE(
      D.Out.find(".field private static native int Mine\n"
                 "  .custom instance void [System.Runtime]System.ThreadStaticAttribute::.ctor()"),
      std::string::npos)
      << D.Out;
  EXPECT_NE(D.Out.find(".field private static initonly native int Map"), std::string::npos);
  EXPECT_NE(D.Out.find("static native int Counters(native uint) cil managed aggressiveinlining"),
            std::string::npos);
  EXPECT_NE(D.Out.find(".method public hidebysig static void Flush()"), std::string::npos);
  EXPECT_NE(D.Out.find("add_ProcessExit"), std::string::npos);
  EXPECT_NE(D.Out.find("\"run-{assembly}.txt\""), std::string::npos);
}

// tests/coverage-threads: eight threads call Hammer.Step at once, in two rounds whose threads
// have ended before the next starts; no call is lost, by the threads that ended or between
// threads, in the hits Flush wrote after the first round or in those written at exit.
TEST(Coverage, ThreadsCountExactly) {
  SmallString<256> In(test::binaryDir());
  sys::path::append(In, "coveragethreads", "bin", "CoverageThreads");
  sys::path::append(In, "release", "CoverageThreads.dll");
  ASSERT_TRUE(sys::fs::exists(In)) << "the coveragethreads.build test builds " << In;
  Woven W;
  W.Dir = test::scratchDir("coverage-threads");
  W.Dll = W.Dir + "/CoverageThreads.dll";
  W.Map = W.Dll + ".coverage.json";
  W.Hits = W.Dir + "/CoverageThreads.weft-hits";
  W.Weave = test::run(test::weftTool(), {"weave", std::string(In), "-o", W.Dll, "--pass",
                                         "coverage", "--verify-each"});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "CoverageThreads.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, W.Dir + "/CoverageThreads.runtimeconfig.json"));
  const uint64_t Calls = 2000000, Threads = 8;
  run(W, {std::to_string(Calls)});
  ASSERT_EQ(W.Run.ExitCode, 0) << W.Run.Err;
  EXPECT_EQ(W.Run.Out, "rounds agree\n");

  // Step's blocks: its entry, the two ways of the if (half of the calls each) and the return.
  auto StepBlocks = [&](const std::string &HitsFile) {
    std::vector<uint64_t> Out;
    Expected<coverage::Map> M = coverage::readMap(test::readFile(W.Map));
    Expected<coverage::Hits> H = coverage::readHits(test::readFile(HitsFile));
    if (!M || !H) {
      ADD_FAILURE() << (M ? toString(H.takeError()) : toString(M.takeError()));
      return Out;
    }
    if (Error E = coverage::addHits(*M, *H)) {
      ADD_FAILURE() << toString(std::move(E));
      return Out;
    }
    for (const coverage::Method &Me : M->Methods)
      if (Me.Type == "Hammer" && Me.Name == "Step")
        for (const coverage::Block &B : Me.Blocks)
          Out.push_back(B.Hits);
    return Out;
  };
  std::vector<uint64_t> Round1 = StepBlocks(W.Hits + ".round1");
  std::vector<uint64_t> Both = StepBlocks(W.Hits);
  ASSERT_GE(Round1.size(), 3u) << "Step has an entry and two ways";
  ASSERT_EQ(Round1.size(), Both.size());
  uint64_t PerRound = Threads * Calls;
  EXPECT_EQ(Round1.front(), PerRound);
  EXPECT_EQ(Both.front(), 2 * PerRound);
  for (size_t K = 0; K < Round1.size(); ++K) {
    EXPECT_TRUE(Round1[K] == PerRound || Round1[K] == PerRound / 2)
        << "block " << K << ": " << Round1[K];
    EXPECT_EQ(Both[K], 2 * Round1[K]) << "block " << K;
  }
}

// A PDB that does not belong to the input, or is no PDB, is a warning: the map has no lines.
TEST(Coverage, UnusablePdbIsAWarning) {
  std::string Dir = test::scratchDir("coverage-badpdb");
  std::string In = Dir + "/Switches.dll";
  ASSERT_FALSE(sys::fs::copy_file(test::corpusDll("Switches"), In));
  SmallString<256> OtherPdb(test::corpusDll("Generics"));
  sys::path::replace_extension(OtherPdb, "pdb");
  ASSERT_FALSE(sys::fs::copy_file(OtherPdb, Dir + "/Switches.pdb"));
  test::CommandResult R =
      test::run(test::weftTool(), {"weave", In, "-o", Dir + "/out.dll", "--pass", "coverage"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("was not built with this assembly"), std::string::npos) << R.Err;
  EXPECT_NE(test::readFile(Dir + "/out.dll.coverage.json").find("\"pdb\": null"),
            std::string::npos);

  ASSERT_TRUE(test::writeFile(Dir + "/Switches.pdb", "BSJB this is not metadata"));
  R = test::run(test::weftTool(), {"weave", In, "-o", Dir + "/out.dll", "--pass", "coverage"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("no source lines"), std::string::npos) << R.Err;

  R = test::run(test::weftTool(), {"weave", In, "-o", Dir + "/out.dll", "--pass",
                                   "coverage:pdb=" + Dir + "/missing.pdb"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("missing.pdb' does not exist"), std::string::npos) << R.Err;
}

// An assembly woven before (a build's weave, say) has methods its PDB does not describe: the
// added ones, at the end of the table. The PDB still gives the lines of the others.
TEST(Coverage, AWovenAssemblyKeepsItsLines) {
  Woven Alone = weave("Switches", "woven-alone");
  ASSERT_EQ(Alone.Weave.ExitCode, 0) << Alone.Weave.Err;
  Woven First = weave("Switches", "woven-twice-first", "trace");
  ASSERT_EQ(First.Weave.ExitCode, 0) << First.Weave.Err;
  std::string Dir = test::scratchDir("coverage-woven-twice");
  std::string Out = Dir + "/Switches.dll";
  test::CommandResult R = test::run(
      test::weftTool(), {"weave", First.Dll, "-o", Out, "--pass", "coverage", "--force"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err.find("has debug information for"), std::string::npos) << R.Err;
  Expected<coverage::Map> Once = coverage::readMap(test::readFile(Alone.Map));
  Expected<coverage::Map> Twice = coverage::readMap(test::readFile(Out + ".coverage.json"));
  ASSERT_TRUE(Once && Twice);
  auto Lines = [](const coverage::Map &M) {
    std::set<std::pair<std::string, uint32_t>> Out;
    for (const coverage::Method &Me : M.Methods)
      for (const coverage::Block &B : Me.Blocks)
        for (const coverage::SourceSpan &S : B.Lines)
          Out.insert({Me.Type + "::" + Me.Name, S.StartLine});
    return Out;
  };
  EXPECT_GT(Lines(*Once).size(), 20u);
  EXPECT_EQ(Lines(*Twice), Lines(*Once));
}

// Hits of another weave (or module) are refused by name.
TEST(Coverage, ReportChecksTheModule) {
  Woven W = weave("Switches", "mismatch");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  ASSERT_TRUE(test::writeFile(W.Hits, "weft-hits 1 00000000-0000-0000-0000-000000000000 5 X\n"));
  test::CommandResult R = test::run(test::weftTool(), {"coverage", "report", "--map", W.Map,
                                                       "--hits", W.Hits, "--format", "lcov"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("was the assembly woven again"), std::string::npos) << R.Err;

  ASSERT_TRUE(test::writeFile(W.Hits, "weft-hits 1 x 3 X\n0 1\n7 2\n"));
  R = test::run(test::weftTool(),
                {"coverage", "report", "--map", W.Map, "--hits", W.Hits, "--format", "lcov"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("line 3: counter 7 beyond the 3 counters"), std::string::npos) << R.Err;

  // A damaged branch point of the map is named.
  std::string Map = test::readFile(W.Map);
  size_t At = Map.find("\"branches\":[[");
  ASSERT_NE(At, std::string::npos) << "Switches has branch points";
  Map.insert(At + 13, "\"x\",");
  ASSERT_TRUE(test::writeFile(W.Map, Map));
  ASSERT_TRUE(test::writeFile(W.Hits, "weft-hits 1 x 3 X\n"));
  R = test::run(test::weftTool(),
                {"coverage", "report", "--map", W.Map, "--hits", W.Hits, "--format", "lcov"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("].branches[0][0]: expected an integer"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("Switches.dll.coverage.json"), std::string::npos) << R.Err;
}

// --- the sequence-point reader ---

TEST(SequencePoints, ReadsACorpusPdb) {
  SmallString<256> Pdb(test::corpusDll("Switches"));
  sys::path::replace_extension(Pdb, "pdb");
  Expected<std::unique_ptr<metadata::pdb::PortablePdb>> P = metadata::pdb::PortablePdb::open(Pdb);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  const metadata::Module &PM = (*P)->module();
  // Program.cs and files the SDK generates (global usings, assembly attributes).
  uint32_t Program = 0;
  std::vector<std::string> Names;
  for (uint32_t D = 1; D <= (*P)->documentCount(); ++D) {
    Expected<std::string> Doc = metadata::pdb::documentName(PM, D);
    ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
    if (*Doc == "/_/corpus/Switches/Program.cs")
      Program = D;
    Names.push_back(*Doc);
  }
  ASSERT_NE(Program, 0u) << join(Names, ", ");
  Expected<std::string> Beyond = metadata::pdb::documentName(PM, (*P)->documentCount() + 1);
  ASSERT_FALSE(bool(Beyond));
  consumeError(Beyond.takeError());

  // Program::Dense: `case 0: acc = acc * 3 + 0; break;` is its first statement with a line.
  auto Img = pe::Image::open(test::corpusDll("Switches"));
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  uint32_t Dense = 0;
  for (uint32_t R = 1; R <= (*M)->rowCount(metadata::TableId::MethodDef); ++R)
    if ((*M)->getString((*M)->get(metadata::TableId::MethodDef, R, metadata::MethodDefCol::Name)) ==
        "Dense")
      Dense = R;
  ASSERT_NE(Dense, 0u);
  EXPECT_EQ((*P)->methodCount(), (*M)->rowCount(metadata::TableId::MethodDef));
  auto Points = metadata::pdb::methodSequencePoints(PM, Dense);
  ASSERT_TRUE(bool(Points)) << toString(Points.takeError());
  std::vector<metadata::pdb::SequencePoint> Visible;
  for (const auto &S : *Points)
    if (!S.isHidden())
      Visible.push_back(S);
  ASSERT_GE(Visible.size(), 2u * 96);
  EXPECT_EQ(Visible[0].StartLine, 21u);
  EXPECT_EQ(Visible[0].EndLine, 21u);
  EXPECT_EQ(Visible[0].StartColumn, 21u); // acc = acc * 3 + 0;
  EXPECT_EQ(Visible[0].EndColumn, 39u);
  EXPECT_EQ(Visible[1].StartLine, 21u); // break;
  EXPECT_EQ(Visible[1].StartColumn, 40u);
  EXPECT_EQ(Visible[0].Document, Program);
  EXPECT_EQ(Visible[0].ILOffset, 0x18Bu); // the first case's target
  for (size_t I = 1; I < Points->size(); ++I)
    EXPECT_LT((*Points)[I - 1].ILOffset, (*Points)[I].ILOffset);
}

TEST(SequencePoints, DecodesEveryRecordKind) {
  // Header: local signature 0x11, initial document 2. Then: a point at IL 0 on 10:9-10:14; a
  // hidden point at IL 3; a point at IL 5 on 12:4-13:1 (first visible after: signed deltas);
  // a document record (document 3); a point at IL 9 on 9:7-9:8.
  std::vector<uint8_t> Blob{0x11, 0x02, 0x00, 0x00, 0x05, 0x0A, 0x09, // IL 0, 10:9 +0 lines +5 cols
                            0x03, 0x00, 0x00,                         // IL 3: hidden
                            0x02, 0x01, 0x79, 0x04, 0x77, // IL 5: +1 line, cols -4, line +2, col -5
                            0x00, 0x03,                   // document 3
                            0x04, 0x00, 0x01, 0x7B, 0x06}; // IL 9: +0, +1 col, line -3, col +3
  auto P = metadata::pdb::decodeSequencePoints(Blob, 0, 100);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  ASSERT_EQ(P->size(), 4u);
  const auto &A = (*P)[0], &B = (*P)[1], &C = (*P)[2], &D = (*P)[3];
  EXPECT_EQ(A.ILOffset, 0u);
  EXPECT_EQ(A.Document, 2u);
  EXPECT_EQ(A.StartLine, 10u);
  EXPECT_EQ(A.StartColumn, 9u);
  EXPECT_EQ(A.EndLine, 10u);
  EXPECT_EQ(A.EndColumn, 14u);
  EXPECT_EQ(B.ILOffset, 3u);
  EXPECT_TRUE(B.isHidden());
  EXPECT_EQ(C.ILOffset, 5u);
  EXPECT_EQ(C.StartLine, 12u);
  EXPECT_EQ(C.StartColumn, 4u);
  EXPECT_EQ(C.EndLine, 13u);
  EXPECT_EQ(C.EndColumn, 0u);
  EXPECT_EQ(D.ILOffset, 9u);
  EXPECT_EQ(D.Document, 3u);
  EXPECT_EQ(D.StartLine, 9u);
  EXPECT_EQ(D.StartColumn, 7u);
  EXPECT_EQ(D.EndColumn, 8u);

  // The document from the row: no header field for it.
  auto Q = metadata::pdb::decodeSequencePoints({0x00, 0x00, 0x00, 0x02, 0x01, 0x01}, 7);
  ASSERT_TRUE(bool(Q)) << toString(Q.takeError());
  ASSERT_EQ(Q->size(), 1u);
  EXPECT_EQ((*Q)[0].Document, 7u);
  EXPECT_EQ((*Q)[0].EndColumn, 3u);

  // Damage: cut off in a record, a second record at the same offset that is no document record,
  // no initial document.
  auto Cut = metadata::pdb::decodeSequencePoints(ArrayRef<uint8_t>(Blob).drop_back(1), 0, 100);
  ASSERT_FALSE(bool(Cut));
  EXPECT_EQ(toString(Cut.takeError()),
            "sequence points blob at offset 0x79: unexpected end of data");
  auto NoDoc = metadata::pdb::decodeSequencePoints({0x00, 0x00}, 0, 100);
  ASSERT_FALSE(bool(NoDoc));
  EXPECT_NE(toString(NoDoc.takeError()).find("no initial document"), std::string::npos);
  auto BadLine = metadata::pdb::decodeSequencePoints(
      {0x00, 0x01, 0x00, 0x00, 0x02, 0x01, 0x01, 0x01, 0x00, 0x01, 0x7D, 0x00}, 0, 0);
  ASSERT_FALSE(bool(BadLine)); // the second point's start line goes below zero
  EXPECT_NE(toString(BadLine.takeError()).find("out of range"), std::string::npos);
}

} // namespace
