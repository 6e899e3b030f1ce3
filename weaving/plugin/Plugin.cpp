//===- weaving/plugin/Plugin.cpp - Loading plugins ------------------------===//
#include "weaving/plugin/Plugin.h"

#include "support/Port.h"
#include "weaving/plugin/CAbi.h"
#include "weaving/plugin/Objects.h"
#include "support/RegularFile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace llvm;

namespace weft::plugin {

namespace {

Error fail(StringRef Path, const Twine &What) {
  return createStringError(inconvertibleErrorCode(), "plugin '" + Path + "': " + What);
}

struct Loaded {
  std::mutex Lock;
  /// By the library's real path: a library is loaded and registers its passes once.
  std::map<std::string, LoadedPlugin> Plugins;
  /// What the plugins of the C ABI said of themselves (they keep the pointer).
  std::vector<std::unique_ptr<weft_plugin>> CPlugins;
  /// Which plugin registered a pass, for the message when another one takes the name.
  StringMap<std::string> Owner;
};

Loaded &loaded() {
  static Loaded *L = new Loaded; // plugins stay loaded until the process ends
  return *L;
}

/// A plugin of the C++ API (weftGetPluginInfo): what it says, and its passes.
Error initCxxPlugin(StringRef Path, sys::DynamicLibrary &Lib, LoadedPlugin &P,
                    std::vector<passes::PassInfo> &Passes) {
  auto *Entry = reinterpret_cast<weftPluginInfo (*)()>(Lib.getAddressOfSymbol(EntryPoint));
  if (!Entry)
    return fail(Path, "is not a weft plugin: it has no function " + Twine(CEntryPoint) +
                          " (nor the deprecated " + EntryPoint + ")");
  weftPluginInfo Info = Entry();
  if (Info.APIVersion != WEFT_PLUGIN_API_VERSION)
    return createStringError(inconvertibleErrorCode(),
                             "'" + Path + "' was built for weft plugin API version " +
                                 Twine(Info.APIVersion) + "; this weft supports version " +
                                 Twine(WEFT_PLUGIN_API_VERSION) +
                                 " (rebuild the plugin against this weft's headers)");
  if (!Info.RegisterPasses)
    return fail(Path, "its weftGetPluginInfo gives no RegisterPasses function");
  P.Name = Info.Name ? Info.Name : sys::path::stem(Path).str();
  P.Version = Info.Version ? Info.Version : "";
  P.Runtime = Info.Runtime;
  P.Warning = "plugin '" + Path.str() +
              "' uses weft's C++ plugin API (weftGetPluginInfo), which is deprecated and goes "
              "in weft 1.0: port it to the C ABI, include/weft-c/Plugin.h (docs/plugins.md)";
  // The plugin registers into a registry of its own.
  passes::PassRegistry Own;
  Info.RegisterPasses(Own);
  Passes = Own.all();
  return Error::success();
}

/// Adds a plugin's passes to the registry if none of their names is taken, else none of them.
Error addPasses(StringRef Path, const std::vector<passes::PassInfo> &Passes,
                passes::PassRegistry &Registry, LoadedPlugin &P) {
  Loaded &L = loaded();
  for (const passes::PassInfo &PI : Passes) {
    if (PI.Name.empty() || !PI.Create)
      return fail(Path, "registers a pass without a name or a Create function");
    if (Registry.find(PI.Name)) {
      auto By = L.Owner.find(PI.Name);
      std::string Who = By != L.Owner.end() ? "plugin '" + By->second + "'" : "weft";
      return fail(Path,
                  "registers the pass '" + PI.Name + "', which " + Who + " already registered");
    }
  }
  for (const passes::PassInfo &PI : Passes) {
    if (Error E = Registry.add(PI))
      return E; // checked above
    L.Owner[PI.Name] = P.Path;
    P.Passes.push_back(PI.Name);
  }
  return Error::success();
}

} // namespace

Expected<LoadedPlugin> loadPlugin(StringRef Path, passes::PassRegistry &Registry) {
  if (!sys::fs::exists(Path))
    return fail(Path, "no such file");
  // dlopen would wait on a FIFO and read a device: only a regular file is opened.
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) && St.type() != sys::fs::file_type::regular_file)
    return fail(Path, "is " + fileKindName(St.type()) + ", not a shared library");
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real))
    return fail(Path, EC.message());

  Loaded &L = loaded();
  std::lock_guard<std::mutex> G(L.Lock);
  auto Known = L.Plugins.find(std::string(Real));
  if (Known != L.Plugins.end())
    return Known->second;

  // RTLD_NOW rather than the lazy binding of DynamicLibrary::getPermanentLibrary: a plugin that
  // needs a function this weft lacks is refused here, naming it, instead of ending the process
  // when the pass first calls it.
  std::string Why;
  void *Handle = port::loadLibraryNow(std::string(Real), Why);
  if (!Handle)
    return fail(Path, "cannot be loaded as a shared library: " + Twine(Why));
  // Permanent: the passes' code and the strings of their PassInfo live in the library.
  std::string Message;
  sys::DynamicLibrary Lib = sys::DynamicLibrary::addPermanentLibrary(Handle, &Message);
  if (!Lib.isValid())
    return fail(Path, "cannot be loaded as a shared library: " + Message);
  LoadedPlugin P;
  P.Path = Path.str();
  std::vector<passes::PassInfo> Passes;
  using CInit = weft_status (*)(const weft_api *, weft_plugin *);
  if (auto *Init = reinterpret_cast<CInit>(Lib.getAddressOfSymbol(CEntryPoint))) {
    auto C = std::make_unique<weft_plugin>();
    if (Error E = initCPlugin(Init, *C))
      return fail(Path, toString(std::move(E)));
    P.Name = !C->Name.empty() ? C->Name : sys::path::stem(Path).str();
    P.Version = C->Version;
    P.C = C.get();
    Passes = std::move(C->Passes);
    L.CPlugins.push_back(std::move(C));
  } else if (Error E = initCxxPlugin(Path, Lib, P, Passes)) {
    return std::move(E);
  }
  if (Error E = addPasses(Path, Passes, Registry, P))
    return std::move(E);
  L.Plugins.emplace(std::string(Real), P);
  return P;
}

void *objectData(weftObject *Object, const void *Plugin) {
  if (!Object)
    return nullptr;
  std::lock_guard<std::mutex> G(Object->Lock);
  for (const weftObject::Item &I : Object->Items)
    if (I.Plugin == Plugin)
      return I.Data;
  return nullptr;
}

void setObjectData(weftObject *Object, const void *Plugin, void *Data, void (*Release)(void *)) {
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

std::vector<LoadedPlugin> loadedPlugins() {
  Loaded &L = loaded();
  std::lock_guard<std::mutex> G(L.Lock);
  std::vector<LoadedPlugin> All;
  for (const auto &P : L.Plugins)
    All.push_back(P.second);
  return All;
}

Expected<std::vector<LoadedPlugin>> loadPlugins(StringRef SpecPath, ArrayRef<std::string> Paths) {
  std::vector<LoadedPlugin> Loaded;
  for (const std::string &P : Paths) {
    Expected<LoadedPlugin> L = loadPlugin(P);
    if (!L)
      return createStringError(inconvertibleErrorCode(),
                               SpecPath + ": plugins: " + toString(L.takeError()));
    Loaded.push_back(std::move(*L));
  }
  return std::move(Loaded);
}

} // namespace weft::plugin
