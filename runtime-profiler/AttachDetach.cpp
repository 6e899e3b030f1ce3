//===- runtime-profiler/AttachDetach.cpp - Attaching to a running process and detaching ---===//
//
// `weft attach` loads the profiler into a running process: the modules already loaded are matched
// and their methods compiled again through ReJIT. `weft detach` reverts them.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/GcEvents.h"
#include "runtime-profiler/Identity.h"
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"
#include "runtime-profiler/Recorder.h"
#include "support/Port.h"
#include "support/PrivateFiles.h"

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
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

std::vector<ModuleID> Profiler::loadedModules() {
  std::vector<ModuleID> Loaded;
  ICorProfilerModuleEnum *Enum = nullptr;
  if (HRESULT Hr = Info->EnumModules(&Enum); failed(Hr) || !Enum) {
    L->line("cannot list the modules already loaded (" + hresultText(Hr) +
            "); only modules loaded from now on are instrumented");
    return Loaded;
  }
  ModuleID Batch[64];
  ULONG Got = 0;
  while (succeeded(Enum->Next(64, Batch, &Got)) && Got) {
    Loaded.insert(Loaded.end(), Batch, Batch + Got);
    if (Got < 64)
      break;
  }
  Enum->Release();
  return Loaded;
}

HRESULT Profiler::ProfilerAttachComplete() {
  return guarded("ProfilerAttachComplete", [&] {
    // The modules loaded before the profiler came: matched now, their methods ReJIT-ed.
    if (!Conf.Spec)
      return S_OK;
    std::vector<ModuleID> Loaded = loadedModules();
    for (ModuleID Id : Loaded)
      if (!moduleOf(Id))
        moduleLoaded(Id);
    L->line(Twine(Loaded.size()) + " modules were loaded before the profiler attached");
    return S_OK;
  });
}

void Profiler::openControlFolder(const std::string &Named, StringRef Settings) {
  AttachSettings = Settings.str();
  std::string Folder = Named.empty() ? controlFolder(port::currentUser()) : Named;
  if (Error E = checkPrivateFolder(Folder, port::currentUser(), /*Create=*/true)) {
    L->line("control: " + toString(std::move(E)) +
            "; `weft detach` and `weft attach` cannot reach this process");
    return;
  }
  ControlDir = Folder;
  L->line("control: requests are taken from " + ControlDir);
}

void Profiler::takeControlRequest() {
  if (ControlDir.empty())
    return;
  // Instrumenting, the profiler listens for a detach; detached, for an attach.
  bool Active = !Detaching;
  std::string Request = Active ? detachRequestPath(ControlDir, ::getpid())
                               : attachRequestPath(ControlDir, ::getpid());
  if (!port::nameExists(Request.c_str()))
    return; // nothing asked: the usual case, one lstat
  Expected<std::string> Text = [&]() -> Expected<std::string> {
    if (Error E = checkPrivateFolder(ControlDir, port::currentUser(), /*Create=*/false))
      return std::move(E);
    return readOwnedFile(Request, port::currentUser(), 64 * 1024);
  }();
  ::unlink(Request.c_str()); // taken or refused, never looked at again
  if (!Text) {
    std::string Why = toString(Text.takeError());
    L->line("control: a request refused: " + Why);
    reply(Request, "refused: " + Why);
    return;
  }
  if (Active) {
    detach();
    reply(Request, "done");
    return;
  }
  std::optional<std::string> Refused = reattach(*Text);
  if (Refused)
    L->line("control: a re-attach refused: " + *Refused);
  reply(Request, Refused ? "refused: " + *Refused : "done");
}

void Profiler::reply(const std::string &Request, StringRef Answer) {
  // Written whole under another name and renamed: the client never reads a half-written answer.
  std::string Path = Request + ".reply", Part = Path + ".part";
  ::unlink(Part.c_str());
  Expected<int> Fd = createPrivateFile(Part);
  if (!Fd) {
    L->line("control: cannot answer: " + toString(Fd.takeError()));
    return;
  }
  std::string Text = Answer.str() + "\n";
  bool Whole = ::write(*Fd, Text.data(), Text.size()) == ssize_t(Text.size());
  ::close(*Fd);
  if (!Whole || ::rename(Part.c_str(), Path.c_str()) != 0) {
    L->line("control: cannot answer in " + Path + ": " + std::strerror(errno));
    ::unlink(Part.c_str());
  }
}

