//===- cli/WeaveCacheWindows.cpp - The weaving cache on Windows -----------===//
//
// The cache (cli/WeaveCache.cpp) reads its entries through a folder it opened, never through a
// link, and trusts a folder by its owner and mode: POSIX's calls (openat, fstatat, renameat).
// Until Windows has its own (handles opened relative to a folder, security descriptors checked),
// `--cache-dir` is refused there; the key is the same, so that the two stay comparable.
//
//===----------------------------------------------------------------------===//
#include "cli/WeaveCache.h"
#include "pe/Sha256.h"
#include "support/RegularFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

void CacheKey::addText(StringRef Label, StringRef Text) {
  raw_string_ostream OS(Material);
  OS << Label << ' ' << Text.size() << '\n' << Text << '\n';
}

Error CacheKey::addFile(StringRef Label, StringRef Path) {
  if (!sys::fs::exists(Path)) {
    addText(Label, "(missing)");
    return Error::success();
  }
  if (Error E = requireRegularFile(Path))
    return E;
  Expected<std::string> D = pe::fileSha256Hex(Path);
  if (!D)
    return D.takeError();
  addText(Label, *D);
  return Error::success();
}

std::string CacheKey::hex() const { return pe::sha256Hex(arrayRefFromStringRef(Material)); }

Expected<WeaveCache> WeaveCache::open(StringRef Dir, bool Shared) {
  return createStringError(inconvertibleErrorCode(), "weaving cache: '" + Dir +
                                                         "': the weaving cache is not supported "
                                                         "on Windows yet");
}

WeaveCache::WeaveCache(WeaveCache &&Other) noexcept
    : Dir(std::move(Other.Dir)), FolderFd(Other.FolderFd), Shared(Other.Shared),
      Umask(Other.Umask) {}

WeaveCache::~WeaveCache() = default;

Expected<bool> WeaveCache::restore(StringRef Key,
                                   function_ref<std::optional<std::string>(StringRef Role)>,
                                   std::vector<std::string> &) {
  return false;
}

Error WeaveCache::store(StringRef Key, ArrayRef<CachedFile>, ArrayRef<std::string>) {
  return Error::success();
}

std::string weftBuildIdentity() { return "weft " WEFT_VERSION " no-build-id"; }

std::string cacheDirFrom(StringRef Option) {
  if (!Option.empty())
    return Option.str();
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_CACHE_DIR"))
    return *Env;
  return "";
}

bool cacheSharedFrom(bool Option) {
  if (Option)
    return true;
  Optional<std::string> Env = sys::Process::GetEnv("WEFT_CACHE_SHARED");
  return Env && (*Env == "1" || StringRef(*Env).equals_insensitive("true"));
}

} // namespace weft::cli
