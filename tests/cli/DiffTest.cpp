//===- tests/cli/DiffTest.cpp - weft diff on real assemblies --------------===//
//
// `weft diff` on corpus programs and their woven outputs: the methods it lists are those the
// spec chose, two builds of one source are the same, its JSON follows docs/weft-diff.schema.json,
// --woven finds the input (and says so when it is gone or changed), the baseline check fails
// when a pass option changes, and bad input or usage exits with 2.
//
//===----------------------------------------------------------------------===//
#include "iltext/Disassembler.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/JsonSchema.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <set>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

bool contains(StringRef Text, StringRef Part) { return Text.contains(Part); }

std::string schemaFile() { return test::sourceDir() + "/docs/weft-diff.schema.json"; }

/// A copy of corpus program \p Name in a scratch folder's "in", and where its woven output goes.
struct Case {
  std::string Dir, Input, Output;
};
Case makeCase(StringRef Folder, StringRef Name) {
  Case C;
  C.Dir = test::scratchDir(Folder);
  C.Input = C.Dir + "/in/" + Name.str() + ".dll";
  C.Output = C.Dir + "/out/" + Name.str() + ".dll";
  EXPECT_FALSE(sys::fs::create_directories(C.Dir + "/in"));
  EXPECT_FALSE(sys::fs::create_directories(C.Dir + "/out"));
  EXPECT_FALSE(sys::fs::copy_file(test::corpusDll(Name), C.Input));
  return C;
}

test::CommandResult weave(const Case &C, std::vector<std::string> Passes) {
  std::vector<std::string> Args{"weave", C.Input, "-o", C.Output};
  Args.insert(Args.end(), Passes.begin(), Passes.end());
  return weft(Args);
}

json::Value parseJson(const std::string &Text) {
  Expected<json::Value> V = json::parse(Text);
  EXPECT_TRUE(bool(V)) << toString(V.takeError()) << "\n" << Text.substr(0, 2000);
  return V ? std::move(*V) : json::Value(nullptr);
}

/// The names of the methods with change \p Change in `weft diff --json` output.
std::set<std::string> methodsWith(const json::Value &Diff, StringRef Change) {
  std::set<std::string> Names;
  if (const json::Object *O = Diff.getAsObject())
    if (const json::Array *Methods = O->getArray("methods"))
      for (const json::Value &M : *Methods)
        if (M.getAsObject()->getString("change") == Optional<StringRef>(Change))
          Names.insert(M.getAsObject()->getString("name")->str());
  return Names;
}

/// The names (as weft diff gives them) of the methods with a body that \p SpecFile gives passes
/// to in \p Dll, through the spec's own selection.
std::set<std::string> methodsTheSpecMatches(const std::string &SpecFile, const std::string &Dll) {
  std::set<std::string> Names;
  Expected<spec::Spec> S = spec::Spec::load(SpecFile);
  EXPECT_TRUE(bool(S)) << toString(S.takeError());
  auto Img = pe::Image::open(Dll);
  EXPECT_TRUE(bool(Img)) << toString(Img.takeError());
  if (!S || !Img)
    return Names;
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  EXPECT_TRUE(bool(M)) << toString(M.takeError());
  if (!M)
    return Names;
  Expected<spec::Selection> Sel = spec::select(*S, **M);
  EXPECT_TRUE(bool(Sel)) << toString(Sel.takeError());
  if (!Sel)
    return Names;
  metadata::NamePrinter P(**M);
  for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row)
    if (!Sel->passesOf(Row).empty()) {
      std::string Name;
      raw_string_ostream OS(Name);
      P.methodToken(OS, metadata::makeToken(metadata::TableId::MethodDef, Row), {});
      Names.insert(OS.str());
    }
  return Names;
}

