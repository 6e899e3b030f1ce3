//===- weaving/plugin/CAbi.h - weft's side of the C plugin ABI --*- C++ -*-===//
//
// The function table weft hands a plugin of the stable C ABI (include/weft-c/Plugin.h), and
// the pass that runs a plugin's weft_pass_info through the pass framework: the contexts,
// bodies and instructions become the ABI's opaque handles, errors its status codes and the
// thread's last error.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_PLUGIN_CABI_H
#define WEFT_WEAVING_PLUGIN_CABI_H

#include "weaving/Pass.h"
#include "weft-c/Plugin.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

/// A plugin of the C ABI as weft_plugin_init sees it: what it said about itself.
struct weft_plugin {
  uint32_t AbiVersion = 0; // 0 until SetPluginInfo
  std::string Name, Version;
  std::vector<weft::passes::PassInfo> Passes;
  weft_runtime_hooks Hooks{};
  bool HasHooks = false;
};

namespace weft::plugin {

/// The table of this weft.
const weft_api &cApi();

/// Runs \p Init (a library's weft_plugin_init) on \p Into; the error says what the plugin did
/// wrong or the message it failed with.
llvm::Error initCPlugin(weft_status (*Init)(const weft_api *, weft_plugin *), weft_plugin &Into);

} // namespace weft::plugin

#endif
