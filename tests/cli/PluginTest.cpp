//===- tests/cli/PluginTest.cpp - weft --load -----------------------------===//
//
// Plugins through the command line: the example plugin (examples/plugin, the C++ layer over the
// C ABI) lists its pass and weaves a corpus program that then runs with one extra line per
// method entered; the C plugin of the ABI's first version (tests/plugin/abi-v1) weaves a program
// with exception handlers that then runs with a line at each entry and each exit, writes its
// side file from the methods it counted, and fails naming the method and its own reason; a
// plugin of the deprecated C++ API loads with a warning; a plugin built for another ABI or API
// version, one that needs a function weft lacks, a shared library without the entry point, a
// file that is no shared library, a missing file and a plugin whose pass name is taken are
// refused with a message and exit code 1.
//
//===----------------------------------------------------------------------===//
#include "weaving/plugin/Plugin.h"
#include "weft-c/Plugin.h"

#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using test::expectedOutput;

namespace {

const std::string Hello = WEFT_HELLO_PLUGIN;
const std::string WrongVersion = WEFT_WRONG_VERSION_PLUGIN;
const std::string MissingSymbol = WEFT_MISSING_SYMBOL_PLUGIN;
const std::string NoEntry = WEFT_NO_ENTRY_PLUGIN;
const std::string CTrace = WEFT_C_TRACE_PLUGIN;
const std::string WrongAbi = WEFT_WRONG_ABI_PLUGIN;
const std::string Legacy = WEFT_MARKER_A_PLUGIN;

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

TEST(Plugin, PassesListsThePluginsPass) {
  test::CommandResult R = weft({"passes", "--load", Hello});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Out).contains(
      "hello\n  Example plugin pass: every method prints 'hello: enter Type::Method' when "
      "entered\n    prefix: what the lines start with (default hello)\n    exit: true: also "
      "print 'hello: leave Type::Method' before each way out\n"))
      << R.Out;
  // Built-in passes are still there, and without --load the plugin's is not.
  EXPECT_TRUE(StringRef(R.Out).contains("\nintercept-call\n")) << R.Out;
  R = weft({"passes"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Out).contains("hello")) << R.Out;
  // The option may come before the subcommand too, and the same file twice loads it once.
  R = weft({"--load", Hello, "passes", "--load", Hello});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Out).contains("hello\n")) << R.Out;
}

TEST(Plugin, WovenProgramPrintsTheEntries) {
  std::string Dir = test::scratchDir("plugin-hello");
  std::string In = test::corpusDll("ManyLocals");
  std::string Out = Dir + "/ManyLocals.dll";
  test::CommandResult R = weft({"weave", In, "-o", Out, "--load", Hello, "--pass",
                                "hello:prefix=plugin", "--verify-each", "-v"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("weft: 8 methods changed")) << R.Err;
  test::CommandResult V = weft({"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;

  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "ManyLocals.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/ManyLocals.runtimeconfig.json"));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  // The plugin's lines taken out, the program's own output is left.
  std::string Rest;
  unsigned Entries = 0;
  SmallVector<StringRef, 0> Lines;
  StringRef(Run.Out).split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Lines[I].startswith("plugin: enter ")) {
      ++Entries;
      continue;
    }
    Rest += Lines[I].str() + (I + 1 < Lines.size() ? "\n" : "");
  }
  EXPECT_EQ(Rest, expectedOutput("ManyLocals"));
  EXPECT_TRUE(StringRef(Run.Out).startswith("plugin: enter Weft.Corpus.ManyLocals.Program::Main\n"))
      << Run.Out.substr(0, 500);
  EXPECT_EQ(Entries, 6891u) << Run.Out.substr(0, 2000);
}

TEST(Plugin, WrongApiVersionIsRefused) {
  std::string Dir = test::scratchDir("plugin-refused");
  std::string Out = Dir + "/out.dll";
  test::CommandResult R =
      weft({"weave", test::corpusDll("ManyLocals"), "-o", Out, "--load", WrongVersion});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: '" + WrongVersion +
                       "' was built for weft plugin API version 999; this weft supports version " +
                       std::to_string(WEFT_PLUGIN_API_VERSION) +
                       " (rebuild the plugin against this weft's headers)\n");
  EXPECT_FALSE(sys::fs::exists(Out));
  R = weft({"passes", "--load", WrongVersion});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(R.Out.empty()) << R.Out;
}

TEST(Plugin, MissingFunctionIsRefusedWhenLoaded) {
  test::CommandResult R = weft({"passes", "--load", MissingSymbol});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error: plugin '" + MissingSymbol +
                                          "': cannot be loaded as a shared library: "))
      << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("undefined symbol: _ZN4weft21functionThisWeftLacksEv"))
      << R.Err;
}

