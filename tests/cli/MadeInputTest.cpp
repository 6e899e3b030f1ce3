//===- tests/cli/MadeInputTest.cpp - Inputs the tests make themselves -----===//
//
// Structures the C# compiler never writes, in inputs the test suite makes from corpus programs:
//  - metadata in the uncompressed "#-" stream whose FieldPtr, MethodPtr, ParamPtr, EventPtr and
//    PropertyPtr tables list members stored elsewhere (tests/support/PtrTablesImage).
//    CoreCLR runs the program with its expected output, which shows the file is valid; `weft
//    info` names the stream and the tables; `weft dump` gives the text of the original (the labels
//    of field data, which name Field rows, follow the rows); `weft verify` passes; `weft weave`
//    writes it back in the same form with no passes (runs, verifies, dumps the same) and with
//    `trace`, which adds a type with members (runs, verifies, counts the calls of the original).
//  - a C++/CLI-shaped mixed-mode image (tests/support/MixedModeImage): `weft info` says it is
//    mixed-mode, `weft weave` refuses it with the reason, exit code 1 and no output, `weft dump`
//    and `weft verify` read it like the IL-only original, and CoreCLR takes it for x86 code.
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/Format.h"
#include "tests/support/Env.h"
#include "tests/support/Golden.h"
#include "tests/support/MixedModeImage.h"
#include "tests/support/PtrTablesImage.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using test::expectedOutput;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

// DIR/NAME.dll in a fresh folder \p Folder that holds the corpus program's runtime config, so
// that `dotnet DIR/NAME.dll` runs what is written there.
std::string programPath(StringRef Folder, StringRef Name) {
  std::string Dir = test::scratchDir(Folder);
  SmallString<256> Config(sys::path::parent_path(test::corpusDll(Name)));
  sys::path::append(Config, Name + ".runtimeconfig.json");
  EXPECT_FALSE(sys::fs::copy_file(Config, Dir + "/" + Name.str() + ".runtimeconfig.json"));
  return Dir + "/" + Name.str() + ".dll";
}

std::string writeProgram(StringRef Folder, StringRef Name, ArrayRef<uint8_t> Bytes) {
  std::string Dll = programPath(Folder, Name);
  EXPECT_TRUE(test::writeFile(Dll, toStringRef(Bytes)));
  return Dll;
}

json::Object infoJson(StringRef File) {
  test::CommandResult R = weft({"info", "--json", File.str()});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  Expected<json::Value> V = json::parse(R.Out);
  if (!V) {
    ADD_FAILURE() << toString(V.takeError());
    return {};
  }
  return std::move(*V->getAsObject());
}

int64_t tableRows(const json::Object &Info, StringRef Table) {
  const json::Object *Tables = Info.getObject("tables");
  return Tables ? Tables->getInteger(Table).getValueOr(0) : 0;
}

// --- *Ptr tables ---

class PtrTables : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    Name = GetParam();
    Original = test::corpusDll(Name);
    ASSERT_TRUE(sys::fs::exists(Original))
        << Original << " was not built (the corpus.build test does that)";
    Expected<test::PtrTablesImage> M = test::makePtrTablesImage(Original);
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    Made = std::move(*M);
    Dll = writeProgram("ptr-tables-" + Name, Name, Made.Bytes);
  }

  // The dump of the made file with each field-data label (D_ and the Field row) turned back into
  // the label of the same field in the original: the one difference the dumps may have.
  std::string dumpWithOriginalLabels(StringRef File) {
    test::CommandResult R = weft({"dump", File.str()});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    std::vector<uint32_t> OriginalRow(Made.FieldRow.size(), 0);
    for (uint32_t Old = 1; Old < Made.FieldRow.size(); ++Old)
      OriginalRow[Made.FieldRow[Old]] = Old;
    std::string Out;
    StringRef Rest = R.Out;
    Regex Label("( at |\\.data )D_([0-9A-F]{8})");
    SmallVector<StringRef, 3> Match;
    while (Label.match(Rest, &Match)) {
      size_t At = Match[0].data() - Rest.data();
      uint32_t Row = 0;
      EXPECT_FALSE(Match[2].getAsInteger(16, Row));
      EXPECT_LT(Row, OriginalRow.size()) << Match[0];
      Out += (Rest.substr(0, At) + Match[1] + "D_").str() +
             hexstr(Row < OriginalRow.size() ? OriginalRow[Row] : Row, false, 8);
      Rest = Rest.drop_front(At + Match[0].size());
    }
    return Out + Rest.str();
  }

  std::string Name, Original, Dll;
  test::PtrTablesImage Made;
};

