//===- tests/corpus/WeaveTest.cpp - Woven programs still run --------------===//
//
// The built-in passes on real programs run by the real runtime:
//  - every corpus program woven with each pass, and with all of them, passes `weft verify` and
//    runs with its expected output;
//  - the entry-exit probes see the exact enter/exit/exception sequence checked in under
//    tests/golden/probes (WEFT_UPDATE_GOLDEN=1 rewrites them);
//  - probes that throw change nothing;
//  - the output is the same bytes whatever the thread count, weaving twice is refused, and bad
//    specs and probes give a message naming the rule and no output file;
//  - the C# compiler woven with entry-exit on every method still compiles the corpus to the same
//    bytes.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Weave.h"

#include "tests/support/Compiler.h"
#include "tests/support/Env.h"
#include "tests/support/Golden.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "weaving/ModuleWriter.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <mutex>
#include <set>

using namespace llvm;
using namespace weft;
using test::expectedOutput;
using test::probesDll;
using test::replacementsDll;
using test::WovenProgram;

// Each case weaves into a scratch folder of its own.
static WovenProgram weaveProgram(StringRef Label, StringRef Name,
                                 const std::vector<std::string> &Args) {
  return test::weaveCorpusProgram(("weave-" + Label + "-" + Name).str(), Name, Args);
}

