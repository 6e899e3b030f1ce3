//===- tests/cli/CliTest.cpp - The weft command's behaviour ---------------===//
//
// Exit codes, messages and outputs of `weft info` and `weft dump` as a user sees them: errors name
// the file, bad input exits non-zero and leaves no output file, JSON parses.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

using test::frameworkFile;

bool contains(StringRef Text, StringRef Part) { return Text.contains(Part); }

TEST(Cli, UsageErrorsExitWithTwo) {
  test::CommandResult R = weft({});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "weft: error:")) << R.Err;
  R = weft({"frobnicate"});
  EXPECT_EQ(R.ExitCode, 2);
  R = weft({"dump"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "file")) << R.Err;
  R = weft({"--help"});
  EXPECT_EQ(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "dump")) << R.Out;
}

TEST(Cli, ResponseFileArgumentsAreSplitWithoutAShell) {
  // Each argument on its own line or several to a line, quoted as a POSIX shell quotes words; a
  // `$(...)` or a backtick is text, not a command.
  std::string Dir = test::scratchDir("cli-response-file");
  std::string Dll = Dir + "/it's \"q\" $(touch pwned) `touch pwned`.dll";
  ASSERT_TRUE(test::writeFile(Dll, test::readFile(frameworkFile("System.Linq.dll"))));
  ASSERT_TRUE(test::writeFile(Dir + "/args.rsp",
                              "'info'\n'" + Dir + "/it'\"'\"'s \"q\" $(touch pwned) `touch "
                                                   "pwned`.dll' --json\n"));
  ASSERT_TRUE(test::writeFile(Dir + "/outer.rsp", "@" + Dir + "/args.rsp\n"));
  test::CommandResult R = test::run(test::weftTool(), {"@" + Dir + "/outer.rsp"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "\"tables\"")) << R.Out;
  EXPECT_FALSE(sys::fs::exists(Dir + "/pwned"));
  EXPECT_FALSE(sys::fs::exists("pwned"));
  R = weft({"@" + Dir + "/none.rsp"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_EQ(R.Err, "weft: error: cannot read the response file '" + Dir +
                       "/none.rsp': no such file\n");
}

TEST(Cli, MissingFileIsNamed) {
  test::CommandResult R = weft({"info", "no-such-file.dll"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "weft: error: 'no-such-file.dll': No such file or directory"))
      << R.Err;
}

TEST(Cli, NotAPEFileIsNamedWithStructureAndOffset) {
  std::string Dir = test::scratchDir("cli-not-pe");
  std::string File = Dir + "/notes.dll";
  ASSERT_TRUE(test::writeFile(File, std::string(200, 'x')));
  test::CommandResult R = weft({"dump", File});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "'" + File + "': DOS header at offset 0x0: missing 'MZ' signature"))
      << R.Err;
}

TEST(Cli, NativeImageIsNotAnAssembly) {
  // A managed image with its CLI directory cleared is, to the loader, a native image.
  std::string Bytes = test::readFile(frameworkFile("System.Runtime.dll"));
  ASSERT_GT(Bytes.size(), 0x200u);
  uint32_t Lfanew = uint8_t(Bytes[0x3C]) | uint8_t(Bytes[0x3D]) << 8;
  bool Plus = uint8_t(Bytes[Lfanew + 24]) == 0x0B && uint8_t(Bytes[Lfanew + 25]) == 0x02;
  size_t Dir = Lfanew + 24 + (Plus ? 112 : 96) + 14 * 8;
  std::fill(Bytes.begin() + Dir, Bytes.begin() + Dir + 8, '\0');
  std::string File = test::scratchDir("cli-native") + "/native.dll";
  ASSERT_TRUE(test::writeFile(File, Bytes));
  test::CommandResult R = weft({"info", File});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "no (no CLI header)")) << R.Out;
  R = weft({"dump", File});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "not a .NET assembly")) << R.Err;
}