TEST(Diff, WovenWithASpecListsTheMethodsTheSpecMatched) {
  Case C = makeCase("diff-spec", "Closures");
  std::string Spec = C.Dir + "/spec.json";
  ASSERT_TRUE(test::writeFile(Spec, R"({"version": 1, "rules": [
    {"match": {"type": "Counter"}, "passes": ["coverage"]},
    {"match": {"method": "Make*"}, "passes": ["coverage"]}]})"));
  std::set<std::string> Matched = methodsTheSpecMatches(Spec, C.Input);
  ASSERT_GE(Matched.size(), 3u);
  ASSERT_EQ(weave(C, {"--spec", Spec}).ExitCode, 0);
  test::CommandResult R = weft({"diff", "--woven", C.Output, "--json"});
  ASSERT_EQ(R.ExitCode, 1) << R.Err;
  json::Value D = parseJson(R.Out);
  EXPECT_EQ(methodsWith(D, "changed"), Matched);
  EXPECT_TRUE(methodsWith(D, "removed").empty());
  for (const std::string &Added : methodsWith(D, "added"))
    EXPECT_TRUE(contains(Added, "'<weft>'")) << Added << " is not one of weft's methods";
  for (const json::Value &M : *D.getAsObject()->getArray("methods")) {
    const json::Object &O = *M.getAsObject();
    if (O.getString("change") != Optional<StringRef>("changed"))
      continue;
    const json::Array *Passes = O.getArray("passes");
    ASSERT_TRUE(Passes && Passes->size() == 1) << *O.getString("name");
    EXPECT_EQ((*Passes)[0].getAsString(), Optional<StringRef>("coverage"));
  }
  // The text says the same, one header line a method.
  R = weft({"diff", "--woven", C.Output});
  EXPECT_EQ(R.ExitCode, 1);
  for (const std::string &Name : Matched)
    EXPECT_TRUE(contains(R.Out, "method changed: " + Name + "  [coverage]\n")) << Name;
  EXPECT_TRUE(contains(R.Out, "type added: '<weft>'.Woven")) << R.Out.substr(0, 2000);
}

TEST(Diff, WholeProgramWovenEveryMethodWithABodyChanged) {
  Case C = makeCase("diff-all", "Generics");
  ASSERT_EQ(weave(C, {"--pass", "coverage"}).ExitCode, 0);
  test::CommandResult R = weft({"diff", C.Input, C.Output, "--stat"});
  ASSERT_EQ(R.ExitCode, 1) << R.Err;
  test::CommandResult J = weft({"diff", C.Input, C.Output, "--json", "--stat"});
  json::Value D = parseJson(J.Out);
  const json::Object *Summary = D.getAsObject()->getObject("summary");
  ASSERT_NE(Summary, nullptr);
  int64_t Changed = *Summary->getInteger("methods_changed");
  std::string Spec = C.Dir + "/all.json";
  ASSERT_TRUE(test::writeFile(Spec, R"({"version": 1, "rules": [{"passes": ["coverage"],
    "match": {"compilerGenerated": "include", "stateMachines": "include"}}]})"));
  EXPECT_EQ(size_t(Changed), methodsTheSpecMatches(Spec, C.Input).size());
  EXPECT_TRUE(contains(R.Out, "(" + std::to_string(Changed) + " changed, 6 added, 0 removed)"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, " metadata: ")) << R.Out;
  EXPECT_TRUE(contains(R.Out, " | ")) << R.Out;
}

