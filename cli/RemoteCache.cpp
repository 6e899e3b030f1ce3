//===- cli/RemoteCache.cpp - A remote cache over Bazel's HTTP protocol ----===//
//
// GET and PUT of URL/ac/KEY and URL/cas/SHA256 (the protocol bazel-remote, nginx's WebDAV module,
// BuildBuddy and most artifact stores serve): 200 is a record, 404 none. A request that fails to
// connect, or gets a 5xx, is made again twice (after 100 and 400 ms); one that runs out of time
// is not (a slow server stays slow). The first failure that remains is the run's one warning:
// after it the server is asked nothing more and every weave is made locally. A refused write
// (401, 403, 405, 413, ...) stops the writes alone.
//
//===----------------------------------------------------------------------===//
#include "cli/HttpClient.h"
#include "cli/WeaveCache.h"

#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <thread>

using namespace llvm;

namespace weft::cli {

namespace {

class RemoteStore : public CacheStore {
public:
  RemoteStore(std::unique_ptr<HttpClient> Client, bool ReadOnly)
      : Client(std::move(Client)), ReadOnly(ReadOnly) {}

  Expected<bool> fetch(CacheArea Area, StringRef Key,
                       function_ref<Error(StringRef)> Sink) override {
    if (Down)
      return false;
    // Made again only while nothing of the body reached the sink.
    uint64_t Given = 0;
    auto Counted = [&](StringRef Piece) {
      Given += Piece.size();
      return Sink(Piece);
    };
    Expected<HttpResponse> R = send([&] { return Client->get(path(Area, Key), Counted); },
                                    [&] { return Given == 0; });
    if (!R)
      return failed(R.takeError());
    if (R->Status == 404)
      return false;
    if (R->Status != 200)
      return failed(plainError("GET " + where(Area, Key) + ": the server answered " +
                               Twine(R->Status)));
    return true;
  }

  Error put(CacheArea Area, StringRef Key, StringRef Bytes) override {
    if (Down || !writes())
      return Error::success();
    Expected<HttpResponse> R =
        send([&] { return Client->put(path(Area, Key), arrayRefFromStringRef(Bytes)); },
             [] { return true; });
    if (!R)
      return failed(R.takeError()).takeError();
    if (R->Status >= 200 && R->Status < 300)
      return Error::success();
    if (R->Status >= 500)
      return failed(plainError("PUT " + where(Area, Key) + ": the server answered " +
                               Twine(R->Status)))
          .takeError();
    // Refused: the server is up, but this build may not write there.
    if (Refused.exchange(true))
      return Error::success();
    return createStringError(inconvertibleErrorCode(),
                             "remote cache: PUT " + where(Area, Key) + ": the server answered " +
                                 Twine(R->Status) +
                                 " (refused): nothing more is written there in this run "
                                 "(--remote-cache-read-only says so on purpose)");
  }

  std::string where(CacheArea Area, StringRef Key) const override {
    return Client->url().Shown + "/" + path(Area, Key);
  }
  bool writes() const override { return !ReadOnly && !Refused; }
  std::string name() const override { return "remote cache"; }

private:
  static std::string path(CacheArea Area, StringRef Key) {
    return (Area == CacheArea::Action ? "ac/" : "cas/") + Key.str();
  }

  /// The request, again after a failure to connect or a 5xx, twice at most, while \p CanRepeat.
  Expected<HttpResponse> send(function_ref<Expected<HttpResponse>()> Request,
                              function_ref<bool()> CanRepeat) {
    for (int Attempt = 0;; ++Attempt) {
      Expected<HttpResponse> R = Request();
      bool Again = Attempt < 2 && (R ? R->Status >= 500 : !isTimeout(R)) && CanRepeat();
      if (!Again)
        return R;
      if (!R)
        consumeError(R.takeError());
      std::this_thread::sleep_for(std::chrono::milliseconds(Attempt == 0 ? 100 : 400));
    }
  }
  static bool isTimeout(Expected<HttpResponse> &R) {
    std::string Text;
    Error E = R.takeError();
    Text = toString(std::move(E));
    bool Timeout = StringRef(Text).contains(HttpTimedOut);
    R = plainError(Text);
    return Timeout;
  }

  /// The server's failure: the run's one warning about it (false once it was given), and no
  /// request after it.
  Expected<bool> failed(Error E) {
    std::string Text = toString(std::move(E));
    if (Down.exchange(true))
      return false;
    return createStringError(inconvertibleErrorCode(),
                             "remote cache: " + Text +
                                 ": the server is not used for the rest of this run (the "
                                 "build goes on, weaving locally)");
  }

  std::unique_ptr<HttpClient> Client;
  bool ReadOnly;
  std::atomic<bool> Down{false}, Refused{false};
};

} // namespace

Expected<std::unique_ptr<CacheStore>> CacheStore::remote(StringRef Url, bool ReadOnly,
                                                         std::chrono::milliseconds Timeout) {
  HttpOptions O;
  O.Timeout = Timeout;
  if (Optional<std::string> Token = sys::Process::GetEnv("WEFT_REMOTE_CACHE_TOKEN"))
    O.Headers.push_back("Authorization: Bearer " + *Token);
  else if (Optional<std::string> Basic = sys::Process::GetEnv("WEFT_REMOTE_CACHE_BASIC"))
    O.Headers.push_back("Authorization: Basic " + encodeBase64(*Basic));
  for (const std::string &H : O.Headers)
    if (StringRef(H).find_first_of("\r\n") != StringRef::npos)
      return plainError("remote cache: a credential in the environment holds a line break");
  if (Optional<std::string> Cert = sys::Process::GetEnv("WEFT_REMOTE_CACHE_CLIENT_CERT"))
    O.ClientCertificate = *Cert;
  if (Optional<std::string> Key = sys::Process::GetEnv("WEFT_REMOTE_CACHE_CLIENT_KEY"))
    O.ClientKey = *Key;
  Expected<std::unique_ptr<HttpClient>> C = HttpClient::create(Url, std::move(O));
  if (!C)
    return createStringError(inconvertibleErrorCode(),
                             "remote cache: " + toString(C.takeError()));
  return std::make_unique<RemoteStore>(std::move(*C), ReadOnly);
}

} // namespace weft::cli
