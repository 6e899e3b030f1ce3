//===- tests/support/CacheServer.cpp - nginx as a remote build cache ------===//
#include "tests/support/CacheServer.h"

#include "tests/support/Env.h"
#include "tests/support/Loopback.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace weft::test {

namespace {

/// Whether something accepts connections on loopback port \p Port.
bool listening(int Port) {
  int Fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_port = htons(uint16_t(Port));
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool Up = ::connect(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0;
  ::close(Fd);
  return Up;
}

std::string program(StringRef Name) {
  for (std::string P : {"/usr/sbin/" + Name.str(), "/usr/bin/" + Name.str()})
    if (sys::fs::can_execute(P))
      return P;
  ErrorOr<std::string> Found = sys::findProgramByName(Name);
  return Found ? *Found : "";
}

} // namespace

CacheServer::CacheServer(const std::string &D, bool Tls, Kind K) : Dir(D), Tls(Tls), What(K) {
  for (const char *Sub : {"store", "tmp", "logs"})
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/" + Sub));
  Port = freePort();
  if (What == Kind::Apache) {
    configureApache();
    start();
    return;
  }
  if (Tls) {
    TlsPort = freePort();
    // A self-signed certificate for 127.0.0.1, its own authority.
    CommandResult R = run("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                                      "2", "-subj", "/CN=127.0.0.1", "-addext",
                                      "subjectAltName=IP:127.0.0.1", "-keyout",
                                      Dir + "/server.key", "-out", certificate()});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
  }
  std::string Store = store();
  std::string Cache = "      dav_methods PUT;\n      create_full_put_path on;\n"
                      "      dav_access user:rw group:r all:r;\n";
  auto Server = [&](const std::string &Listen) {
    return "  server {\n    listen " + Listen +
           ";\n    root " + Store + ";\n    location / {\n" + Cache + "    }\n" +
           "    location /readonly/ {\n      alias " + Store +
           "/;\n      limit_except GET { deny all; }\n    }\n" +
           "    location /slow/ {\n      alias " + Store + "/;\n      limit_rate 64;\n" + Cache +
           "    }\n    location /broken/ {\n      return 503;\n    }\n  }\n";
  };
  std::string Conf =
      "worker_processes 1;\n" + std::string(::geteuid() == 0 ? "user root;\n" : "") +
      "error_log " + Dir + "/logs/error.log;\npid " + Dir + "/nginx.pid;\n" +
      "events { worker_connections 64; }\nhttp {\n" +
      "  log_format weft '$request_method $uri $status \"$http_authorization\"';\n" +
      "  access_log " + Dir + "/logs/access.log weft;\n" +
      "  client_body_temp_path " + Dir + "/tmp;\n  proxy_temp_path " + Dir +
      "/tmp;\n  fastcgi_temp_path " + Dir + "/tmp;\n  uwsgi_temp_path " + Dir +
      "/tmp;\n  scgi_temp_path " + Dir + "/tmp;\n  client_max_body_size 0;\n" +
      Server("127.0.0.1:" + std::to_string(Port));
  if (Tls)
    Conf += Server("127.0.0.1:" + std::to_string(TlsPort) + " ssl") + "  ssl_certificate " +
            certificate() + ";\n  ssl_certificate_key " + Dir + "/server.key;\n";
  Conf += "}\n";
  EXPECT_TRUE(writeFile(Dir + "/nginx.conf", Conf));
  start();
}

void CacheServer::configureApache() {
  std::string Store = store();
  for (const char *Sub : {"store/ac", "store/cas", "lock"})
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/" + Sub));
  bool Root = ::geteuid() == 0;
  if (Root) { // the workers' user enters the folder, writes the store and the lock database
    EXPECT_FALSE(sys::fs::setPermissions(Dir, sys::fs::perms(0755)));
    EXPECT_EQ(run("chown", {"-R", "nobody:nogroup", Store, Dir + "/lock"}).ExitCode, 0);
  }
  std::string Modules = "/usr/lib/apache2/modules/";
  std::string Conf = "ServerRoot " + Dir + "\nPidFile " + Dir + "/httpd.pid\nListen 127.0.0.1:" +
                     std::to_string(Port) + "\n";
  for (const char *M : {"mpm_event", "authz_core", "dav", "dav_fs"})
    Conf += "LoadModule " + std::string(M) + "_module " + Modules + "mod_" + M + ".so\n";
  if (Root)
    Conf += "User nobody\nGroup nogroup\n";
  Conf += "ErrorLog " + Dir + "/logs/error.log\nServerName localhost\n"
          "LogFormat \"%m %U %>s \\\"%{Authorization}i\\\"\" weft\nCustomLog " +
          Dir + "/logs/access.log weft\nDocumentRoot " + Store + "\nDavLockDB " + Dir +
          "/lock/DavLock\n<Directory " + Store + ">\n  Dav On\n  Require all granted\n</Directory>\n";
  EXPECT_TRUE(writeFile(Dir + "/httpd.conf", Conf));
}

void CacheServer::start() {
  bool Apache = What == Kind::Apache;
  std::string Exe = program(Apache ? "apache2" : "nginx");
  ASSERT_FALSE(Exe.empty()) << (Apache ? "apache2" : "nginx")
                            << " is not installed (./dev installs it)";
  std::string Conf = Dir + (Apache ? "/httpd.conf" : "/nginx.conf");
  std::vector<StringRef> Args = {Exe, "-p", Dir, "-c", Conf, "-g", "daemon off;"};
  if (Apache)
    Args = {Exe, "-f", Conf, "-DFOREGROUND"};
  std::string Log = Dir + "/logs/server.out";
  Optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log), StringRef(Log)};
  Process = sys::ExecuteNoWait(Exe, Args, None, Redirects);
  for (int I = 0; I < 200; ++I) {
    if (listening(Port) && (!Tls || listening(TlsPort)))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ADD_FAILURE() << "nginx did not start: " << readFile(Log) << readFile(Dir + "/logs/error.log");
}

void CacheServer::stop() {
  if (Process.Pid <= 0)
    return;
  ::kill(Process.Pid, SIGTERM);
  sys::Wait(Process, 30, true);
  Process = sys::ProcessInfo();
  for (int I = 0; I < 200 && listening(Port); ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
}

CacheServer::~CacheServer() { stop(); }

std::string CacheServer::url(const std::string &Location, bool OverTls) const {
  return (OverTls ? "https://127.0.0.1:" + std::to_string(TlsPort)
                  : "http://127.0.0.1:" + std::to_string(Port)) +
         "/" + Location;
}

std::vector<std::string> CacheServer::requests() const {
  std::string Text = readFile(Dir + "/logs/access.log");
  SmallVector<StringRef, 0> Lines;
  StringRef(Text).split(Lines, '\n', -1, false);
  return std::vector<std::string>(Lines.begin(), Lines.end());
}

} // namespace weft::test
