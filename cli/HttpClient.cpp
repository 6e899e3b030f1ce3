//===- cli/HttpClient.cpp - What every system's HTTP client shares --------===//
//
// The URL and the messages; the connections are the system's (HttpClientPosix.cpp,
// HttpClientWindows.cpp).
//
//===----------------------------------------------------------------------===//
#include "cli/HttpClient.h"

#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace weft::cli {

HttpClient::~HttpClient() = default;

Expected<HttpUrl> HttpUrl::parse(StringRef Url) {
  HttpUrl U;
  StringRef Rest = Url;
  if (Rest.consume_front_insensitive("https://"))
    U.Tls = true;
  else if (!Rest.consume_front_insensitive("http://"))
    return plainError("'" + Url + "' is no http:// or https:// URL");
  size_t Slash = Rest.find('/');
  StringRef Authority = Rest.substr(0, Slash);
  StringRef Path = Slash == StringRef::npos ? "" : Rest.substr(Slash);
  if (Authority.contains('@'))
    return plainError("the URL names a user: give credentials in the environment "
                      "(WEFT_REMOTE_CACHE_TOKEN, WEFT_REMOTE_CACHE_BASIC), never in the URL");
  if (Path.find_first_of("?#") != StringRef::npos)
    return plainError("'" + Url + "' has a query or a fragment: give the cache's base URL");
  if (Authority.consume_front("[")) { // [IPv6]:port
    size_t Close = Authority.find(']');
    if (Close == StringRef::npos)
      return plainError("'" + Url + "': an IPv6 address without its ']'");
    U.Host = Authority.substr(0, Close).str();
    Authority = Authority.drop_front(Close + 1);
    if (!Authority.empty() && !Authority.consume_front(":"))
      return plainError("'" + Url + "': what follows the IPv6 address is no port");
    U.Port = Authority.str();
  } else {
    auto [Host, Port] = Authority.split(':');
    U.Host = Host.str();
    U.Port = Port.str();
  }
  if (U.Host.empty())
    return plainError("'" + Url + "' names no host");
  unsigned PortNumber;
  if (!U.Port.empty() && (StringRef(U.Port).getAsInteger(10, PortNumber) || PortNumber == 0 ||
                          PortNumber > 65535))
    return plainError("'" + Url + "': '" + U.Port + "' is no port");
  if (U.Port.empty())
    U.Port = U.Tls ? "443" : "80";
  U.Prefix = Path.rtrim('/').str();
  U.Shown = Url.rtrim('/').str();
  return U;
}

} // namespace weft::cli