namespace {

using test::PassCase;
using test::passCases;
using test::probeOption;

using Param = std::tuple<std::string, unsigned>;
class WovenCorpus : public ::testing::TestWithParam<Param> {};

TEST_P(WovenCorpus, VerifiesAndRunsWithTheExpectedOutput) {
  auto [Name, CaseIndex] = GetParam();
  PassCase Case = passCases()[CaseIndex];
  ASSERT_TRUE(sys::fs::exists(probesDll())) << "the probes.build test builds " << probesDll();
  std::vector<std::string> Args = Case.Args(Name);
  Args.push_back("--verify-each");
  WovenProgram W = weaveProgram(Case.Label, Name, Args);
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", W.Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Err.substr(0, 3000);
  std::string Log = W.Dir + "/probe.log", Trace = W.Dir + "/trace.json";
  std::string Hits = W.Dir + "/hits.txt";
  test::CommandResult Run = test::run(
      "dotnet", {W.Dll},
      {"WEFT_PROBE_LOG=" + Log, "WEFT_TRACE_FILE=" + Trace, "WEFT_COVERAGE_FILE=" + Hits}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  EXPECT_EQ(Run.Out, expectedOutput(Name));
  if ((Case.Label == "entry_exit" || Case.Label == "all") && !test::makesManyCalls(Name)) {
    EXPECT_TRUE(sys::fs::exists(Log)) << "the probes recorded nothing";
  }
  if (Case.Label == "coverage" || Case.Label == "all") {
    test::CommandResult R =
        test::run(test::weftTool(), {"coverage", "report", "--map", W.Dll + ".coverage.json",
                                     "--hits", Hits, "--format", "lcov"});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_NE(R.Out.find("end_of_record"), std::string::npos) << R.Out.substr(0, 500);
  }
  if (Case.Label == "trace" || Case.Label == "all") {
    Expected<json::Value> J = json::parse(test::readFile(Trace));
    ASSERT_TRUE(bool(J)) << "the trace is not JSON: " << toString(J.takeError());
    const json::Array *Events =
        J->getAsObject() ? J->getAsObject()->getArray("traceEvents") : nullptr;
    ASSERT_TRUE(Events && !Events->empty()) << "the trace has no events";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, WovenCorpus,
                         ::testing::Combine(::testing::ValuesIn(test::corpusPrograms()),
                                            ::testing::Range(0u, unsigned(passCases().size()))),
                         [](const auto &Info) {
                           return std::get<0>(Info.param) + "_" +
                                  passCases()[std::get<1>(Info.param)].Label;
                         });

// The exact sequence of probe calls of single-threaded programs.
class ProbeLog : public ::testing::TestWithParam<std::string> {};

TEST_P(ProbeLog, MatchesTheCheckedInSequence) {
  std::string Name = GetParam();
  WovenProgram W = weaveProgram("log", Name, {"--pass", probeOption("Recorder")});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::string Log = W.Dir + "/probe.log";
  test::CommandResult Run = test::run("dotnet", {W.Dll}, {"WEFT_PROBE_LOG=" + Log}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  std::string Got = test::readFile(Log);
  test::expectGolden(Got, "probes/" + Name + ".log", "the probe calls");
}

INSTANTIATE_TEST_SUITE_P(Corpus, ProbeLog,
                         ::testing::Values("Exceptions", "Generics", "Properties", "Records",
                                           "StructsAndSpans", "Switches"),
                         [](const auto &Info) { return Info.param; });

// A spec chooses the methods: the probes see exactly those, and the probe assembly's path is
// relative to the spec file.
TEST(Weave, SpecRulesChooseTheMethods) {
  std::string Dir = test::scratchDir("weave-spec");
  ASSERT_FALSE(sys::fs::copy_file(probesDll(), Dir + "/Probes.dll"));
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(test::writeFile(Spec, R"({
    "version": 1,
    "rules": [
      {"name": "shapes", "match": {"type": "*Shape*"},
       "passes": [{"name": "entry-exit", "options": {"probe-assembly": "Probes.dll",
                                                     "probe-type": "Weft.Probes.Recorder"}}]},
      {"name": "no getters", "match": {"method": "get_*"}, "exclude": true}
    ]})"));
  std::string In = test::corpusDll("Generics"), Out = Dir + "/Generics.dll";
  test::CommandResult W = test::run(test::weftTool(), {"weave", In, "-o", Out, "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "Generics.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/Generics.runtimeconfig.json"));
  std::string Log = Dir + "/probe.log";
  test::CommandResult Run = test::run("dotnet", {Out}, {"WEFT_PROBE_LOG=" + Log}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_EQ(Run.Out, expectedOutput("Generics"));
  SmallVector<StringRef, 0> Lines;
  std::string Text = test::readFile(Log);
  StringRef(Text).split(Lines, '\n', -1, false);
  std::set<std::string> Methods;
  for (StringRef L : Lines) {
    if (!L.consume_front("enter "))
      continue;
    StringRef Method = L.split(' ').first;
    auto [Type, Name] = Method.rsplit("::");
    EXPECT_TRUE(Type.contains("Shape")) << L;
    EXPECT_FALSE(Name.startswith("get_")) << L;
    Methods.insert(Method.str());
  }
  EXPECT_EQ(Methods, (std::set<std::string>{"Weft.Corpus.Generics.IShape::Describe",
                                            "Weft.Corpus.Generics.IShape::DoubleArea",
                                            "Weft.Corpus.Generics.ShapeBase::.ctor"}));
}

// A spec whose rules name nothing of the input (a type given with its namespace, as the `type`
// key does not take it) weaves nothing and says so; one that matches says nothing of the kind.
TEST(Weave, ASpecMatchingNothingSaysSo) {
  std::string Dir = test::scratchDir("weave-spec-nothing");
  std::string Spec = Dir + "/weft.json";
  std::string In = test::corpusDll("Generics"), Out = Dir + "/Generics.dll";
  ASSERT_TRUE(test::writeFile(Spec, R"({"version": 1, "rules": [{"match": {"type":
      "Weft.Corpus.Generics.ShapeBase"}, "passes": ["single-ret"]}]})"));
  test::CommandResult W = test::run(test::weftTool(), {"weave", In, "-o", Out, "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_EQ(W.Err, "weft: note: '" + In +
                       "': no method matches a rule of the spec, so nothing in it is woven\n");
  ASSERT_TRUE(test::writeFile(Spec, R"({"version": 1, "rules": [{"match": {"namespace":
      "Weft.Corpus.Generics", "type": "ShapeBase"}, "passes": ["single-ret"]}]})"));
  W = test::run(test::weftTool(), {"weave", In, "-o", Out, "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_EQ(W.Err.find("no method matches"), std::string::npos) << W.Err;
}

// The call counts of the trace pass's summary table (the times vary from run to run).
class TraceCounts : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceCounts, MatchTheCheckedInCounts) {
  std::string Name = GetParam();
  WovenProgram W = weaveProgram("trace-counts", Name, {"--pass", "trace"});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::string Trace = W.Dir + "/trace.json";
  test::CommandResult Run = test::run("dotnet", {W.Dll}, {"WEFT_TRACE_FILE=" + Trace}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  std::string Got;
  for (const std::string &Row : test::traceTableCalls(test::readFile(Trace + ".txt")))
    Got += Row + "\n";
  EXPECT_GT(Got.size(), 2u);
  test::expectGolden(Got, "trace/" + Name + ".calls", "the call counts");
}

INSTANTIATE_TEST_SUITE_P(Corpus, TraceCounts,
                         ::testing::Values("Generics", "Records", "Switches", "CallHeavy"),
                         [](const auto &Info) { return Info.param; });

// Probes that throw on every call: the program runs as if they were not there.
class ThrowingProbes : public ::testing::TestWithParam<std::string> {};

TEST_P(ThrowingProbes, ChangeNothing) {
  std::string Name = GetParam();
  WovenProgram W = weaveProgram("throwing", Name, {"--pass", probeOption("Thrower")});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult Run = test::run("dotnet", {W.Dll}, {}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  EXPECT_EQ(Run.Out, expectedOutput(Name));
}

INSTANTIATE_TEST_SUITE_P(Corpus, ThrowingProbes,
                         ::testing::Values("Exceptions", "Generics", "AsyncAwait", "Iterators",
                                           "Closures", "Records"),
                         [](const auto &Info) { return Info.param; });

TEST(Weave, SameBytesWhateverTheThreadCount) {
  std::string Outputs[3];
  const char *Threads[3] = {"1", "2", "7"};
  for (int I = 0; I < 3; ++I) {
    WovenProgram W = weaveProgram(
        std::string("threads") + Threads[I], "Linq",
        {"--pass", "single-ret", "--pass", probeOption("Recorder"), "--threads", Threads[I]});
    ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
    Outputs[I] = test::readFile(W.Dll);
  }
  EXPECT_FALSE(Outputs[0].empty());
  EXPECT_TRUE(Outputs[0] == Outputs[1]);
  EXPECT_TRUE(Outputs[0] == Outputs[2]);
}

TEST(Weave, WovenAssembliesAreNotWovenAgainUnlessForced) {
  WovenProgram W = weaveProgram("once", "Generics", {"--pass", "single-ret"});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::string Again = W.Dir + "/again.dll";
  test::CommandResult R =
      test::run(test::weftTool(), {"weave", W.Dll, "-o", Again, "--pass", "single-ret"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("already woven"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("--force"), std::string::npos) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Again));
  R = test::run(test::weftTool(),
                {"weave", W.Dll, "-o", Again, "--pass", probeOption("Recorder"), "--force"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", Again});
  EXPECT_EQ(V.ExitCode, 0) << V.Err;
}

// A probe that cannot throw is called directly; one that might goes through a trampoline.
TEST(Weave, ProbesThatCannotThrowAreCalledDirectly) {
  for (const char *Type : {"Empty", "Counting"}) {
    WovenProgram W =
        weaveProgram(std::string("direct-") + Type, "Generics", {"--pass", probeOption(Type)});
    ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
    test::CommandResult D =
        test::run(test::weftTool(), {"dump", W.Dll, "--method", "Weft.Corpus.Generics.Rect::Area"});
    ASSERT_EQ(D.ExitCode, 0) << D.Err;
    bool Direct = Type == std::string("Empty");
    std::string ProbeCall =
        "call       void [Probes]Weft.Probes." + std::string(Type) + "::OnEnter(int32)";
    std::string TrampolineCall = "call       void '<weft>'.'EntryExit<Weft.Probes." +
                                 std::string(Type) + ">'::OnEnter(int32)";
    EXPECT_EQ(D.Out.find(Direct ? ProbeCall : TrampolineCall) != std::string::npos, true)
        << Type << ":\n"
        << D.Out;
    test::CommandResult Run = test::run("dotnet", {W.Dll}, {}, 300);
    EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
    EXPECT_EQ(Run.Out, expectedOutput("Generics"));
  }
}

TEST(Weave, PassesAreListed) {
  test::CommandResult R = test::run(test::weftTool(), {"passes"});
  ASSERT_EQ(R.ExitCode, 0);
  for (const char *Want : {"single-ret", "entry-exit", "trace", "probe-assembly", "probe-type"})
    EXPECT_NE(R.Out.find(Want), std::string::npos) << Want << " missing from\n" << R.Out;
}

// A spec or probe that cannot work: exit 1, a message naming the rule and the problem, nothing
// written.
struct BadSpec {
  const char *Name;
  std::string Json;
  std::vector<const char *> MessageParts;
};

TEST(Weave, BadSpecsAndProbesAreRefusedWithTheRuleNamed) {
  std::string Probes = probesDll();
  auto Rule = [&](const std::string &Passes) {
    return R"({"version": 1, "rules": [{"name": "app", "match": {"type": "*"}, "passes": [)" +
           Passes + "]}]}";
  };
  auto EntryExit = [&](const std::string &Assembly, const std::string &Type) {
    return R"({"name": "entry-exit", "options": {"probe-assembly": ")" + Assembly +
           R"(", "probe-type": ")" + Type + R"("}})";
  };
  std::vector<BadSpec> Cases = {
      {"unknown-pass", Rule(R"("no-such-pass")"), {"'app'", "unknown pass 'no-such-pass'"}},
      {"bad-glob",
       R"({"version": 1, "rules": [{"name": "globs", "match": {"type": "[a-"}, "passes": ["single-ret"]}]})",
       {"'globs'", "[a-"}},
      {"missing-probe-assembly",
       Rule(EntryExit("no/such/Probes.dll", "Weft.Probes.Recorder")),
       {"'app'", "no/such/Probes.dll", "does not exist"}},
      {"wrong-probe-signature",
       Rule(EntryExit(Probes, "Weft.Probes.WrongSignature")),
       {"'app'", "WrongSignature::OnEnter", "does not accept"}},
      {"probe-parameters-out-of-order",
       Rule(EntryExit(Probes, "Weft.Probes.OutOfOrder")),
       {"'app'", "OutOfOrder::OnEnter", "out of order"}},
      {"no-such-probe-type",
       Rule(EntryExit(Probes, "Weft.Probes.Nowhere")),
       {"'app'", "has no type Weft.Probes.Nowhere"}},
      {"unknown-option",
       Rule(R"({"name": "single-ret", "options": {"depth": 3}})"),
       {"'app'", "has no option 'depth'"}},
  };
  std::string Dir = test::scratchDir("weave-bad-specs");
  for (const BadSpec &C : Cases) {
    std::string Spec = Dir + "/" + C.Name + ".json";
    ASSERT_TRUE(test::writeFile(Spec, C.Json));
    std::string Out = Dir + "/" + C.Name + ".dll";
    test::CommandResult R = test::run(
        test::weftTool(), {"weave", test::corpusDll("Generics"), "-o", Out, "--spec", Spec});
    EXPECT_EQ(R.ExitCode, 1) << C.Name << ": " << R.Err;
    for (const char *Part : C.MessageParts)
      EXPECT_NE(R.Err.find(Part), std::string::npos)
          << C.Name << ": '" << Part << "' missing from: " << R.Err;
    EXPECT_FALSE(sys::fs::exists(Out)) << C.Name << ": an output file was left";
  }
}

// Every method of every assembly of the shared framework, CoreLib included, woven with the most
// demanding probes (this, every argument boxed, return values, exceptions) still verifies.
TEST(Weave, EveryNetCoreAppAssemblyWovenWithEntryExitVerifies) {
  std::string Framework = test::netCoreAppDir();
  ASSERT_FALSE(Framework.empty());
  std::string Dir = test::scratchDir("weave-netcoreapp");
  std::mutex Lock;
  unsigned Woven = 0;
  std::vector<std::string> Failures;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &F : test::filesUnder(Framework, {".dll"}))
    Pool.async([&, F] {
      std::string Out = Dir + "/" + sys::path::filename(F).str();
      test::CommandResult W = test::run(
          test::weftTool(), {"weave", F, "-o", Out, "--pass", probeOption("Recorder")}, {}, 300);
      if (W.ExitCode != 0) {
        std::lock_guard<std::mutex> G(Lock);
        Failures.push_back(F + ": " + W.Err.substr(0, 500));
        return;
      }
      test::CommandResult V = test::run(test::weftTool(), {"verify", Out}, {}, 300);
      sys::fs::remove(Out);
      std::lock_guard<std::mutex> G(Lock);
      if (V.ExitCode != 0)
        Failures.push_back(F + ": " + V.Err.substr(0, 1000));
      else
        ++Woven;
    });
  Pool.wait();
  for (const std::string &F : Failures)
    ADD_FAILURE() << F;
  EXPECT_GT(Woven, 150u);
  outs() << Woven << " assemblies of " << Framework << " woven with entry-exit and verified\n";
}

TEST(Weave, CompilerWovenWithEntryExitCompilesTheCorpusToTheSameBytes) {
  ASSERT_TRUE(sys::fs::exists(probesDll()));
  test::checkRewrittenCompiler("entry-exit", {1, 3}, {"--pass", probeOption("Empty")}, {probesDll()});
}

TEST(Weave, CompilerWovenWithCoverageCompilesTheCorpusToTheSameBytes) {
  // Each woven assembly writes its hits at exit: into the scratch folder, not the current one.
  test::checkRewrittenCompiler("coverage", {2, 3}, {"--pass", "coverage"}, {},
                               {"WEFT_COVERAGE_FILE={work}/{assembly}.weft-hits"});
  // The woven compiler counted what it ran.
  SmallString<256> Hits(test::binaryDir());
  sys::path::append(Hits, "test-scratch", "compiler-coverage", "csc.weft-hits");
  std::string Text = test::readFile(Hits);
  EXPECT_TRUE(StringRef(Text).startswith("weft-hits 1 "))
      << Hits.str() << ": " << Text.substr(0, 200);
}

} // namespace

namespace {

/// Weaves \p Path with \p Uses both ways the weaver offers: whole (passes::weave, every body
/// kept, then written) and streamed (ModuleWeave, woven as the writer asks). Returns the two
/// files and the two PDB remap counts.
struct BothWays {
  std::vector<uint8_t> Whole, Streamed;
  size_t WholeRemaps = 0, StreamedRemaps = 0;
  std::string Error;
};

BothWays weaveBothWays(const std::string &Path, std::vector<spec::PassUse> Uses) {
  BothWays Out;
  spec::Spec Spec = spec::Spec::forPasses(std::move(Uses));
  for (int Streamed = 0; Streamed < 2; ++Streamed) {
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Path);
    if (!Img)
      return Out.Error = toString(Img.takeError()), Out;
    Expected<std::unique_ptr<metadata::Module>> M =
        metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
    if (!M)
      return Out.Error = toString(M.takeError()), Out;
    metadata::Editor E(**M);
    Expected<spec::Selection> Sel = spec::select(Spec, **M);
    if (!Sel)
      return Out.Error = toString(Sel.takeError()), Out;
    metadata::AssemblyResolver Resolver(metadata::AssemblyResolver::searchDirsFor(Path));
    passes::WeaveOptions WO;
    WO.Resolver = &Resolver;
    WO.InputPath = Path;
    WO.Threads = 2;
    Expected<WrittenModule> W = createStringError(inconvertibleErrorCode(), "not written");
    if (!Streamed) {
      Expected<passes::WeaveOutcome> Woven = passes::weave(**Img, E, *Sel, WO);
      if (!Woven)
        return Out.Error = toString(Woven.takeError()), Out;
      Out.WholeRemaps = Woven->Remaps.size();
      W = writeModule(**Img, E, Woven->Bodies);
    } else {
      auto Weave = passes::ModuleWeave::start(**Img, E, *Sel, WO);
      if (!Weave)
        return Out.Error = toString(Weave.takeError()), Out;
      WriteOptions O;
      bool Finished = false;
      O.AfterOriginalBodies = [&](pe::DebugDataOverrides &) {
        Finished = true;
        return (*Weave)->finish();
      };
      W = writeModule(**Img, E, [&](uint32_t Row) { return (*Weave)->body(Row); }, O);
      if (!Finished)
        return Out.Error = "AfterOriginalBodies was not called", Out;
      Out.StreamedRemaps = (*Weave)->outcome().Remaps.size();
    }
    if (!W)
      return Out.Error = toString(W.takeError()), Out;
    (Streamed ? Out.Streamed : Out.Whole) = std::move(W->Bytes);
  }
  return Out;
}

spec::PassUse passUse(std::string Name, std::vector<std::pair<std::string, std::string>> Options) {
  spec::PassUse U;
  U.Pass = std::move(Name);
  U.Rule = "--pass " + U.Pass;
  U.Options = std::move(Options);
  return U;
}

} // namespace

// The CLI streams the bodies into the writer in batches; the whole weave keeps them all. Both
// write the same bytes, with passes that add methods when they begin (trampolines of probes that
// may throw) and when they end (coverage's and trace's helpers), on programs larger than a batch.
TEST(Weave, StreamedWeaveWritesWhatTheWholeWeaveWrites) {
  std::vector<std::vector<spec::PassUse>> Cases = {
      {passUse("entry-exit", {{"probe-assembly", probesDll()},
                              {"probe-type", "Weft.Probes.Counting"}})},
      {passUse("coverage", {})},
      {passUse("trace", {}), passUse("single-ret", {})},
  };
  for (const char *Program : {"Linq", "Exceptions"})
    for (const std::vector<spec::PassUse> &Uses : Cases) {
      BothWays B = weaveBothWays(test::corpusDll(Program), Uses);
      ASSERT_TRUE(B.Error.empty()) << Program << " " << Uses[0].Pass << ": " << B.Error;
      EXPECT_FALSE(B.Whole.empty());
      EXPECT_TRUE(B.Whole == B.Streamed) << Program << " " << Uses[0].Pass;
      EXPECT_EQ(B.WholeRemaps, B.StreamedRemaps) << Program << " " << Uses[0].Pass;
    }
  // A framework assembly of many batches.
  BothWays B = weaveBothWays(test::netCoreAppDir() + "/System.Linq.dll", Cases[1]);
  ASSERT_TRUE(B.Error.empty()) << B.Error;
  EXPECT_TRUE(B.Whole == B.Streamed);
}
