//===- cli/HttpClientPosix.cpp - HTTP/1.1 over sockets and OpenSSL --------===//
//
// Non-blocking sockets, each wait a poll bounded by the request's deadline. A connection is kept
// for the next request unless the server says it closes it; a request on a kept connection
// that the server had closed meanwhile is sent again once on a new one (GET and PUT of a
// content-addressed path are idempotent).
//
//===----------------------------------------------------------------------===//
#include "cli/HttpClient.h"

#include "support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

using namespace llvm;

namespace weft::cli {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t MaxHeader = 64 << 10;

/// The last OpenSSL error, as text (the queue emptied).
std::string sslErrorText() {
  std::string Text;
  while (unsigned long E = ERR_get_error()) {
    char Buffer[256];
    ERR_error_string_n(E, Buffer, sizeof Buffer);
    if (!Text.empty())
      Text += "; ";
    Text += Buffer;
  }
  return Text.empty() ? "unknown TLS error" : Text;
}

/// Certificate bundles of the systems whose OpenSSL looks elsewhere than Debian's, for a build
/// carried to them (the package's): the first that exists is added to OpenSSL's defaults.
constexpr const char *Bundles[] = {"/etc/ssl/certs/ca-certificates.crt",
                                   "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
                                   "/etc/ssl/ca-bundle.pem"};

/// SIGPIPE held back while writing to a socket a peer may have closed (OpenSSL writes with
/// write(2), which raises it): the write fails with EPIPE instead, and the process (MSBuild's,
/// when weft runs in it) keeps its own handling of the signal.
class NoSigpipe {
public:
  NoSigpipe() {
    sigset_t Pipe;
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    sigset_t Pending;
    sigpending(&Pending);
    WasPending = sigismember(&Pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &Pipe, &Old);
  }
  ~NoSigpipe() {
    if (!WasPending) {
      sigset_t Pipe, Pending;
      sigemptyset(&Pipe);
      sigaddset(&Pipe, SIGPIPE);
      sigpending(&Pending);
      if (sigismember(&Pending, SIGPIPE)) {
        timespec Zero{0, 0};
        sigtimedwait(&Pipe, nullptr, &Zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  }

private:
  sigset_t Old;
  bool WasPending = false;
};

class Connection {
public:
  Connection(int Fd, SSL *Ssl) : Fd(Fd), Ssl(Ssl) {}
  Connection(const Connection &) = delete;
  ~Connection() {
    if (Ssl)
      SSL_free(Ssl);
    ::close(Fd);
  }

  Error send(StringRef Bytes, Clock::time_point Deadline);
  /// Up to \p Size bytes; 0 at the end of the stream.
  Expected<size_t> receive(char *Into, size_t Size, Clock::time_point Deadline);
  /// Waits until the socket is ready for \p Events.
  Error wait(short Events, Clock::time_point Deadline);

  int Fd;
  SSL *Ssl;
};

Error timedOut() { return plainError(HttpTimedOut); }

Error Connection::wait(short Events, Clock::time_point Deadline) {
  while (true) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(Deadline - Clock::now());
    if (Left.count() <= 0)
      return timedOut();
    pollfd P{Fd, Events, 0};
    int N = ::poll(&P, 1, int(std::min<int64_t>(Left.count(), INT32_MAX)));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return plainError(std::strerror(errno));
    if (N > 0)
      return Error::success();
  }
}

/// Waits for what a TLS call that could not go on wants (\p Result of it), or says why it
/// failed.
Error afterTls(Connection &C, int Result, Clock::time_point Deadline) {
  switch (SSL_get_error(C.Ssl, Result)) {
  case SSL_ERROR_WANT_READ:
    return C.wait(POLLIN, Deadline);
  case SSL_ERROR_WANT_WRITE:
    return C.wait(POLLOUT, Deadline);
  case SSL_ERROR_ZERO_RETURN:
    return plainError("the server closed the connection");
  case SSL_ERROR_SYSCALL:
    return plainError(errno ? std::strerror(errno) : "the server closed the connection");
  default:
    return plainError("TLS: " + sslErrorText());
  }
}

Error Connection::send(StringRef Bytes, Clock::time_point Deadline) {
  NoSigpipe Held;
  while (!Bytes.empty()) {
    if (Ssl) {
      ERR_clear_error();
      int N = SSL_write(Ssl, Bytes.data(), int(std::min<size_t>(Bytes.size(), 1 << 20)));
      if (N > 0) {
        Bytes = Bytes.drop_front(size_t(N));
        continue;
      }
      if (Error E = afterTls(*this, N, Deadline))
        return E;
      continue;
    }
    ssize_t N = ::send(Fd, Bytes.data(), Bytes.size(), MSG_NOSIGNAL);
    if (N >= 0) {
      Bytes = Bytes.drop_front(size_t(N));
      continue;
    }
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return plainError(std::strerror(errno));
    if (Error E = wait(POLLOUT, Deadline))
      return E;
  }
  return Error::success();
}

Expected<size_t> Connection::receive(char *Into, size_t Size, Clock::time_point Deadline) {
  while (true) {
    if (Ssl) {
      ERR_clear_error();
      int N = SSL_read(Ssl, Into, int(std::min<size_t>(Size, INT32_MAX)));
      if (N > 0)
        return size_t(N);
      int Kind = SSL_get_error(Ssl, N);
      if (Kind == SSL_ERROR_ZERO_RETURN || (Kind == SSL_ERROR_SYSCALL && errno == 0))
        return 0;
      if (Error E = afterTls(*this, N, Deadline))
        return std::move(E);
      continue;
    }
    ssize_t N = ::recv(Fd, Into, Size, 0);
    if (N >= 0)
      return size_t(N);
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return plainError(std::strerror(errno));
    if (Error E = wait(POLLIN, Deadline))
      return std::move(E);
  }
}

/// A response read off a connection: the status, the headers that matter, the body.
struct Reader {
  Connection &C;
  Clock::time_point Deadline;
  uint64_t MaxBody;
  std::string Buffer; // read but not yet taken
  bool Ended = false;

  /// Reads more into Buffer; false at the end of the stream.
  Expected<bool> more() {
    char Piece[64 << 10];
    Expected<size_t> N = C.receive(Piece, sizeof Piece, Deadline);
    if (!N)
      return N.takeError();
    if (*N == 0)
      return Ended = true, false;
    Buffer.append(Piece, *N);
    return true;
  }
  /// A line ending in CRLF, taken from the buffer.
  Expected<std::string> line(size_t Max) {
    size_t End;
    while ((End = Buffer.find("\r\n")) == std::string::npos) {
      if (Buffer.size() > Max)
        return plainError("a line of the response is longer than " + Twine(Max) + " bytes");
      Expected<bool> Got = more();
      if (!Got)
        return Got.takeError();
      if (!*Got)
        return plainError("the response ends in the middle of a line");
    }
    std::string L = Buffer.substr(0, End);
    Buffer.erase(0, End + 2);
    return L;
  }
  /// \p N bytes of the body, given to \p Emit: what is read already, then straight from the
  /// connection in pieces (a large body never is in memory whole).
  Error take(uint64_t N, function_ref<Error(StringRef)> Emit) {
    if ((Taken += N) > MaxBody)
      return plainError("the response's body is larger than " + Twine(MaxBody) + " bytes");
    size_t Now = size_t(std::min<uint64_t>(N, Buffer.size()));
    if (Now)
      if (Error E = Emit(StringRef(Buffer).take_front(Now)))
        return E;
    Buffer.erase(0, Now);
    N -= Now;
    static thread_local std::vector<char> Piece(256 << 10);
    while (N) {
      Expected<size_t> Got =
          C.receive(Piece.data(), size_t(std::min<uint64_t>(N, Piece.size())), Deadline);
      if (!Got)
        return Got.takeError();
      if (*Got == 0)
        return plainError("the response's body ends early (the connection closed)");
      if (Error E = Emit(StringRef(Piece.data(), *Got)))
        return E;
      N -= *Got;
    }
    return Error::success();
  }
  uint64_t Taken = 0;
};

class PosixHttpClient : public HttpClient {
public:
  PosixHttpClient(HttpUrl U, HttpOptions O, SSL_CTX *Tls)
      : HttpClient(std::move(U), std::move(O)), Tls(Tls) {}
  ~PosixHttpClient() override {
    Idle.clear();
    if (Tls)
      SSL_CTX_free(Tls);
  }

  Expected<HttpResponse> get(StringRef Path, function_ref<Error(StringRef)> Sink) override {
    return request("GET", Path, {}, Sink);
  }
  Expected<HttpResponse> put(StringRef Path, ArrayRef<uint8_t> Body) override {
    return request("PUT", Path, Body, nullptr);
  }

private:
  Expected<HttpResponse> request(StringRef Method, StringRef Path, ArrayRef<uint8_t> Body,
                                 function_ref<Error(StringRef)> Sink);
  Expected<std::unique_ptr<Connection>> connect(Clock::time_point Deadline);
  Expected<HttpResponse> exchange(Connection &C, StringRef Head, ArrayRef<uint8_t> Body,
                                  function_ref<Error(StringRef)> Sink, bool &KeepOpen,
                                  bool &NothingBack, Clock::time_point Deadline);

  SSL_CTX *Tls;
  std::mutex Lock;
  std::vector<std::unique_ptr<Connection>> Idle;
};

Expected<std::unique_ptr<Connection>> PosixHttpClient::connect(Clock::time_point Deadline) {
  addrinfo Hints{};
  Hints.ai_family = AF_UNSPEC;
  Hints.ai_socktype = SOCK_STREAM;
  addrinfo *Found = nullptr;
  if (int Err = ::getaddrinfo(Url.Host.c_str(), Url.Port.c_str(), &Hints, &Found))
    return plainError("cannot find the host '" + Url.Host + "': " + gai_strerror(Err));
  std::unique_ptr<addrinfo, void (*)(addrinfo *)> Hold(Found, ::freeaddrinfo);
  std::string Why = "no address";
  for (addrinfo *A = Found; A; A = A->ai_next) {
    int Fd = ::socket(A->ai_family, A->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, A->ai_protocol);
    if (Fd < 0) {
      Why = std::strerror(errno);
      continue;
    }
    auto C = std::make_unique<Connection>(Fd, nullptr);
    int One = 1;
    ::setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof One);
    if (::connect(Fd, A->ai_addr, A->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        Why = std::strerror(errno);
        continue;
      }
      if (Error E = C->wait(POLLOUT, Deadline)) {
        Why = toString(std::move(E));
        continue;
      }
      int Err = 0;
      socklen_t Len = sizeof Err;
      ::getsockopt(Fd, SOL_SOCKET, SO_ERROR, &Err, &Len);
      if (Err) {
        Why = std::strerror(Err);
        continue;
      }
    }
    if (!Tls)
      return std::move(C);
    C->Ssl = SSL_new(Tls);
    if (!C->Ssl)
      return plainError("TLS: " + sslErrorText());
    SSL_set_fd(C->Ssl, Fd);
    // The certificate must name the host: its address (no SNI then), or its name.
    in6_addr Address;
    if (::inet_pton(AF_INET, Url.Host.c_str(), &Address) == 1 ||
        ::inet_pton(AF_INET6, Url.Host.c_str(), &Address) == 1) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(C->Ssl), Url.Host.c_str());
    } else {
      SSL_set_tlsext_host_name(C->Ssl, Url.Host.c_str());
      SSL_set1_host(C->Ssl, Url.Host.c_str());
    }
    while (true) {
      ERR_clear_error();
      int R = SSL_connect(C->Ssl);
      if (R == 1)
        return std::move(C);
      long Verified = SSL_get_verify_result(C->Ssl);
      if (SSL_get_error(C->Ssl, R) == SSL_ERROR_SSL && Verified != X509_V_OK)
        return plainError(std::string("TLS: the server's certificate is not trusted: ") +
                          X509_verify_cert_error_string(Verified));
      if (Error E = afterTls(*C, R, Deadline))
        return std::move(E);
    }
  }
  return plainError("cannot connect: " + Why);
}

