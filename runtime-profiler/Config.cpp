//===- runtime-profiler/Config.cpp ----------------------------------------===//
#include "runtime-profiler/Config.h"
#include "runtime-profiler/Identity.h"
#include "weaver/passes/Pass.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace weft::prof {

namespace {
StringRef variable(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? StringRef(V) : StringRef();
}

Error checkPassNames(const spec::Spec &S) {
  for (const spec::PassUse *U : S.passUses())
    if (!passes::PassRegistry::global().find(U->Pass))
      return createStringError(inconvertibleErrorCode(),
                               U->Rule + ": unknown pass '" + U->Pass + "'");
  return Error::success();
}
} // namespace

Expected<Config> Config::from(StringRef SpecPath, StringRef Passes) {
  Config C;
  if (!SpecPath.empty() && !Passes.empty())
    return createStringError(inconvertibleErrorCode(), Twine(SpecVariable) + " and " +
                                                           PassesVariable +
                                                           " are both set; set one of them");
  if (!SpecPath.empty()) {
    Expected<spec::Spec> S = spec::Spec::load(SpecPath);
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

Expected<Config> Config::fromEnvironment() {
  return from(variable(SpecVariable), variable(PassesVariable));
}

} // namespace weft::prof
