//===- tests/support/IlTools.cpp ------------------------------------------===//
#include "tests/support/IlTools.h"

#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace weft::test {

std::string sdkRuntimeIdentifier() {
  CommandResult R = run("dotnet", {"--info"});
  SmallVector<StringRef, 64> Lines;
  StringRef(R.Out).split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    if (L.consume_front("RID:"))
      return L.trim().str();
  }
  return {};
}

std::string runtimeVersion() {
  std::string Version;
  for (const Installed &I : sharedFrameworks())
    if (I.Name == "Microsoft.NETCore.App")
      Version = I.Version; // dotnet lists versions in ascending order
  return Version;
}

std::string ilTool(StringRef Tool, std::string *Looked) {
  std::string Rid = sdkRuntimeIdentifier();
  // NuGet's folders are named by the lower-cased package id.
  std::string Package = ("runtime." + Rid + ".microsoft.netcore." + Tool).str();
  SmallString<256> P(nugetPackagesDir());
  sys::path::append(P, Package, runtimeVersion(), "runtimes", Rid);
  sys::path::append(P, "native", Tool);
  if (Looked)
    *Looked = std::string(P);
  if (Rid.empty() || !sys::fs::exists(P))
    return {};
  // A package extracted without the execute bit still runs once it is given one.
  if (!sys::fs::can_execute(P))
    sys::fs::setPermissions(P, sys::fs::perms(0755));
  return std::string(P);
}

} // namespace weft::test