Expected<HttpResponse> PosixHttpClient::exchange(Connection &C, StringRef Head,
                                                 ArrayRef<uint8_t> Body,
                                                 function_ref<Error(StringRef)> Sink,
                                                 bool &KeepOpen, bool &NothingBack,
                                                 Clock::time_point Deadline) {
  NothingBack = true;
  if (Error E = C.send(Head, Deadline))
    return std::move(E);
  if (!Body.empty())
    if (Error E = C.send(toStringRef(Body), Deadline))
      return std::move(E);
  Reader R{C, Deadline, Options.MaxBody, {}, false};
  Expected<std::string> Status = R.line(MaxHeader);
  if (!Status)
    return Status.takeError();
  NothingBack = false;
  // HTTP/1.1 200 OK
  StringRef S = *Status;
  HttpResponse Out;
  bool Http10 = S.startswith("HTTP/1.0");
  if (!S.startswith("HTTP/1.") || S.size() < 12 || S.substr(9, 3).getAsInteger(10, Out.Status))
    return plainError("the server's answer is not HTTP/1.x: '" + S.take_front(40) + "'");
  std::optional<uint64_t> Length;
  bool Chunked = false;
  KeepOpen = !Http10;
  size_t HeaderBytes = 0;
  while (true) {
    Expected<std::string> L = R.line(MaxHeader);
    if (!L)
      return L.takeError();
    if (L->empty())
      break;
    if ((HeaderBytes += L->size()) > MaxHeader)
      return plainError("the response's headers are longer than " + Twine(MaxHeader) + " bytes");
    auto [Name, Value] = StringRef(*L).split(':');
    Value = Value.trim();
    if (Name.equals_insensitive("content-length")) {
      uint64_t N;
      if (Value.getAsInteger(10, N))
        return plainError("the response's Content-Length is no number");
      Length = N;
    } else if (Name.equals_insensitive("transfer-encoding")) {
      Chunked = Value.contains_insensitive("chunked");
    } else if (Name.equals_insensitive("connection")) {
      KeepOpen = Value.contains_insensitive("keep-alive") ||
                 (!Http10 && !Value.contains_insensitive("close"));
    }
  }
  bool Bodiless = (Out.Status >= 100 && Out.Status < 200) || Out.Status == 204 ||
                  Out.Status == 304;
  if (Bodiless)
    return Out;
  // A 2xx body to the sink; any other (an error page) into the response.
  bool ToSink = Sink && Out.Status >= 200 && Out.Status < 300;
  auto Keep = [&](StringRef Piece) -> Error {
    if (ToSink)
      return Sink(Piece);
    Out.Body += Piece;
    return Error::success();
  };
  if (Chunked) {
    while (true) {
      Expected<std::string> SizeLine = R.line(1024);
      if (!SizeLine)
        return SizeLine.takeError();
      uint64_t N;
      if (StringRef(*SizeLine).split(';').first.trim().getAsInteger(16, N))
        return plainError("a chunk of the response has no size");
      if (N == 0) {
        while (true) { // trailers, then the empty line
          Expected<std::string> T = R.line(MaxHeader);
          if (!T)
            return T.takeError();
          if (T->empty())
            break;
        }
        break;
      }
      if (Error E = R.take(N, Keep))
        return std::move(E);
      Expected<std::string> End = R.line(2);
      if (!End)
        return End.takeError();
    }
  } else if (Length) {
    if (Error E = R.take(*Length, Keep))
      return std::move(E);
  } else {
    KeepOpen = false; // the body is what comes until the server closes
    while (true) {
      if (Error E = R.take(R.Buffer.size(), Keep))
        return std::move(E);
      Expected<bool> Got = R.more();
      if (!Got)
        return Got.takeError();
      if (!*Got)
        break;
    }
  }
  if (!R.Buffer.empty())
    KeepOpen = false; // more than the response: not a connection to use again
  return Out;
}

