//===- runtime-profiler/AttachDetach.cpp - Attaching to a running process and detaching ---===//
//
// `weft attach` loads the profiler into a running process: the modules already loaded are matched
// and their methods compiled again through ReJIT. `weft detach` reverts them.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

HRESULT Profiler::ProfilerAttachComplete() {
  return guarded("ProfilerAttachComplete", [&] {
    // The modules loaded before the profiler came: matched now, their methods ReJIT-ed.
    ICorProfilerModuleEnum *Enum = nullptr;
    if (!Conf.Spec)
      return S_OK;
    if (HRESULT Hr = Info->EnumModules(&Enum); failed(Hr) || !Enum) {
      L->line("cannot list the modules already loaded (" + hresultText(Hr) +
              "); only modules loaded from now on are instrumented");
      return S_OK;
    }
    std::vector<ModuleID> Loaded;
    ModuleID Batch[64];
    ULONG Got = 0;
    while (succeeded(Enum->Next(64, Batch, &Got)) && Got) {
      Loaded.insert(Loaded.end(), Batch, Batch + Got);
      if (Got < 64)
        break;
    }
    Enum->Release();
    for (ModuleID Id : Loaded)
      if (!moduleOf(Id))
        moduleLoaded(Id);
    L->line(Twine(Loaded.size()) + " modules were loaded before the profiler attached");
    return S_OK;
  });
}

void Profiler::detach() {
  // Every method compiled again with a woven body goes back to its own IL; then the runtime is
  // asked to unload the profiler once no callback runs in it.
  Detaching = true;
  std::vector<ModuleID> Modules;
  std::vector<mdMethodDef> Methods;
  std::shared_lock<std::shared_mutex> Gate(ModuleGate); // no module unloads meanwhile
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    std::sort(ReJits.Requested.begin(), ReJits.Requested.end());
    ReJits.Requested.erase(std::unique(ReJits.Requested.begin(), ReJits.Requested.end()),
                           ReJits.Requested.end());
    for (auto [Id, Method] : ReJits.Requested)
      if (moduleOf(Id))
        Modules.push_back(Id), Methods.push_back(Method);
  }
  if (!Methods.empty()) {
    std::vector<HRESULT> Status(Methods.size(), S_OK);
    HRESULT Hr = Info->RequestRevert(ULONG(Methods.size()), Modules.data(), Methods.data(),
                                     Status.data());
    L->line("detach: " + Twine(Methods.size()) + " methods back to their own IL" +
            (failed(Hr) ? " refused by the runtime (" + hresultText(Hr) + ")" : Twine("")));
  }
  Gate.unlock();
  // A profiler that enabled ReJIT cannot unload (the runtime refuses RequestProfilerDetach with
  // CORPROF_E_IMMUTABLE_FLAGS_SET): it stays loaded, asking for no event, doing nothing more.
  if (HRESULT Hr = Info->SetEventMask(COR_PRF_ENABLE_REJIT); failed(Hr))
    L->line("detach: the runtime kept the profiler's events (" + hresultText(Hr) + ")");
  L->line("detach: done; the profiler stays loaded (one that used ReJIT cannot unload) and "
          "instruments nothing more");
}

HRESULT Profiler::ProfilerDetachSucceeded() {
  return guarded("ProfilerDetachSucceeded", [&] {
    L->line("detached");
    return S_OK;
  });
}

} // namespace weft::prof
