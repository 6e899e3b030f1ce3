//===- metadata/AssemblyCache.h - Assemblies opened by path -----*- C++ -*-===//
//
// Passes read assemblies a user names by path (entry-exit's probes, intercept-call's
// replacements). Weaving many files in one run would otherwise open and parse each of them once
// per woven module; the cache opens each once and hands out shared references, keyed by the
// file's real path so that two spellings of one file share an entry.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_ASSEMBLYCACHE_H
#define WEFT_METADATA_ASSEMBLYCACHE_H

#include "metadata/Module.h"
#include "pe/Image.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace weft::metadata {

/// A managed image and its metadata, read-only once opened.
struct OpenedAssembly {
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<Module> Mod;

  /// Maps and reads the assembly at \p Path; errors name the file. An image without a CLI
  /// header is refused.
  static llvm::Expected<std::shared_ptr<const OpenedAssembly>> open(llvm::StringRef Path);
};

/// Assemblies opened by path, each once for as long as the cache lives. Safe to use from several
/// threads. A file that fails to open is not remembered.
class AssemblyCache {
public:
  llvm::Expected<std::shared_ptr<const OpenedAssembly>> open(llvm::StringRef Path);
  size_t size() const;
  /// The real paths of the assemblies opened so far, sorted.
  std::vector<std::string> paths() const;

private:
  mutable std::mutex Lock;
  llvm::StringMap<std::shared_ptr<const OpenedAssembly>> ByRealPath;
};

} // namespace weft::metadata

#endif
