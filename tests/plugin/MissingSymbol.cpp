//===- tests/plugin/MissingSymbol.cpp - A plugin for a weft that is not this one -===//
//
// Calls a function this weft does not have, as a plugin built against other headers might: it
// must be refused when it is loaded, not end the process when the function is first called.
//
//===----------------------------------------------------------------------===//
#include "weaving/plugin/Plugin.h"

namespace weft {
void functionThisWeftLacks();
} // namespace weft

namespace {
void registerPasses(weft::passes::PassRegistry &) { weft::functionThisWeftLacks(); }
} // namespace

extern "C" WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void) {
  return {WEFT_PLUGIN_API_VERSION, "missing-symbol", "0", registerPasses};
}
