//===- tests/cli/StrongNameTest.cpp - weft weave --key --------------------===//
//
// Strong-name signing checked by an independent checker (tests/sn-check: the digest over headers
// read by System.Reflection.Metadata, the signature checked by the runtime's RSA). The checker is
// itself checked first: it accepts what the C# compiler signs and rejects a changed byte. Keys are
// made fresh for each run; the signed inputs are corpus programs the SDK builds with them.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

const char *const Program = "Properties";

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

std::string checker() { return test::binaryDir() + "/sn-check/bin/SnCheck/debug/SnCheck.dll"; }

test::CommandResult snCheck(std::vector<std::string> Args) {
  Args.insert(Args.begin(), checker());
  return test::run("dotnet", Args);
}

bool contains(StringRef Text, StringRef Part) { return Text.contains(Part); }

class StrongName : public ::testing::Test {
protected:
  // k1024: a 1024-bit pair the SDK signs with (SHA-1). k2048: a 2048-bit pair whose public half,
  // naming SHA-256, the SDK public-signs with.
  static std::string Dir, Key1024, Key2048, Public2048, Signed, PublicSigned;

  static std::string build(StringRef Name, std::vector<std::string> Properties) {
    SmallString<256> Project(test::sourceDir());
    sys::path::append(Project, "corpus", Program, std::string(Program) + ".csproj");
    std::vector<std::string> Args{"build", std::string(Project), "-nologo",
                                  "-v:q",  "--artifacts-path",   Dir + "/" + Name.str()};
    for (std::string &P : Properties)
      Args.push_back("-p:" + P);
    test::CommandResult R = test::run("dotnet", Args);
    if (R.ExitCode != 0) {
      ADD_FAILURE() << "dotnet build failed:\n" << R.Out << R.Err;
      return {};
    }
    return Dir + "/" + Name.str() + "/bin/" + Program + "/release/" + Program + ".dll";
  }

  static void SetUpTestSuite() {
    Dir = test::scratchDir("strong-name");
    Key1024 = Dir + "/k1024.snk";
    Key2048 = Dir + "/k2048.snk";
    Public2048 = Dir + "/p2048.snk";
    ASSERT_EQ(snCheck({"keygen", Key1024, "1024"}).ExitCode, 0);
    ASSERT_EQ(snCheck({"keygen", Key2048, "2048", Public2048, "sha256"}).ExitCode, 0);
    Signed = build("signed", {"SignAssembly=true", "AssemblyOriginatorKeyFile=" + Key1024});
    PublicSigned = build("public-signed", {"SignAssembly=true", "PublicSign=true",
                                           "AssemblyOriginatorKeyFile=" + Public2048});
  }

  // Runs a woven copy of the program beside its runtime configuration.
  static void expectRuns(const std::string &Dll) {
    SmallString<256> Config(test::corpusDll(Program)), To(Dll);
    sys::path::replace_extension(Config, "runtimeconfig.json");
    sys::path::replace_extension(To, "runtimeconfig.json");
    ASSERT_FALSE(sys::fs::copy_file(Config, To));
    SmallString<256> Expected(test::sourceDir());
    sys::path::append(Expected, "corpus", Program, "expected.txt");
    test::CommandResult R = test::run("dotnet", {Dll});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, test::readFile(Expected));
  }
};

std::string StrongName::Dir, StrongName::Key1024, StrongName::Key2048, StrongName::Public2048,
    StrongName::Signed, StrongName::PublicSigned;

TEST_F(StrongName, CheckerAcceptsTheCompilersSignatureAndRejectsAChangedByte) {
  ASSERT_FALSE(Signed.empty());
  test::CommandResult R = snCheck({"verify", Signed});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_TRUE(contains(R.Out, ": valid")) << R.Out;
  // One byte of the last section's data changes: both the checker and weft verify object.
  std::string Bytes = test::readFile(Signed);
  std::string Changed = Dir + "/changed.dll";
  ASSERT_FALSE(Bytes.empty());
  Bytes[Bytes.size() - 1] ^= 0x5A;
  ASSERT_TRUE(test::writeFile(Changed, Bytes));
  R = snCheck({"verify", Changed});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Out, ": invalid")) << R.Out;
  R = weft({"verify", Changed});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "strong-name signature: the signature does not match the image"))
      << R.Err;
}

