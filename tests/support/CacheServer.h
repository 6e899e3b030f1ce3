//===- tests/support/CacheServer.h - A remote build cache in tests --*- C++ -*-===//
//
// nginx from Debian (./dev installs it) with its WebDAV module, configured as Bazel's docs
// configure it for the HTTP cache protocol (PUT with create_full_put_path), on a free loopback
// port and in a folder of the test's own: its store, logs and temporary files there, run in the
// foreground and stopped when the test ends. Besides the cache at /, locations that misbehave:
// /readonly/ (the same store; a PUT is 403), /slow/ (the same store, answers at 64 bytes a
// second), /broken/ (503 for everything). With TLS, the same on a second port, over HTTPS with
// a certificate for 127.0.0.1 that the test makes (CacheServer::certificate()).
//
// The second kind, Apache httpd's mod_dav (Debian's apache2-bin: ./dev installs it, without a
// service of its own), serves the cache at / only: it makes no folder for a PUT, so ac/ and cas/
// are made first, as its administrator would; as root its workers run as nobody, who owns the
// store.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_CACHESERVER_H
#define WEFT_TESTS_SUPPORT_CACHESERVER_H

#include "llvm/Support/Program.h"

#include <string>
#include <vector>

namespace weft::test {

class CacheServer {
public:
  enum class Kind { Nginx, Apache };
  /// Starts nginx in \p Dir (made) and waits until it answers; a failure of the test if not.
  explicit CacheServer(const std::string &Dir, bool Tls = false, Kind K = Kind::Nginx);
  ~CacheServer();
  CacheServer(const CacheServer &) = delete;
  CacheServer &operator=(const CacheServer &) = delete;

  bool running() const { return Process.Pid > 0; }
  /// http://127.0.0.1:PORT/ + \p Location (https:// on the TLS port with \p Tls).
  std::string url(const std::string &Location = "", bool Tls = false) const;
  /// The folder the server keeps the cache in (its ac/ and cas/).
  std::string store() const { return Dir + "/store"; }
  /// The PEM certificate the TLS port presents (and its own authority).
  std::string certificate() const { return Dir + "/server.pem"; }
  /// The requests it answered, one line each: "METHOD PATH STATUS AUTHORIZATION".
  std::vector<std::string> requests() const;
  void stop();
  void start();

private:
  std::string Dir;
  int Port = 0, TlsPort = 0;
  bool Tls;
  Kind What;
  void configureApache();
  llvm::sys::ProcessInfo Process;
};

} // namespace weft::test

#endif
