//===- metadata/Resolver.h - Finding referenced assemblies ------*- C++ -*-===//
//
// Some facts about a module live in the assemblies it references: the underlying type of an enum
// used in a custom attribute is the one that matters here. The resolver opens referenced
// assemblies from a list of directories (the input's own folder, the installed shared frameworks,
// folders the user names), follows type forwarders, and caches what it opened.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_RESOLVER_H
#define WEFT_METADATA_RESOLVER_H

#include "metadata/Module.h"
#include "metadata/Signature.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::pe {
class Image;
}

namespace weft::metadata {

/// A type definition somewhere: the module and its TypeDef row.
struct ResolvedType {
  const Module *M = nullptr;
  uint32_t Row = 0;
};

class AssemblyResolver {
public:
  /// Searches \p SearchDirs, then asks \p Fallback (which may be shared between resolvers, for
  /// example one for the installed frameworks).
  explicit AssemblyResolver(std::vector<std::string> SearchDirs = {},
                            AssemblyResolver *Fallback = nullptr);
  ~AssemblyResolver();

  void addSearchDir(llvm::StringRef Dir);
  const std::vector<std::string> &searchDirs() const { return Dirs; }

  /// The folders of the newest installed version of each shared framework
  /// (<dotnet root>/shared/<name>/<version>), found through DOTNET_ROOT or the `dotnet` on PATH.
  static std::vector<std::string> sharedFrameworkDirs();
  /// Where to look for the references of the assembly at \p AssemblyPath: its own folder, then
  /// \p Extra, then (with \p Frameworks) the installed shared frameworks.
  static std::vector<std::string> searchDirsFor(llvm::StringRef AssemblyPath,
                                                llvm::ArrayRef<std::string> Extra = {},
                                                bool Frameworks = true);

  /// The loaded module of the assembly with this simple name, or null if none of the search
  /// directories has a readable one.
  const Module *findAssembly(llvm::StringRef Name);

  /// Where a TypeRef row of \p M is defined.
  std::optional<ResolvedType> resolveTypeRef(const Module &M, uint32_t TypeRefRow);
  /// A type named by a serialized name ("Ns.Outer+Inner, Assembly, Version=...") as custom
  /// attributes store them; without an assembly part it is looked up in \p Context and then in the
  /// assemblies \p Context references.
  std::optional<ResolvedType> resolveSerializedName(const Module &Context,
                                                    llvm::StringRef SerializedName);

  /// The underlying primitive type if \p T (a TypeDef, TypeRef or TypeSpec token of \p M) is an
  /// enum the resolver can see.
  std::optional<ElementType> enumUnderlyingType(const Module &M, Token T);
  std::optional<ElementType> enumUnderlyingType(const ResolvedType &T);
  /// The underlying type of the enum a serialized name designates (remembered per module).
  std::optional<ElementType> enumUnderlyingTypeByName(const Module &Context,
                                                      llvm::StringRef SerializedName);

private:
  const Module *findOwnAssembly(llvm::StringRef Name);
  std::optional<ResolvedType> findType(const Module &M, llvm::StringRef Namespace,
                                       llvm::StringRef Name, unsigned Depth);
  std::optional<ResolvedType> findNested(const ResolvedType &Outer, llvm::StringRef Name);
  std::optional<ResolvedType> resolveTypeRefImpl(const Module &M, uint32_t Row, unsigned Depth);
  const Module *assemblyOfScope(const Module &M, Token Scope);

  struct Loaded;
  std::vector<std::string> Dirs;
  AssemblyResolver *Fallback = nullptr;
  std::mutex Lock;
  llvm::StringMap<std::unique_ptr<Loaded>> Cache; // by lower-case simple name; null if not found
  std::mutex MemoLock;
  std::map<std::pair<const Module *, Token>, std::optional<ElementType>> EnumMemo;
  std::map<std::pair<const Module *, std::string>, std::optional<ElementType>> NameMemo;
};

/// The underlying type of an enum defined in \p M at \p TypeRow (the type of its instance field),
/// or nullopt if the type is no enum.
std::optional<ElementType> enumUnderlyingOfTypeDef(const Module &M, uint32_t TypeRow);

} // namespace weft::metadata

#endif
