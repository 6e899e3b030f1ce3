//===- runtime-profiler/ModuleMatching.cpp - Which modules and methods the spec matches ---===//
//
// Each module the runtime loads is read with weft's own reader where the runtime placed it and
// its methods matched against the spec; the matches are what JIT and ReJIT weave.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/PluginHost.h"
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"
#include "runtime-profiler/Recorder.h"
#include "weaving/EmbeddedRuntime.h"

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

HRESULT Profiler::ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) {
  return guarded("ModuleLoadFinished", [&] {
    if (succeeded(HrStatus))
      moduleLoaded(ModuleId);
    return S_OK;
  });
}

void Profiler::moduleLoaded(ModuleID Id) {
  ++Count.ModulesSeen;
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    LiveModules.insert(Id);
  }
  // Tracepoints, now or added later, may name its methods: the profiler's thread learns of the
  // module once what the rules make of it is in place (it would otherwise read the module a
  // second time, and two weaves would add to the runtime's metadata).
  auto Queue = make_scope_exit([&] {
    {
      std::lock_guard<std::mutex> G(ReJits.Lock);
      AllModules.push_back(Id);
      NewModules.push_back(Id);
    }
    if (HasTracepoints)
      ReJits.Wake.notify_one();
  });
  // --pass and specs without "assembly" rules are for the program's own code.
  std::shared_ptr<LoadedModule> Mod =
      readModule(Id, /*Framework=*/!Conf.Spec->namesAssemblies(), /*Notify=*/true);
  if (!Mod)
    return;
  StringRef Path = Mod->Name;
  Expected<spec::Selection> Sel = spec::select(*Conf.Spec, *Mod->M);
  if (!Sel) {
    L->line(Path + ": cannot read the module's metadata: " + toString(Sel.takeError()) +
            "; its methods stay as they are");
    return;
  }
  uint32_t Matched = 0;
  for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row)
    Matched += !Sel->passesOf(Row).empty();
  if (!Matched)
    return;
  Mod->Sel = std::move(*Sel);
  ++Count.ModulesMatched;
  Count.MethodsMatched += Matched;
  // Attached to a running process, a module's methods may already be compiled: they are all
  // compiled again through ReJIT, as ReadyToRun code is.
  Mod->ReJits = Attached || Mod->Img->isReadyToRun();
  L->line(sys::path::filename(Path) + ": " + Twine(Matched) + " of " +
          Twine(Mod->Sel.methodCount()) + " methods match the spec" +
          (!Mod->ReJits ? ""
           : Attached   ? "; attached after it loaded: they are compiled again through ReJIT, with "
                          "every method that inlined one"
                        : "; ReadyToRun code: they are compiled again through ReJIT, with every "
                          "method that inlined one"));
  std::vector<mdMethodDef> ReJit;
  if (Mod->ReJits)
    for (uint32_t Row = 1; Row <= Mod->Sel.methodCount(); ++Row)
      if (!Mod->Sel.passesOf(Row).empty())
        ReJit.push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
  if (Mod->Img->isReadyToRun() && !Attached)
    findPrecompiledInliners(*Mod, Id, ReJit);
  {
    std::lock_guard<std::mutex> G(ModulesLock);
    Modules[Id] = std::move(Mod);
  }
  if (!ReJit.empty()) {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    ReJits.Pending.emplace_back(Id, std::move(ReJit));
  }
  ReJits.Wake.notify_one();
}

std::shared_ptr<LoadedModule> Profiler::readModule(ModuleID Id, bool SkipFramework, bool Notify) {
  LPCBYTE Base = nullptr;
  WCHAR Name[1024] = {};
  ULONG NameLength = 0;
  AssemblyID Assembly = 0;
  DWORD Flags = 0;
  if (HRESULT Hr = Info->GetModuleInfo2(Id, &Base, 1024, &NameLength, Name, &Assembly, &Flags);
      failed(Hr)) {
    L->line("a module: GetModuleInfo2 failed (" + hresultText(Hr) +
            "); its methods stay as they are");
    return nullptr;
  }
  std::string Path =
      utf8(ArrayRef<WCHAR>(Name, NameLength ? std::min<ULONG>(NameLength, 1024) - 1 : 0));
  if (Notify && Plugins && Plugins->wants(WEFT_ON_MODULE_LOAD))
    Plugins->moduleLoaded(Id, Path);
  if ((Flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_RESOURCE)) || !Base)
    return nullptr; // no IL image to read: reflection-emitted or resource-only
  bool Framework = false;
  if (!considered(Path, &Framework) || (Framework && SkipFramework))
    return nullptr;
  pe::Image::Layout Layout =
      (Flags & COR_PRF_MODULE_FLAT_LAYOUT) ? pe::Image::Layout::Flat : pe::Image::Layout::Mapped;
  // A flat image may be shorter than a page: read no header past the file's end.
  size_t HeaderLimit = 4096;
  uint64_t FileSize = 0;
  if (Layout == pe::Image::Layout::Flat && !sys::fs::file_size(Path, FileSize))
    HeaderLimit = std::min<uint64_t>(HeaderLimit, FileSize);
  else if (Layout == pe::Image::Layout::Flat)
    HeaderLimit = 512;
  auto Mod = std::make_shared<LoadedModule>();
  Mod->Name = Path;
  Mod->Framework = Framework;
  Mod->Collectible = Flags & COR_PRF_MODULE_COLLECTIBLE;
  auto Fail = [&](Error E) -> std::shared_ptr<LoadedModule> {
    L->line(Path + ": cannot read the module's metadata: " + toString(std::move(E)) +
            "; its methods stay as they are");
    return nullptr;
  };
  Expected<std::unique_ptr<pe::Image>> Img =
      pe::Image::createLoaded(Base, Layout, Path, HeaderLimit);
  if (!Img)
    return Fail(Img.takeError());
  Mod->Img = std::move(*Img);
  if (!Mod->Img->isManaged())
    return Fail(createStringError(inconvertibleErrorCode(), "not a managed image"));
  auto M = metadata::Module::create(Mod->Img->metadata(), Mod->Img->metadataOffset());
  if (!M)
    return Fail(M.takeError());
  Mod->M = std::move(*M);
  Mod->Sel.setMethodCount(Mod->M->rowCount(metadata::TableId::MethodDef));
  return Mod;
}

