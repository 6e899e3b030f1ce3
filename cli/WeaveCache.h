//===- cli/WeaveCache.h - Woven outputs kept by what made them --*- C++ -*-===//
//
// `weft weave --cache-dir DIR` (or WEFT_CACHE_DIR) keeps each woven output, with its PDB and side
// files, under a key made of everything the output depends on that is known before weaving: the
// input's bytes and path and the output's folder (the marker records where the input is from
// there), its separate PDB's bytes, the spec's bytes or the --pass values, the plugins loaded,
// the strong-name key and weft's own build. The files a weave opens on its way (probe and
// replacement assemblies) are only known after it: an entry lists them with their digests, and
// it is used only while every one of them still has that digest.
//
// An entry is a folder `DIR/<key>` holding `entry` (what it holds and depends on) and the files
// `f0`, `f1`, ... with their SHA-256. It is made in a temporary folder beside it (mkdtemp) and
// renamed into place, so that builds sharing the cache at once never see half an entry; a lookup
// that finds none, or one whose dependencies changed, is a miss.
//
// What is in the folder is not trusted: a restore reads the whole entry through the folder it
// opened, never through a symbolic link, checks each file's digest and each file's role (only
// the names a weave of this output writes, in the output's folder) before it writes anything,
// and an entry that fails a check is refused with a warning and woven anew. The folder itself
// must be the user's alone (owned by them or by root, writable by no one else) unless the user
// says it is shared on purpose; docs/diff.md ("Sharing a weaving cache") says why.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_WEAVECACHE_H
#define WEFT_CLI_WEAVECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace weft::cli {

/// What an output depends on before weaving, as bytes and strings.
class CacheKey {
public:
  void addText(llvm::StringRef Label, llvm::StringRef Text);
  /// The file's bytes under \p Label; a file that does not exist counts as missing, not as an
  /// error (a separate PDB, say). One that is not a regular file is an error: it is not read.
  llvm::Error addFile(llvm::StringRef Label, llvm::StringRef Path);
  /// The key, as hex digits.
  std::string hex() const;

private:
  std::string Material;
};

/// One output file of a weave: \p Path, known to the entry by \p Role (its name relative to the
/// main output: "~.dll" for the assembly, "~.pdb", "~.dll.coverage.json", ...).
struct CachedFile {
  std::string Role, Path;
};

class WeaveCache {
public:
  /// Opens the cache folder \p Dir, making it (mode 0700, or as the umask allows when
  /// \p Shared) if it does not exist. Unless \p Shared, a folder another user owns (root
  /// excepted) or may write to is refused: an error that names it, says why and how to go on.
  static llvm::Expected<WeaveCache> open(llvm::StringRef Dir, bool Shared);
  WeaveCache(WeaveCache &&Other) noexcept;
  WeaveCache &operator=(WeaveCache &&) = delete;
  ~WeaveCache();

  /// Copies the entry \p Key into place: each file of the entry to the path \p OutputFor gives
  /// its role (nullopt: a role this output does not have, and the entry is refused). False (and
  /// nothing written) if there is no usable entry; an error (and nothing written) for an entry
  /// that is refused.
  llvm::Expected<bool>
  restore(llvm::StringRef Key,
          llvm::function_ref<std::optional<std::string>(llvm::StringRef Role)> OutputFor,
          std::vector<std::string> &Dependencies);

  /// Keeps \p Files under \p Key, with the digests of \p Dependencies. Another process keeping
  /// the same key at the same time is not an error.
  llvm::Error store(llvm::StringRef Key, llvm::ArrayRef<CachedFile> Files,
                    llvm::ArrayRef<std::string> Dependencies);

  const std::string &dir() const { return Dir; }

private:
  WeaveCache(std::string Dir, int FolderFd, bool Shared, unsigned Umask)
      : Dir(std::move(Dir)), FolderFd(FolderFd), Shared(Shared), Umask(Umask) {}
  llvm::Error refusal(llvm::StringRef Key, const llvm::Twine &Why) const;
  llvm::Error publish(llvm::StringRef Temp, llvm::StringRef Key);

  std::string Dir;
  int FolderFd = -1; // the folder, opened once: every later look goes through it
  bool Shared;
  unsigned Umask;
};

/// What identifies this weft build: its version and the executable's GNU build id.
std::string weftBuildIdentity();

/// The cache folder from --cache-dir, else WEFT_CACHE_DIR; empty for none.
std::string cacheDirFrom(llvm::StringRef Option);

/// Whether the cache is shared on purpose: --cache-shared, else WEFT_CACHE_SHARED=1 (or true).
bool cacheSharedFrom(bool Option);

} // namespace weft::cli

#endif
