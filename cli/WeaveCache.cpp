//===- cli/WeaveCache.cpp - The weaving cache's key -----------------------===//
//
// What every system shares: the key and where the cache is. The folder itself is the system's
// (WeaveCachePosix.cpp, WeaveCacheWindows.cpp).
//
//===----------------------------------------------------------------------===//
#include "cli/WeaveCache.h"

#include "pe/Sha256.h"

#include "llvm/ADT/StringExtras.h"
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
  Expected<std::string> D = pe::regularFileSha256Hex(Path);
  if (!D)
    return D.takeError();
  addText(Label, *D);
  return Error::success();
}

std::string CacheKey::hex() const { return pe::sha256Hex(arrayRefFromStringRef(Material)); }

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
