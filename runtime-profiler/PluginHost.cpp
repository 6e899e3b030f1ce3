//===- runtime-profiler/PluginHost.cpp ------------------------------------===//
#include "runtime-profiler/PluginHost.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

/// A module, type or method, with what each plugin attached to it.
struct weftObject {
  struct Item {
    const void *Plugin;
    void *Data;
    void (*Release)(void *);
  };
  std::mutex Lock;
  std::vector<Item> Items;

  weftObject() = default;
  weftObject(const weftObject &) = delete;
  ~weftObject() {
    for (Item &I : Items)
      if (I.Release)
        I.Release(I.Data);
  }
};

namespace weft::prof {

namespace {

void *getData(weftObject *Object, const void *Plugin) {
  if (!Object)
    return nullptr;
  std::lock_guard<std::mutex> G(Object->Lock);
  for (const weftObject::Item &I : Object->Items)
    if (I.Plugin == Plugin)
      return I.Data;
  return nullptr;
}

void setData(weftObject *Object, const void *Plugin, void *Data, void (*Release)(void *)) {
  if (!Object)
    return;
  weftObject::Item Old{nullptr, nullptr, nullptr};
  {
    std::lock_guard<std::mutex> G(Object->Lock);
    auto It = std::find_if(Object->Items.begin(), Object->Items.end(),
                           [&](const weftObject::Item &I) { return I.Plugin == Plugin; });
    if (It == Object->Items.end()) {
      Object->Items.push_back({Plugin, Data, Release});
    } else {
      Old = *It;
      *It = {Plugin, Data, Release};
    }
  }
  if (Old.Release && Old.Data != Data)
    Old.Release(Old.Data); // outside the lock: it may look at the object
}

const weftRuntimeServices Services{getData, setData};

} // namespace

struct PluginHost::ModuleObjects {
  std::string Path;
  weftObject Module;
  std::mutex Lock;
  std::unordered_map<uint32_t, std::unique_ptr<weftObject>> Members; // by token

  weftObject *member(mdToken Token) {
    if (!Token)
      return nullptr;
    std::lock_guard<std::mutex> G(Lock);
    std::unique_ptr<weftObject> &O = Members[Token];
    if (!O)
      O = std::make_unique<weftObject>();
    return O.get();
  }
};

PluginHost::PluginHost(const std::vector<plugin::LoadedPlugin> &Loaded, Log &L) : L(L) {
  for (const plugin::LoadedPlugin &P : Loaded)
    if (P.Runtime) {
      Plugins.push_back({P.Name, P.Runtime});
      Events |= P.Runtime->Events;
    }
}

PluginHost::~PluginHost() { releaseAll(); }

template <typename Fn> void PluginHost::each(uint32_t Event, const char *Hook, Fn &&Call) {
  for (const Hooked &P : Plugins) {
    if (!(P.Hooks->Events & Event))
      continue;
    try {
      Call(*P.Hooks, static_cast<const void *>(P.Hooks));
    } catch (...) {
      L.line("plugin " + P.Name + ": its " + Hook + " hook threw; weft and the other plugins go on");
    }
  }
}

PluginHost::ModuleObjects &PluginHost::objectsOf(ModuleID Module, StringRef Path) {
  std::lock_guard<std::mutex> G(Lock);
  std::unique_ptr<ModuleObjects> &M = Modules[Module];
  if (!M)
    M = std::make_unique<ModuleObjects>();
  if (!Path.empty())
    M->Path = Path.str();
  return *M;
}

void PluginHost::moduleLoaded(ModuleID Module, StringRef Path) {
  ModuleObjects &M = objectsOf(Module, Path);
  each(WEFT_ON_MODULE_LOAD, "ModuleLoaded", [&](const weftRuntimeHooks &H, const void *Key) {
    weftModuleEvent E{&Services, Key, &M.Module, Module, M.Path.c_str()};
    if (H.ModuleLoaded)
      H.ModuleLoaded(&E);
  });
}

void PluginHost::moduleUnloading(ModuleID Module) {
  ModuleObjects &M = objectsOf(Module);
  each(WEFT_ON_MODULE_UNLOAD, "ModuleUnloading", [&](const weftRuntimeHooks &H, const void *Key) {
    weftModuleEvent E{&Services, Key, &M.Module, Module, M.Path.c_str()};
    if (H.ModuleUnloading)
      H.ModuleUnloading(&E);
  });
  std::unique_ptr<ModuleObjects> Gone;
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Modules.find(Module);
    if (It != Modules.end()) {
      Gone = std::move(It->second);
      Modules.erase(It);
    }
  }
  // Gone's destructor releases what the plugins attached, outside the lock.
}

void PluginHost::methodCompiling(bool ReJit, ModuleID Module, FunctionID Function,
                                 mdToken Method, mdToken Type, bool Woven) {
  uint32_t Event = ReJit ? WEFT_ON_REJIT : WEFT_ON_JIT;
  if (!wants(Event))
    return;
  ModuleObjects &M = objectsOf(Module);
  weftObject *MethodObject = M.member(Method), *TypeObject = M.member(Type);
  each(Event, ReJit ? "MethodReJitting" : "MethodCompiling",
       [&](const weftRuntimeHooks &H, const void *Key) {
         weftMethodEvent E{&Services, Key,    &M.Module, TypeObject, MethodObject,
                           Module,    Function, Method,  Woven ? 1 : 0};
         if (auto *Hook = ReJit ? H.MethodReJitting : H.MethodCompiling)
           Hook(&E);
       });
}

void PluginHost::garbageCollectionStarted(uint32_t Reason, ArrayRef<int> Collected) {
  each(WEFT_ON_GC, "GarbageCollection", [&](const weftRuntimeHooks &H, const void *Key) {
    weftGcEvent E{&Services, Key, 0, Reason, uint32_t(Collected.size()), Collected.data()};
    if (H.GarbageCollection)
      H.GarbageCollection(&E);
  });
}

void PluginHost::garbageCollectionFinished() {
  each(WEFT_ON_GC, "GarbageCollection", [&](const weftRuntimeHooks &H, const void *Key) {
    weftGcEvent E{&Services, Key, 1, 0, 0, nullptr};
    if (H.GarbageCollection)
      H.GarbageCollection(&E);
  });
}

void PluginHost::releaseAll() {
  std::unordered_map<ModuleID, std::unique_ptr<ModuleObjects>> All;
  {
    std::lock_guard<std::mutex> G(Lock);
    All.swap(Modules);
  }
}

} // namespace weft::prof
