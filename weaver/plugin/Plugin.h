//===- weaver/plugin/Plugin.h - The plugin ABI ------------------*- C++ -*-===//
//
// A plugin is a shared library that registers passes of its own. Besides weaver/passes/Pass.h
// (the pass interface and the registry), this is the only header it needs. It defines one
// function with C linkage, found by name when weft loads the library:
//
//   extern "C" WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void) {
//     return {WEFT_PLUGIN_API_VERSION, "my-plugin", "1.0", [](weft::passes::PassRegistry &R) {
//               if (llvm::Error E = R.add(myPass()))
//                 llvm::report_fatal_error(std::move(E));
//             }};
//   }
//
// The passes a plugin defines are C++ classes deriving from weft's, and the library resolves
// weft's functions (PassRegistry::add, MethodBody::create, ...) against the weft executable that
// loads it. So a plugin must be built from the headers of the weft that loads it, with the same
// compiler and flags: WEFT_PLUGIN_API_VERSION is raised whenever those headers change in a way
// that breaks an existing plugin (a class's layout or virtual functions, a signature), and weft
// refuses a plugin built for another version. The first member of weftPluginInfo stays the API
// version in every version, so that the check can always be made. docs/plugins.md has the rest.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVER_PLUGIN_PLUGIN_H
#define WEFT_WEAVER_PLUGIN_PLUGIN_H

#include "weaver/passes/Pass.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

/// The version of the plugin ABI this weft implements.
#define WEFT_PLUGIN_API_VERSION 3

/// Makes the entry point visible even when a plugin hides its other symbols.
#define WEFT_PLUGIN_EXPORT __attribute__((visibility("default")))

extern "C" {

/// What a plugin says about itself.
struct weftPluginInfo {
  /// WEFT_PLUGIN_API_VERSION of the headers the plugin was built with.
  uint32_t APIVersion;
  /// The plugin's name and version, for messages and `weft passes`.
  const char *Name;
  const char *Version;
  /// Adds the plugin's passes to \p R (with PassRegistry::add); called once, right after the
  /// library is loaded.
  void (*RegisterPasses)(weft::passes::PassRegistry &R);
};

/// The entry point every plugin defines.
WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void);
}

namespace weft::plugin {

/// The entry point's name, as the loader looks it up.
constexpr const char *EntryPoint = "weftGetPluginInfo";

/// A plugin weft has loaded.
struct LoadedPlugin {
  std::string Path;
  std::string Name, Version;
  /// The passes it registered, in its order.
  std::vector<std::string> Passes;
};

/// Loads the plugin at \p Path for the rest of the process and adds its passes to \p Registry.
/// Fails, naming the file, if it is missing, is no shared library, has no entry point, was built
/// for another API version, gives no register function, or registers a pass whose name is taken
/// (then none of its passes are added). Loading the same file again returns what the first load
/// did.
llvm::Expected<LoadedPlugin>
loadPlugin(llvm::StringRef Path, passes::PassRegistry &Registry = passes::PassRegistry::global());

} // namespace weft::plugin

#endif