// The made file stores members where a reader that ignores the *Ptr tables finds others: the
// MethodPtr table, read as stored, lists the original's methods in their order, and the rows at
// the same positions are other methods.
TEST_P(PtrTables, StoresMembersInAnotherOrderThanTheirTypesListThem) {
  auto Open = [](StringRef Path,
                 std::unique_ptr<pe::Image> &Img) -> std::unique_ptr<metadata::Module> {
    Expected<std::unique_ptr<pe::Image>> I = pe::Image::open(Path);
    if (!I) {
      ADD_FAILURE() << toString(I.takeError());
      return nullptr;
    }
    Img = std::move(*I);
    Expected<std::unique_ptr<metadata::Module>> M =
        metadata::Module::create(Img->metadata(), Img->metadataOffset());
    if (!M) {
      ADD_FAILURE() << toString(M.takeError());
      return nullptr;
    }
    return std::move(*M);
  };
  std::unique_ptr<pe::Image> ImgA, ImgB;
  std::unique_ptr<metadata::Module> A = Open(Original, ImgA), B = Open(Dll, ImgB);
  ASSERT_TRUE(A && B);
  using metadata::TableId;
  using metadata::MethodDefCol::Name;
  uint32_t Methods = A->rowCount(TableId::MethodDef);
  ASSERT_GT(Methods, 20u) << "the program has too few methods to show anything";
  ASSERT_EQ(B->rowCount(TableId::MethodPtr), Methods);
  unsigned Elsewhere = 0;
  for (uint32_t I = 1; I <= Methods; ++I) {
    StringRef Listed = A->getString(A->get(TableId::MethodDef, I, Name));
    uint32_t Row = B->get(TableId::MethodPtr, I, 0);
    EXPECT_EQ(B->getString(B->get(TableId::MethodDef, Row, Name)), Listed) << "position " << I;
    Elsewhere += B->getString(B->get(TableId::MethodDef, I, Name)) != Listed;
  }
  EXPECT_GT(Elsewhere, Methods * 3 / 4);
}

