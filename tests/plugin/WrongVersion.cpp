//===- tests/plugin/WrongVersion.cpp - A plugin for another API version ---===//
//
// Says it was built for API version 999: weft must refuse it before calling anything else.
//
//===----------------------------------------------------------------------===//
#include "weaving/plugin/Plugin.h"

namespace {
void registerPasses(weft::passes::PassRegistry &) {}
} // namespace

extern "C" WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void) {
  return {999, "wrong-version", "0", registerPasses};
}
