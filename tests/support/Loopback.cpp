//===- tests/support/Loopback.cpp - Servers on loopback in tests ----------===//
#include "tests/support/Loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
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

RecordingServer::RecordingServer(std::vector<std::string> R) : Replies(std::move(R)) {
  Listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in A = loopback(0);
  socklen_t N = sizeof A;
  if (::bind(Listener, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0 &&
      ::getsockname(Listener, reinterpret_cast<sockaddr *>(&A), &N) == 0 &&
      ::listen(Listener, 16) == 0)
    Port = ntohs(A.sin_port);
  Thread = std::thread([this] { serve(); });
}

RecordingServer::~RecordingServer() {
  Stop = true;
  Thread.join();
  ::close(Listener);
}

std::vector<RecordingServer::Request> RecordingServer::requests() {
  std::lock_guard<std::mutex> Hold(Lock);
  return Received;
}

void RecordingServer::serve() {
  while (!Stop) {
    pollfd P{Listener, POLLIN, 0};
    if (::poll(&P, 1, 50) <= 0)
      continue;
    int Fd = ::accept4(Listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (Fd < 0)
      continue;
    timeval Limit{5, 0};
    ::setsockopt(Fd, SOL_SOCKET, SO_RCVTIMEO, &Limit, sizeof Limit);
    answer(Fd);
    ::close(Fd);
  }
}

void RecordingServer::answer(int Fd) {
  std::string In;
  char Buf[65536];
  size_t HeadEnd;
  while ((HeadEnd = In.find("\r\n\r\n")) == std::string::npos) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    if (N <= 0)
      return;
    In.append(Buf, size_t(N));
  }
  Request R;
  R.Head = In.substr(0, HeadEnd);
  size_t Length = 0;
  std::string Lower = R.Head;
  for (char &C : Lower)
    C = char(::tolower(C));
  if (size_t At = Lower.find("\r\ncontent-length:"); At != std::string::npos)
    Length = std::stoul(Lower.substr(At + 17));
  R.Body = In.substr(HeadEnd + 4);
  while (R.Body.size() < Length) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    if (N <= 0)
      return;
    R.Body.append(Buf, size_t(N));
  }
  std::string Reply = "HTTP/1.1 200 OK";
  {
    std::lock_guard<std::mutex> Hold(Lock);
    if (Received.size() < Replies.size())
      Reply = Replies[Received.size()];
    Received.push_back(std::move(R));
  }
  Reply += "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  (void)!::write(Fd, Reply.data(), Reply.size());
}

} // namespace weft::test