TEST(Cli, InfoJsonHasTablesBodiesAndFlags) {
  std::string File = frameworkFile("System.Private.CoreLib.dll");
  test::CommandResult R = weft({"info", "--json", "--bodies", File});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  Expected<json::Value> V = json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  const json::Object *O = V->getAsObject();
  ASSERT_NE(O, nullptr);
  const json::Object *Tables = O->getObject("tables");
  ASSERT_NE(Tables, nullptr);
  EXPECT_GT(Tables->getInteger("TypeDef").getValueOr(0), 1000);
  EXPECT_GT(Tables->getInteger("MethodDef").getValueOr(0), 10000);
  EXPECT_GT(Tables->getInteger("CustomAttribute").getValueOr(0), 0);
  int64_t Bodies = O->getInteger("methods_with_body").getValueOr(0);
  EXPECT_GT(Bodies, 10000);
  EXPECT_GT(O->getInteger("il_bytes").getValueOr(0), Bodies);
  const json::Array *List = O->getArray("method_bodies");
  ASSERT_NE(List, nullptr);
  EXPECT_EQ(int64_t(List->size()), Bodies);
  // CoreLib on an installed runtime is ReadyToRun code, not C++/CLI.
  EXPECT_NE(O->getObject("ready_to_run"), nullptr);
  EXPECT_EQ(O->getBoolean("mixed_mode"), false);
  EXPECT_EQ(O->getString("metadata_version").getValueOr(""), "v4.0.30319");
}

TEST(Cli, InfoTextNamesFlagsAndDebugEntries) {
  std::string Dll = test::corpusDll("Closures");
  test::CommandResult R = weft({"info", Dll});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "IL-only")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "CodeView (portable PDB)")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "ReadyToRun:        no")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "TypeDef")) << R.Out;
}

TEST(Cli, DumpToFileIsAtomicAndEqualToStandardOutput) {
  std::string Dll = test::corpusDll("Closures");
  std::string Dir = test::scratchDir("cli-dump-out");
  std::string Out = Dir + "/closures.il";
  test::CommandResult ToFile = weft({"dump", Dll, "-o", Out});
  ASSERT_EQ(ToFile.ExitCode, 0) << ToFile.Err;
  test::CommandResult ToStdout = weft({"dump", Dll});
  EXPECT_TRUE(test::readFile(Out) == ToStdout.Out);
  // Nothing else (no temporary file) is left behind.
  std::error_code EC;
  unsigned Files = 0;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 1u);
}

// ilasm reads an embedded resource from the file of its name beside the text: with -o, dump
// writes each one there, and the text says how many bytes it holds.
TEST(Cli, DumpWritesEmbeddedResourcesBesideTheText) {
  std::string Dll = test::netCoreAppDir() + "/System.Console.dll";
  std::string Dir = test::scratchDir("cli-dump-resources");
  std::string Out = Dir + "/console.il";
  test::CommandResult R = weft({"dump", Dll, "-o", Out});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  std::string Text = test::readFile(Out);
  std::string Resources = test::readFile(Dir + "/FxResources.System.Console.SR.resources");
  // A .resources file starts with the resource manager's magic number, 0xBEEFCACE.
  ASSERT_GT(Resources.size(), 4u);
  EXPECT_EQ(Resources.substr(0, 4), std::string("\xCE\xCA\xEF\xBE"));
  EXPECT_TRUE(contains(Text, ".mresource public FxResources.System.Console.SR.resources\n{\n  // " +
                                 std::to_string(Resources.size()) +
                                 " bytes, embedded: ILAsm "
                                 "reads them from the file of this name beside the text\n"))
      << Text.substr(0, 4000);
  std::string Xml = test::readFile(Dir + "/ILLink.Substitutions.xml");
  EXPECT_TRUE(StringRef(Xml).ltrim("\xEF\xBB\xBF").startswith("<linker")) << Xml.substr(0, 100);
}

TEST(Cli, BadInputLeavesNoOutputFile) {
  std::string Bytes = test::readFile(test::corpusDll("Closures"));
  ASSERT_FALSE(Bytes.empty());
  std::string Dir = test::scratchDir("cli-bad-out");
  std::string In = Dir + "/bad.dll", Out = Dir + "/bad.il";
  ASSERT_TRUE(test::writeFile(In, Bytes.substr(0, Bytes.size() / 2)));
  test::CommandResult R = weft({"dump", In, "-o", Out});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "'" + In + "'")) << R.Err;
  EXPECT_TRUE(contains(R.Err, "offset 0x")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
  // The input is untouched.
  EXPECT_EQ(test::readFile(In).size(), Bytes.size() / 2);
}