Expected<HttpResponse> PosixHttpClient::request(StringRef Method, StringRef Path,
                                                ArrayRef<uint8_t> Body,
                                                function_ref<Error(StringRef)> Sink) {
  Clock::time_point Deadline = Clock::now() + Options.Timeout;
  std::string Target = Url.Prefix + "/" + Path.str();
  std::string Head = Method.str() + " " + Target + " HTTP/1.1\r\nHost: " + Url.Host;
  if (Url.Port != (Url.Tls ? "443" : "80"))
    Head += ":" + Url.Port;
  Head += "\r\nUser-Agent: weft/" WEFT_VERSION "\r\nAccept: */*\r\n";
  for (const std::string &H : Options.Headers)
    Head += H + "\r\n";
  if (Method == "PUT")
    Head += "Content-Length: " + std::to_string(Body.size()) + "\r\n";
  Head += "\r\n";
  auto Failed = [&](Error E) {
    return plainError(Method + " " + Url.Shown + "/" + Path + ": " + toString(std::move(E)));
  };
  // A kept connection first; if the server had closed it, once more on a new one.
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    std::unique_ptr<Connection> C;
    bool Kept = false;
    {
      std::lock_guard<std::mutex> G(Lock);
      if (Attempt == 0 && !Idle.empty()) {
        C = std::move(Idle.back());
        Idle.pop_back();
        Kept = true;
      }
    }
    if (!C) {
      Expected<std::unique_ptr<Connection>> New = connect(Deadline);
      if (!New)
        return Failed(New.takeError());
      C = std::move(*New);
    }
    bool KeepOpen = false, NothingBack = true;
    Expected<HttpResponse> R = exchange(*C, Head, Body, Sink, KeepOpen, NothingBack, Deadline);
    if (!R) {
      if (Kept && NothingBack && Clock::now() < Deadline) {
        consumeError(R.takeError());
        continue;
      }
      return Failed(R.takeError());
    }
    if (KeepOpen) {
      std::lock_guard<std::mutex> G(Lock);
      Idle.push_back(std::move(C));
    }
    return std::move(*R);
  }
  return Failed(plainError("the server closed the connection"));
}