metadata::AssemblyResolver *Profiler::frameworkResolver() {
  std::lock_guard<std::mutex> G(ModulesLock);
  if (!Frameworks && !FrameworkDir.empty())
    Frameworks =
        std::make_unique<metadata::AssemblyResolver>(std::vector<std::string>{FrameworkDir});
  return Frameworks.get();
}

bool Profiler::considered(StringRef Path, bool *Framework) {
  StringRef Dir = sys::path::parent_path(Path);
  {
    std::lock_guard<std::mutex> G(ModulesLock);
    if (FrameworkDir.empty() && sys::path::filename(Path) == "System.Private.CoreLib.dll")
      FrameworkDir = Dir.str();
    *Framework = !FrameworkDir.empty() && Dir == FrameworkDir;
  }
  // The runtimes (trace, OTLP export) that woven modules load from their own bytes.
  if (passes::isCarriedRuntime(sys::path::filename(Path)) && Dir.empty())
    return false;
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real) && llvm::is_contained(Conf.PassFiles, std::string(Real))) {
    L->line(sys::path::filename(Path) + ": a file the passes' options name (a probe or "
                                        "replacement assembly); left as it is");
    return false;
  }
  return true;
}

HRESULT Profiler::ModuleUnloadStarted(ModuleID ModuleId) {
  return guarded("ModuleUnloadStarted", [&] {
    if (Plugins)
      Plugins->moduleUnloading(ModuleId);
    forgetModule(ModuleId);
    return S_OK;
  });
}

void Profiler::forgetModule(ModuleID Id) {
  // The runtime may give the ID to another module once this returns, and ClassIDs of the
  // module's classes to other classes: nothing of the module may be passed back to it or read
  // by its old description. The profiler's thread finishes what it hands the runtime first
  // (this thread, the runtime's, waits outside cooperative mode: no collection waits with it).
  std::unique_lock<std::shared_mutex> Gate(ModuleGate);
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    LiveModules.erase(Id);
    llvm::erase_value(AllModules, Id);
    llvm::erase_value(NewModules, Id);
    llvm::erase_if(ReJits.Pending, [&](const auto &P) { return P.first == Id; });
    llvm::erase_if(ReJits.Requested, [&](const auto &R) { return R.first == Id; });
  }
  std::shared_ptr<LoadedModule> Mod;
  Recorder *R = nullptr;
  {
    std::lock_guard<std::mutex> G(ModulesLock);
    if (auto It = Modules.find(Id); It != Modules.end()) {
      Mod = std::move(It->second);
      Modules.erase(It);
    }
    R = Rec;
  }
  if (!R)
    return;
  std::vector<uint32_t> Slots;
  if (Mod) {
    std::lock_guard<std::mutex> G(Mod->Lock);
    for (const auto &[Row, T] : Mod->Traced)
      Slots.push_back(T.Slot);
  }
  R->freeSlots(Slots);
  R->moduleUnloading(Id);
}

std::unordered_set<ModuleID> Profiler::liveModules() {
  std::lock_guard<std::mutex> G(ReJits.Lock);
  return LiveModules;
}

std::shared_ptr<LoadedModule> Profiler::moduleOf(ModuleID Id) {
  std::lock_guard<std::mutex> G(ModulesLock);
  auto It = Modules.find(Id);
  return It == Modules.end() ? nullptr : It->second;
}

std::pair<std::shared_ptr<LoadedModule>, uint32_t> Profiler::matched(FunctionID Function,
                                                                     ModuleID *ModuleOut) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return {nullptr, 0};
  auto Found = matched(Module, Token);
  if (Found.first && ModuleOut)
    *ModuleOut = Module;
  return Found;
}

std::pair<std::shared_ptr<LoadedModule>, uint32_t> Profiler::matched(ModuleID Module,
                                                                     mdToken Token) {
  std::shared_ptr<LoadedModule> Mod = moduleOf(Module);
  if (!Mod || metadata::tokenTable(Token) != metadata::TableId::MethodDef)
    return {nullptr, 0};
  uint32_t Row = metadata::tokenRow(Token);
  if (Row == 0 || Row > Mod->Sel.methodCount() || Mod->Sel.passesOf(Row).empty())
    return {nullptr, 0};
  return {std::move(Mod), Row};
}

} // namespace weft::prof
