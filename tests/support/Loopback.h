//===- tests/support/Loopback.h - Servers on loopback in tests --*- C++ -*-===//
//
// The tests that start a server (a woven web app, the Aspire dashboard) give it a free loopback
// port and ask it over plain HTTP/1.0, with no client library.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_LOOPBACK_H
#define WEFT_TESTS_SUPPORT_LOOPBACK_H

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace weft::test {

/// A port on loopback that nothing listens on now.
int freePort();

/// The body of GET \p Path on loopback port \p Port if the answer is 200, else nothing.
std::optional<std::string> httpGet(int Port, const std::string &Path);

/// A server on a free loopback port that records the HTTP/1.1 requests it receives and answers
/// each with the next of the given replies (status line and headers, no body), then with
/// `200 OK`; each connection carries one request. Stops when it goes out of scope.
class RecordingServer {
public:
  struct Request {
    std::string Head; // the request line and headers, as sent
    std::string Body;
  };

  explicit RecordingServer(std::vector<std::string> Replies = {});
  ~RecordingServer();
  int port() const { return Port; }
  std::vector<Request> requests();

private:
  void serve();
  void answer(int Fd);

  int Listener = -1, Port = 0;
  std::atomic<bool> Stop{false};
  std::mutex Lock;
  std::vector<Request> Received;
  std::vector<std::string> Replies;
  std::thread Thread;
};

} // namespace weft::test

#endif
