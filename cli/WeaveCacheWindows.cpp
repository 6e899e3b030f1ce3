//===- cli/WeaveCacheWindows.cpp - The weaving cache on Windows -----------===//
//
// The cache (cli/WeaveCachePosix.cpp) reads its entries through a folder it opened, never through a
// link, and trusts a folder by its owner and mode: POSIX's calls (openat, fstatat, renameat).
// Until Windows has its own (handles opened relative to a folder, security descriptors checked),
// `--cache-dir` is refused there. The key (cli/WeaveCache.cpp) is the same on every system.
//
//===----------------------------------------------------------------------===//
#include "cli/WeaveCache.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace weft::cli {

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

} // namespace weft::cli
