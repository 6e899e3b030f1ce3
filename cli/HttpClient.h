//===- cli/HttpClient.h - Just enough HTTP/1.1 for a remote cache -*- C++ -*-===//
//
// GET and PUT of whole bodies against one server (http:// or https://), as a remote build cache
// speaks it (cli/RemoteCache.h): every request bounded by a deadline (connecting, the TLS
// handshake, sending and receiving all count against it), every response body by a size, and
// connections kept open between requests of one client. TLS is OpenSSL's, checked against the
// system's certificate authorities (SSL_CERT_FILE and SSL_CERT_DIR name others) and the host's
// name; a client certificate is optional.
//
// Credentials are headers the caller gives (HttpOptions::Headers); no error message names a
// header's value.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_HTTPCLIENT_H
#define WEFT_CLI_HTTPCLIENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft::cli {

/// What an error of a request that ran out of time says (a caller tells it from the others).
constexpr const char *HttpTimedOut = "no answer in time";

struct HttpOptions {
  /// How long one request may take, from connecting to the last byte of the response.
  std::chrono::milliseconds Timeout{10000};
  /// Extra request headers, each "Name: value" (Authorization, say).
  std::vector<std::string> Headers;
  /// A client certificate and its private key (PEM files), for servers that ask for one.
  std::string ClientCertificate, ClientKey;
  /// The largest response body taken; a larger one is an error.
  uint64_t MaxBody = uint64_t(1) << 32;
};

struct HttpResponse {
  int Status = 0;
  std::string Body;
};

/// A server's base URL, parsed: scheme://host[:port][/prefix].
struct HttpUrl {
  bool Tls = false;
  std::string Host, Port, Prefix; // Prefix: "" or "/path", without a final slash
  /// The URL as given, without what follows the host when that could carry a credential.
  std::string Shown;
  static llvm::Expected<HttpUrl> parse(llvm::StringRef Url);
};

class HttpClient {
public:
  static llvm::Expected<std::unique_ptr<HttpClient>> create(llvm::StringRef Url,
                                                            HttpOptions Options);
  virtual ~HttpClient();

  /// GET prefix/Path: any status is a response; a connection or protocol failure, a deadline
  /// passed or a body too large is an error naming the URL and what went wrong. With \p Sink, a
  /// 2xx response's body goes to it piece by piece as it arrives (an error from it ends the
  /// request) rather than into the response.
  virtual llvm::Expected<HttpResponse>
  get(llvm::StringRef Path, llvm::function_ref<llvm::Error(llvm::StringRef)> Sink = nullptr) = 0;
  /// PUT prefix/Path with \p Body.
  virtual llvm::Expected<HttpResponse> put(llvm::StringRef Path, llvm::ArrayRef<uint8_t> Body) = 0;

  const HttpUrl &url() const { return Url; }

protected:
  HttpClient(HttpUrl Url, HttpOptions Options)
      : Url(std::move(Url)), Options(std::move(Options)) {}
  HttpUrl Url;
  HttpOptions Options;
};

} // namespace weft::cli

#endif