/// The TLS context of an https:// client: the system's authorities, the client certificate.
Expected<SSL_CTX *> tlsContext(const HttpOptions &O) {
  SSL_CTX *Ctx = SSL_CTX_new(TLS_client_method());
  if (!Ctx)
    return plainError("TLS: " + sslErrorText());
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX *)> Hold(Ctx, SSL_CTX_free);
  SSL_CTX_set_min_proto_version(Ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(Ctx, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_mode(Ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  SSL_CTX_set_default_verify_paths(Ctx); // SSL_CERT_FILE, SSL_CERT_DIR, or OpenSSL's own
  if (!sys::Process::GetEnv("SSL_CERT_FILE"))
    for (const char *B : Bundles)
      if (::access(B, R_OK) == 0) {
        SSL_CTX_load_verify_locations(Ctx, B, nullptr);
        break;
      }
  ERR_clear_error();
  if (!O.ClientCertificate.empty()) {
    if (SSL_CTX_use_certificate_chain_file(Ctx, O.ClientCertificate.c_str()) != 1)
      return plainError("TLS: the client certificate '" + O.ClientCertificate +
                        "' does not load: " + sslErrorText());
    std::string Key = O.ClientKey.empty() ? O.ClientCertificate : O.ClientKey;
    if (SSL_CTX_use_PrivateKey_file(Ctx, Key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(Ctx) != 1)
      return plainError("TLS: the client key '" + Key + "' does not load or does not match: " +
                        sslErrorText());
  }
  return Hold.release();
}

} // namespace

Expected<std::unique_ptr<HttpClient>> HttpClient::create(StringRef Url, HttpOptions Options) {
  Expected<HttpUrl> U = HttpUrl::parse(Url);
  if (!U)
    return U.takeError();
  SSL_CTX *Tls = nullptr;
  if (U->Tls) {
    Expected<SSL_CTX *> Ctx = tlsContext(Options);
    if (!Ctx)
      return Ctx.takeError();
    Tls = *Ctx;
  }
  return std::make_unique<PosixHttpClient>(std::move(*U), std::move(Options), Tls);
}

} // namespace weft::cli