TEST(Plugin, FilesThatAreNoPluginsAreRefused) {
  std::string Dir = test::scratchDir("plugin-bad-files");
  std::string Text = Dir + "/notes.so";
  ASSERT_TRUE(test::writeFile(Text, "not a library\n"));

  test::CommandResult R = weft({"passes", "--load", Dir + "/missing.so"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: plugin '" + Dir + "/missing.so': no such file\n");

  R = weft({"passes", "--load", Text});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error: plugin '" + Text +
                                          "': cannot be loaded as a shared library: "))
      << R.Err;

  R = weft({"passes", "--load", Dir});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: plugin '" + Dir + "': is a folder, not a shared library\n");

  R = weft({"passes", "--load", NoEntry});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: plugin '" + NoEntry +
                       "': is not a weft plugin: it has no function weft_plugin_init (nor the "
                       "deprecated weftGetPluginInfo)\n");
}

/// How many lines of \p Text start with \p Prefix; the others, joined, in \p Rest.
unsigned linesStartingWith(StringRef Text, StringRef Prefix, std::string &Rest) {
  unsigned N = 0;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Lines[I].startswith(Prefix)) {
      ++N;
      continue;
    }
    Rest += Lines[I].str() + (I + 1 < Lines.size() ? "\n" : "");
  }
  return N;
}

TEST(Plugin, CPluginOfTheFirstAbiWeavesAndRuns) {
  std::string Dir = test::scratchDir("plugin-c-trace");
  std::string In = test::corpusDll("Exceptions");
  std::string Out = Dir + "/Exceptions.dll";
  test::CommandResult R = weft({"weave", In, "-o", Out, "--load", CTrace, "--pass",
                                "c-trace:prefix=ct", "--verify-each", "-v"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("warning")) << R.Err;
  // FinishMethod counted each method the pass changed once: the number weft reports.
  StringRef Before = StringRef(R.Err).split(" methods changed").first;
  unsigned Changed = 0;
  ASSERT_FALSE(Before.substr(Before.rfind(' ') + 1).getAsInteger(10, Changed)) << R.Err;
  EXPECT_GT(Changed, 10u);
  EXPECT_EQ(test::readFile(Out + ".c-trace"), "methods " + std::to_string(Changed) + "\n");

  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "Exceptions.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/Exceptions.runtimeconfig.json"));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  std::string Rest, Ignored;
  unsigned Entries = linesStartingWith(Run.Out, "ct: enter ", Ignored);
  std::string WithoutEntries = Ignored;
  unsigned Exits = linesStartingWith(WithoutEntries, "ct: leave ", Rest);
  EXPECT_EQ(Rest, expectedOutput("Exceptions"));
  EXPECT_TRUE(StringRef(Run.Out).startswith("ct: enter Weft.Corpus.Exceptions.Program::Main\n"))
      << Run.Out.substr(0, 500);
  EXPECT_GT(Entries, 10u);
  // A method left by an exception prints no leave line: fewer exits than entries, but some.
  EXPECT_GT(Exits, 5u);
  EXPECT_LE(Exits, Entries);
}

TEST(Plugin, CPluginFailuresNameTheMethodAndTheReason) {
  std::string Dir = test::scratchDir("plugin-c-fails");
  std::string Out = Dir + "/Exceptions.dll";
  test::CommandResult R = weft({"weave", test::corpusDll("Exceptions"), "-o", Out, "--load",
                                CTrace, "--pass", "c-trace:fail=Nested"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).contains("c-trace fails on Weft.Corpus.Exceptions.Program::Nested"))
      << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
  // Create's own failure, naming the rule the options came from.
  R = weft({"weave", test::corpusDll("Exceptions"), "-o", Out, "--load", CTrace, "--pass",
            "c-trace:prefix=" + std::string(70, 'x')});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).contains("c-trace: prefix must have 1 to 63 bytes")) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("--pass")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
}

TEST(Plugin, CPluginOfAnotherAbiIsRefused) {
  test::CommandResult R = weft({"passes", "--load", WrongAbi});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: plugin '" + WrongAbi +
                       "': it was built for weft's plugin ABI version 999; this weft implements "
                       "version " +
                       std::to_string(WEFT_ABI_VERSION) + "\n");
  EXPECT_TRUE(R.Out.empty()) << R.Out;
}

TEST(Plugin, CxxApiPluginLoadsWithADeprecationWarning) {
  test::CommandResult R = weft({"passes", "--load", Legacy});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Out).contains("\nmark-a\n")) << R.Out;
  EXPECT_EQ(R.Err, "weft: warning: plugin '" + Legacy +
                       "' uses weft's C++ plugin API (weftGetPluginInfo), which is deprecated and "
                       "goes in weft 1.0: port it to the C ABI, include/weft-c/Plugin.h "
                       "(docs/plugins.md)\n");
}

TEST(Plugin, TakenPassNameIsRefused) {
  // The same library under another name registers `hello` a second time.
  std::string Dir = test::scratchDir("plugin-twice");
  std::string Copy = Dir + "/hello-copy.so";
  ASSERT_FALSE(sys::fs::copy_file(Hello, Copy));
  test::CommandResult R = weft({"passes", "--load", Hello, "--load", Copy});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: plugin '" + Copy +
                       "': registers the pass 'hello', which plugin '" + Hello +
                       "' already registered\n");
}

} // namespace
