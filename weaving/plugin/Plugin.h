//===- weaving/plugin/Plugin.h - The plugin ABI -----------------*- C++ -*-===//
//
// A plugin is a shared library that registers passes of its own. Besides weaving/Pass.h
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
#ifndef WEFT_WEAVING_PLUGIN_PLUGIN_H
#define WEFT_WEAVING_PLUGIN_PLUGIN_H

#include "weaving/Pass.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

/// The version of the plugin ABI this weft implements.
#define WEFT_PLUGIN_API_VERSION 5

/// Makes the entry point visible even when a plugin hides its other symbols.
#define WEFT_PLUGIN_EXPORT __attribute__((visibility("default")))

extern "C" {

/// A module, type or method the runtime profiler tracks, to which each plugin can attach data of
/// its own (weftRuntimeServices).
typedef struct weftObject weftObject;

/// The events a plugin's runtime hooks ask for (weftRuntimeHooks::Events).
enum {
  WEFT_ON_MODULE_LOAD = 1u << 0,   // ModuleLoaded, for every module the runtime loads
  WEFT_ON_MODULE_UNLOAD = 1u << 1, // ModuleUnloading, then the module's data is released
  WEFT_ON_JIT = 1u << 2,           // MethodCompiling, at each JIT compilation
  WEFT_ON_REJIT = 1u << 3,         // MethodReJitting, at each ReJIT of a method
  WEFT_ON_GC = 1u << 4,            // GarbageCollection, at the start and end of each collection
};

/// What the profiler offers a plugin's hooks. Data is keyed by the plugin (the events' Plugin
/// member): each plugin sees only its own. Release (may be null) runs when the object goes (the
/// module unloads, or the process ends) or the data is replaced.
struct weftRuntimeServices {
  void *(*GetData)(weftObject *Object, const void *Plugin);
  void (*SetData)(weftObject *Object, const void *Plugin, void *Data, void (*Release)(void *));
};

struct weftModuleEvent {
  const weftRuntimeServices *Services;
  const void *Plugin;
  weftObject *Module;
  uint64_t ModuleId; // the runtime's ModuleID
  const char *Path;  // the file the module was loaded from (UTF-8; empty for none)
};

struct weftMethodEvent {
  const weftRuntimeServices *Services;
  const void *Plugin;
  weftObject *Module, *Type, *Method; // Type: the declaring TypeDef (null if unknown)
  uint64_t ModuleId, FunctionId;
  uint32_t Token;  // the MethodDef token
  int Woven;       // 1 if weft's passes gave this compilation a new body
};

struct weftGcEvent {
  const weftRuntimeServices *Services;
  const void *Plugin;
  int Finished;         // 0: the collection starts; 1: it has ended
  uint32_t Reason;      // at the start: COR_PRF_GC_REASON (1: induced, 0: other)
  uint32_t Generations; // at the start: how many entries Collected has
  const int *Collected; // at the start: Collected[G] is 1 if generation G is collected
};

/// Optional callbacks of a plugin loaded by the runtime profiler (`weft run`), called in the
/// spec's plugin priority order, each only for the events its plugin asks for. Any may be null.
/// They run on the runtime's threads, several at once: a plugin does its own locking.
struct weftRuntimeHooks {
  uint32_t Events; // WEFT_ON_* bits
  void (*ModuleLoaded)(const weftModuleEvent *);
  void (*ModuleUnloading)(const weftModuleEvent *);
  void (*MethodCompiling)(const weftMethodEvent *);
  void (*MethodReJitting)(const weftMethodEvent *);
  void (*GarbageCollection)(const weftGcEvent *);
};

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
  /// Its callbacks in the runtime profiler, or null (offline weaving never calls them).
  const weftRuntimeHooks *Runtime;
};

/// The entry point every plugin defines.
WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void);
}

struct weft_plugin;

namespace weft::plugin {

/// The entry points' names, as the loader looks them up: the C ABI's, then the C++ API's.
constexpr const char *CEntryPoint = "weft_plugin_init";
constexpr const char *EntryPoint = "weftGetPluginInfo";

/// A plugin weft has loaded: one of the C ABI (include/weft-c/Plugin.h), or one of the C++
/// API this header describes, which still loads, with a warning, until the next major version.
struct LoadedPlugin {
  std::string Path;
  std::string Name, Version;
  /// The passes it registered, in its order.
  std::vector<std::string> Passes;
  /// Its runtime hooks (null for none): a plugin of the C++ API's.
  const weftRuntimeHooks *Runtime = nullptr;
  /// A plugin of the C ABI: what weft_plugin_init said (its runtime hooks among it).
  const weft_plugin *C = nullptr;
  /// Why loading it deserves a warning (a plugin of the deprecated C++ API); empty if not.
  std::string Warning;
};

/// Loads the plugin at \p Path for the rest of the process and adds its passes to \p Registry.
/// Fails, naming the file, if it is missing, is no shared library, has no entry point, was built
/// for another ABI or API version, fails in its entry point or gives no passes' register
/// function, or registers a pass whose name is taken (then none of its passes are added).
/// Loading the same file again returns what the first load did.
llvm::Expected<LoadedPlugin>
loadPlugin(llvm::StringRef Path, passes::PassRegistry &Registry = passes::PassRegistry::global());

/// Every plugin this process has loaded (by --load or by a spec), in the order of their real
/// paths.
std::vector<LoadedPlugin> loadedPlugins();

/// Loads the plugins a spec file (\p SpecPath) names, in their order; an error names the spec.
llvm::Expected<std::vector<LoadedPlugin>> loadPlugins(llvm::StringRef SpecPath,
                                                     llvm::ArrayRef<std::string> Paths);

} // namespace weft::plugin

#endif
