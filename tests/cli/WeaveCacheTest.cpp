//===- tests/cli/WeaveCacheTest.cpp - weave for build systems -------------===//
//
// What `weft weave` offers a build: --cache-dir keeps outputs by what they were woven from (a hit
// gives the same files, a changed probe assembly or plugin misses), under keys that name the
// work and not the folder (two checkouts share entries, and the restored files are what weaving
// there writes; a changed byte in any input kind is another key), --deps names every file a
// weave read, and --message-format msbuild prints MSBuild diagnostics with codes and the spec's
// line.
//
// The cache trusts nothing it finds: records planted or edited in it (a blob that does not have
// its digest, a role leading out of the output folder or to a file the weave does not write, a
// digest that is no digest, a symbolic link for a record) are refused and woven anew, by the
// user themselves in a cache of their own and by another user in a shared one; links where weft
// makes its temporary files are not followed; a folder another user owns or may write to is
// refused unless shared on purpose; a dependency that is not a regular file is refused unread.
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256.h"
#include "tests/support/OtherUser.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args, {}, 120);
}

/// The names in \p Dir, sorted.
std::vector<std::string> namesIn(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    Names.push_back(sys::path::filename(It->path()).str());
  llvm::sort(Names);
  return Names;
}

/// How many lines of \p Text hold \p Part.
unsigned linesOf(StringRef Text, StringRef Part) {
  SmallVector<StringRef, 8> Lines;
  Text.split(Lines, '\n', -1, false);
  return llvm::count_if(Lines, [&](StringRef L) { return L.contains(Part); });
}

/// A scratch folder with CallHeavy (and its PDB), a copy of the probe assembly and a spec
/// weaving every method with entry-exit and those probes.
struct Workspace {
  std::string Dir, Input, Probes, Spec;
  explicit Workspace(StringRef Name) : Dir(test::scratchDir(Name)) {
    Input = Dir + "/CallHeavy.dll";
    Probes = Dir + "/Probes.dll";
    Spec = Dir + "/weft.json";
    std::string Dll = test::corpusDll("CallHeavy");
    EXPECT_TRUE(test::writeFile(Input, test::readFile(Dll)));
    std::string Pdb = Dll.substr(0, Dll.size() - 4) + ".pdb";
    EXPECT_TRUE(test::writeFile(Dir + "/CallHeavy.pdb", test::readFile(Pdb)));
    EXPECT_TRUE(test::writeFile(Probes, test::readFile(test::probesDll())));
    EXPECT_TRUE(test::writeFile(
        Spec, R"({"version": 1, "rules": [{"match": {"method": "*"}, "passes": [{"name":
        "entry-exit", "options": {"probe-assembly": "Probes.dll", "probe-type":
        "Weft.Probes.Empty"}}]}]})"));
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/out"));
  }
  test::CommandResult weave(std::vector<std::string> More = {}) {
    return weaveInto(Dir + "/out", Dir + "/cache", std::move(More));
  }
  /// Weaves into \p Out (made if missing) with the cache \p Cache.
  test::CommandResult weaveInto(const std::string &Out, const std::string &Cache,
                                std::vector<std::string> More = {},
                                std::vector<std::string> Env = {}) {
    EXPECT_FALSE(sys::fs::create_directories(Out));
    std::vector<std::string> Args = {
        "weave", Input, "-o", Out + "/CallHeavy.dll", "--spec", Spec, "--cache-dir", Cache, "-v"};
    Args.insert(Args.end(), More.begin(), More.end());
    return test::run(test::weftTool(), Args, Env, 120);
  }
  std::string output(const std::string &Suffix) {
    return test::readFile(Dir + "/out/CallHeavy" + Suffix);
  }
};

TEST(WeaveCache, HitGivesTheSameFilesAndAChangedProbeAssemblyMisses) {
  Workspace W("weave-cache");
  test::CommandResult R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("weaving cache")) << R.Err;
  std::string Dll = W.output(".dll"), Pdb = W.output(".pdb");
  ASSERT_FALSE(Dll.empty());
  ASSERT_FALSE(Pdb.empty());
  ASSERT_FALSE(sys::fs::remove_directories(W.Dir + "/out"));
  ASSERT_FALSE(sys::fs::create_directories(W.Dir + "/out"));

  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  EXPECT_EQ(W.output(".dll"), Dll);
  EXPECT_EQ(W.output(".pdb"), Pdb);

  // The probe assembly is only known once woven: the entry depends on its bytes.
  std::string Probes = test::readFile(W.Probes);
  ASSERT_TRUE(test::writeFile(W.Probes, Probes + std::string(16, '\0')));
  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  // A changed spec misses too.
  ASSERT_TRUE(test::writeFile(W.Spec, test::readFile(W.Spec) + "\n"));
  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  R = W.weave();
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
}

