//===- runtime-profiler/PluginHost.h - Plugins' hooks in the profiler -*- C++ -*-===//
//
// The runtime hooks of the plugins a spec loads (weaving/plugin/Plugin.h: weftRuntimeHooks): the
// union of the events they ask for, each plugin called for its own events only, in the spec's
// priority order, and the data each attaches to the modules, types and methods it is shown
// (weftObject), kept per plugin and released when the module unloads or the process ends. A hook
// that throws is logged and the others still run; nothing crosses into the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_PLUGINHOST_H
#define WEFT_RUNTIME_PROFILER_PLUGINHOST_H

#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Log.h"
#include "weaving/plugin/CAbi.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace weft::prof {

class PluginHost {
public:
  /// \p Plugins in priority order; those without runtime hooks are left out.
  PluginHost(const std::vector<plugin::LoadedPlugin> &Plugins, Log &L);
  ~PluginHost();

  /// The WEFT_ON_* events some plugin asks for.
  uint32_t events() const { return Events; }
  bool wants(uint32_t Event) const { return Events & Event; }

  void moduleLoaded(ModuleID Module, llvm::StringRef Path);
  /// Calls the hooks, then releases the data attached to the module and its members.
  void moduleUnloading(ModuleID Module);
  /// A compilation (\p ReJit: a ReJIT) of method \p Method of type \p Type (0 if unknown).
  void methodCompiling(bool ReJit, ModuleID Module, FunctionID Function, mdToken Method,
                       mdToken Type, bool Woven);
  void garbageCollectionStarted(uint32_t Reason, llvm::ArrayRef<int> Collected);
  void garbageCollectionFinished();
  /// Releases every plugin's data (at the runtime's shutdown).
  void releaseAll();

private:
  /// A plugin's hooks: of the C ABI (C) or of the C++ API (Hooks).
  struct Hooked {
    std::string Name;
    const weftRuntimeHooks *Hooks = nullptr;
    const weft_runtime_hooks *C = nullptr;
    uint32_t Events = 0;
  };
  struct ModuleObjects;
  ModuleObjects &objectsOf(ModuleID Module, llvm::StringRef Path = {});
  /// Calls \p Call(Plugin) for every plugin that asks for \p Event.
  template <typename Fn> void each(uint32_t Event, const char *Hook, Fn &&Call);

  std::vector<Hooked> Plugins;
  Log &L;
  uint32_t Events = 0;
  std::mutex Lock;
  std::unordered_map<ModuleID, std::unique_ptr<ModuleObjects>> Modules;
};

} // namespace weft::prof

#endif
