//===- cli/WeaveCacheWindows.cpp - The weaving cache's folder on Windows --===//
//
// The folder (cli/WeaveCachePosix.cpp) reads its records through subfolders it opened, never
// through a link, and trusts a folder by its owner and mode: POSIX's calls (openat, fstatat,
// renameat). Until Windows has its own (handles opened relative to a folder, security
// descriptors checked), `--cache-dir` is refused there. The key and the records
// (cli/WeaveCache.cpp) are the same on every system.
//
//===----------------------------------------------------------------------===//
#include "cli/WeaveCache.h"

using namespace llvm;

namespace weft::cli {

Expected<std::unique_ptr<CacheStore>> CacheStore::local(StringRef Dir, bool) {
  return createStringError(inconvertibleErrorCode(), "weaving cache: '" + Dir +
                                                         "': the weaving cache is not supported "
                                                         "on Windows yet");
}

std::string weftBuildIdentity() { return "weft " WEFT_VERSION " no-build-id"; }

} // namespace weft::cli
