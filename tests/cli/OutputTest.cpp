//===- tests/cli/OutputTest.cpp - What weft's outputs may be --------------===//
//
// An output is replaced atomically only when it is a regular file: a device, a FIFO or a socket
// named with -o is written in place and stays what it was, and nothing goes beside it; a link of
// the user's own is written through, one another user planted is refused; `-o -` is standard
// output for text; a reader that leaves a pipe early ends weft quietly. Every device, FIFO and
// socket here is made by the test in its own folder: no test writes through weft to a system
// path.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"
#include "tests/support/OtherUser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

struct stat lstatOf(const std::string &Path) {
  struct stat St {};
  ::lstat(Path.c_str(), &St);
  return St;
}

/// Everything read from \p Fd until its writer closes it.
std::string readAll(int Fd) {
  std::string Got;
  char Buf[65536];
  for (ssize_t N; (N = ::read(Fd, Buf, sizeof Buf)) != 0;) {
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      break;
    Got.append(Buf, size_t(N));
  }
  return Got;
}

/// The corpus program Closures (it has a PDB) with the coverage pass, which writes a map beside
/// its output: the command line for \p Output.
std::vector<std::string> weaveWithSideFiles(const std::string &Output) {
  return {"weave", test::corpusDll("Closures"), "-o", Output, "--pass", "coverage"};
}

TEST(Outputs, ADeviceIsWrittenInPlaceAndNothingGoesBesideIt) {
  std::string Dir = test::scratchDir("output-device");
  std::string Null = Dir + "/null";
  if (::mknod(Null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno)
                 << "): the FIFO and socket tests cover writing in place";
  test::CommandResult W = weft(weaveWithSideFiles(Null));
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_NE(W.Err.find("is not a regular file: nothing is written beside it"), std::string::npos)
      << W.Err;
  test::CommandResult D = weft({"dump", test::corpusDll("Closures"), "-o", Null});
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  struct stat St = lstatOf(Null);
  EXPECT_TRUE(S_ISCHR(St.st_mode)) << "the device was replaced";
  EXPECT_EQ(St.st_rdev, makedev(1, 3));
  std::error_code EC;
  std::vector<std::string> Beside;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (It->path() != Null)
      Beside.push_back(It->path());
  EXPECT_TRUE(Beside.empty()) << "written beside the device: " << Beside.front();
}

TEST(Outputs, ATerminalIsWrittenInPlace) {
  // A pseudo-terminal of the test's own: a device anyone may make, read back from its master.
  int Master = -1, Slave = -1;
  char Name[256];
  if (::openpty(&Master, &Slave, Name, nullptr, nullptr) != 0)
    GTEST_SKIP() << "no pseudo-terminal: " << std::strerror(errno);
  struct termios Raw {};
  ::tcgetattr(Slave, &Raw);
  ::cfmakeraw(&Raw);
  ::tcsetattr(Slave, TCSANOW, &Raw);
  std::string Text;
  std::thread Reader([&] {
    char Buf[4096];
    for (ssize_t N; (N = ::read(Master, Buf, sizeof Buf)) > 0;)
      Text.append(Buf, size_t(N));
  });
  test::CommandResult D =
      weft({"dump", test::corpusDll("Closures"), "--method", "Main", "-o", Name});
  EXPECT_TRUE(S_ISCHR(lstatOf(Name).st_mode));
  ::close(Slave); // the master reads EIO once no one holds the terminal
  Reader.join();
  ::close(Master);
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  test::CommandResult Std = weft({"dump", test::corpusDll("Closures"), "--method", "Main"});
  EXPECT_EQ(Text, Std.Out);
}

TEST(Outputs, AFifoFeedsItsReaderAndStaysAFifo) {
  std::string Dir = test::scratchDir("output-fifo");
  std::string Fifo = Dir + "/woven.fifo";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0) << std::strerror(errno);
  std::string Got;
  std::thread Reader([&] {
    int Fd = ::open(Fifo.c_str(), O_RDONLY | O_CLOEXEC);
    if (Fd >= 0) {
      Got = readAll(Fd);
      ::close(Fd);
    }
  });
  test::CommandResult W = weft(weaveWithSideFiles(Fifo));
  Reader.join();
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_TRUE(S_ISFIFO(lstatOf(Fifo).st_mode)) << "the FIFO was replaced";
  EXPECT_FALSE(sys::fs::exists(Fifo + ".coverage.json"));
  EXPECT_FALSE(sys::fs::exists(Dir + "/woven.pdb")) << "the PDB went beside the FIFO's name";
  // The same bytes a regular output gets.
  std::string File = Dir + "/woven.dll";
  ASSERT_EQ(weft(weaveWithSideFiles(File)).ExitCode, 0);
  EXPECT_EQ(Got, test::readFile(File));
}

