//===- tests/cli/RemoteCacheTest.cpp - weave with a real remote cache -----===//
//
// `weft weave --remote-cache URL` against nginx's WebDAV module serving Bazel's HTTP cache
// protocol on loopback (tests/support/CacheServer.h): a runner with a cold checkout in another
// folder takes what another checkout wove, byte for byte what weaving there writes, and keeps it
// in its own folder cache; a blob corrupted on the server is refused; a server stopped (before
// the build, and in the middle of it), one too slow for the timeout, one answering 503 and one
// refusing writes (403) are each one warning,
// and the build goes on, woven locally; read-only mode writes nothing; builds weaving the same
// input at once all succeed; a bearer token reaches the server and no message; https:// is
// checked against the certificate authorities it is given. And Apache httpd's mod_dav, the second
// server kind here, serves the same protocol.
//
//===----------------------------------------------------------------------===//
#include "tests/support/CacheServer.h"
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"
#include "tests/support/OtherUser.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <thread>

using namespace llvm;
using namespace weft;

namespace {

/// A checkout: CallHeavy with its PDB, the probe assembly and a spec naming it, in a folder of
/// its own.
struct Checkout {
  std::string Dir, Input, Spec;
  explicit Checkout(StringRef Name) : Dir(test::scratchDir(Name)) {
    Input = Dir + "/src/CallHeavy.dll";
    Spec = Dir + "/src/weft.json";
    std::string Dll = test::corpusDll("CallHeavy");
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/src"));
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/out"));
    EXPECT_TRUE(test::writeFile(Input, test::readFile(Dll)));
    EXPECT_TRUE(test::writeFile(Dir + "/src/CallHeavy.pdb",
                                test::readFile(Dll.substr(0, Dll.size() - 4) + ".pdb")));
    EXPECT_TRUE(test::writeFile(Dir + "/src/Probes.dll", test::readFile(test::probesDll())));
    EXPECT_TRUE(test::writeFile(
        Spec, R"({"version": 1, "rules": [{"match": {"method": "*"}, "passes": [{"name":
        "entry-exit", "options": {"probe-assembly": "Probes.dll", "probe-type":
        "Weft.Probes.Empty"}}]}]})"));
  }
  std::string out(StringRef File = "CallHeavy.dll") const { return Dir + "/out/" + File.str(); }
  /// weft weave into out/ with \p More (the cache's options), its environment \p Env.
  test::CommandResult weave(std::vector<std::string> More, std::vector<std::string> Env = {},
                            std::string Input = "") const {
    std::vector<std::string> Args = {"weave", Input.empty() ? this->Input : Input, "-o",
                                     Input.empty() ? out() : out(sys::path::filename(Input)),
                                     "--spec", Spec};
    Args.insert(Args.end(), More.begin(), More.end());
    return test::run(test::weftTool(), Args, Env, 120);
  }
  std::vector<std::string> outputs() const {
    return {test::readFile(out()), test::readFile(out("CallHeavy.pdb"))};
  }
};

bool has(const test::CommandResult &R, StringRef Text) { return StringRef(R.Err).contains(Text); }

/// The lines of \p Text that contain \p Part.
unsigned linesWith(StringRef Text, StringRef Part) {
  SmallVector<StringRef, 8> Lines;
  Text.split(Lines, '\n', -1, false);
  return llvm::count_if(Lines, [&](StringRef L) { return L.contains(Part); });
}

unsigned filesUnder(const std::string &Dir) {
  unsigned N = 0;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    N += It->type() == sys::fs::file_type::regular_file;
  return N;
}