// The second build is not deterministic (another MVID and PDB id): other bytes, the same IL.
TEST(Diff, TwoBuildsOfOneSourceAreTheSame) {
  std::string Dir = test::scratchDir("diff-rebuild");
  test::CommandResult B =
      test::run("dotnet",
                {"build", test::sourceDir() + "/corpus/Closures/Closures.csproj",
                 "-p:ArtifactsPath=" + Dir, "-p:Deterministic=false", "-nologo", "-v:q"},
                {}, 600);
  ASSERT_EQ(B.ExitCode, 0) << B.Out << B.Err;
  std::string First = test::corpusDll("Closures");
  std::string Second = Dir + "/bin/Closures/release/Closures.dll";
  EXPECT_FALSE(test::readFile(First) == test::readFile(Second)) << "the builds are the same bytes";
  test::CommandResult R = weft({"diff", First, Second});
  EXPECT_EQ(R.ExitCode, 0) << R.Out.substr(0, 4000) << R.Err;
  EXPECT_TRUE(R.Out.empty()) << R.Out.substr(0, 4000);
  R = weft({"diff", First, Second, "--json"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  json::Value D = parseJson(R.Out);
  EXPECT_EQ(D.getAsObject()->getBoolean("same"), Optional<bool>(true));
  EXPECT_TRUE(test::schemaProblemsInText(schemaFile(), R.Out).empty());
}

TEST(Diff, JsonFollowsItsSchema) {
  Case C = makeCase("diff-json", "Closures");
  ASSERT_EQ(weave(C, {"--pass", "coverage"}).ExitCode, 0);
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"diff", "--woven", C.Output, "--json"},
        std::vector<std::string>{"diff", "--woven", C.Output, "--json", "--stat"},
        std::vector<std::string>{"diff", C.Input, C.Input, "--json"},
        std::vector<std::string>{"diff", C.Input, C.Output, "--json", "--method", "Main"}}) {
    test::CommandResult R = weft(Args);
    ASSERT_LE(R.ExitCode, 1) << R.Err;
    std::vector<std::string> Problems = test::schemaProblemsInText(schemaFile(), R.Out);
    EXPECT_TRUE(Problems.empty()) << join(Problems, "\n") << "\n" << R.Out.substr(0, 2000);
  }
  // The check fails where the output would not follow the schema.
  test::CommandResult R = weft({"diff", "--woven", C.Output, "--json"});
  json::Value D = parseJson(R.Out);
  json::Object &O = *D.getAsObject();
  O.erase("summary");
  O["extra"] = 1;
  (*(*O.getArray("methods"))[0].getAsObject())["change"] = "renamed";
  json::Object &Hunk =
      *(*(*O.getArray("methods"))[0].getAsObject()->getArray("hunks"))[0].getAsObject();
  (*Hunk.getArray("lines"))[0] = "no sign";
  std::string Broken;
  raw_string_ostream(Broken) << D;
  std::vector<std::string> Problems = test::schemaProblemsInText(schemaFile(), Broken);
  std::string All = join(Problems, "\n");
  EXPECT_TRUE(contains(All, "/: missing required \"summary\"")) << All;
  EXPECT_TRUE(contains(All, "/extra: not allowed")) << All;
  EXPECT_TRUE(contains(All, "/methods/0/change: not one of")) << All;
  EXPECT_TRUE(contains(All, "/methods/0/hunks/0/lines/0: does not match")) << All;
}

// With all the context, the hunk of a changed method is its two texts, line for line.
TEST(Diff, FullContextGivesBothTexts) {
  Case C = makeCase("diff-context", "Switches");
  ASSERT_EQ(weave(C, {"--pass", "single-ret"}).ExitCode, 0);
  test::CommandResult R = weft({"diff", "--woven", C.Output, "--json", "-U", "100000"});
  ASSERT_EQ(R.ExitCode, 1) << R.Err;
  json::Value D = parseJson(R.Out);
  auto Texts = [](const std::string &Dll) {
    std::map<std::string, std::string> ByName;
    auto Img = pe::Image::open(Dll);
    auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
    text::DisassemblerOptions DO;
    DO.StableLabels = true;
    std::vector<text::MethodText> List;
    EXPECT_FALSE(bool(text::disassembleMethods(**Img, **M, DO, List)));
    for (text::MethodText &T : List)
      ByName[T.Name] = std::move(T.Text);
    return ByName;
  };
  std::map<std::string, std::string> A = Texts(C.Input), B = Texts(C.Output);
  unsigned Checked = 0;
  for (const json::Value &M : *D.getAsObject()->getArray("methods")) {
    const json::Object &O = *M.getAsObject();
    if (O.getString("change") != Optional<StringRef>("changed"))
      continue;
    std::string Name = O.getString("name")->str(), Before, After;
    const json::Array &Hunks = *O.getArray("hunks");
    ASSERT_EQ(Hunks.size(), 1u) << Name;
    for (const json::Value &L : *Hunks[0].getAsObject()->getArray("lines")) {
      StringRef Line = *L.getAsString();
      if (Line[0] != '+')
        Before += Line.drop_front().str() + "\n";
      if (Line[0] != '-')
        After += Line.drop_front().str() + "\n";
    }
    EXPECT_EQ(Before, A[Name]) << Name;
    EXPECT_EQ(After, B[Name]) << Name;
    ++Checked;
  }
  EXPECT_GT(Checked, 0u);
}

