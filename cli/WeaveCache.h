//===- cli/WeaveCache.h - Woven outputs kept by what made them --*- C++ -*-===//
//
// `weft weave --cache-dir DIR` (or WEFT_CACHE_DIR), `--remote-cache URL` (WEFT_REMOTE_CACHE), or
// both, keep each woven output with its PDB and side files under a key that names the work, not
// the machine: weft's build, the passes and their options, the spec's, the plugins' and the
// strong-name key's bytes, the input's and its PDB's bytes, the output's name and the input's
// path from the output's folder (which the woven marker records). No absolute path is in it:
// the same commit checked out in two folders, on two machines, weaves under the same keys.
// docs/cache.md has the whole story.
//
// The files a weave reads on its way (probe and replacement assemblies, reference assemblies)
// are known only after it. So a key leads to a manifest, which lists them (each by its path
// from the output's folder and by its absolute path); their digests, found where this checkout
// has them, make the second key, which leads to the entry: each output file by its role and its
// SHA-256. A changed byte in any of them is another second key, and another entry.
//
// Both levels are stored as Bazel's HTTP cache protocol has them: the manifest and the entry as
// action-cache records (ac/KEY, an ActionResult message), the files as content-addressed blobs
// (cas/SHA256). A folder (CacheStore::local) and a server (CacheStore::remote) hold the same
// records; the folder is looked in first, and what the server gave is kept in it.
//
// What a store gives is not trusted: every blob is checked against its digest, every role is
// one a weave of this output writes, and the whole entry is read and checked before a file is
// written. A bad blob is a miss and a warning; a server that fails (down, slow, refusing) is a
// warning once, and the run weaves locally.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_WEAVECACHE_H
#define WEFT_CLI_WEAVECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
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

/// Where records are kept: the action cache (ac/) or the content-addressed store (cas/).
enum class CacheArea { Action, Content };

/// A place that keeps records by key, as Bazel's HTTP cache protocol does.
class CacheStore {
public:
  virtual ~CacheStore();
  /// The record \p Key to \p Sink in pieces as it is read (an error from the sink ends it);
  /// false when there is none (or the store no longer answers: it said why once, through the
  /// error of the call that found it so).
  virtual llvm::Expected<bool> fetch(CacheArea Area, llvm::StringRef Key,
                                     llvm::function_ref<llvm::Error(llvm::StringRef)> Sink) = 0;
  /// The record whole (a small one: a manifest, an entry), or nullopt as fetch says false; one
  /// larger than \p Max is an error (a server does not make a build hold what it likes).
  llvm::Expected<std::optional<std::string>> get(CacheArea Area, llvm::StringRef Key,
                                                 uint64_t Max = uint64_t(1) << 20);
  virtual llvm::Error put(CacheArea Area, llvm::StringRef Key, llvm::StringRef Bytes) = 0;
  /// The file \p Path kept as the record \p Key.
  virtual llvm::Error putFile(CacheArea Area, llvm::StringRef Key, llvm::StringRef Path);
  /// Where the record is, for messages ("DIR/cas/KEY", "URL/cas/KEY").
  virtual std::string where(CacheArea Area, llvm::StringRef Key) const = 0;
  /// What the store is called in messages ("weaving cache", "remote cache").
  virtual std::string name() const = 0;
  /// Whether puts are made at all (a read-only remote cache, or one that refused a write).
  virtual bool writes() const { return true; }

  /// The folder \p Dir, made (mode 0700, or as the umask allows when \p Shared) if it does not
  /// exist. Unless \p Shared, a folder another user owns (root excepted) or may write to is
  /// refused: an error that names it, says why and how to go on.
  static llvm::Expected<std::unique_ptr<CacheStore>> local(llvm::StringRef Dir, bool Shared);
  /// The server at \p Url (http:// or https://), with the settings of the environment:
  /// WEFT_REMOTE_CACHE_TOKEN (a bearer token) or WEFT_REMOTE_CACHE_BASIC (user:password),
  /// WEFT_REMOTE_CACHE_CLIENT_CERT and _KEY (PEM files). Nothing is sent until the first get.
  static llvm::Expected<std::unique_ptr<CacheStore>>
  remote(llvm::StringRef Url, bool ReadOnly, std::chrono::milliseconds Timeout);
};