TEST(RemoteCache, ACheckoutTakesAnotherCheckoutsWeaves) {
  test::CacheServer Server(test::scratchDir("remote-cache-server"));
  Checkout A("remote-cache-a"), B("remote-cache-b");
  test::CommandResult R = A.weave({"--remote-cache", Server.url()});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");
  // Two records (the manifest, the entry) and two blobs (the assembly, the PDB).
  EXPECT_EQ(filesUnder(Server.store() + "/ac"), 2u);
  EXPECT_EQ(filesUnder(Server.store() + "/cas"), 2u);

  // A cold runner: another folder, no folder cache of its own yet.
  std::string Local = B.Dir + "/cache";
  R = B.weave({"--remote-cache", Server.url(), "--cache-dir", Local});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "weft: '" + B.Input + "': taken from the remote cache\n");
  std::vector<std::string> Restored = B.outputs();
  // What weaving in that checkout writes.
  ASSERT_FALSE(sys::fs::remove_directories(B.Dir + "/out"));
  ASSERT_FALSE(sys::fs::create_directories(B.Dir + "/out"));
  R = B.weave({});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(Restored == B.outputs()) << "restored files differ from B's own weave";
  // Kept in the runner's folder: the next build asks the server nothing.
  size_t Asked = Server.requests().size();
  R = B.weave({"--remote-cache", Server.url(), "--cache-dir", Local});
  EXPECT_EQ(R.Err, "weft: '" + B.Input + "': taken from the weaving cache\n");
  EXPECT_EQ(Server.requests().size(), Asked);
}

TEST(RemoteCache, ApacheWebDavServesTheSameProtocol) {
  // The second server kind: Apache httpd's mod_dav, its cache folders made first. Its workers
  // (nobody, under root) reach the store only in a folder others may enter: /tmp's kind.
  test::SharedFolder Place("remote-cache-apache");
  test::CacheServer Server(Place / "server", false, test::CacheServer::Kind::Apache);
  Checkout A("remote-cache-apache-a"), B("remote-cache-apache-b");
  test::CommandResult R =
      A.weave({"--remote-cache", Server.url()}, {"WEFT_REMOTE_CACHE_TOKEN=apache-token"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");
  EXPECT_EQ(filesUnder(Server.store()), 4u);
  R = B.weave({"--remote-cache", Server.url()});
  EXPECT_EQ(R.Err, "weft: '" + B.Input + "': taken from the remote cache\n");
  EXPECT_TRUE(test::readFile(B.out()) == test::readFile(A.out()));
  std::vector<std::string> Asked = Server.requests();
  ASSERT_FALSE(Asked.empty());
  EXPECT_TRUE(StringRef(Asked.front()).startswith("GET /ac/")) << Asked.front();
  EXPECT_TRUE(StringRef(Asked.front()).endswith("\"Bearer apache-token\"")) << Asked.front();
}

TEST(RemoteCache, ABlobThatIsNotItsDigestIsRefused) {
  test::CacheServer Server(test::scratchDir("remote-cache-corrupt-server"));
  Checkout A("remote-cache-corrupt-a"), B("remote-cache-corrupt-b");
  ASSERT_EQ(A.weave({"--remote-cache", Server.url()}).ExitCode, 0);
  std::string Genuine = test::readFile(A.out());
  std::string Digest;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Server.store() + "/cas", EC), End; It != End && !EC;
       It.increment(EC))
    if (test::readFile(It->path()) == Genuine)
      Digest = sys::path::filename(It->path()).str();
  ASSERT_FALSE(Digest.empty());
  std::string Blob = Server.store() + "/cas/" + Digest;
  ASSERT_TRUE(test::writeFile(Blob, test::readFile(A.Input))); // another assembly
  test::CommandResult R = B.weave({"--remote-cache", Server.url(), "--cache-dir", B.Dir + "/c"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(has(R, "weft: warning: remote cache: '" + Server.url() + "cas/" + Digest +
                         "' is refused: it does not have the SHA-256 it is stored under; "
                         "woven anew"))
      << R.Err;
  EXPECT_FALSE(has(R, "taken from")) << R.Err;
  EXPECT_TRUE(test::readFile(B.out()) == Genuine);
  // The weave kept the genuine blob again, on the server and in the folder.
  EXPECT_TRUE(test::readFile(Blob) == Genuine);
}

TEST(RemoteCache, AServerThatFailsIsOneWarningAndTheBuildGoesOn) {
  test::CacheServer Server(test::scratchDir("remote-cache-failing-server"));
  Checkout A("remote-cache-failing");
  // Several inputs: one warning for the run, not one an input.
  std::vector<std::string> Inputs;
  for (int I = 0; I < 4; ++I) {
    Inputs.push_back(A.Dir + "/src/C" + std::to_string(I) + ".dll");
    ASSERT_TRUE(test::writeFile(Inputs.back(), test::readFile(A.Input)));
  }
  auto WeaveAll = [&](std::vector<std::string> More) -> test::CommandResult {
    std::vector<std::string> Args = {"weave"};
    Args.insert(Args.end(), Inputs.begin(), Inputs.end());
    Args.insert(Args.end(), {"--out-dir", A.Dir + "/out", "--spec", A.Spec, "-q"});
    Args.insert(Args.end(), More.begin(), More.end());
    EXPECT_FALSE(sys::fs::remove_directories(A.Dir + "/out"));
    auto Start = std::chrono::steady_clock::now();
    test::CommandResult R = test::run(test::weftTool(), Args, {}, 120);
    double Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(linesWith(R.Err, "warning"), 1u) << R.Err;
    EXPECT_EQ(linesWith(R.Err, "is not used for the rest of this run"),
              unsigned(!has(R, "(refused)")))
        << R.Err;
    for (const std::string &I : Inputs)
      EXPECT_TRUE(sys::fs::exists(A.Dir + "/out/" + sys::path::filename(I).str())) << R.Err;
    EXPECT_LT(Seconds, 20) << R.Err;
    return R;
  };
  // 503 for everything.
  test::CommandResult R = WeaveAll({"--remote-cache", Server.url("broken")});
  EXPECT_TRUE(has(R, "the server answered 503")) << R.Err;
  // Writes refused (403): reads go on, and nothing is written.
  R = WeaveAll({"--remote-cache", Server.url("readonly")});
  EXPECT_TRUE(has(R, "the server answered 403 (refused): nothing more is written there")) << R.Err;
  EXPECT_EQ(filesUnder(Server.store()), 0u);
  // Slower than the timeout (the store filled first, so that every answer has a body).
  ASSERT_EQ(A.weave({"--remote-cache", Server.url()}).ExitCode, 0);
  R = WeaveAll({"--remote-cache", Server.url("slow"), "--remote-cache-timeout", "1"});
  EXPECT_TRUE(has(R, "no answer in time")) << R.Err;
  // Stopped in the middle of a build: the answer on its way ends, and nothing listens after.
  std::thread Stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    Server.stop();
  });
  R = WeaveAll({"--remote-cache", Server.url("slow"), "--remote-cache-timeout", "30"});
  Stopper.join();
  EXPECT_TRUE(has(R, "remote cache: GET " + Server.url("slow"))) << R.Err;
  // Stopped before: nothing listens.
  R = WeaveAll({"--remote-cache", Server.url()});
  EXPECT_TRUE(has(R, "cannot connect: Connection refused")) << R.Err;
}

