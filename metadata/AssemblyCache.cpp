//===- metadata/AssemblyCache.cpp -----------------------------------------===//
#include "metadata/AssemblyCache.h"

#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace weft::metadata {

Expected<std::shared_ptr<const OpenedAssembly>> OpenedAssembly::open(StringRef Path) {
  // A FIFO or a device named as a probe assembly would block or never end.
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Path);
  if (!Img)
    return createFileError(Path, Img.takeError());
  if (!(*Img)->isManaged())
    return createFileError(Path, plainError("not a .NET assembly: the PE image has no CLI header"));
  Expected<std::unique_ptr<Module>> Mod =
      Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!Mod)
    return createFileError(Path, Mod.takeError());
  auto A = std::make_shared<OpenedAssembly>();
  A->Image = std::move(*Img);
  A->Mod = std::move(*Mod);
  return std::shared_ptr<const OpenedAssembly>(std::move(A));
}

Expected<std::shared_ptr<const OpenedAssembly>> AssemblyCache::open(StringRef Path) {
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real))
    return createFileError(Path, errorCodeToError(EC));
  std::lock_guard<std::mutex> G(Lock);
  auto It = ByRealPath.find(Real);
  if (It != ByRealPath.end())
    return It->second;
  Expected<std::shared_ptr<const OpenedAssembly>> A = OpenedAssembly::open(Path);
  if (A)
    ByRealPath[Real] = *A;
  return A;
}

size_t AssemblyCache::size() const {
  std::lock_guard<std::mutex> G(Lock);
  return ByRealPath.size();
}

std::vector<std::string> AssemblyCache::paths() const {
  std::lock_guard<std::mutex> G(Lock);
  std::vector<std::string> Paths;
  for (const auto &E : ByRealPath)
    Paths.push_back(E.getKey().str());
  llvm::sort(Paths);
  return Paths;
}

} // namespace weft::metadata