void Profiler::detach() {
  // Every method compiled again with a woven body goes back to its own IL, and no event is
  // asked for any more.
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
    ReJits.Requested.clear();
    ReJits.Pending.clear();
  }
  // The tracepoints record nothing more; a re-attach compiles their methods again.
  std::vector<ModuleID> All;
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    All = AllModules;
  }
  for (ModuleID Id : All)
    if (std::shared_ptr<LoadedModule> Mod = moduleOf(Id)) {
      std::lock_guard<std::mutex> G(Mod->Lock);
      for (auto &[Row, T] : Mod->Traced) {
        T.Active = false;
        if (Rec)
          Rec->setTracepoints(T.Slot, {}, 0);
      }
    }
  if (!Methods.empty()) {
    std::vector<HRESULT> Status(Methods.size(), S_OK);
    HRESULT Hr =
        Info->RequestRevert(ULONG(Methods.size()), Modules.data(), Methods.data(), Status.data());
    L->line("detach: " + Twine(Methods.size()) + " methods back to their own IL" +
            (failed(Hr) ? " refused by the runtime (" + hresultText(Hr) + ")" : Twine("")));
  }
  Gate.unlock();
  if (Gc)
    Gc->stop();
  // A profiler that enabled ReJIT cannot unload (the runtime refuses RequestProfilerDetach with
  // CORPROF_E_IMMUTABLE_FLAGS_SET): it stays loaded, asking for no event, doing nothing more
  // until a re-attach.
  if (HRESULT Hr = Info->SetEventMask(COR_PRF_ENABLE_REJIT); failed(Hr))
    L->line("detach: the runtime kept the profiler's events (" + hresultText(Hr) + ")");
  L->line("detach: done; the profiler stays loaded (one that used ReJIT cannot unload) and "
          "instruments nothing more until `weft attach` starts it again");
}

std::optional<std::string> Profiler::reattach(StringRef Settings) {
  // The rules' weave of each module began with the first attach's settings: only those can
  // apply again (the tracepoints, read from the spec file, may have changed).
  if (Settings != AttachSettings)
    return std::string("the profiler was attached with other settings; attach again with the "
                       "same options");
  if (HRESULT Hr = Info->SetEventMask2(MaskLow, MaskHigh); failed(Hr))
    return "the runtime refused the events (" + hresultText(Hr) + ")";
  Detaching = false;
  if (Gc)
    Gc->startSession();
  // Modules loaded while detached are matched now; the others' matching methods are compiled
  // again with the bodies they had.
  std::vector<ModuleID> Loaded = loadedModules();
  for (ModuleID Id : Loaded) {
    std::shared_ptr<LoadedModule> Mod = moduleOf(Id);
    if (!Mod) {
      if (Conf.Spec)
        moduleLoaded(Id);
      continue;
    }
    std::vector<mdMethodDef> ReJit;
    for (uint32_t Row = 1; Row <= Mod->Sel.methodCount(); ++Row)
      if (!Mod->Sel.passesOf(Row).empty())
        ReJit.push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
    if (!ReJit.empty()) {
      std::lock_guard<std::mutex> G(ReJits.Lock);
      ReJits.Pending.emplace_back(Id, std::move(ReJit));
    }
  }
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    NewModules = AllModules; // the tracepoints apply again to every module
  }
  L->line("attached again: " + Twine(Loaded.size()) + " modules loaded");
  return std::nullopt;
}

HRESULT Profiler::ProfilerDetachSucceeded() {
  return guarded("ProfilerDetachSucceeded", [&] {
    L->line("detached");
    return S_OK;
  });
}

} // namespace weft::prof