TEST(WeaveCache, KeysNameTheWorkNotTheFolder) {
  // The same files in two checkouts (two folders, as two CI runners have them) share one cache:
  // the second takes the first's outputs, and they are what weaving there writes.
  Workspace A("weave-cache-checkout-a"), B("weave-cache-checkout-b");
  std::string Cache = test::scratchDir("weave-cache-checkouts") + "/cache";
  auto Weave = [&](Workspace &W, std::vector<std::string> Args, bool Cached) {
    Args.insert(Args.begin(), {"weave", W.Input, "-o", W.Dir + "/out/CallHeavy.dll"});
    if (Cached)
      Args.insert(Args.end(), {"--cache-dir", Cache});
    test::CommandResult R = weft(Args);
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    return StringRef(R.Err).contains("taken from the weaving cache");
  };
  auto Outputs = [&](Workspace &W) {
    return std::vector<std::string>{W.output(".dll"), W.output(".pdb"),
                                    W.output(".dll.coverage.json")};
  };
  for (std::vector<std::string> Passes :
       {std::vector<std::string>{"--spec", "weft.json"}, {"--pass", "coverage"}}) {
    SCOPED_TRACE(Passes.back());
    // The spec by a path relative to each checkout, as a build names it.
    Passes.back() = Passes.back() == "weft.json" ? A.Spec : "coverage";
    EXPECT_FALSE(Weave(A, Passes, true));
    if (Passes.front() == "--spec")
      Passes.back() = B.Spec;
    EXPECT_TRUE(Weave(B, Passes, true));
    std::vector<std::string> FromCache = Outputs(B);
    ASSERT_FALSE(FromCache[0].empty());
    EXPECT_FALSE(Weave(B, Passes, false));
    EXPECT_TRUE(FromCache == Outputs(B)) << "restored files differ from B's own weave";
    if (Passes.front() == "--pass") {
      EXPECT_TRUE(StringRef(FromCache[2]).contains("\"pdb\": \"CallHeavy.pdb\"")) << FromCache[2];
    }
  }
  // --print-cache-key shows it: the same in both checkouts, and nothing woven.
  auto KeyOf = [&](Workspace &W) {
    test::CommandResult R = weft({"weave", W.Input, "-o", W.Dir + "/keyed/CallHeavy.dll",
                                  "--pass", "coverage", "--print-cache-key"});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_TRUE(StringRef(R.Out).endswith("  " + W.Input + "\n")) << R.Out;
    EXPECT_FALSE(sys::fs::exists(W.Dir + "/keyed"));
    return StringRef(R.Out).take_front(64).str();
  };
  EXPECT_EQ(KeyOf(A), KeyOf(B));
  // A changed byte in anything the weave reads is another key: the input, its PDB, the spec,
  // the probe assembly (read on the way), the passes' options.
  struct Change {
    std::string Name, Path;
    std::vector<std::string> Passes;
  } Changes[] = {{"input", B.Input, {"--spec", B.Spec}},
                 {"pdb", B.Dir + "/CallHeavy.pdb", {"--pass", "coverage"}},
                 {"spec", B.Spec, {"--spec", B.Spec}},
                 {"probe", B.Probes, {"--spec", B.Spec}}};
  for (const Change &C : Changes) {
    SCOPED_TRACE(C.Name);
    std::string Was = test::readFile(C.Path);
    ASSERT_TRUE(test::writeFile(C.Path, Was + (C.Name == "spec" ? "\n" : std::string(16, '\0'))));
    if (C.Name == "input" || C.Name == "pdb")
      EXPECT_NE(KeyOf(A), KeyOf(B));
    EXPECT_FALSE(Weave(B, C.Passes, true));
    EXPECT_TRUE(Weave(B, C.Passes, true));
    ASSERT_TRUE(test::writeFile(C.Path, Was));
    EXPECT_TRUE(Weave(B, C.Passes, true)); // back as it was: the first key again
  }
  EXPECT_FALSE(Weave(B, {"--pass", "coverage:include=[CallHeavy]*"}, true));
}