TEST_P(PtrTables, RunsOnCoreClrWithItsExpectedOutput) {
  test::CommandResult Run = test::run("dotnet", {Dll}, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_EQ(test::firstDifference(expectedOutput(Name), Run.Out), "");
}

TEST_P(PtrTables, InfoNamesTheUncompressedStreamAndThePtrTables) {
  json::Object Info = infoJson(Dll), Before = infoJson(Original);
  std::vector<std::string> Streams;
  if (const json::Array *S = Info.getArray("streams"))
    for (const json::Value &V : *S)
      Streams.push_back(V.getAsObject()->getString("name").getValueOr("").str());
  EXPECT_EQ(Streams, (std::vector<std::string>{"#-", "#Strings", "#US", "#GUID", "#Blob"}));
  for (auto [Ptr, Member] : {std::pair("FieldPtr", "Field"), std::pair("MethodPtr", "MethodDef"),
                             std::pair("ParamPtr", "Param"), std::pair("EventPtr", "Event"),
                             std::pair("PropertyPtr", "Property")}) {
    EXPECT_EQ(tableRows(Info, Member), tableRows(Before, Member)) << Member;
    EXPECT_EQ(tableRows(Info, Ptr), tableRows(Before, Member)) << Ptr;
  }
  EXPECT_EQ(Info.getInteger("methods_with_body"), Before.getInteger("methods_with_body"));
  EXPECT_EQ(Info.getInteger("il_bytes"), Before.getInteger("il_bytes"));
  test::CommandResult Text = weft({"info", Dll});
  EXPECT_TRUE(StringRef(Text.Out).contains("MethodPtr")) << Text.Out;
}

TEST_P(PtrTables, DumpsLikeTheOriginal) {
  test::CommandResult A = weft({"dump", Original});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  EXPECT_EQ(test::firstDifference(A.Out, dumpWithOriginalLabels(Dll)), "");
}

TEST_P(PtrTables, Verifies) {
  test::CommandResult V = weft({"verify", Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;
}

// `weft weave` with no passes keeps the "#-" stream and the *Ptr tables, and the rows where they
// are: the output dumps exactly like its input.
TEST_P(PtrTables, RoundTripKeepsTheFormAndRunsVerifiesAndDumpsTheSame) {
  std::string Out = programPath("ptr-tables-roundtrip-" + Name, Name);
  test::CommandResult W = weft({"weave", Dll, "-o", Out});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  json::Object Info = infoJson(Out), Before = infoJson(Dll);
  EXPECT_EQ(*Info.getArray("streams"), *Before.getArray("streams"));
  EXPECT_EQ(*Info.getObject("tables"), *Before.getObject("tables"));
  test::CommandResult V = weft({"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;
  test::CommandResult A = weft({"dump", Dll}), B = weft({"dump", Out});
  ASSERT_EQ(B.ExitCode, 0) << B.Err;
  EXPECT_EQ(test::firstDifference(A.Out, B.Out), "");
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_EQ(test::firstDifference(expectedOutput(Name), Run.Out), "");
}

// \p Input woven with `weft weave --pass trace` (which must verify) and run: what it printed and
// the calls it counted, as "calls<tab>method" lines, sorted (the trace lists methods by row).
struct TracedRun {
  std::string Woven, Printed;
  std::vector<std::string> Calls;
};

TracedRun traceRun(StringRef Input, StringRef Folder, StringRef Name) {
  TracedRun T;
  T.Woven = programPath(Folder, Name);
  test::CommandResult W = weft({"weave", Input.str(), "-o", T.Woven, "--pass", "trace"});
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  test::CommandResult V = weft({"verify", T.Woven});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;
  std::string Trace = sys::path::parent_path(T.Woven).str() + "/trace.json";
  test::CommandResult Run = test::run("dotnet", {T.Woven}, {"WEFT_TRACE_FILE=" + Trace}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  T.Printed = Run.Out;
  T.Calls = test::traceTableCalls(test::readFile(Trace + ".txt"));
  std::sort(T.Calls.begin(), T.Calls.end());
  return T;
}

// A pass that adds a type with fields and methods appends their rows to the *Ptr tables as well:
// the woven file keeps its form, runs, and counts the same calls of the same methods as the
// original woven the same way.
TEST_P(PtrTables, WovenWithTraceCountsTheCallsOfTheOriginal) {
  TracedRun Made = traceRun(Dll, "ptr-tables-trace-" + Name, Name);
  TracedRun Before = traceRun(Original, "ptr-tables-trace-original-" + Name, Name);
  EXPECT_GT(Made.Calls.size(), 10u);
  EXPECT_EQ(Made.Calls, Before.Calls);
  EXPECT_EQ(test::firstDifference(expectedOutput(Name), Made.Printed), "");
  json::Object Woven = infoJson(Made.Woven);
  for (auto [Ptr, Member] : {std::pair("FieldPtr", "Field"), std::pair("MethodPtr", "MethodDef"),
                             std::pair("ParamPtr", "Param")})
    EXPECT_EQ(tableRows(Woven, Ptr), tableRows(Woven, Member)) << Ptr;
  EXPECT_GT(tableRows(Woven, "MethodDef"), tableRows(infoJson(Dll), "MethodDef"));
}

// Records: hundreds of methods and properties; Generics: generic parameters of methods, whose
// rows are sorted by method; Attributes: parameters with constants, marshalling and attributes,
// and field data; StructsAndSpans: explicit field offsets; DelegatesEvents: events.
INSTANTIATE_TEST_SUITE_P(Corpus, PtrTables,
                         ::testing::Values("Records", "Generics", "Attributes", "StructsAndSpans",
                                           "DelegatesEvents"),
                         [](const auto &Info) { return Info.param; });

// --- a mixed-mode image ---

class MixedMode : public ::testing::Test {
protected:
  static constexpr const char *Name = "Closures";

  void SetUp() override {
    Original = test::corpusDll(Name);
    ASSERT_TRUE(sys::fs::exists(Original))
        << Original << " was not built (the corpus.build test does that)";
    Expected<test::MixedModeImage> M = test::makeMixedModeImage(Original);
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    Made = std::move(*M);
    Dll = writeProgram("mixed-mode", Name, Made.Bytes);
  }

  std::string Original, Dll;
  test::MixedModeImage Made;
};

TEST_F(MixedMode, InfoSaysMixedMode) {
  json::Object Info = infoJson(Dll);
  EXPECT_EQ(Info.getBoolean("mixed_mode"), true);
  EXPECT_EQ(Info.getBoolean("ready_to_run"), false);
  const json::Object *Cli = Info.getObject("cli");
  ASSERT_NE(Cli, nullptr);
  EXPECT_EQ(Cli->getBoolean("il_only"), false);
  EXPECT_EQ(Cli->getBoolean("native_entry_point"), true);
  EXPECT_EQ(Cli->getString("entry_point").getValueOr(""),
            "0x" + hexstr(Made.NativeEntryPoint, false, 8));
  test::CommandResult Text = weft({"info", Dll});
  EXPECT_EQ(Text.ExitCode, 0) << Text.Err;
  EXPECT_TRUE(StringRef(Text.Out).contains("mixed-mode:        yes (native code beside IL)"))
      << Text.Out;
  EXPECT_EQ(infoJson(Original).getBoolean("mixed_mode"), false);
}

TEST_F(MixedMode, WeaveRefusesItWithTheReasonAndWritesNothing) {
  std::string Dir = sys::path::parent_path(Dll).str();
  std::string Out = Dir + "/woven.dll";
  test::CommandResult W = weft({"weave", Dll, "-o", Out});
  EXPECT_EQ(W.ExitCode, 1);
  EXPECT_TRUE(StringRef(W.Err).contains("weft: error: '" + Dll +
                                        "': a mixed-mode (C++/CLI) image: its native code"))
      << W.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
  // In place: refused the same way, and the input is left as it was.
  W = weft({"weave", Dll, "--in-place", "--pass", "single-ret"});
  EXPECT_EQ(W.ExitCode, 1);
  EXPECT_TRUE(StringRef(W.Err).contains("mixed-mode (C++/CLI)")) << W.Err;
  EXPECT_TRUE(test::readFile(Dll) == toStringRef(Made.Bytes));
  // Nothing else (no temporary file) is left in the folder.
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    Files.push_back(sys::path::filename(It->path()).str());
  std::sort(Files.begin(), Files.end());
  EXPECT_EQ(Files, (std::vector<std::string>{std::string(Name) + ".dll",
                                             std::string(Name) + ".runtimeconfig.json"}));
}

// The IL and metadata are the original's: the dump differs only where the CLI header does (its
// flags, and the managed entry point that a native one replaced), and the methods verify.
TEST_F(MixedMode, DumpAndVerifyReadItLikeTheOriginal) {
  test::CommandResult A = weft({"dump", Original}), B = weft({"dump", Dll});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  ASSERT_EQ(B.ExitCode, 0) << B.Err;
  SmallVector<StringRef, 0> LA, LB;
  StringRef(A.Out).split(LA, '\n');
  StringRef(B.Out).split(LB, '\n');
  std::vector<std::string> OnlyA, OnlyB;
  for (StringRef L : LA)
    if (!is_contained(LB, L))
      OnlyA.push_back(L.trim().str());
  for (StringRef L : LB)
    if (!is_contained(LA, L))
      OnlyB.push_back(L.trim().str());
  EXPECT_EQ(LA.size(), LB.size() + 1);
  EXPECT_EQ(OnlyA, (std::vector<std::string>{".corflags 0x00000001  // ILONLY", ".entrypoint"}));
  EXPECT_EQ(OnlyB, (std::vector<std::string>{".corflags 0x00000010  // NATIVE_ENTRYPOINT"}));
  test::CommandResult V = weft({"verify", Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;
}

// The runtime's loader takes an x86 image without the IL-only flag for native x86 code, as it
// takes a C++/CLI one, and does not load it into a 64-bit process. (The original runs.)
TEST_F(MixedMode, CoreClrDoesNotLoadItIntoA64BitProcess) {
  test::CommandResult Run = test::run("dotnet", {Dll}, {}, 120);
  EXPECT_NE(Run.ExitCode, 0);
  EXPECT_TRUE(StringRef(Run.Err).contains("Could not load file or assembly '" + Dll +
                                          "'. The assembly architecture is not compatible"))
      << Run.Err;
  test::CommandResult Good = test::run("dotnet", {Original}, {}, 120);
  EXPECT_EQ(Good.ExitCode, 0) << Good.Err;
}

} // namespace