TEST(RemoteCache, AnAnswerCutShortOrTooLargeIsOneWarning) {
  Checkout A("remote-cache-cut-short");
  // A body announced in chunks that never come (the server closes), then an endless record.
  for (std::string Reply : {std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"),
                            std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                        "200000\r\n") +
                                std::string((1 << 20) + 4096, 'x')}) {
    // The server writes on after weft stopped reading: EPIPE for it, not SIGPIPE.
    struct sigaction Ignore {}, Old {};
    Ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &Ignore, &Old);
    test::CommandResult R;
    {
      test::RecordingServer Server({Reply});
      R = A.weave({"--remote-cache", "http://127.0.0.1:" + std::to_string(Server.port()) + "/"});
    }
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(linesWith(R.Err, "warning: remote cache: "), 1u) << R.Err;
    EXPECT_TRUE(test::readFile(A.out()).size() > 1000);
    ::sigaction(SIGPIPE, &Old, nullptr);
  }
}

TEST(RemoteCache, ReadOnlyWritesNothing) {
  test::CacheServer Server(test::scratchDir("remote-cache-read-only-server"));
  Checkout A("remote-cache-read-only-a"), B("remote-cache-read-only-b");
  test::CommandResult R = A.weave({"--remote-cache", Server.url(), "--remote-cache-read-only"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");
  EXPECT_EQ(filesUnder(Server.store()), 0u);
  for (const std::string &Line : Server.requests())
    EXPECT_TRUE(StringRef(Line).startswith("GET ")) << Line;
  // What another build wrote is taken all the same (WEFT_REMOTE_CACHE_READ_ONLY says it too).
  ASSERT_EQ(A.weave({"--remote-cache", Server.url()}).ExitCode, 0);
  size_t Files = filesUnder(Server.store());
  R = B.weave({}, {"WEFT_REMOTE_CACHE=" + Server.url(), "WEFT_REMOTE_CACHE_READ_ONLY=1"});
  EXPECT_EQ(R.Err, "weft: '" + B.Input + "': taken from the remote cache\n");
  EXPECT_EQ(filesUnder(Server.store()), Files);
}

TEST(RemoteCache, BuildsWeavingTheSameInputAtOnceAllSucceed) {
  test::CacheServer Server(test::scratchDir("remote-cache-together-server"));
  std::vector<std::unique_ptr<Checkout>> Checkouts;
  std::vector<test::CommandResult> Results(4);
  for (size_t I = 0; I < Results.size(); ++I)
    Checkouts.push_back(std::make_unique<Checkout>("remote-cache-together-" + std::to_string(I)));
  std::vector<std::thread> Threads;
  for (size_t I = 0; I < Results.size(); ++I)
    Threads.emplace_back([&, I] { Results[I] = Checkouts[I]->weave({"--remote-cache", Server.url()}); });
  for (std::thread &T : Threads)
    T.join();
  for (size_t I = 0; I < Results.size(); ++I) {
    EXPECT_EQ(Results[I].ExitCode, 0) << Results[I].Err;
    EXPECT_EQ(linesWith(Results[I].Err, "warning"), 0u) << Results[I].Err;
    EXPECT_TRUE(test::readFile(Checkouts[I]->out()) == test::readFile(Checkouts[0]->out()));
  }
  EXPECT_EQ(filesUnder(Server.store() + "/ac"), 2u);
  EXPECT_EQ(filesUnder(Server.store() + "/cas"), 2u);
}

TEST(RemoteCache, CredentialsComeFromTheEnvironmentAndAreNeverShown) {
  test::CacheServer Server(test::scratchDir("remote-cache-token-server"));
  Checkout A("remote-cache-token");
  test::CommandResult R =
      A.weave({"--remote-cache", Server.url()}, {"WEFT_REMOTE_CACHE_TOKEN=s3cret-token"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  for (const std::string &Line : Server.requests())
    EXPECT_TRUE(StringRef(Line).endswith("\"Bearer s3cret-token\"")) << Line;
  R = A.weave({"--remote-cache", Server.url("broken")}, {"WEFT_REMOTE_CACHE_BASIC=me:s3cret"});
  EXPECT_TRUE(has(R, "answered 503")) << R.Err;
  EXPECT_TRUE(StringRef(Server.requests().back()).endswith("\"Basic bWU6czNjcmV0\""));
  EXPECT_FALSE(has(R, "s3cret") || has(R, "bWU6czNjcmV0")) << R.Err;
  // Never on the command line: a URL naming a user is refused.
  R = A.weave({"--remote-cache", "http://me:s3cret@127.0.0.1:1/"});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(has(R, "give credentials in the environment")) << R.Err;
}

TEST(RemoteCache, HttpsIsCheckedAgainstTheAuthoritiesGiven) {
  test::CacheServer Server(test::scratchDir("remote-cache-tls-server"), /*Tls=*/true);
  Checkout A("remote-cache-tls-a"), B("remote-cache-tls-b");
  // The test's own authority is none of the system's: refused, and woven locally.
  test::CommandResult R = A.weave({"--remote-cache", Server.url("", true)});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(has(R, "the server's certificate is not trusted")) << R.Err;
  EXPECT_EQ(filesUnder(Server.store()), 0u);
  // Given as SSL_CERT_FILE (OpenSSL's variable): kept, and taken by another checkout.
  std::vector<std::string> Env = {"SSL_CERT_FILE=" + Server.certificate()};
  R = A.weave({"--remote-cache", Server.url("", true)}, Env);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Err, "");
  R = B.weave({"--remote-cache", Server.url("", true)}, Env);
  EXPECT_EQ(R.Err, "weft: '" + B.Input + "': taken from the remote cache\n");
}

} // namespace