TEST_F(StrongName, ResignedOutputVerifiesAndRuns) {
  ASSERT_FALSE(Signed.empty());
  std::string Out = Dir + "/resigned.dll";
  test::CommandResult R = weft({"weave", Signed, "-o", Out, "--key", Key1024});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(R.Err.empty()) << R.Err;
  R = snCheck({"verify", Out});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  R = weft({"verify", Out});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "strong-name signature valid")) << R.Out;
  // Same input and key, same bytes (PKCS #1 v1.5 signatures are deterministic).
  std::string Again = Dir + "/resigned-again.dll";
  ASSERT_EQ(weft({"weave", Signed, "-o", Again, "--key", Key1024}).ExitCode, 0);
  EXPECT_TRUE(test::readFile(Out) == test::readFile(Again));
  expectRuns(Out);
}

TEST_F(StrongName, PublicSignedSha256AssemblyIsSignedForReal) {
  ASSERT_FALSE(PublicSigned.empty());
  EXPECT_EQ(snCheck({"verify", PublicSigned}).ExitCode, 1) << "public signing makes no signature";
  std::string Out = Dir + "/public-resigned.dll";
  test::CommandResult R = weft({"weave", PublicSigned, "-o", Out, "--key", Key2048});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  R = snCheck({"verify", Out});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  R = weft({"dump", Out});
  EXPECT_TRUE(contains(R.Out, ".publickey = (00 24 00 00 0C 80 00 00")) << "SHA-256 kept";
  expectRuns(Out);
}

TEST_F(StrongName, UnsignedAssemblyTakesTheKey) {
  std::string Out = Dir + "/newly-signed.dll";
  test::CommandResult R = weft({"weave", test::corpusDll(Program), "-o", Out, "--key", Key1024});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  R = snCheck({"verify", Out});
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  // The same public key the compiler wrote when it signed with this key.
  test::CommandResult Mine = weft({"dump", Out}), Theirs = weft({"dump", Signed});
  auto PublicKey = [](StringRef Dump) {
    size_t At = Dump.find(".publickey = (");
    return At == StringRef::npos ? StringRef() : Dump.substr(At, Dump.find(')', At) - At);
  };
  EXPECT_FALSE(PublicKey(Mine.Out).empty());
  EXPECT_EQ(PublicKey(Mine.Out), PublicKey(Theirs.Out));
  expectRuns(Out);
}

TEST_F(StrongName, WithoutAKeyTheOutputIsUnsignedAndSaysSo) {
  ASSERT_FALSE(Signed.empty());
  std::string Out = Dir + "/unsigned.dll";
  test::CommandResult R = weft({"weave", Signed, "-o", Out});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(contains(R.Err, "is strong-name signed: the output is not signed (give --key"))
      << R.Err;
  R = snCheck({"verify", Out});
  EXPECT_TRUE(contains(R.Out, ": unsigned")) << R.Out;
  R = weft({"info", Out});
  EXPECT_TRUE(contains(R.Out, "slot present, not signed")) << R.Out;
  // The empty slot lets the output be signed later.
  std::string Later = Dir + "/signed-later.dll";
  ASSERT_EQ(weft({"weave", Out, "-o", Later, "--key", Key1024}).ExitCode, 0);
  EXPECT_EQ(snCheck({"verify", Later}).ExitCode, 0);
}

TEST_F(StrongName, UnsignedOnPurposeSaysNothing) {
  ASSERT_FALSE(Signed.empty());
  std::string Out = Dir + "/unsigned-on-purpose.dll";
  test::CommandResult R = weft({"weave", Signed, "-o", Out, "--unsigned"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(contains(R.Err, "strong-name signed")) << R.Err;
  EXPECT_TRUE(contains(snCheck({"verify", Out}).Out, ": unsigned"));
  expectRuns(Out);
  // A key and --unsigned ask for opposite things.
  R = weft({"weave", Signed, "-o", Dir + "/both.dll", "--unsigned", "--key", Key1024});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(contains(R.Err, "--key and --unsigned exclude each other")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Dir + "/both.dll"));
}

TEST_F(StrongName, AnotherKeyIsRefusedAndNothingIsWritten) {
  ASSERT_FALSE(Signed.empty());
  std::string Out = Dir + "/wrong-key.dll";
  test::CommandResult R = weft({"weave", Signed, "-o", Out, "--key", Key2048});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "'" + Key2048 + "' is not the assembly's key: its public key token"))
      << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
  // A framework assembly carries Microsoft's key.
  SmallString<256> Runtime(test::netCoreAppDir());
  sys::path::append(Runtime, "System.Runtime.dll");
  R = weft({"weave", std::string(Runtime), "-o", Out, "--key", Key1024});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "is not the assembly's key")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out));
}