TEST(Outputs, ASocketIsConnectedToAndStaysASocket) {
  std::string Dir = test::scratchDir("output-socket");
  std::string Socket = Dir + "/dump.sock";
  int Listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(Listener, 0);
  sockaddr_un Addr{};
  Addr.sun_family = AF_UNIX;
  ASSERT_LT(Socket.size(), sizeof Addr.sun_path) << "the build folder's path is too long";
  std::memcpy(Addr.sun_path, Socket.c_str(), Socket.size() + 1);
  ASSERT_EQ(::bind(Listener, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr), 0);
  ASSERT_EQ(::listen(Listener, 1), 0);
  std::string Got;
  std::thread Reader([&] {
    int Fd = ::accept(Listener, nullptr, nullptr);
    if (Fd >= 0) {
      Got = readAll(Fd);
      ::close(Fd);
    }
  });
  test::CommandResult D =
      weft({"dump", test::corpusDll("Closures"), "--method", "Main", "-o", Socket});
  if (D.ExitCode != 0) // the reader waits for a connection that will not come
    ::shutdown(Listener, SHUT_RDWR);
  Reader.join();
  ::close(Listener);
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  EXPECT_EQ(Got, weft({"dump", test::corpusDll("Closures"), "--method", "Main"}).Out);
  EXPECT_TRUE(S_ISSOCK(lstatOf(Socket).st_mode));
}

TEST(Outputs, ALinkOfTheUsersOwnIsWrittenThrough) {
  std::string Dir = test::scratchDir("output-link");
  ASSERT_FALSE(sys::fs::create_directory(Dir + "/real"));
  std::string Target = Dir + "/real/woven.dll", Link = Dir + "/woven.dll";
  ASSERT_TRUE(test::writeFile(Target, "old"));
  ASSERT_EQ(::symlink("real/woven.dll", Link.c_str()), 0);
  test::CommandResult W = weft(weaveWithSideFiles(Link));
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_TRUE(S_ISLNK(lstatOf(Link).st_mode)) << "the link was replaced";
  EXPECT_TRUE(S_ISREG(lstatOf(Target).st_mode));
  EXPECT_NE(test::readFile(Target), "old");
  EXPECT_EQ(test::readFile(Target).substr(0, 2), "MZ");
  // The side files go beside the name given.
  EXPECT_TRUE(sys::fs::exists(Link + ".coverage.json"));
}

TEST(Outputs, ALinkToNothingOrAFolderIsRefused) {
  std::string Dir = test::scratchDir("output-dangling");
  std::string Link = Dir + "/woven.dll";
  ASSERT_EQ(::symlink("nowhere/woven.dll", Link.c_str()), 0);
  test::CommandResult W = weft(weaveWithSideFiles(Link));
  EXPECT_EQ(W.ExitCode, 1);
  EXPECT_NE(W.Err.find("is a symbolic link to nothing"), std::string::npos) << W.Err;
  EXPECT_FALSE(sys::fs::exists(Dir + "/nowhere"));
  test::CommandResult D = weft({"dump", test::corpusDll("Closures"), "-o", Dir});
  EXPECT_EQ(D.ExitCode, 1);
  EXPECT_NE(D.Err.find("'" + Dir + "': is a directory"), std::string::npos) << D.Err;
}

TEST(Outputs, ALinkAnotherUserPlantedIsRefused) {
  WEFT_NEEDS_OTHER_USER(Other);
  // /tmp's kind of folder: anyone may add a name. The other user's link points at a file of ours.
  test::SharedFolder Shared("output-planted", /*Shared=*/true);
  std::string Ours = Shared / "ours.txt", Planted = Shared / "report.txt";
  ASSERT_TRUE(test::writeFile(Ours, "precious\n"));
  test::CommandResult L = test::shellAs(*Other, "ln -s '" + Ours + "' '" + Planted + "'");
  ASSERT_EQ(L.ExitCode, 0) << L.Err;
  test::CommandResult D = weft({"dump", test::corpusDll("Closures"), "-o", Planted});
  EXPECT_EQ(D.ExitCode, 1);
  EXPECT_NE(D.Err.find("is a symbolic link owned by another user (uid " +
                       std::to_string(Other->Uid) + ")"),
            std::string::npos)
      << D.Err;
  EXPECT_EQ(test::readFile(Ours), "precious\n");
  EXPECT_TRUE(S_ISLNK(lstatOf(Planted).st_mode));
}

TEST(Outputs, DashIsStandardOutputForTextOnly) {
  test::CommandResult D =
      weft({"dump", test::corpusDll("Closures"), "--method", "Main", "-o", "-"});
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  EXPECT_EQ(D.Out, weft({"dump", test::corpusDll("Closures"), "--method", "Main"}).Out);
  EXPECT_FALSE(sys::fs::exists("-"));
  test::CommandResult W = weft({"weave", test::corpusDll("Closures"), "-o", "-"});
  EXPECT_EQ(W.ExitCode, 2);
  EXPECT_NE(W.Err.find("an assembly is not written to standard output"), std::string::npos)
      << W.Err;
  EXPECT_FALSE(sys::fs::exists("-"));
}

TEST(Outputs, AReaderLeavingThePipeEndsWeftQuietly) {
  std::string Dir = test::scratchDir("output-pipe");
  // The whole framework's CoreLib as text is far more than a pipe holds: weft is still writing
  // when head leaves.
  std::string Script = "'" + test::weftTool() + "' dump '" +
                       test::frameworkFile("System.Private.CoreLib.dll") + "' 2>'" + Dir +
                       "/err.txt' | head -c 100 >'" + Dir + "/head.txt'; echo \"${PIPESTATUS[0]}\"";
  test::CommandResult R = test::run("bash", {"-c", Script});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  // LLVM's tools' convention: the I/O error's exit code (EX_IOERR), and not a word.
  EXPECT_EQ(R.Out, "74\n");
  EXPECT_EQ(test::readFile(Dir + "/err.txt"), "");
  EXPECT_EQ(test::readFile(Dir + "/head.txt").size(), 100u);
}

} // namespace