TEST(Diff, BaselineFailsWhenAPassOptionChanges) {
  Case C = makeCase("diff-baseline", "Closures");
  std::string Baseline = C.Dir + "/woven-il.json";
  ASSERT_EQ(weave(C, {"--pass", "trace"}).ExitCode, 0);
  // Written the first time, then checked.
  test::CommandResult R = weft({"diff", "--woven", C.Output, "--baseline", Baseline});
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_TRUE(contains(R.Out, "wrote the baseline")) << R.Out;
  std::string Written = test::readFile(Baseline);
  EXPECT_TRUE(contains(Written, "\"trace\"")) << Written.substr(0, 2000);
  EXPECT_TRUE(contains(Written, "\"sha256\"")) << Written.substr(0, 2000);
  R = weft({"diff", "--woven", C.Output, "--baseline", Baseline});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_TRUE(contains(R.Out, "as reviewed")) << R.Out;
  // Woven again, the same: still as reviewed.
  ASSERT_EQ(weave(C, {"--pass", "trace"}).ExitCode, 0);
  EXPECT_EQ(weft({"diff", "--woven", C.Output, "--baseline", Baseline}).ExitCode, 0);
  // Another option of the same pass.
  ASSERT_EQ(weave(C, {"--pass", "trace:mode=summary"}).ExitCode, 0);
  R = weft({"diff", "--woven", C.Output, "--baseline", Baseline});
  EXPECT_EQ(R.ExitCode, 1) << R.Out << R.Err;
  EXPECT_TRUE(contains(R.Out, "passes: the baseline has [trace], now [trace:mode=summary]"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "method differs from the baseline: ")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "differences from the baseline")) << R.Out;
  EXPECT_EQ(test::readFile(Baseline), Written) << "a check leaves the baseline as it is";
  // Updated, it holds again; two files compared take a baseline too.
  R = weft({"diff", "--woven", C.Output, "--baseline", Baseline, "--update-baseline"});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_EQ(weft({"diff", C.Input, C.Output, "--baseline", Baseline}).ExitCode, 0);
  // A baseline that is no baseline is trouble.
  ASSERT_TRUE(test::writeFile(Baseline, "{\"format\": \"something else\"}"));
  R = weft({"diff", "--woven", C.Output, "--baseline", Baseline});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "'" + Baseline + "': not a baseline")) << R.Err;
}

TEST(Diff, WovenFindsTheInputOrSaysWhyNot) {
  Case C = makeCase("diff-woven", "Generics");
  ASSERT_EQ(weave(C, {"--pass", "single-ret"}).ExitCode, 0);
  test::CommandResult R = weft({"diff", "--woven", C.Output});
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_TRUE(contains(R.Out, "--- " + C.Input + "\n+++ " + C.Output + "\n")) << R.Out;
  // Changed since.
  std::string Bytes = test::readFile(C.Input);
  ASSERT_TRUE(test::writeFile(C.Input, Bytes + std::string(16, '\0')));
  R = weft({"diff", "--woven", C.Output});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "weft: error: '" + C.Input + "': the file was changed since '" +
                                  C.Output + "' was woven from it"))
      << R.Err;
  // Gone.
  ASSERT_FALSE(sys::fs::remove(C.Input));
  R = weft({"diff", "--woven", C.Output});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(
      contains(R.Err, "'" + C.Input + "': the file '" + C.Output + "' was woven from is gone"))
      << R.Err;
  // Woven in place: the input is the output now.
  ASSERT_TRUE(test::writeFile(C.Input, Bytes));
  ASSERT_EQ(weft({"weave", C.Input, "--in-place", "--pass", "single-ret"}).ExitCode, 0);
  R = weft({"diff", "--woven", C.Input});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "was woven in place")) << R.Err;
  // Never woven.
  R = weft({"diff", "--woven", test::corpusDll("Generics")});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "not woven by weft")) << R.Err;
}