class WeaveCache {
public:
  /// The folder first (if any), then the server (if any).
  WeaveCache(std::unique_ptr<CacheStore> Local, std::unique_ptr<CacheStore> Remote)
      : Local(std::move(Local)), Remote(std::move(Remote)) {}

  /// How an entry's dependencies are found in this checkout: each recorded by its path from
  /// the output's folder and by its absolute path.
  struct Dependency {
    std::string FromOutput, Absolute;
  };

  /// Copies the entry under \p Key into place: each file to the path \p OutputFor gives its
  /// role (nullopt: a role this output does not have, and the entry is refused). The
  /// dependencies are looked for from \p OutputFolder. False (and nothing written) if there is
  /// no usable entry; warnings (a store's failure, a refused entry) go to \p Warn and make a
  /// miss. \p From says which store gave it ("weaving cache", "remote cache").
  /// \p Warnings: what the weave that made the entry warned of (the entry's stderr_raw), said
  /// again as a hit leaves the same output.
  bool restore(llvm::StringRef Key, llvm::StringRef OutputFolder,
               llvm::function_ref<std::optional<std::string>(llvm::StringRef Role)> OutputFor,
               std::vector<std::string> &Dependencies, std::string &From,
               std::vector<std::string> &Warnings,
               llvm::function_ref<void(const std::string &)> Warn);

  /// Keeps \p Files under \p Key with the digests of \p Dependencies (absolute paths) in every
  /// store that writes; a store's failure goes to \p Warn.
  void store(llvm::StringRef Key, llvm::StringRef OutputFolder, llvm::ArrayRef<CachedFile> Files,
             llvm::ArrayRef<std::string> Dependencies, llvm::ArrayRef<std::string> Warnings,
             llvm::function_ref<void(const std::string &)> Warn);

  /// Counts of this run, for the summary line.
  struct Counts {
    unsigned Local = 0, Remote = 0;
  };
  Counts counts() const;

private:
  /// A file of an entry, downloaded beside where it goes and not yet there.
  struct Fetched;
  bool lookup(CacheStore &S, llvm::StringRef Key, llvm::StringRef OutputFolder,
              llvm::function_ref<std::optional<std::string>(llvm::StringRef)> OutputFor,
              std::vector<Fetched> &Files, std::vector<std::string> &Dependencies,
              std::vector<std::string> &Warnings,
              std::vector<std::pair<std::string, std::string>> &Records,
              llvm::function_ref<void(const std::string &)> Warn);
  /// The SHA-256 of the file \p Path, once a run.
  std::optional<std::string> digestOf(const std::string &Path);

  std::unique_ptr<CacheStore> Local, Remote;
  mutable std::mutex Lock;
  std::vector<std::pair<std::string, std::string>> Digests; // path, digest (small: a run's deps)
  Counts Count;
};

/// What identifies this weft build: its version and the executable's GNU build id.
std::string weftBuildIdentity();

/// The cache folder from --cache-dir, else WEFT_CACHE_DIR; empty for none.
std::string cacheDirFrom(llvm::StringRef Option);

/// Whether the cache is shared on purpose: --cache-shared, else WEFT_CACHE_SHARED=1 (or true).
bool cacheSharedFrom(bool Option);

/// The remote cache's URL from --remote-cache, else WEFT_REMOTE_CACHE; empty for none.
std::string remoteCacheFrom(llvm::StringRef Option);
/// Read-only: --remote-cache-read-only, else WEFT_REMOTE_CACHE_READ_ONLY=1 (or true).
bool remoteReadOnlyFrom(bool Option);

} // namespace weft::cli

#endif
