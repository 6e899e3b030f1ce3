//===- tests/support/Loopback.cpp - Servers on loopback in tests ----------===//
#include "tests/support/Loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace weft::test {

namespace {

sockaddr_in loopback(int Port) {
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  A.sin_port = htons(uint16_t(Port));
  return A;
}

} // namespace

int freePort() {
  int Fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in A = loopback(0);
  socklen_t N = sizeof A;
  int Port = 0;
  if (::bind(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0 &&
      ::getsockname(Fd, reinterpret_cast<sockaddr *>(&A), &N) == 0)
    Port = ntohs(A.sin_port);
  ::close(Fd);
  return Port;
}

std::optional<std::string> httpGet(int Port, const std::string &Path) {
  int Fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in A = loopback(Port);
  std::string Reply;
  if (::connect(Fd, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0) {
    std::string Request = "GET " + Path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(Fd, Request.data(), Request.size()) == ssize_t(Request.size())) {
      char Buf[8192];
      for (ssize_t N; (N = ::read(Fd, Buf, sizeof Buf)) > 0;)
        Reply.append(Buf, size_t(N));
    }
  }
  ::close(Fd);
  size_t Body = Reply.find("\r\n\r\n");
  if (Reply.compare(0, 12, "HTTP/1.1 200") != 0 || Body == std::string::npos)
    return std::nullopt;
  return Reply.substr(Body + 4);
}

} // namespace weft::test
