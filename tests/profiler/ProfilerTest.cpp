//===- tests/profiler/ProfilerTest.cpp - The runtime profiler on the real runtime -===//
//
// `weft run` loads libweft_profiler.so into the installed CoreCLR: the profiler attaches (or says
// why it declines), matches the program's modules against the spec with weft's reader on the
// images where the runtime put them, and never changes what the program prints or returns.
// Also: pe::Image::createLoaded reads the same metadata from both layouts a loader leaves.
//
//===----------------------------------------------------------------------===//
#include "pe/Image.h"
#include "runtime-profiler/Identity.h"
#include "runtime-profiler/Profiler.h"
#include "tests/support/Env.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace weft;
using namespace weft::test;

namespace {

/// What a loader makes of a file: each section's data at its RVA, zeros elsewhere.
std::vector<uint8_t> mapLikeALoader(const pe::Image &File) {
  std::vector<uint8_t> Mapped(File.optional().SizeOfImage, 0);
  llvm::ArrayRef<uint8_t> Bytes = File.bytes();
  std::copy_n(Bytes.begin(), File.optional().SizeOfHeaders, Mapped.begin());
  for (const pe::Section &S : File.sections()) {
    uint32_t N = std::min(S.SizeOfRawData, S.VirtualSize ? S.VirtualSize : S.SizeOfRawData);
    std::copy_n(Bytes.begin() + S.PointerToRawData, N, Mapped.begin() + S.VirtualAddress);
  }
  return Mapped;
}

std::string text(llvm::ArrayRef<uint8_t> B) { return std::string(B.begin(), B.end()); }

TEST(LoadedImage, BothLayoutsReadTheFilesMetadata) {
  for (std::string Path : {corpusDll("Generics"), frameworkFile("System.Runtime.dll"),
                           frameworkFile("System.Private.CoreLib.dll")}) {
    SCOPED_TRACE(Path);
    auto File = pe::Image::open(Path);
    ASSERT_TRUE(bool(File)) << llvm::toString(File.takeError());
    std::vector<uint8_t> Mapped = mapLikeALoader(**File);
    auto AsMapped = pe::Image::createLoaded(Mapped.data(), pe::Image::Layout::Mapped, Path);
    ASSERT_TRUE(bool(AsMapped)) << llvm::toString(AsMapped.takeError());
    EXPECT_EQ(text((*AsMapped)->metadata()), text((*File)->metadata()));
    auto AsFlat = pe::Image::createLoaded((*File)->bytes().data(), pe::Image::Layout::Flat, Path);
    ASSERT_TRUE(bool(AsFlat)) << llvm::toString(AsFlat.takeError());
    EXPECT_EQ(text((*AsFlat)->metadata()), text((*File)->metadata()));
  }
}

TEST(LoadedImage, BadHeadersAreErrorsWithinTheHeaderLimit) {
  std::vector<uint8_t> Page(4096, 0);
  auto NoMz = pe::Image::createLoaded(Page.data(), pe::Image::Layout::Mapped, "zeros");
  ASSERT_FALSE(bool(NoMz));
  EXPECT_NE(llvm::toString(NoMz.takeError()).find("'MZ'"), std::string::npos);
  Page[0] = 'M', Page[1] = 'Z', Page[0x3C] = 0xF0, Page[0x3D] = 0x0F; // e_lfanew past the page
  auto Far = pe::Image::createLoaded(Page.data(), pe::Image::Layout::Mapped, "far");
  ASSERT_FALSE(bool(Far));
  EXPECT_NE(llvm::toString(Far.takeError()).find("e_lfanew"), std::string::npos);
}

TEST(ProfilerIdentity, TheClsidWeftRunGivesIsTheOneTheLibraryAnswers) {
  EXPECT_EQ(prof::CLSID_WeftProfiler, prof::guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6"));
  EXPECT_EQ(std::string(prof::ProfilerClsid), "{E56F61AE-E543-4D22-8B50-7334A9E7F8D6}");
}

struct Ran {
  CommandResult R;
  std::string Log;
};

Ran weftRun(llvm::StringRef Name, std::vector<std::string> Options, std::vector<std::string> Command,
            std::vector<std::string> Env = {}) {
  std::string LogFile = scratchDir("profiler-" + Name.str()) + "/weft.log";
  std::vector<std::string> Args = {"run", "--log", LogFile};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.push_back("--");
  Args.insert(Args.end(), Command.begin(), Command.end());
  Ran Out;
  Out.R = run(weftTool(), Args, Env, 120);
  Out.Log = readFile(LogFile);
  return Out;
}

TEST(WeftRun, ExitStatusIsTheCommands) {
  Ran R = weftRun("exit-status", {}, {"sh", "-c", "exit 7"});
  EXPECT_EQ(R.R.ExitCode, 7);
  // 127 for a command that cannot be started, as shells say it (through sh: the test's runner
  // takes 127 for its own failure to start a program).
  CommandResult Missing = run(
      "sh", {"-c", "\"$0\" run -- no-such-command-weft-knows; echo \"status $?\"", weftTool()});
  EXPECT_EQ(Missing.Out, "status 127\n");
  EXPECT_NE(Missing.Err.find("cannot run 'no-such-command-weft-knows'"), std::string::npos)
      << Missing.Err;
}

TEST(WeftRun, UnknownPassIsAUsageErrorBeforeAnythingRuns) {
  Ran R = weftRun("unknown-pass", {"--pass", "no-such-pass"}, {"sh", "-c", "echo ran"});
  EXPECT_EQ(R.R.ExitCode, 2);
  EXPECT_EQ(R.R.Out, "");
  EXPECT_NE(R.R.Err.find("unknown pass 'no-such-pass'"), std::string::npos) << R.R.Err;
}

TEST(WeftRun, WithoutASpecTheProfilerAttachesAndChangesNothing) {
  Ran R = weftRun("no-spec", {}, {"dotnet", corpusDll("Generics")});
  EXPECT_EQ(R.R.ExitCode, 0) << R.R.Err;
  EXPECT_EQ(R.R.Out, expectedOutput("Generics"));
  EXPECT_NE(R.Log.find("attached to CoreCLR "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("no spec"), std::string::npos) << R.Log;
}

TEST(WeftRun, APassMatchesTheProgramsModulesNotTheFrameworks) {
  Ran R = weftRun("matches", {"--pass", "single-ret"}, {"dotnet", corpusDll("Generics")});
  EXPECT_EQ(R.R.ExitCode, 0) << R.R.Err;
  EXPECT_EQ(R.R.Out, expectedOutput("Generics"));
  EXPECT_NE(R.Log.find("attached to CoreCLR "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("; passes single-ret"), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("Generics.dll: "), std::string::npos) << R.Log;
  EXPECT_EQ(R.Log.find("System.Private.CoreLib.dll: "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("shutting down: "), std::string::npos) << R.Log;
}

TEST(Profiler, AHostSettingTheVariablesWithABadSpecGetsTheProgramAsBefore) {
  // A host that sets the variables itself (a container, a service), with a spec weft cannot use.
  std::string Dir = scratchDir("profiler-bad-spec");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{ \"version\": 1, \"rules\": [ { \"passes\": [\"no-such-pass\"] } ] }"));
  CommandResult R = run("dotnet", {corpusDll("Generics")},
                        {"CORECLR_ENABLE_PROFILING=1",
                         std::string("CORECLR_PROFILER=") + prof::ProfilerClsid,
                         "CORECLR_PROFILER_PATH=" + binaryDir() + "/cli/" + prof::ProfilerLibrary,
                         std::string(prof::SpecVariable) + "=" + Spec,
                         std::string(prof::LogVariable) + "=" + Log},
                        120);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, expectedOutput("Generics"));
  std::string Text = readFile(Log);
  EXPECT_NE(Text.find("declined on CoreCLR "), std::string::npos) << Text;
  EXPECT_NE(Text.find("unknown pass 'no-such-pass'"), std::string::npos) << Text;
  EXPECT_NE(Text.find("nothing is instrumented"), std::string::npos) << Text;
}

} // namespace
