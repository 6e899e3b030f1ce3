//===- cli/WeaveCache.h - Woven outputs kept by what made them --*- C++ -*-===//
//
// `weft weave --cache-dir DIR` (or WEFT_CACHE_DIR) keeps each woven output, with its PDB and side
// files, under a key made of everything the output depends on that is known before weaving: the
// input's bytes and path and the output's folder (the marker records where the input is from
// there), its separate PDB's bytes, the spec's
// bytes or the --pass values, the strong-name key and weft's own build. The files a weave opens
// on its way (probe and replacement assemblies) are only known after it: an entry lists them with
// their digests, and it is used only while every one of them still has that digest.
//
// An entry is a folder `DIR/<key>` holding `entry` (what it holds and depends on) and the files.
// It is made in a temporary folder beside it and renamed into place, so that builds sharing the
// cache at once never see half an entry; a lookup that finds none, or one whose dependencies
// changed, is a miss.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_WEAVECACHE_H
#define WEFT_CLI_WEAVECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace weft::cli {

/// What an output depends on before weaving, as bytes and strings.
class CacheKey {
public:
  void addText(llvm::StringRef Label, llvm::StringRef Text);
  /// The file's bytes under \p Label; a file that does not exist counts as missing, not as an
  /// error (a separate PDB, say).
  llvm::Error addFile(llvm::StringRef Label, llvm::StringRef Path);
  /// The key, as hex digits.
  std::string hex() const;

private:
  std::string Material;
};

/// One output file of a weave: \p Path, known to the entry by \p Role (its name relative to the
/// main output: "" for the assembly, ".pdb", ".coverage.json", ...).
struct CachedFile {
  std::string Role, Path;
};

class WeaveCache {
public:
  explicit WeaveCache(std::string Dir) : Dir(std::move(Dir)) {}

  /// Copies the entry \p Key into place: each file of the entry to the path \p OutputFor gives
  /// its role. False (and nothing written) if there is no usable entry.
  llvm::Expected<bool>
  restore(llvm::StringRef Key, llvm::function_ref<std::string(llvm::StringRef Role)> OutputFor,
          std::vector<std::string> &Dependencies);

  /// Keeps \p Files under \p Key, with the digests of \p Dependencies. Another process keeping
  /// the same key at the same time is not an error.
  llvm::Error store(llvm::StringRef Key, llvm::ArrayRef<CachedFile> Files,
                    llvm::ArrayRef<std::string> Dependencies);

private:
  std::string Dir;
};

/// What identifies this weft build: its version and the executable's GNU build id.
std::string weftBuildIdentity();

/// The cache folder from --cache-dir, else WEFT_CACHE_DIR; empty for none.
std::string cacheDirFrom(llvm::StringRef Option);

} // namespace weft::cli

#endif