TEST(Cli, RawDumpShowsWhatABrokenFileContains) {
  std::string Bytes = test::readFile(test::corpusDll("Closures"));
  // Break the metadata signature: the full reader refuses, the raw dump still shows the headers.
  size_t At = Bytes.find("BSJB");
  ASSERT_NE(At, std::string::npos);
  Bytes[At] = 'X';
  std::string File = test::scratchDir("cli-raw") + "/broken.dll";
  ASSERT_TRUE(test::writeFile(File, Bytes));
  test::CommandResult Full = weft({"dump", File});
  EXPECT_EQ(Full.ExitCode, 1);
  EXPECT_TRUE(contains(Full.Err, "missing 'BSJB' signature")) << Full.Err;
  test::CommandResult Raw = weft({"dump", "--raw", File});
  EXPECT_EQ(Raw.ExitCode, 1);
  EXPECT_TRUE(contains(Raw.Out, "COFF header")) << Raw.Out;
  EXPECT_TRUE(contains(Raw.Out, "CLI header")) << Raw.Out;
  EXPECT_TRUE(contains(Raw.Out, "missing 'BSJB' signature")) << Raw.Out;
  // On an intact file the raw dump walks down to table rows and method headers.
  test::CommandResult Good = weft({"dump", "--raw", test::corpusDll("Closures")});
  EXPECT_EQ(Good.ExitCode, 0) << Good.Err;
  EXPECT_TRUE(contains(Good.Out, "Table 0x02 TypeDef")) << Good.Out;
  EXPECT_TRUE(contains(Good.Out, "Method bodies")) << Good.Out;
}

TEST(Cli, PortablePdbsAreReadWindowsPdbsNamed) {
  std::string Pdb = test::corpusDll("Closures");
  Pdb.replace(Pdb.size() - 4, 4, ".pdb");
  test::CommandResult R = weft({"info", Pdb});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "portable PDB")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "MethodDebugInformation")) << R.Out;
  R = weft({"dump", "--raw", Pdb});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "#Pdb stream")) << R.Out;
  R = weft({"dump", Pdb});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "a portable PDB, not an assembly")) << R.Err;
  std::string Msf = test::scratchDir("cli-msf") + "/windows.pdb";
  ASSERT_TRUE(test::writeFile(Msf, std::string("Microsoft C/C++ MSF 7.00\r\n\x1a"
                                               "DS\0\0\0",
                                               32) +
                                       std::string(100, '\0')));
  R = weft({"info", Msf});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "a Windows (MSF) PDB")) << R.Err;
}

TEST(Cli, DumpFiltersByTypeAndMethod) {
  std::string Dll = test::corpusDll("Generics");
  test::CommandResult R = weft({"dump", Dll, "--method", "Main"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "Main(")) << R.Out;
  EXPECT_FALSE(contains(R.Out, ".assembly")) << "headers are left out when filtering";
  size_t Methods = 0;
  for (size_t P = R.Out.find(".method "); P != std::string::npos; P = R.Out.find(".method ", P + 1))
    ++Methods;
  EXPECT_EQ(Methods, 1u);
  // Repeated filters, given before the file.
  R = weft({"dump", "--method", "Main", "--method", "Max", Dll});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, " Max<")) << R.Out;
  EXPECT_TRUE(contains(R.Out, " Main(")) << R.Out;
  R = weft({"dump", Dll, "--type", "*Constrained"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "Constrained")) << R.Out;
  EXPECT_FALSE(
      contains(R.Out, "class public auto ansi beforefieldinit Weft.Corpus.Generics.Program"))
      << R.Out;
  R = weft({"dump", Dll, "--type", "[abc"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "bad --type pattern")) << R.Err;
}