TEST_F(StrongName, BadKeyFilesAreNamedWithStructureAndOffset) {
  std::string In = test::corpusDll(Program), Out = Dir + "/bad-key.dll";
  std::string Pair = test::readFile(Key1024);
  ASSERT_EQ(Pair.size(), 596u);
  // The first prime starts at 0x94, after the header and the 128-byte modulus.
  std::string OtherPrime = Pair;
  OtherPrime[0x94 + 10] ^= 1;
  struct Case {
    std::string Bytes, Message;
  } Cases[] = {
      {Pair.substr(0, 100), "key blob at offset 0x14: truncated: a 1024-bit key pair takes 576"},
      {Pair.substr(0, 10), "key blob at offset 0x0: truncated"},
      {test::readFile(Public2048), "key blob at offset 0xc: holds only a public key"},
      {std::string(596, 'k'), "key blob at offset 0x0: blob type 0x6b is not a private key blob"},
      {OtherPrime, "key blob at offset 0x94: the primes do not multiply to the modulus"},
  };
  for (const Case &C : Cases) {
    std::string Key = Dir + "/bad.snk";
    ASSERT_TRUE(test::writeFile(Key, C.Bytes));
    test::CommandResult R = weft({"weave", In, "-o", Out, "--key", Key});
    EXPECT_EQ(R.ExitCode, 1);
    EXPECT_TRUE(contains(R.Err, "weft: error: '" + Key + "': " + C.Message)) << R.Err;
    EXPECT_FALSE(sys::fs::exists(Out));
  }
  test::CommandResult R = weft({"weave", In, "-o", Out, "--key", Dir + "/none.snk"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(contains(R.Err, "none.snk': No such file or directory")) << R.Err;
}

// weft's own check (`weft info`) and the checker agree on every assembly of the shared framework:
// Microsoft signs the IL-only ones; ReadyToRun compilation changes the others after signing.
TEST_F(StrongName, VerdictsAgreeWithTheCheckerOnTheFramework) {
  std::vector<std::string> Files = test::filesUnder(test::netCoreAppDir(), {".dll"});
  ASSERT_FALSE(Files.empty());
  std::vector<std::string> Args{"verify"};
  Args.insert(Args.end(), Files.begin(), Files.end());
  test::CommandResult Theirs = snCheck(Args);
  std::map<std::string, std::string> Verdict; // path -> the checker's first word
  for (StringRef Line : split(Theirs.Out, '\n')) {
    auto [Path, Rest] = Line.rsplit(": ");
    if (!Rest.empty())
      Verdict[Path.str()] = Rest.split(' ').first.str();
  }
  unsigned Valid = 0, Invalid = 0;
  for (const std::string &F : Files) {
    test::CommandResult R = weft({"info", "--json", F});
    ASSERT_EQ(R.ExitCode, 0) << F << R.Err;
    Expected<json::Value> J = json::parse(R.Out);
    ASSERT_TRUE(bool(J)) << toString(J.takeError());
    const json::Object *Cli = J->getAsObject()->getObject("cli");
    if (!Cli)
      continue; // not managed
    std::string Mine = Cli->getString("strong_name_signature").getValueOr("").str();
    const std::string &Other = Verdict[F];
    if (Mine == "valid")
      ++Valid;
    if (Mine == "invalid")
      ++Invalid;
    // The checker has no separate word for a key it cannot check (the ECMA standard key).
    EXPECT_EQ(Mine == "unchecked" ? "invalid" : Mine, Other) << F;
  }
  EXPECT_GT(Valid, 0u);
  EXPECT_GT(Invalid, 0u);
}

} // namespace
