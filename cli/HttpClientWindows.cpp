//===- cli/HttpClientWindows.cpp - The remote cache's HTTP on Windows -----===//
//
// The HTTP client (cli/HttpClientPosix.cpp) is sockets and OpenSSL; Windows' build has neither
// OpenSSL nor, yet, a client of its own (WinHTTP would be it): a remote cache is refused there,
// with this reason, and every weave is made locally.
//
//===----------------------------------------------------------------------===//
#include "cli/HttpClient.h"

#include "support/Error.h"

using namespace llvm;

namespace weft::cli {

Expected<std::unique_ptr<HttpClient>> HttpClient::create(StringRef Url, HttpOptions) {
  return plainError("the remote cache is not supported on Windows yet");
}

} // namespace weft::cli