TEST(WeaveCache, AHitSaysTheWeavesWarningsAgain) {
  // A framework assembly (ReadyToRun, strong-named, Authenticode-signed) gives three warnings;
  // a hit leaves the same output, so it says the same, naming its own input.
  std::string Dir = test::scratchDir("weave-cache-warnings");
  std::vector<std::string> Err;
  for (const char *Checkout : {"a", "b"}) {
    std::string Input = Dir + "/" + Checkout + "/System.Web.HttpUtility.dll";
    ASSERT_FALSE(sys::fs::create_directories(Dir + "/" + Checkout + "/out"));
    ASSERT_TRUE(test::writeFile(Input, test::readFile(test::frameworkFile("System.Web.HttpUtility.dll"))));
    test::CommandResult R = weft({"weave", Input, "-o", Dir + "/" + Checkout + "/out/H.dll",
                                  "--pass", "coverage", "--cache-dir", Dir + "/cache"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    Err.push_back(R.Err);
  }
  EXPECT_EQ(linesOf(Err[0], "warning"), 3u) << Err[0];
  EXPECT_TRUE(StringRef(Err[1]).contains("taken from the weaving cache")) << Err[1];
  std::string A = Dir + "/a/", B = Dir + "/b/";
  std::string Expected = Err[0];
  for (size_t At; (At = Expected.find(A)) != std::string::npos;)
    Expected.replace(At, A.size(), B);
  EXPECT_TRUE(StringRef(Err[1]).startswith(Expected)) << Err[1];
}

TEST(WeaveCache, BuildsSharingTheCacheAtOnceAllSucceed) {
  Workspace W("weave-cache-shared");
  std::vector<test::CommandResult> Results(4);
  std::vector<std::thread> Threads;
  for (size_t I = 0; I < Results.size(); ++I)
    Threads.emplace_back([&, I] {
      Results[I] = weft({"weave", W.Input, "-o", W.Dir + "/out/C" + std::to_string(I) + ".dll",
                         "--spec", W.Spec, "--cache-dir", W.Dir + "/cache"});
    });
  for (std::thread &T : Threads)
    T.join();
  std::string First = test::readFile(W.Dir + "/out/C0.dll");
  ASSERT_FALSE(First.empty());
  for (size_t I = 0; I < Results.size(); ++I) {
    EXPECT_EQ(Results[I].ExitCode, 0) << Results[I].Err;
    // Nothing but, for a build that found the others' records, where its output came from.
    SmallVector<StringRef, 2> Lines;
    StringRef(Results[I].Err).split(Lines, '\n', -1, false);
    for (StringRef L : Lines)
      EXPECT_TRUE(L.endswith("': taken from the weaving cache")) << Results[I].Err;
    EXPECT_EQ(test::readFile(W.Dir + "/out/C" + std::to_string(I) + ".dll"), First);
  }
  // A manifest and an entry for each output's name (it is in the key), one blob for the four
  // identical assemblies and one for their PDBs, and no temporary file left behind.
  EXPECT_EQ(namesIn(W.Dir + "/cache/ac").size(), 8u);
  EXPECT_EQ(namesIn(W.Dir + "/cache/cas").size(), 2u);
  for (const char *Area : {"ac", "cas"})
    for (const std::string &N : namesIn(W.Dir + "/cache/" + std::string(Area)))
      EXPECT_FALSE(StringRef(N).startswith(".tmp-")) << N;
}

TEST(WeaveCache, DepsNameEveryFileTheWeaveRead) {
  Workspace W("weave-deps");
  for (int Round = 0; Round < 2; ++Round) { // woven, then from the cache: the same list
    test::CommandResult R = W.weave({"--deps", W.Dir + "/out/deps.txt"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    SmallVector<StringRef, 8> Lines;
    std::string Deps = test::readFile(W.Dir + "/out/deps.txt");
    StringRef(Deps).split(Lines, '\n', -1, false);
    std::vector<std::string> Got(Lines.begin(), Lines.end());
    llvm::sort(Got);
    std::vector<std::string> Want = {W.Input, W.Dir + "/CallHeavy.pdb", W.Probes, W.Spec};
    llvm::sort(Want);
    EXPECT_EQ(Got, Want) << Deps;
  }
}

TEST(WeaveCache, MSBuildMessagesHaveCodesAndTheSpecsLine) {
  Workspace W("weave-msbuild");
  ASSERT_TRUE(test::writeFile(W.Spec, "{\n  \"version\": 1,\n  \"rules\": [\n    {\"match\": "
                                      "{\"method\": \"*\"},\n     \"passes\": [\"nosuch\"]}\n  ]\n}\n"));
  test::CommandResult R = W.weave({"--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith(W.Spec + "(4,5): error WEFT0001: rules[0]: unknown "
                                                   "pass 'nosuch'"))
      << R.Err;
  ASSERT_TRUE(test::writeFile(W.Spec, "{\"version\": 1, \"rules\": [}"));
  R = W.weave({"--message-format", "msbuild"});
  EXPECT_TRUE(StringRef(R.Err).startswith(W.Spec + "(1,26): error WEFT0001: invalid JSON"))
      << R.Err;

  std::string Broken = W.Dir + "/Broken.dll";
  ASSERT_TRUE(test::writeFile(Broken, test::readFile(W.Input).substr(0, 3000)));
  R = weft({"weave", Broken, "-o", W.Dir + "/out/B.dll", "--pass", "coverage",
            "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith(Broken + ": error WEFT0002: section header")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(W.Dir + "/out/B.dll"));
  R = weft({"weave", W.Input, "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error WEFT0005: weave needs -o")) << R.Err;
}

std::string shQuoted(StringRef Path) { return "'" + Path.str() + "'"; }

/// A record of the cache's protocol (cli/WeaveCache.cpp): an ActionResult whose output_files
/// are \p Files (role, digest, size) and whose stdout_raw is \p Text.
std::string record(StringRef Text,
                   const std::vector<std::tuple<std::string, std::string, uint64_t>> &Files) {
  auto Varint = [](std::string &Out, uint64_t V) {
    do {
      Out += char(V >= 0x80 ? (V & 0x7f) | 0x80 : V);
      V >>= 7;
    } while (V);
  };
  auto Bytes = [&](std::string &Out, unsigned Field, StringRef B) {
    Varint(Out, Field << 3 | 2);
    Varint(Out, B.size());
    Out += B;
  };
  std::string Out;
  for (const auto &[Role, Digest, Size] : Files) {
    std::string D, F;
    Bytes(D, 1, Digest);
    Varint(D, 2 << 3);
    Varint(D, Size);
    Bytes(F, 1, Role);
    Bytes(F, 2, D);
    Bytes(Out, 2, F);
  }
  Bytes(Out, 5, Text);
  return Out;
}

/// A cache holding the genuine records of a weave, and what the attacks plant in their place: a
/// record is put under a key by someone (the user, or another user) and the next weave, into a
/// fresh output folder, must refuse it, weave anew and write nothing but its own outputs.
struct Planting {
  Workspace &W;
  std::string Cache;   // the cache folder
  std::string Staging; // what the attacker copies from
  std::vector<std::string> Options; // --cache-shared for a shared cache
  std::string EntryKey, DllDigest, GenuineDll;
  std::vector<std::string> Outputs; // the names the weave writes

  Planting(Workspace &W, std::string Cache, std::string Staging,
           std::vector<std::string> Options = {})
      : W(W), Cache(std::move(Cache)), Staging(std::move(Staging)), Options(std::move(Options)) {}

  std::string out() const { return W.Dir + "/out"; }
  std::string ac(StringRef Key) const { return Cache + "/ac/" + Key.str(); }
  std::string cas(StringRef Key) const { return Cache + "/cas/" + Key.str(); }

  /// Weaves once into the cache, and notes its entry (the record that lists files) and the
  /// woven assembly's blob.
  void prepare() {
    test::CommandResult R = W.weaveInto(out(), Cache, Options);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    std::vector<std::string> Records = namesIn(Cache + "/ac");
    ASSERT_EQ(Records.size(), 2u) << Cache; // the manifest and the entry
    for (const std::string &K : Records)
      if (StringRef(test::readFile(ac(K))).contains("weft-entry 1\n"))
        EntryKey = K;
    ASSERT_FALSE(EntryKey.empty());
    GenuineDll = test::readFile(out() + "/CallHeavy.dll");
    DllDigest = pe::sha256Hex(arrayRefFromStringRef(GenuineDll));
    ASSERT_TRUE(sys::fs::exists(cas(DllDigest)));
    Outputs = namesIn(out());
    ASSERT_TRUE(test::writeFile(Staging + "/Tampered.dll", test::readFile(W.Input)));
    ASSERT_EQ(::chmod((Staging + "/Tampered.dll").c_str(), 0644), 0);
    ASSERT_TRUE(test::writeFile(Staging + "/Entry", test::readFile(ac(EntryKey))));
    ASSERT_TRUE(test::writeFile(Staging + "/Dll", GenuineDll));
    for (const char *F : {"Entry", "Dll"})
      ASSERT_EQ(::chmod((Staging + "/" + F).c_str(), 0644), 0);
  }

  /// An entry in Staging that the attacker copies, listing \p Files.
  std::string entry(StringRef Name,
                    const std::vector<std::tuple<std::string, std::string, uint64_t>> &Files) {
    std::string Path = Staging + "/" + Name.str();
    EXPECT_TRUE(test::writeFile(Path, record("weft-entry 1\n", Files)));
    EXPECT_EQ(::chmod(Path.c_str(), 0644), 0);
    return Path;
  }

  /// Frees \p Record (the attacker plants it before any build kept it), runs \p Plant (the
  /// attacker's doing, by \p Act), then weaves: the weave must refuse \p Record saying
  /// \p Refusal, write the genuine output and nothing out of its folder.
  void expectRefused(const std::function<test::CommandResult(const std::string &)> &Act,
                     const std::string &Record, const std::string &Plant, StringRef Refusal) {
    SCOPED_TRACE(Plant);
    ASSERT_FALSE(sys::fs::remove(Record));
    test::removeTree(Cache + "/decoy");
    test::CommandResult P = Act(Plant);
    ASSERT_EQ(P.ExitCode, 0) << P.Err;
    std::vector<std::string> DecoyBefore = namesIn(Cache + "/decoy");
    std::string Out = out();
    ASSERT_FALSE(sys::fs::remove_directories(Out));
    test::CommandResult R = W.weaveInto(Out, Cache, Options);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_TRUE(StringRef(R.Err).contains("weft: warning: weaving cache: '" + Record +
                                          "' is refused: "))
        << R.Err;
    EXPECT_TRUE(StringRef(R.Err).contains(Refusal)) << R.Err;
    EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
    EXPECT_TRUE(test::readFile(Out + "/CallHeavy.dll") == GenuineDll); // bytes: not printed
    // Nothing beside the weave's own outputs, in the output folder or above it.
    EXPECT_EQ(namesIn(Out), Outputs);
    EXPECT_FALSE(sys::fs::exists(W.Dir + "/escaped.dll"));
    EXPECT_EQ(namesIn(Cache + "/decoy"), DecoyBefore);
    // The record kept in its place is weft's, and gives the genuine output.
    ASSERT_FALSE(sys::fs::remove_directories(Out));
    R = W.weaveInto(Out, Cache, Options);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
    EXPECT_TRUE(test::readFile(Out + "/CallHeavy.dll") == GenuineDll);
  }

  /// Each way of planting a record, done by \p Act.
  void attackWith(const std::function<test::CommandResult(const std::string &)> &Act) {
    std::string T = shQuoted(Staging + "/Tampered.dll");
    std::string Entry = ac(EntryKey), Blob = cas(DllDigest);
    uint64_t Size = GenuineDll.size();
    // A blob that does not have the digest it is stored under.
    expectRefused(Act, Blob, "cp " + T + " " + shQuoted(Blob),
                  "it does not have the SHA-256 it is stored under");
    // Roles that lead out of the output folder, or to a file the weave does not write.
    for (std::string Role : std::vector<std::string>{"=../escaped.dll", "~/../../escaped.dll",
                                                     "=..", "=" + W.Dir + "/escaped.dll"})
      expectRefused(Act, Entry,
                    "cp " + shQuoted(entry("role", {{Role, DllDigest, Size}})) + " " +
                        shQuoted(Entry),
                    "it holds a file of the role '" + Role + "', which names no output file");
    std::string Tampered = test::readFile(Staging + "/Tampered.dll");
    std::string TamperedDigest = pe::sha256Hex(arrayRefFromStringRef(Tampered));
    expectRefused(Act, Entry,
                  "cp " + T + " " + shQuoted(cas(TamperedDigest)) + " && cp " +
                      shQuoted(entry("other", {{"~.dll", DllDigest, Size},
                                               {"=Other.dll", TamperedDigest, Tampered.size()}})) +
                      " " + shQuoted(Entry),
                  "the role '=Other.dll', which a weave of this output does not write");
    // A digest that names something else than a blob.
    expectRefused(Act, Entry,
                  "cp " + shQuoted(entry("name", {{"~.dll", "../f0", Size}})) + " " +
                      shQuoted(Entry),
                  "a file without a SHA-256 digest");
    // Records that are symbolic links (to genuine copies: only the link is wrong).
    std::string Decoy = Cache + "/decoy";
    expectRefused(Act, Entry,
                  "mkdir " + shQuoted(Decoy) + " && cp " + shQuoted(Staging + "/Entry") + " " +
                      shQuoted(Decoy) + " && ln -s " + shQuoted(Decoy + "/Entry") + " " +
                      shQuoted(Entry),
                  "is a symbolic link, not a regular file");
    expectRefused(Act, Blob,
                  "mkdir " + shQuoted(Decoy) + " && cp " + shQuoted(Staging + "/Dll") + " " +
                      shQuoted(Decoy) + " && ln -s " + shQuoted(Decoy + "/Dll") + " " +
                      shQuoted(Blob),
                  "is a symbolic link, not a regular file");
  }
};

test::CommandResult asUser(const std::string &Script) {
  return test::run("/bin/sh", {"-c", Script});
}

TEST(WeaveCache, EntriesThatAreNotWhatWeftWroteAreRefused) {
  // The user's own cache, edited behind weft's back.
  Workspace W("weave-cache-planted");
  ASSERT_FALSE(sys::fs::create_directories(W.Dir + "/staging"));
  Planting P(W, W.Dir + "/cache", W.Dir + "/staging");
  P.prepare();
  if (HasFatalFailure())
    return;
  P.attackWith(asUser);
}

TEST(WeaveCache, AnotherUsersEntriesInASharedCacheAreChecked) {
  WEFT_NEEDS_OTHER_USER(U);
  Workspace W("weave-cache-shared-attacks");
  test::SharedFolder Cache("weave-cache", /*Shared=*/true), Staging("weave-cache-staging");
  Planting P(W, Cache.path(), Staging.path(), {"--cache-shared"});
  P.prepare();
  if (HasFatalFailure())
    return;
  P.attackWith([&](const std::string &Script) { return test::shellAs(*U, Script); });
}

/// Writes a line to the FIFO \p Path once its reader has opened it (for at most 30 s).
void openGate(const std::string &Path) {
  for (int I = 0; I < 600; ++I) {
    int F = ::open(Path.c_str(), O_WRONLY | O_NONBLOCK);
    if (F >= 0) {
      EXPECT_EQ(::write(F, "go\n", 3), 3);
      ::close(F);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "nothing read the gate " << Path;
}

TEST(WeaveCache, ALinkWhereWeftMakesItsTemporaryFileIsNotFollowed) {
  // weft writes a record to .tmp-PID-N-KEY beside it, then renames it into place: another user
  // can make such names links to a file of theirs (or the user's) before the build. The build
  // here waits at a gate until the links for its process id are in place.
  WEFT_NEEDS_OTHER_USER(U);
  Workspace W("weave-cache-temp-link");
  test::SharedFolder Cache("weave-cache-temp", /*Shared=*/true), Gate("weave-cache-gate");
  ASSERT_EQ(W.weaveInto(W.Dir + "/out", Cache.path(), {"--cache-shared"}).ExitCode, 0);
  ASSERT_FALSE(sys::fs::remove_directories(W.Dir + "/out"));
  ASSERT_FALSE(sys::fs::create_directories(W.Dir + "/out"));
  // The records' names, then the records gone: the next build keeps them anew.
  std::vector<std::pair<std::string, std::string>> Records; // area, key
  for (const char *Area : {"ac", "cas"})
    for (const std::string &K : namesIn(Cache / Area)) {
      Records.emplace_back(Area, K);
      ASSERT_FALSE(sys::fs::remove(Cache / (std::string(Area) + "/" + K)));
    }
  ASSERT_EQ(Records.size(), 4u); // the manifest, the entry, the assembly, the PDB
  test::CommandResult Made = test::shellAs(
      *U, "mkdir " + shQuoted(Cache / "victim") + " && echo kept > " +
              shQuoted(Cache / "victim/file") + " && chmod 666 " +
              shQuoted(Cache / "victim/file"));
  ASSERT_EQ(Made.ExitCode, 0) << Made.Err;
  ASSERT_EQ(::mkfifo((Gate / "go").c_str(), 0600), 0);

  test::CommandResult R;
  std::thread Build([&] {
    std::string Script = "echo $$ > " + shQuoted(Gate / "pid") + "; read x < " +
                         shQuoted(Gate / "go") + "; exec " + shQuoted(test::weftTool()) +
                         " weave " + shQuoted(W.Input) + " -o " +
                         shQuoted(W.Dir + "/out/CallHeavy.dll") + " --spec " + shQuoted(W.Spec) +
                         " --cache-dir " + shQuoted(Cache.path()) + " --cache-shared -v";
    R = test::run("/bin/sh", {"-c", Script}, {}, 120);
  });
  std::string Pid;
  for (int I = 0; I < 600 && Pid.empty(); ++I) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Pid = StringRef(test::readFile(Gate / "pid")).trim().str();
  }
  test::CommandResult Link;
  if (!Pid.empty()) {
    std::string Script = "true";
    for (const auto &[Area, Key] : Records)
      for (int N = 0; N < 8; ++N)
        Script += " && ln -s " + shQuoted(Cache / "victim/file") + " " +
                  shQuoted(Cache / (Area + "/.tmp-" + Pid + "-" + std::to_string(N) + "-" +
                                    Key.substr(0, 16)));
    Link = test::shellAs(*U, Script);
  }
  openGate(Gate / "go"); // even when the links failed
  Build.join();
  ASSERT_FALSE(Pid.empty());
  ASSERT_EQ(Link.ExitCode, 0) << Link.Err;
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(namesIn(Cache / "victim"), std::vector<std::string>{"file"});
  EXPECT_EQ(test::readFile(Cache / "victim/file"), "kept\n");
  // The records were kept all the same, as files of weft's own.
  for (const auto &[Area, Key] : Records) {
    struct stat St;
    ASSERT_EQ(::lstat((Cache / (Area + "/" + Key)).c_str(), &St), 0) << Key;
    EXPECT_TRUE(S_ISREG(St.st_mode));
    EXPECT_EQ(St.st_uid, ::geteuid());
  }
}

TEST(WeaveCache, AFolderOthersOwnOrCanWriteToIsRefusedUnlessShared) {
  WEFT_NEEDS_OTHER_USER(U);
  Workspace W("weave-cache-folder");
  test::SharedFolder Shared("weave-cache-folder", /*Shared=*/true);
  // Writable by everyone (as /tmp is: the sticky bit keeps others from replacing an entry, not
  // from making one under a key a build has not used yet).
  test::CommandResult R = W.weaveInto(W.Dir + "/out1", Shared.path());
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error: weaving cache '" + Shared.path() +
                       "' is writable by other users (mode 1777): whoever can write there "
                       "chooses what your builds take from it; make it yours alone (chmod go-w '" +
                       Shared.path() +
                       "'), or give --cache-shared (WEFT_CACHE_SHARED=1) if it is shared on "
                       "purpose\n");
  EXPECT_FALSE(sys::fs::exists(W.Dir + "/out1/CallHeavy.dll"));
  EXPECT_TRUE(namesIn(Shared.path()).empty());
  R = W.weaveInto(W.Dir + "/out2", Shared.path(), {"--cache-shared"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  ASSERT_FALSE(sys::fs::remove_directories(W.Dir + "/out2"));
  R = W.weaveInto(W.Dir + "/out2", Shared.path(), {}, {"WEFT_CACHE_SHARED=1"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;

  // Owned by the other user, writable by no one else.
  std::string Theirs = Shared / "theirs";
  test::CommandResult Made = test::shellAs(*U, "mkdir -m 755 " + shQuoted(Theirs));
  ASSERT_EQ(Made.ExitCode, 0) << Made.Err;
  R = W.weaveInto(W.Dir + "/out4", Theirs);
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error: weaving cache '" + Theirs +
                                          "' is owned by another user (uid " +
                                          std::to_string(U->Uid) + "): ") &&
              StringRef(R.Err).contains("use a folder of your own, or give --cache-shared"))
      << R.Err;
  // Through a link to it, too: what the link leads to is checked.
  ASSERT_FALSE(sys::fs::create_link(Theirs, W.Dir + "/cache-link"));
  R = W.weaveInto(W.Dir + "/out5", W.Dir + "/cache-link");
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).contains("is owned by another user")) << R.Err;
  R = W.weaveInto(W.Dir + "/out6", Theirs, {"--cache-shared"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;

  // A private cache weft makes is the user's alone.
  R = W.weaveInto(W.Dir + "/out7", W.Dir + "/made/cache");
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  struct stat St;
  ASSERT_EQ(::stat((W.Dir + "/made/cache").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0700u);
  EXPECT_EQ(namesIn(W.Dir + "/made/cache"), (std::vector<std::string>{"ac", "cas"}));
  for (const std::string &Area : namesIn(W.Dir + "/made/cache")) {
    ASSERT_EQ(::stat((W.Dir + "/made/cache/" + Area).c_str(), &St), 0);
    EXPECT_EQ(St.st_mode & 0777, 0700u) << Area;
    for (const std::string &File : namesIn(W.Dir + "/made/cache/" + Area)) {
      ASSERT_EQ(::stat((W.Dir + "/made/cache/" + Area + "/" + File).c_str(), &St), 0);
      EXPECT_EQ(St.st_mode & 0777, 0600u) << File;
    }
  }
}

TEST(WeaveCache, LoadedPluginsArePartOfTheKeyAndTheDeps) {
  Workspace W("weave-cache-plugin");
  std::string Plugin = W.Dir + "/hello.so";
  ASSERT_TRUE(test::writeFile(Plugin, test::readFile(WEFT_HELLO_PLUGIN)));
  auto Weave = [&] {
    test::CommandResult R = W.weave({"--load", Plugin, "--deps", W.Dir + "/deps.txt"});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    return R;
  };
  EXPECT_FALSE(StringRef(Weave().Err).contains("taken from the weaving cache"));
  test::CommandResult R = Weave();
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  EXPECT_TRUE(StringRef(test::readFile(W.Dir + "/deps.txt")).contains(Plugin + "\n"))
      << test::readFile(W.Dir + "/deps.txt");
  // The same plugin with other bytes (still a library that loads): a miss.
  ASSERT_TRUE(test::writeFile(Plugin, test::readFile(Plugin) + std::string(64, '\0')));
  R = Weave();
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  R = Weave();
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
}

TEST(WeaveCache, DependenciesThatAreNotRegularFilesAreRefusedUnread) {
  Workspace W("weave-cache-fifo");
  std::string Fifo = W.Dir + "/fifo";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  // Each read of the FIFO would wait for a writer that never comes (the timeout ends it).
  auto Refused = [&](test::CommandResult R, StringRef What) {
    EXPECT_EQ(R.ExitCode, 1) << What << ": " << R.Err;
    EXPECT_TRUE(StringRef(R.Err).contains("'" + Fifo + "': is a FIFO, not a regular file") ||
                StringRef(R.Err).contains("plugin '" + Fifo +
                                          "': is a FIFO, not a shared "
                                          "library"))
        << What << ": " << R.Err;
  };
  Refused(W.weave({"--load", Fifo}), "--load");
  Refused(weft({"weave", W.Input, "-o", W.Dir + "/out/A.dll", "--spec", Fifo}), "--spec");
  Refused(weft({"weave", W.Input, "-o", W.Dir + "/out/A.dll", "--pass", "coverage", "--key", Fifo}),
          "--key");
  Refused(weft({"weave", W.Input, "-o", W.Dir + "/out/A.dll", "--pass", "coverage", "--cache-dir",
                W.Dir + "/cache2", "--cache-shared", "--key", Fifo}),
          "--key with a cache");
  // A probe assembly: first woven and kept, then a FIFO in its place. The entry's check of it
  // and the weave both refuse it.
  ASSERT_EQ(W.weave().ExitCode, 0);
  ASSERT_FALSE(sys::fs::remove(W.Probes));
  ASSERT_EQ(::mkfifo(W.Probes.c_str(), 0600), 0);
  test::CommandResult R = W.weave();
  EXPECT_EQ(R.ExitCode, 1) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("'" + W.Probes + "': is a FIFO, not a regular file"))
      << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
}

} // namespace