// Two weaves of one input differ in their records' values and in what the passes added; two
// programs in their types and assemblies.
TEST(Diff, MetadataChangesAreNamed) {
  Case C = makeCase("diff-metadata", "Generics");
  std::string Other = C.Dir + "/other/Generics.dll";
  ASSERT_FALSE(sys::fs::create_directories(C.Dir + "/other"));
  ASSERT_EQ(weave(C, {"--pass", "single-ret"}).ExitCode, 0);
  ASSERT_EQ(weft({"weave", C.Input, "-o", Other, "--pass", "coverage"}).ExitCode, 0);
  test::CommandResult R = weft({"diff", C.Output, Other});
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_TRUE(contains(R.Out, "field changed: '<weft>'.Woven::Passes  (string, flags 0x8056 = "
                              "\"single-ret\\t"))
      << R.Out.substr(0, 3000);
  EXPECT_FALSE(contains(R.Out, "'<weft>'.Woven::InputSha256")) << "the same input";
  EXPECT_TRUE(contains(R.Out, "type added: '<weft>'.Coverage")) << R.Out.substr(0, 3000);
  R = weft({"diff", test::corpusDll("Closures"), C.Input, "--stat"});
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  R = weft({"diff", test::corpusDll("Closures"), C.Input});
  EXPECT_TRUE(contains(R.Out, "assembly removed: Closures  (version ")) << R.Out.substr(0, 3000);
  EXPECT_TRUE(contains(R.Out, "assembly added: Generics  (version ")) << R.Out.substr(0, 3000);
  EXPECT_TRUE(contains(R.Out, "type removed: Weft.Corpus.Closures.Counter  (flags "))
      << R.Out.substr(0, 3000);
  EXPECT_TRUE(contains(R.Out, "type added: Weft.Corpus.Generics.Point  (flags "))
      << R.Out.substr(0, 3000);
  EXPECT_TRUE(contains(R.Out, "method removed: instance void Weft.Corpus.Closures.Counter::.ctor("))
      << R.Out.substr(0, 3000);
}

TEST(Diff, MethodFilterNarrowsToMatchingMethods) {
  Case C = makeCase("diff-method", "Generics");
  ASSERT_EQ(weave(C, {"--pass", "coverage"}).ExitCode, 0);
  test::CommandResult R = weft({"diff", C.Input, C.Output, "--method", "*Point::Equals"});
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_TRUE(contains(R.Out, "method changed: instance bool Weft.Corpus.Generics.Point::Equals("))
      << R.Out;
  SmallVector<StringRef, 64> Lines;
  StringRef(R.Out).split(Lines, '\n');
  size_t Headers = count_if(Lines, [](StringRef L) { return L.startswith("method "); });
  EXPECT_EQ(Headers, 1u) << R.Out;
  EXPECT_FALSE(contains(R.Out, "type added")) << "no metadata with --method";
  // A method no weave changed.
  R = weft({"diff", C.Input, C.Output, "--method", "NoSuchMethod"});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
}

TEST(Diff, BadInputAndUsageExitWithTwo) {
  std::string Dll = test::corpusDll("Generics");
  std::string Bytes = test::readFile(Dll);
  std::string Dir = test::scratchDir("diff-bad");
  std::string Cut = Dir + "/cut.dll";
  ASSERT_TRUE(test::writeFile(Cut, Bytes.substr(0, Bytes.size() / 2)));
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"diff", Dll, Cut}, std::vector<std::string>{"diff", Cut, Dll},
        std::vector<std::string>{"diff", "--woven", Cut}}) {
    test::CommandResult R = weft(Args);
    EXPECT_EQ(R.ExitCode, 2) << R.Err;
    EXPECT_TRUE(contains(R.Err, "weft: error: '" + Cut + "': ")) << R.Err;
    EXPECT_TRUE(contains(R.Err, "offset 0x")) << R.Err;
    EXPECT_TRUE(R.Out.empty()) << R.Out;
  }
  test::CommandResult R = weft({"diff", Dll, Dir + "/missing.dll"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "missing.dll': No such file or directory")) << R.Err;
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"diff", Dll}, std::vector<std::string>{"diff"},
        std::vector<std::string>{"diff", "--woven", Dll, Dll},
        std::vector<std::string>{"diff", Dll, Dll, "--update-baseline"},
        std::vector<std::string>{"diff", Dll, Dll, "--baseline", Dir + "/b.json", "--json"},
        std::vector<std::string>{"diff", Dll, Dll, "--method", "[bad"},
        std::vector<std::string>{"diff", Dll, Dll, "--no-such-option"}}) {
    R = weft(Args);
    EXPECT_EQ(R.ExitCode, 2) << join(Args, " ") << "\n" << R.Err;
    EXPECT_TRUE(contains(R.Err, "weft: error: ")) << R.Err;
  }
}

} // namespace