TEST(Cli, WeaveWritesAFaithfulCopyAtomically) {
  std::string Dll = test::corpusDll("Generics");
  std::string Dir = test::scratchDir("cli-weave");
  std::string Out = Dir + "/Generics.dll";
  test::CommandResult R = weft({"weave", Dll, "-o", Out});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(R.Err.empty()) << R.Err;
  EXPECT_TRUE(sys::fs::exists(Dir + "/Generics.pdb")) << "the unchanged PDB goes along";
  test::CommandResult V = weft({"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Err;
  EXPECT_TRUE(contains(V.Out, "no problems")) << V.Out;
  // Same input, same output: deterministic.
  std::string Again = Dir + "/again.dll";
  ASSERT_EQ(weft({"weave", Dll, "-o", Again}).ExitCode, 0);
  EXPECT_TRUE(test::readFile(Out) == test::readFile(Again));
  // In place replaces the file (atomically) and leaves nothing else.
  std::string Copy = Dir + "/copy.dll";
  ASSERT_FALSE(sys::fs::copy_file(Dll, Copy));
  ASSERT_EQ(weft({"weave", Copy, "--in-place"}).ExitCode, 0);
  EXPECT_TRUE(test::readFile(Copy) == test::readFile(Out));
  std::error_code EC;
  unsigned Files = 0;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 5u); // Generics.dll, Generics.pdb, again.dll, again.pdb, copy.dll
}

// The marker records the input (relative to the output's folder), its SHA-256 and the methods
// each pass changed; weaving the output again with --force records the second weave.
TEST(Cli, WeaveRecordsItsInputInTheMarker) {
  std::string Dll = test::corpusDll("Generics");
  std::string Dir = test::scratchDir("cli-weave-record");
  std::string Out = Dir + "/Generics.dll";
  test::CommandResult R = weft({"weave", Dll, "-o", Out, "--pass", "single-ret"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  test::CommandResult D = weft({"dump", Out, "--type", "<weft>.Woven"});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  // The scratch folders and the corpus are both in the build tree.
  EXPECT_TRUE(contains(D.Out, "Input = \"../../corpus/bin/Generics/release/Generics.dll\""))
      << D.Out;
  std::string Hash = toHex(SHA256::hash(arrayRefFromStringRef(test::readFile(Dll))), true);
  EXPECT_TRUE(contains(D.Out, "InputSha256 = \"" + Hash + "\"")) << D.Out;
  EXPECT_TRUE(contains(D.Out, "Passes = \"single-ret\\t")) << D.Out;
  // Woven again: the record is the second weave's, from the first output.
  std::string Again = Dir + "/again/Generics.dll";
  ASSERT_FALSE(sys::fs::create_directories(Dir + "/again"));
  R = weft({"weave", Out, "-o", Again, "--pass", "coverage", "--force"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  D = weft({"dump", Again, "--type", "<weft>.Woven"});
  EXPECT_TRUE(contains(D.Out, "Input = \"../Generics.dll\"")) << D.Out;
  Hash = toHex(SHA256::hash(arrayRefFromStringRef(test::readFile(Out))), true);
  EXPECT_TRUE(contains(D.Out, "InputSha256 = \"" + Hash + "\"")) << D.Out;
  EXPECT_TRUE(contains(D.Out, "Passes = \"coverage\\t")) << D.Out;
  EXPECT_FALSE(contains(D.Out, "single-ret")) << D.Out;
}

TEST(Cli, WeaveAndVerifyRefuseBadInputAndWriteNothing) {
  std::string Bytes = test::readFile(test::corpusDll("Generics"));
  std::string Dir = test::scratchDir("cli-weave-bad");
  std::string In = Dir + "/bad.dll", Out = Dir + "/out.dll";
  // Cut short.
  ASSERT_TRUE(test::writeFile(In, Bytes.substr(0, Bytes.size() / 3)));
  test::CommandResult R = weft({"weave", In, "-o", Out});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "'" + In + "'")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
  R = weft({"verify", In});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "offset 0x")) << R.Err;
  // Usage.
  EXPECT_EQ(weft({"weave", In}).ExitCode, 2);
  EXPECT_EQ(weft({"weave", In, "-o", Out, "--in-place"}).ExitCode, 2);
  EXPECT_FALSE(sys::fs::exists(Out));
}

// A body the weave decodes is checked there (not read twice): a call whose token names no row is
// refused whether a pass selects the method or the body is only copied.
TEST(Cli, WeaveRefusesABadTokenInABodyAndWritesNothing) {
  std::string Dll = test::corpusDll("Closures");
  std::string Bytes = test::readFile(Dll);
  test::CommandResult Raw = weft({"dump", "--raw", Dll});
  ASSERT_EQ(Raw.ExitCode, 0);
  // The first body that starts `ldarg.0; call`: "@0x... tiny" or "@0x... fat".
  size_t Token = std::string::npos;
  for (size_t P = Raw.Out.find(" @0x"); P != std::string::npos && Token == std::string::npos;
       P = Raw.Out.find(" @0x", P + 1)) {
    size_t At = std::stoul(Raw.Out.substr(P + 2), nullptr, 16);
    size_t Code = At + (Raw.Out.compare(P + 12, 5, " tiny") == 0 ? 1 : 12);
    if (Code + 6 <= Bytes.size() && uint8_t(Bytes[Code]) == 0x02 && uint8_t(Bytes[Code + 1]) == 0x28)
      Token = Code + 2;
  }
  ASSERT_NE(Token, std::string::npos);
  Bytes.replace(Token, 4, std::string("\xFF\xFF\x00\x0A", 4)); // MemberRef row 0xFFFF
  std::string Dir = test::scratchDir("cli-weave-bad-token");
  std::string In = Dir + "/Closures.dll", Out = Dir + "/out.dll";
  ASSERT_TRUE(test::writeFile(In, Bytes));
  for (std::vector<std::string> Pass : {std::vector<std::string>{"--pass", "trace"},
                                        std::vector<std::string>{}}) {
    std::vector<std::string> Args{"weave", In, "-o", Out};
    Args.insert(Args.end(), Pass.begin(), Pass.end());
    test::CommandResult R = weft(Args);
    EXPECT_EQ(R.ExitCode, 1) << R.Err;
    EXPECT_TRUE(contains(R.Err, "'" + In + "'")) << R.Err;
    EXPECT_TRUE(contains(R.Err, "IL code")) << R.Err;
    EXPECT_TRUE(contains(R.Err, "offset 0x")) << R.Err;
    EXPECT_TRUE(contains(R.Err, "token 0x0A00FFFF does not name a row")) << R.Err;
    EXPECT_FALSE(sys::fs::exists(Out));
  }
}

TEST(Cli, VerifyReportsMethodOffsetAndProblem) {
  // Make a body's max-stack too small: the stack grows past it.
  std::string Dll = test::corpusDll("Closures");
  std::string Bytes = test::readFile(Dll);
  test::CommandResult Raw = weft({"dump", "--raw", Dll});
  ASSERT_EQ(Raw.ExitCode, 0);
  // The first fat body with a max-stack of 2 or more: " @0x... fat flags 0x.... maxstack N".
  size_t At = std::string::npos;
  unsigned MaxStack = 0;
  for (size_t P = Raw.Out.find(" fat flags "); P != std::string::npos;
       P = Raw.Out.find(" fat flags ", P + 1)) {
    size_t M = Raw.Out.find("maxstack ", P);
    MaxStack = std::stoul(Raw.Out.substr(M + 9));
    if (MaxStack >= 2) {
      size_t Amp = Raw.Out.rfind('@', P);
      At = std::stoul(Raw.Out.substr(Amp + 1), nullptr, 16);
      break;
    }
  }
  ASSERT_NE(At, std::string::npos);
  Bytes[At + 2] = 1; // max-stack low byte
  Bytes[At + 3] = 0;
  std::string File = test::scratchDir("cli-verify") + "/Closures.dll";
  ASSERT_TRUE(test::writeFile(File, Bytes));
  test::CommandResult R = weft({"verify", File});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "(0x06")) << R.Err;
  EXPECT_TRUE(contains(R.Err, "but .maxstack is 1")) << R.Err;
  EXPECT_TRUE(contains(R.Err, "1 problem in 1 of")) << R.Err;
}

} // namespace
