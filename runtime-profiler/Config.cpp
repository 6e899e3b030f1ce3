//===- runtime-profiler/Config.cpp ----------------------------------------===//
#include "runtime-profiler/Config.h"
#include "runtime-profiler/Identity.h"
#include "support/Port.h"
#include "weaving/Pass.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace weft::prof {

namespace {
/// Plugins resolve weft's functions by name in the process's global scope, where the runtime did
/// not put the profiler (it loads it with RTLD_LOCAL): the library is opened again, as itself,
/// with RTLD_GLOBAL.
Error makeSymbolsGlobal() {
  std::string Self = port::libraryPathOf(reinterpret_cast<void *>(&makeSymbolsGlobal));
  if (Self.empty())
    return createStringError(inconvertibleErrorCode(),
                             "plugins: cannot find the profiler's own library");
  std::string Why;
  if (!port::makeLibraryGlobal(Self, Why))
    return createStringError(inconvertibleErrorCode(),
                             "plugins: cannot make the profiler's functions visible to them: " +
                                 Twine(Why));
  return Error::success();
}

Error checkPassNames(const spec::Spec &S) {
  for (const spec::PassUse *U : S.passUses())
    if (!passes::PassRegistry::global().find(U->Pass))
      return createStringError(inconvertibleErrorCode(),
                               U->Rule + ": unknown pass '" + U->Pass + "'");
  return Error::success();
}
} // namespace

Expected<Config> Config::from(StringRef SpecPath, StringRef SpecText, StringRef Passes) {
  Config C;
  if (!SpecPath.empty() && !Passes.empty())
    return createStringError(inconvertibleErrorCode(), Twine(SpecVariable) + " and " +
                                                           PassesVariable +
                                                           " are both set; set one of them");
  if (!SpecPath.empty()) {
    Expected<spec::Spec> S = spec::Spec::parse(SpecText, SpecPath);
    if (!S)
      return createStringError(inconvertibleErrorCode(),
                               Twine(SpecVariable) + ": " + toString(S.takeError()));
    C.Spec = std::make_shared<const spec::Spec>(std::move(*S));
    C.Source = ("spec " + SpecPath).str();
  } else if (!Passes.empty()) {
    Expected<std::vector<spec::PassUse>> Uses = spec::parsePassList(Passes);
    if (!Uses)
      return createStringError(inconvertibleErrorCode(),
                               Twine(PassesVariable) + ": " + toString(Uses.takeError()));
    C.Spec = std::make_shared<const spec::Spec>(spec::Spec::forPasses(std::move(*Uses)));
    C.Source = ("passes " + Passes).str();
  } else {
    C.Source = "no spec (neither " + std::string(SpecVariable) + " nor " + PassesVariable +
               " is set): nothing is instrumented";
  }
  if (C.Spec && !C.Spec->plugins().empty()) {
    if (Error E = makeSymbolsGlobal())
      return std::move(E);
    Expected<std::vector<plugin::LoadedPlugin>> L =
        plugin::loadPlugins(SpecPath, C.Spec->pluginPaths());
    if (!L)
      return createStringError(inconvertibleErrorCode(),
                               Twine(SpecVariable) + ": " + toString(L.takeError()));
    C.Plugins = std::move(*L);
  }
  if (C.Spec) {
    if (Error E = checkPassNames(*C.Spec))
      return std::move(E);
    for (const spec::PassUse *U : C.Spec->passUses())
      for (const auto &[Key, Value] : U->Options) {
        SmallString<256> P(sys::path::is_absolute(Value) ? StringRef() : StringRef(U->BaseDir));
        sys::path::append(P, Value);
        SmallString<256> Real;
        if (!Value.empty() && sys::fs::is_regular_file(P) && !sys::fs::real_path(P, Real))
          C.PassFiles.push_back(std::string(Real));
      }
  }
  return C;
}

} // namespace weft::prof
