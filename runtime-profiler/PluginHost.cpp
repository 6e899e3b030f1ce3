//===- runtime-profiler/PluginHost.cpp ------------------------------------===//
#include "runtime-profiler/PluginHost.h"

#include "weaving/plugin/Objects.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace weft::prof {

namespace {

const weftRuntimeServices Services{plugin::objectData, plugin::setObjectData};

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
  for (const plugin::LoadedPlugin &P : Loaded) {
    Hooked H;
    H.Name = P.Name;
    if (P.C && P.C->HasHooks) {
      H.C = &P.C->Hooks;
      H.Events = H.C->Events;
    } else if (P.Runtime) {
      H.Hooks = P.Runtime;
      H.Events = P.Runtime->Events;
    } else {
      continue;
    }
    Events |= H.Events;
    Plugins.push_back(std::move(H));
  }
}

PluginHost::~PluginHost() { releaseAll(); }

template <typename Fn> void PluginHost::each(uint32_t Event, const char *Hook, Fn &&Call) {
  for (const Hooked &P : Plugins) {
    if (!(P.Events & Event))
      continue;
    try {
      Call(P);
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

namespace {

weft_object *cObject(weftObject *O) { return reinterpret_cast<weft_object *>(O); }

} // namespace

void PluginHost::moduleLoaded(ModuleID Module, StringRef Path) {
  ModuleObjects &M = objectsOf(Module, Path);
  each(WEFT_ON_MODULE_LOAD, "ModuleLoaded", [&](const Hooked &H) {
    if (H.C) {
      weft_module_event E{cObject(&M.Module), Module, {M.Path.data(), M.Path.size()}};
      if (H.C->ModuleLoaded)
        H.C->ModuleLoaded(H.C->Data, &E);
      return;
    }
    weftModuleEvent E{&Services, H.Hooks, &M.Module, Module, M.Path.c_str()};
    if (H.Hooks->ModuleLoaded)
      H.Hooks->ModuleLoaded(&E);
  });
}

void PluginHost::moduleUnloading(ModuleID Module) {
  ModuleObjects &M = objectsOf(Module);
  each(WEFT_ON_MODULE_UNLOAD, "ModuleUnloading", [&](const Hooked &H) {
    if (H.C) {
      weft_module_event E{cObject(&M.Module), Module, {M.Path.data(), M.Path.size()}};
      if (H.C->ModuleUnloading)
        H.C->ModuleUnloading(H.C->Data, &E);
      return;
    }
    weftModuleEvent E{&Services, H.Hooks, &M.Module, Module, M.Path.c_str()};
    if (H.Hooks->ModuleUnloading)
      H.Hooks->ModuleUnloading(&E);
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
  each(Event, ReJit ? "MethodReJitting" : "MethodCompiling", [&](const Hooked &H) {
    if (H.C) {
      weft_method_event E{cObject(&M.Module), cObject(TypeObject), cObject(MethodObject),
                          Module,             Function,           Method,
                          Woven ? 1 : 0};
      if (auto *Hook = ReJit ? H.C->MethodReJitting : H.C->MethodCompiling)
        Hook(H.C->Data, &E);
      return;
    }
    weftMethodEvent E{&Services, H.Hooks,  &M.Module, TypeObject,   MethodObject,
                      Module,    Function, Method,    Woven ? 1 : 0};
    if (auto *Hook = ReJit ? H.Hooks->MethodReJitting : H.Hooks->MethodCompiling)
      Hook(&E);
  });
}

void PluginHost::garbageCollectionStarted(uint32_t Reason, ArrayRef<int> Collected) {
  each(WEFT_ON_GC, "GarbageCollection", [&](const Hooked &H) {
    if (H.C) {
      weft_gc_event E{0, Reason, uint32_t(Collected.size()), Collected.data()};
      if (H.C->GarbageCollection)
        H.C->GarbageCollection(H.C->Data, &E);
      return;
    }
    weftGcEvent E{&Services, H.Hooks, 0, Reason, uint32_t(Collected.size()), Collected.data()};
    if (H.Hooks->GarbageCollection)
      H.Hooks->GarbageCollection(&E);
  });
}

void PluginHost::garbageCollectionFinished() {
  each(WEFT_ON_GC, "GarbageCollection", [&](const Hooked &H) {
    if (H.C) {
      weft_gc_event E{1, 0, 0, nullptr};
      if (H.C->GarbageCollection)
        H.C->GarbageCollection(H.C->Data, &E);
      return;
    }
    weftGcEvent E{&Services, H.Hooks, 1, 0, 0, nullptr};
    if (H.Hooks->GarbageCollection)
      H.Hooks->GarbageCollection(&E);
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
