//===- runtime-profiler/Profiler.cpp --------------------------------------===//
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/Identity.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "runtime-profiler/EmitMirror.h"
#include "runtime-profiler/EventPipeSink.h"
#include "runtime-profiler/LttngSink.h"
#include "runtime-profiler/GcEvents.h"
#include "runtime-profiler/Recorder.h"
#include "runtime-profiler/TracepointPass.h"
#include "metadata/Names.h"
#include "support/Format.h"
#include "weaver/il/BodyReader.h"
#include "weaver/passes/Weaver.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

/// The profiler once it has attached, for the trace pass's runtime (Profiler::traceCalls), which
/// calls from threads the runtime does not know to be in the profiler: a detach waits for them.
static std::mutex TraceGate;
static Profiler *TheProfiler = nullptr; // under TraceGate

/// A body the passes wove and where each original instruction went in it.
struct WovenMethod {
  std::vector<uint8_t> Bytes;
  std::vector<COR_IL_MAP> Map;

  WovenMethod(std::vector<uint8_t> B, ArrayRef<std::pair<uint32_t, uint32_t>> OffsetMap)
      : Bytes(std::move(B)) {
    Map.reserve(OffsetMap.size());
    for (auto [Old, New] : OffsetMap)
      Map.push_back(COR_IL_MAP{Old, New, 1});
  }
};

/// What the profiler knows of a module with methods the spec matches.
struct LoadedModule {
  std::string Name;
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
  spec::Selection Sel;

  /// The weave, made at the first compilation of a matching method; one method at a time.
  std::mutex Lock;
  enum class State { NotStarted, Weaving, Refused } Weaving = State::NotStarted;
  IMetaDataEmit2 *Emit = nullptr;
  IMetaDataAssemblyEmit *AssemblyEmit = nullptr;
  std::unique_ptr<metadata::AssemblyResolver> Resolver; // its folder, then the framework's
  std::unique_ptr<metadata::Editor> E;
  std::unique_ptr<EmitMirror> Mirror;
  std::unique_ptr<passes::ModuleWeave> Weave;
  /// The rows already handled: IL is rewritten once per method definition, however many
  /// instantiations of it are compiled.
  std::vector<bool> Done;
  /// MethodDef rows up to this one have a body (the module's own, and those published).
  uint32_t MethodsWithBodies = 0;
  /// A ReadyToRun module: its matching methods are compiled again through ReJIT (with the methods
  /// that inlined them), so each woven body is kept to be handed over again.
  bool ReJits = false;
  std::unordered_map<uint32_t, std::unique_ptr<WovenMethod>> Woven;
  /// Methods of the module whose precompiled code inlined a matching method: that code must not
  /// run (their rows; filled at load, read-only after).
  std::vector<bool> InlinedMatching;
  /// The passes finish their module-level code only at the module's end (coverage's counter
  /// count, say): every matching method was woven when the weave began, and Woven has them all.
  bool Whole = false;
  /// The shared framework's: only tracepoints that name assemblies match in it.
  bool Framework = false;
  /// Tracepoints: the tracepoint pass's number in Weave, once added, and each method woven with
  /// it: its recorder slot, its body, and whether the runtime runs that body (compiled again
  /// through ReJIT; reverted when no tracepoint names it any more).
  std::optional<size_t> TracepointPass;
  struct TracedMethod {
    uint32_t Slot = 0;
    std::unique_ptr<WovenMethod> Body;
    bool Active = false;
  };
  std::unordered_map<uint32_t, TracedMethod> Traced;

  ~LoadedModule() {
    Weave.reset();
    if (AssemblyEmit)
      AssemblyEmit->Release();
    if (Emit)
      Emit->Release();
  }
  std::string methodName(uint32_t Row) const {
    using namespace metadata;
    StringRef Name;
    if (E && Row >= 1 && Row <= E->rowCount(TableId::MethodDef))
      Name = E->getString(E->get(TableId::MethodDef, Row, MethodDefCol::Name));
    else if (Row >= 1 && Row <= M->rowCount(TableId::MethodDef))
      Name = M->getString(M->get(TableId::MethodDef, Row, MethodDefCol::Name));
    return "method 0x" + hexstr(makeToken(TableId::MethodDef, Row), false, 8) + " (" +
           Name.str() + ")";
  }
};

namespace {

/// The newest ICorProfilerInfo the runtime answers, from 15 down to 7 (ApplyMetadata, .NET Core
/// 3.0 and later); 0 if it answers none of them.
unsigned newestInfo(IUnknown *Unk, ICorProfilerInfo7 **Out) {
  const GUID *Iids[] = {&IID_ICorProfilerInfo15, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo13,
                        &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo10,
                        &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo8,  &IID_ICorProfilerInfo7};
  unsigned Version = 15;
  for (const GUID *Iid : Iids) {
    void *P = nullptr;
    if (succeeded(Unk->QueryInterface(*Iid, &P)) && P) {
      *Out = static_cast<ICorProfilerInfo7 *>(P); // each derives from the one before
      return Version;
    }
    --Version;
  }
  return 0;
}

/// "module load, JIT" for WEFT_ON_* bits.
std::string eventNames(uint32_t Events) {
  std::vector<std::string> Names;
  const std::pair<uint32_t, const char *> All[] = {
      {WEFT_ON_MODULE_LOAD, "module load"}, {WEFT_ON_MODULE_UNLOAD, "module unload"},
      {WEFT_ON_JIT, "JIT"}, {WEFT_ON_REJIT, "ReJIT"}, {WEFT_ON_GC, "GC"}};
  for (auto [Bit, Name] : All)
    if (Events & Bit)
      Names.push_back(Name);
  return Names.empty() ? "none" : join(Names, ", ");
}

std::string runtimeDescription(ICorProfilerInfo7 *Info) {
  USHORT Instance = 0, Major = 0, Minor = 0, Build = 0, Qfe = 0;
  COR_PRF_RUNTIME_TYPE Type{};
  WCHAR Version[64] = {};
  ULONG Length = 0;
  if (failed(Info->GetRuntimeInformation(&Instance, &Type, &Major, &Minor, &Build, &Qfe, 64,
                                         &Length, Version)))
    return "an unknown runtime";
  std::string Text = Type == COR_PRF_CORE_CLR ? "CoreCLR " : "a runtime of type " +
                                                                 std::to_string(uint32_t(Type)) +
                                                                 " ";
  Text += std::to_string(Major) + "." + std::to_string(Minor) + "." + std::to_string(Build);
  if (Length > 1)
    Text += " (" + utf8(ArrayRef<WCHAR>(Version, std::min<ULONG>(Length, 64) - 1)) + ")";
  return Text;
}

} // namespace

Profiler::Profiler() = default;

Profiler::~Profiler() {
  stopReJitThread();
  Gc.reset();
  if (Info)
    Info->Release();
}

template <typename Fn>
HRESULT Profiler::guarded(const char *Callback, Fn &&Work, HRESULT OnError) {
  try {
    return Work();
  } catch (...) {
    if (L)
      L->line(Twine(Callback) + ": an unexpected error; the runtime goes on without weft's work "
                                "for it");
    return OnError;
  }
}

namespace {
/// The value of \p Name: from the attach request's data when there is one ("NAME=value" lines, as
/// `weft attach` sends them), else from the environment.
std::string setting(const char *Name, StringRef AttachData, bool Attaching) {
  if (!Attaching) {
    const char *V = std::getenv(Name);
    return V ? V : "";
  }
  SmallVector<StringRef, 8> Lines;
  AttachData.split(Lines, '\n', -1, false);
  for (StringRef Line : Lines)
    if (Line.consume_front(Name) && Line.consume_front("="))
      return Line.str();
  return "";
}
} // namespace

HRESULT Profiler::Initialize(IUnknown *ProfilerInfoUnk) {
  // A start that failed half-way instruments nothing: the profiler cancels its loading.
  return guarded("Initialize", [&] { return initialize(ProfilerInfoUnk, {}, false); },
                 CORPROF_E_PROFILER_CANCEL_ACTIVATION);
}

HRESULT Profiler::InitializeForAttach(IUnknown *ProfilerInfoUnk, void *ClientData, UINT Size) {
  std::string Data(static_cast<const char *>(ClientData), ClientData ? Size : 0);
  return guarded("InitializeForAttach", [&] { return initialize(ProfilerInfoUnk, Data, true); },
                 CORPROF_E_PROFILER_CANCEL_ACTIVATION);
}

HRESULT Profiler::initialize(IUnknown *Unk, StringRef AttachData, bool Attaching) {
  Attached = Attaching;
  L = std::make_unique<Log>(setting(LogVariable, AttachData, Attaching));
  Verbose = setting(VerboseVariable, AttachData, Attaching) == "1";
  OutputDir = setting(OutputDirVariable, AttachData, Attaching);
  WantsLttng = setting(LttngVariable, AttachData, Attaching) == "1";
  InfoVersion = Unk ? newestInfo(Unk, &Info) : 0;
  if (!InfoVersion) {
    L->line("declined: the runtime offers no ICorProfilerInfo7 or later (weft needs .NET Core 3.0 "
            "or later); nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  std::string Runtime = runtimeDescription(Info);
  Expected<Config> C = Config::from(setting(SpecVariable, AttachData, Attaching),
                                    setting(PassesVariable, AttachData, Attaching));
  if (!C) {
    L->line("declined on " + Runtime + ": " + toString(C.takeError()) +
            "; nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  Conf = std::move(*C);
  SpecPath = setting(SpecVariable, AttachData, Attaching);
  if (!SpecPath.empty()) {
    if (auto Text = MemoryBuffer::getFile(SpecPath, /*IsText=*/true))
      SpecText = (*Text)->getBuffer().str();
    Traced = Conf.Spec;
    HasTracepoints = Traced && !Traced->tracepoints().empty();
  }
  DWORD Events = COR_PRF_MONITOR_NONE, High = 0;
  if (std::string Level = setting(GcVariable, AttachData, Attaching); !Level.empty()) {
    Expected<uint32_t> L2 = GcEvents::parseLevel(Level);
    if (!L2) {
      L->line("declined on " + Runtime + ": " + toString(L2.takeError()) +
              "; nothing is instrumented");
      return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    Recorder &R = recorder(); // makes the sinks too
    Gc = std::make_unique<GcEvents>(Info, InfoVersion, R, *L, *L2, Sinks);
    High |= COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
  }
  if (Conf.Spec)
    Events = COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_REJIT;
  // A profiler that attaches may not watch cache searches: code compiled ahead of time is then
  // replaced through ReJIT only.
  if (Conf.Spec && !Attaching)
    Events |= COR_PRF_MONITOR_CACHE_SEARCHES;
  for (const plugin::LoadedPlugin &P : Conf.Plugins)
    L->line("plugin " + P.Name + (P.Version.empty() ? "" : " " + P.Version) + " (" + P.Path +
            "): passes " + join(P.Passes, ", ") +
            (P.Runtime ? "; runtime events " + eventNames(P.Runtime->Events) : ""));
  Plugins = std::make_unique<PluginHost>(Conf.Plugins, *L);
  if (Plugins->wants(WEFT_ON_GC))
    High |= COR_PRF_HIGH_BASIC_GC; // the collections' start and end, concurrent GC left on
  if (!Plugins->events())
    Plugins.reset();
  if (HRESULT Hr = Info->SetEventMask2(Events, High); failed(Hr)) {
    L->line("declined on " + Runtime + ": the runtime refused the event mask (" + hresultText(Hr) +
            "); nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  if (Conf.Spec)
    ReJits.Thread = std::thread([this] { reJitThread(); });
  if (Gc)
    Gc->startSession();
  L->line(Twine(Attaching ? "attached to the running process, " : "attached to ") + Runtime +
          " through ICorProfilerInfo" + Twine(InfoVersion) + "; " + Conf.Source);
  {
    std::lock_guard<std::mutex> G(TraceGate);
    TheProfiler = this;
  }
  return S_OK;
}

void Profiler::traceName(int32_t Id, const char16_t *Name, int32_t Length) {
  std::lock_guard<std::mutex> G(TraceGate);
  Profiler *P = TheProfiler;
  if (!P || Id < 0 || !Name || Length < 0)
    return;
  try {
    Recorder &R = P->recorder();
    if (Id == 0)
      P->L->line("trace: the trace pass's calls go on the timeline too, " + R.path());
    R.traceName(uint32_t(Id), utf8(ArrayRef<WCHAR>(Name, size_t(Length))));
  } catch (...) {
  }
}

void Profiler::traceCalls(uint32_t Tid, const int64_t *Calls, int32_t Count) {
  std::lock_guard<std::mutex> G(TraceGate);
  Profiler *P = TheProfiler;
  if (!P)
    return;
  try {
    P->recorder().traceCalls(Tid, Calls, Count);
  } catch (...) {
  }
}

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

HRESULT Profiler::Shutdown() {
  return guarded("Shutdown", [&] {
    stopReJitThread();
    if (Gc)
      Gc->stop();
    if (Rec) {
      Rec->stop();
      L->line("timeline: " + Twine(Count.Traced.load()) + " methods compiled with tracepoint "
              "code, " + Twine(Count.Reverted.load()) + " reverted; " + Twine(Rec->calls()) +
              " calls recorded; records in " + Rec->path() + " (" + Twine(Rec->dropped()) +
              " dropped)");
    }
    if (Plugins)
      Plugins->releaseAll();
    if (L && Conf.Spec)
      L->line("shutting down: " + Twine(Count.ModulesSeen.load()) + " modules loaded, " +
              Twine(Count.ModulesMatched.load()) + " with methods the spec matches (" +
              Twine(Count.MethodsMatched.load()) + " methods); " + Twine(Count.Compiled.load()) +
              " compilations, of " + Twine(Count.CompiledMatched.load()) +
              " matching methods: " + Twine(Count.Rewritten.load()) + " rewritten, " +
              Twine(Count.Unchanged.load()) + " unchanged by the passes, " +
              Twine(Count.LeftAlone.load()) + " left as they were after a problem" +
              (Count.ReJitRequested ? "; " + Twine(Count.ReJitRequested.load()) +
                                          " methods requested for ReJIT: " +
                                          Twine(Count.ReJitted.load()) +
                                          " compiled again with their woven body, " +
                                          Twine(Count.ReJitOthers.load()) +
                                          " that had inlined one compiled again as they were, " +
                                          Twine(Count.ReJitFailed.load()) + " ReJIT failures"
                                    : Twine()));
    if (L && !RewriteMicros.empty()) {
      std::vector<float> T = RewriteMicros;
      std::sort(T.begin(), T.end());
      auto At = [&](double Q) { return T[std::min(T.size() - 1, size_t(Q * T.size()))]; };
      auto Us = [](float V) {
        char Buf[32];
        std::snprintf(Buf, sizeof Buf, "%.1f us", double(V));
        return std::string(Buf);
      };
      L->line("time per method woven at JIT time (the first includes beginning the passes): "
              "median " + Us(At(0.5)) + ", 90th percentile " + Us(At(0.9)) +
              ", 99th percentile " + Us(At(0.99)) + ", most " + Us(T.back()) + ", over " +
              Twine(T.size()) + " methods");
    }
    return S_OK;
  });
}

HRESULT Profiler::ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) {
  return guarded("ModuleLoadFinished", [&] {
    if (succeeded(HrStatus))
      moduleLoaded(ModuleId);
    return S_OK;
  });
}

void Profiler::moduleLoaded(ModuleID Id) {
  ++Count.ModulesSeen;
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
           : Attached ? "; attached after it loaded: they are compiled again through ReJIT, with "
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
    L->line("a module: GetModuleInfo2 failed (" + hresultText(Hr) + "); its methods stay as they are");
    return nullptr;
  }
  std::string Path = utf8(ArrayRef<WCHAR>(Name, NameLength ? std::min<ULONG>(NameLength, 1024) - 1 : 0));
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
  auto Fail = [&](Error E) -> std::shared_ptr<LoadedModule> {
    L->line(Path + ": cannot read the module's metadata: " + toString(std::move(E)) +
            "; its methods stay as they are");
    return nullptr;
  };
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::createLoaded(Base, Layout, Path, HeaderLimit);
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
    Frameworks = std::make_unique<metadata::AssemblyResolver>(std::vector<std::string>{FrameworkDir});
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
  // The trace pass's runtime, which woven modules load from their own bytes.
  if (sys::path::filename(Path) == "Weft.Trace.dll" && Dir.empty())
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
    std::lock_guard<std::mutex> G(ModulesLock);
    Modules.erase(ModuleId);
    return S_OK;
  });
}

std::shared_ptr<LoadedModule> Profiler::moduleOf(ModuleID Id) {
  std::lock_guard<std::mutex> G(ModulesLock);
  auto It = Modules.find(Id);
  return It == Modules.end() ? nullptr : It->second;
}

HRESULT Profiler::JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) {
  return guarded("JITCompilationStarted", [&] {
    bool Woven = compilationStarted(FunctionId);
    if (Plugins && Plugins->wants(WEFT_ON_JIT))
      notifyCompiling(false, FunctionId, Woven);
    return S_OK;
  });
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

HRESULT Profiler::JITInlining(FunctionID CallerId, FunctionID CalleeId, BOOL *ShouldInline) {
  return guarded("JITInlining", [&] {
    if (ShouldInline && matched(CalleeId).first)
      *ShouldInline = 0;
    return S_OK;
  });
}

HRESULT Profiler::JITCachedFunctionSearchStarted(FunctionID FunctionId, BOOL *UseCachedFunction) {
  return guarded("JITCachedFunctionSearchStarted", [&] {
    if (UseCachedFunction && precompiledCodeMustNotRun(FunctionId))
      *UseCachedFunction = 0;
    return S_OK;
  });
}

bool Profiler::precompiledCodeMustNotRun(FunctionID Function) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return false;
  if (matched(Module, Token).first)
    return true;
  std::shared_ptr<LoadedModule> Mod = moduleOf(Module);
  uint32_t Row = metadata::tokenRow(Token);
  return Mod && metadata::tokenTable(Token) == metadata::TableId::MethodDef &&
         Row < Mod->InlinedMatching.size() && Mod->InlinedMatching[Row];
}

void Profiler::findPrecompiledInliners(LoadedModule &Mod, ModuleID Id,
                                       const std::vector<mdMethodDef> &Matching) {
  // The image's own record of where its precompiled code inlined each matching method: that
  // code is declined at the cache search too, and compiled (where JITInlining keeps the matching
  // method out), so no call of a matching method runs its original IL, from the first call on.
  // (ReJIT with inliners, requested at the same time, covers what this misses: other modules.)
  Mod.InlinedMatching.assign(Mod.Sel.methodCount() + 1, false);
  uint64_t Found = 0;
  for (mdMethodDef Method : Matching) {
    BOOL Incomplete = 0;
    ICorProfilerMethodEnum *Enum = nullptr;
    if (failed(Info->EnumNgenModuleMethodsInliningThisMethod(Id, Id, Method, &Incomplete, &Enum)) ||
        !Enum)
      continue;
    COR_PRF_METHOD Batch[64];
    ULONG Got = 0;
    while (succeeded(Enum->Next(64, Batch, &Got)) && Got) {
      for (ULONG I = 0; I < Got; ++I) {
        uint32_t Row = metadata::tokenRow(Batch[I].methodId);
        if (Batch[I].moduleId == Id && Row < Mod.InlinedMatching.size() &&
            !Mod.InlinedMatching[Row]) {
          Mod.InlinedMatching[Row] = true;
          ++Found;
        }
      }
      if (Got < 64)
        break;
    }
    Enum->Release();
  }
  if (Found)
    L->line(sys::path::filename(Mod.Name) + ": " + Twine(Found) +
            " methods whose precompiled code inlined a matching method are compiled instead");
}

/// The first method the passes added that has no body yet, or 0.
static uint32_t addedWithoutBody(LoadedModule &Mod) {
  const std::map<uint32_t, NewBody> &Bodies = Mod.Weave->outcome().Bodies;
  const metadata::Editor &E = *Mod.E;
  for (uint32_t Row = Mod.MethodsWithBodies + 1; Row <= E.rowCount(metadata::TableId::MethodDef);
       ++Row) {
    uint32_t Flags = E.get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::Flags);
    uint32_t Impl = E.get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::ImplFlags);
    bool NeedsBody = !(Flags & 0x2400) && !(Impl & 0x1003); // abstract, pinvoke; runtime, internal
    if (NeedsBody && !Bodies.count(Row))
      return Row;
  }
  return 0;
}

bool Profiler::startWeave(LoadedModule &Mod, ModuleID Id) {
  StringRef Name = sys::path::filename(Mod.Name);
  IUnknown *Unk = nullptr;
  if (HRESULT Hr = Info->GetModuleMetaData(Id, ofRead | ofWrite, IID_IMetaDataEmit2, &Unk);
      failed(Hr) || !Unk) {
    L->line(Name + ": the runtime gives no IMetaDataEmit2 for the module (" + hresultText(Hr) +
            "); its methods stay as they are");
    return false;
  }
  Mod.Emit = static_cast<IMetaDataEmit2 *>(Unk);
  void *P = nullptr;
  if (failed(Mod.Emit->QueryInterface(IID_IMetaDataAssemblyEmit, &P)) || !P) {
    L->line(Name + ": the module's metadata has no IMetaDataAssemblyEmit; its methods stay as "
                   "they are");
    return false;
  }
  Mod.AssemblyEmit = static_cast<IMetaDataAssemblyEmit *>(P);
  Mod.E = std::make_unique<metadata::Editor>(*Mod.M);
  Mod.MethodsWithBodies = Mod.M->rowCount(metadata::TableId::MethodDef);
  Mod.Mirror = std::make_unique<EmitMirror>(Mod.Emit, Mod.AssemblyEmit);
  Mod.E->setObserver(Mod.Mirror.get());
  Mod.Resolver = std::make_unique<metadata::AssemblyResolver>(
      std::vector<std::string>{sys::path::parent_path(Mod.Name).str()}, frameworkResolver());
  passes::WeaveOptions O;
  O.Resolver = Mod.Resolver.get();
  O.Threads = 1;
  O.KeepRemaps = true; // a whole-module weave hands each body over with its IL offset map
  O.InputPath = Mod.Name;
  auto W = passes::ModuleWeave::start(*Mod.Img, *Mod.E, Mod.Sel, O);
  std::optional<std::string> Problem = Mod.Mirror->takeProblem();
  if (!W || Problem) {
    L->line(Name + ": the passes cannot begin: " +
            (W ? *Problem : toString(W.takeError())) + "; its methods stay as they are");
    return false;
  }
  Mod.Weave = std::move(*W);
  if (addedWithoutBody(Mod)) {
    if (std::optional<std::string> Failed = weaveWholeModule(Mod)) {
      L->line(Name + ": " + *Failed + "; its methods stay as they are");
      return false;
    }
  }
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id)) {
    L->line(Name + ": the passes cannot begin: " + *Failed + "; its methods stay as they are");
    return false;
  }
  return true;
}

std::optional<std::string> Profiler::weaveWholeModule(LoadedModule &Mod) {
  // A pass that adds methods whose bodies it can only give at the module's end (coverage learns
  // its counter count there) gets the module's whole weave now, as offline: every method read
  // from the image the runtime loaded, in row order, then the end.
  auto Start = std::chrono::steady_clock::now();
  uint32_t Rows = Mod.M->rowCount(metadata::TableId::MethodDef);
  std::map<uint32_t, metadata::pdb::BodyRemap> &Remaps = Mod.Weave->outcome().Remaps;
  for (uint32_t Row = 1; Row <= Rows; ++Row) {
    Expected<std::optional<BodyBytes>> B = Mod.Weave->body(Row);
    if (!B)
      return "the passes cannot weave the module: " + toString(B.takeError());
    if (!*B)
      continue;
    auto W = std::make_unique<WovenMethod>((*B)->Bytes.vec(), Remaps[Row].OffsetMap);
    if (!Mod.Mirror->remapUserStrings(W->Bytes))
      return "a woven body does not decode again (a bug in weft)";
    Remaps.erase(Row);
    Mod.Woven[Row] = std::move(W);
  }
  if (Error E = Mod.Weave->finish())
    return "the passes cannot finish the module: " + toString(std::move(E));
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem())
    return *Problem;
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  for (const std::string &Warning : Out.Warnings)
    L->line(sys::path::filename(Mod.Name) + ": " + Warning);
  Out.Warnings.clear();
  // What weave writes beside its output (a coverage map) goes to the output folder.
  if (!Out.SideFiles.empty() || !Out.SideFilesOnDisk.empty()) {
    SmallString<256> Base(OutputDir.empty() ? "." : OutputDir);
    sys::path::append(Base, sys::path::filename(Mod.Name));
    if (Error E = passes::writeSideFiles(Out, Base))
      L->line(sys::path::filename(Mod.Name) + ": cannot write what the passes write beside the "
                                              "module: " + toString(std::move(E)));
    else
      for (const auto &Side : Out.SideFiles)
        L->line(sys::path::filename(Mod.Name) + ": wrote " + Base + Side.first);
    for (const auto &Side : Out.SideFilesOnDisk)
      L->line(sys::path::filename(Mod.Name) + ": wrote " + Base + Side.first);
  }
  Mod.Whole = true;
  float Micros =
      std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - Start).count();
  L->line(sys::path::filename(Mod.Name) + ": the passes finish the module only at its end: " +
          Twine(Mod.Woven.size()) + " methods woven at once, in " +
          Twine(unsigned(Micros / 1000)) + " ms");
  return std::nullopt;
}

std::optional<std::string> Profiler::publishAdditions(LoadedModule &Mod, ModuleID Id) {
  // Every method the passes added needs its body before a method that uses it runs.
  std::map<uint32_t, NewBody> &Bodies = Mod.Weave->outcome().Bodies;
  if (uint32_t Row = addedWithoutBody(Mod))
    return "the passes added " + Mod.methodName(Row) + " without a body (a bug in weft)";
  Mod.MethodsWithBodies = Mod.E->rowCount(metadata::TableId::MethodDef);
  if (Mod.Mirror->takeDefinitions())
    if (HRESULT Hr = Info->ApplyMetaData(Id); failed(Hr))
      return "the runtime did not apply the types and methods the passes added (" + hresultText(Hr) +
             ")";
  for (auto &[Row, Body] : Bodies)
    if (!Mod.Mirror->remapUserStrings(Body.Bytes))
      return "a method the passes added (" + Mod.methodName(Row) +
             ") does not decode (a bug in weft)";
    else if (std::optional<std::string> Failed = setBody(Id, metadata::makeToken(metadata::TableId::MethodDef, Row), Body.Bytes))
      return "a method the passes added (" + Mod.methodName(Row) + "): " + *Failed;
  Bodies.clear();
  return std::nullopt;
}

std::optional<std::string> Profiler::setBody(ModuleID Id, mdToken Method, ArrayRef<uint8_t> Bytes) {
  IMethodMalloc *Malloc = nullptr;
  if (HRESULT Hr = Info->GetILFunctionBodyAllocator(Id, &Malloc); failed(Hr) || !Malloc)
    return "no allocator for the new body (" + hresultText(Hr) + ")";
  void *Copy = Malloc->Alloc(ULONG(Bytes.size()));
  Malloc->Release();
  if (!Copy)
    return std::string("the runtime could not allocate the new body");
  std::memcpy(Copy, Bytes.data(), Bytes.size());
  if (HRESULT Hr = Info->SetILFunctionBody(Id, Method, static_cast<LPCBYTE>(Copy)); failed(Hr))
    return "the runtime refused the new body (" + hresultText(Hr) + ")";
  return std::nullopt;
}

std::unique_ptr<WovenMethod> Profiler::weave(LoadedModule &Mod, ModuleID Id, uint32_t Row) {
  StringRef File = sys::path::filename(Mod.Name);
  auto LeaveAlone = [&](const Twine &Why) {
    leftAlone(Mod, Row, Why);
    return nullptr;
  };
  mdToken Token = metadata::makeToken(metadata::TableId::MethodDef, Row);
  LPCBYTE Header = nullptr;
  ULONG Size = 0;
  if (HRESULT Hr = Info->GetILFunctionBody(Id, Token, &Header, &Size); failed(Hr) || !Header)
    return LeaveAlone("the runtime gives no IL body (" + hresultText(Hr) + ")");
  Expected<il::RawMethodBody> Raw = il::readMethodBody(ArrayRef<uint8_t>(Header, Size), 0);
  if (!Raw)
    return LeaveAlone(toString(Raw.takeError()));
  Expected<std::optional<il::EncodedBody>> Woven = Mod.Weave->weaveMethod(Row, *Raw);
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  if (Verbose)
    for (const std::string &S : Out.Skipped)
      L->line(File + ": skipped by " + S);
  Out.Skipped.clear();
  Out.Notes.clear();
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
    // The runtime's metadata and the editor no longer agree: nothing more can be woven here.
    Mod.Weaving = LoadedModule::State::Refused;
    consumeError(Woven.takeError());
    return LeaveAlone(*Problem + "; the module's other methods stay as they are too");
  }
  if (!Woven)
    return LeaveAlone(toString(Woven.takeError()));
  if (!*Woven) {
    ++Count.Unchanged;
    return nullptr;
  }
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id)) {
    Mod.Weaving = LoadedModule::State::Refused;
    return LeaveAlone(*Failed + "; the module's other methods stay as they are too");
  }
  il::EncodedBody &B = **Woven;
  if (!Mod.Mirror->remapUserStrings(B.Bytes))
    return LeaveAlone("the woven body does not decode again (a bug in weft)");
  return std::make_unique<WovenMethod>(std::move(B.Bytes), B.OffsetMap);
}

const WovenMethod *Profiler::weaveOnce(LoadedModule &Mod, ModuleID Id, uint32_t Row, bool *Fresh) {
  *Fresh = false;
  if (Mod.Done.empty())
    Mod.Done.assign(Mod.Sel.methodCount() + 1, false);
  if (Mod.Done[Row]) { // another instantiation, or a ReJIT, of a method already handled
    auto It = Mod.Woven.find(Row);
    return It == Mod.Woven.end() ? nullptr : It->second.get();
  }
  Mod.Done[Row] = true;
  *Fresh = true;
  ++Count.CompiledMatched;
  if (Mod.Weaving == LoadedModule::State::NotStarted)
    Mod.Weaving = startWeave(Mod, Id) ? LoadedModule::State::Weaving
                                      : LoadedModule::State::Refused;
  if (Mod.Weaving != LoadedModule::State::Weaving) {
    ++Count.LeftAlone;
    return nullptr;
  }
  if (Mod.Whole) { // woven when the weave began
    auto It = Mod.Woven.find(Row);
    if (It == Mod.Woven.end()) {
      ++Count.Unchanged;
      return nullptr;
    }
    return It->second.get();
  }
  auto Start = std::chrono::steady_clock::now();
  std::unique_ptr<WovenMethod> W = weave(Mod, Id, Row);
  float Micros =
      std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - Start).count();
  {
    std::lock_guard<std::mutex> T(TimesLock);
    RewriteMicros.push_back(Micros);
  }
  if (!W)
    return nullptr;
  // A module whose methods may be compiled again through ReJIT keeps each body to hand it over
  // again; others need it only until the runtime has copied it.
  if (!Mod.ReJits)
    Mod.Woven.clear();
  return (Mod.Woven[Row] = std::move(W)).get();
}

bool Profiler::compilationStarted(FunctionID Function) {
  ++Count.Compiled;
  // Attached, methods are woven only through ReJIT, which detaching can revert.
  if (Attached)
    return false;
  ModuleID Module = 0;
  auto [Mod, Row] = matched(Function, &Module);
  if (!Mod)
    return false;
  std::lock_guard<std::mutex> G(Mod->Lock);
  bool Fresh = false;
  const WovenMethod *W = weaveOnce(*Mod, Module, Row, &Fresh);
  if (!W || !Fresh)
    return false; // the IL is per method definition: set once, for every instantiation
  mdToken Token = metadata::makeToken(metadata::TableId::MethodDef, Row);
  if (std::optional<std::string> Failed = setBody(Module, Token, W->Bytes)) {
    leftAlone(*Mod, Row, *Failed);
    return false;
  }
  ++Count.Rewritten;
  giveMap(*Mod, Row, *W, [&](ULONG N, COR_IL_MAP *Map) {
    return Info->SetILInstrumentedCodeMap(Function, 1, N, Map);
  });
  return true;
}

void Profiler::leftAlone(LoadedModule &Mod, uint32_t Row, const Twine &Why) {
  ++Count.LeftAlone;
  L->line(sys::path::filename(Mod.Name) + ": " + Mod.methodName(Row) + " left as it is: " + Why);
}

template <typename Fn>
void Profiler::giveMap(LoadedModule &Mod, uint32_t Row, const WovenMethod &W, Fn &&Set) {
  // Where each original instruction went, for debuggers and stack traces.
  std::vector<COR_IL_MAP> Map = W.Map; // the runtime's parameter is not const
  if (Map.empty())
    return;
  if (HRESULT Hr = Set(ULONG(Map.size()), Map.data()); failed(Hr))
    L->line(sys::path::filename(Mod.Name) + ": " + Mod.methodName(Row) +
            ": the runtime refused its IL offset map (" + hresultText(Hr) +
            "); stack traces may show other lines");
}

void Profiler::notifyCompiling(bool ReJit, FunctionID Function, bool Woven) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0, Type = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return;
  ModuleID ClassModule = 0;
  if (Class && failed(Info->GetClassIDInfo(Class, &ClassModule, &Type)))
    Type = 0;
  Plugins->methodCompiling(ReJit, Module, Function, Token, Type, Woven);
}

HRESULT Profiler::ReJITCompilationStarted(FunctionID FunctionId, ReJITID, BOOL) {
  return guarded("ReJITCompilationStarted", [&] {
    if (Plugins && Plugins->wants(WEFT_ON_REJIT)) {
      auto [Mod, Row] = matched(FunctionId);
      bool Woven = false;
      if (Mod) {
        std::lock_guard<std::mutex> G(Mod->Lock);
        Woven = Mod->Woven.count(Row);
      }
      notifyCompiling(true, FunctionId, Woven);
    }
    return S_OK;
  });
}

HRESULT Profiler::GarbageCollectionStarted(int Count, BOOL *Collected, COR_PRF_GC_REASON Reason) {
  return guarded("GarbageCollectionStarted", [&] {
    if (Gc && Collected && Count >= 0)
      Gc->started(Count, Collected, Reason);
    if (Plugins && Collected && Count >= 0) {
      std::vector<int> Gens(Collected, Collected + Count);
      Plugins->garbageCollectionStarted(uint32_t(Reason), Gens);
    }
    return S_OK;
  });
}

HRESULT Profiler::GarbageCollectionFinished() {
  return guarded("GarbageCollectionFinished", [&] {
    if (Gc)
      Gc->finished();
    if (Plugins)
      Plugins->garbageCollectionFinished();
    return S_OK;
  });
}

HRESULT Profiler::EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD EventId, DWORD Version,
                                          ULONG, LPCBYTE, ULONG Size, LPCBYTE Data, LPCGUID,
                                          LPCGUID, ThreadID, ULONG, UINT_PTR *) {
  return guarded("EventPipeEventDelivered", [&] {
    if (Gc && Data)
      Gc->delivered(EventId, Version, Data, Size);
    return S_OK;
  });
}

HRESULT Profiler::GetReJITParameters(ModuleID ModuleId, mdMethodDef Method,
                                     ICorProfilerFunctionControl *Control) {
  return guarded("GetReJITParameters", [&] {
    if (Detaching)
      return S_OK;
    if (std::shared_ptr<LoadedModule> T = moduleOf(ModuleId)) {
      std::lock_guard<std::mutex> G(T->Lock);
      uint32_t TRow = metadata::tokenRow(Method);
      auto It = T->Traced.find(TRow);
      if (It != T->Traced.end() && It->second.Active && It->second.Body && Control) {
        const WovenMethod &W = *It->second.Body;
        if (HRESULT Hr = Control->SetILFunctionBody(ULONG(W.Bytes.size()), W.Bytes.data());
            failed(Hr)) {
          leftAlone(*T, TRow, "the runtime refused its tracepoint body (" + hresultText(Hr) + ")");
          return S_OK;
        }
        ++Count.ReJitted;
        giveMap(*T, TRow, W, [&](ULONG N, COR_IL_MAP *Map) {
          return Control->SetILInstrumentedCodeMap(N, Map);
        });
        return S_OK;
      }
    }
    auto [Mod, Row] = matched(ModuleId, Method);
    if (!Mod) {
      ++Count.ReJitOthers; // a method that had inlined a matching one: compiled again as it was
      return S_OK;
    }
    std::lock_guard<std::mutex> G(Mod->Lock);
    bool Fresh = false;
    const WovenMethod *W = weaveOnce(*Mod, ModuleId, Row, &Fresh);
    if (!W || !Control)
      return S_OK;
    if (HRESULT Hr = Control->SetILFunctionBody(ULONG(W->Bytes.size()), W->Bytes.data());
        failed(Hr)) {
      leftAlone(*Mod, Row, "the runtime refused the body for its ReJIT (" + hresultText(Hr) + ")");
      return S_OK;
    }
    Count.Rewritten += Fresh;
    ++Count.ReJitted;
    giveMap(*Mod, Row, *W, [&](ULONG N, COR_IL_MAP *Map) {
      return Control->SetILInstrumentedCodeMap(N, Map);
    });
    return S_OK;
  });
}

HRESULT Profiler::ReJITError(ModuleID ModuleId, mdMethodDef Method, FunctionID, HRESULT Status) {
  return guarded("ReJITError", [&] {
    ++Count.ReJitFailed;
    std::shared_ptr<LoadedModule> Mod = moduleOf(ModuleId);
    L->line((Mod ? sys::path::filename(Mod->Name).str() : std::string("a module")) + ": " +
            (Mod ? Mod->methodName(metadata::tokenRow(Method)) : "method 0x" + hexstr(Method, false, 8)) +
            ": the runtime could not compile it again (" + hresultText(Status) +
            "); it keeps the code it had");
    return S_OK;
  });
}

void Profiler::reJitThread() {
  std::unique_lock<std::mutex> G(ReJits.Lock);
  std::string DetachRequest = detachRequestPath(long(getpid()));
  // Attached, the thread also looks for `weft detach`'s request, and with a spec file for its
  // edits, five times a second.
  bool Polls = Attached || !SpecPath.empty();
  while (true) {
    auto Ready = [&] {
      return ReJits.Stop || !ReJits.Pending.empty() || ReJits.SessionChanged ||
             (!NewModules.empty() && Traced && !Traced->tracepoints().empty());
    };
    if (Polls)
      ReJits.Wake.wait_for(G, std::chrono::milliseconds(200), Ready);
    else
      ReJits.Wake.wait(G, Ready);
    if (ReJits.Stop)
      return;
    if (Attached && ReJits.Pending.empty() && sys::fs::exists(DetachRequest)) {
      G.unlock();
      sys::fs::remove(DetachRequest);
      detach();
      return; // the runtime unloads the library once the profiler is detached
    }
    if (!ReJits.Pending.empty()) {
      auto [Id, Methods] = std::move(ReJits.Pending.front());
      ReJits.Pending.pop_front();
      G.unlock();
      try {
        if (moduleOf(Id))
          requestReJit(Id, Methods);
      } catch (...) {
        L->line("the ReJIT thread: an unexpected error; the methods it was asking for keep "
                "their code");
      }
      G.lock();
      continue;
    }
    G.unlock();
    try {
      bool Edited = !SpecPath.empty() && specEdited(), Session = false;
      std::vector<ModuleID> Ids, Kept;
      {
        std::lock_guard<std::mutex> Q(ReJits.Lock);
        std::swap(Session, ReJits.SessionChanged);
        Ids = Edited ? AllModules : NewModules;
        if (Session && !Edited)
          Kept = AllModules;
        NewModules.clear();
      }
      if (Session) {
        L->line(Twine("eventpipe: ") +
                (Provider->wantsTracepoints() ? "a session asks" : "no session asks") +
                " for the tracepoint keyword now");
        // The tracepoints that follow the sessions record or not from now on.
        if (Traced && !Kept.empty())
          applyTracepoints(Kept, /*FlagsOnly=*/true);
      }
      if (Traced && (Edited || !Traced->tracepoints().empty()) && !Ids.empty())
        applyTracepoints(Ids);
    } catch (...) {
      L->line("tracepoints: an unexpected error; the methods keep the code they had");
    }
    G.lock();
  }
}

bool Profiler::specEdited() {
  auto Text = MemoryBuffer::getFile(SpecPath, /*IsText=*/true);
  if (!Text || (*Text)->getBuffer() == SpecText)
    return false; // gone for a moment (an editor replacing it) or unchanged
  SpecText = (*Text)->getBuffer().str();
  Expected<spec::Spec> S = spec::Spec::parse(SpecText, SpecPath);
  if (!S) {
    L->line("spec edited: " + toString(S.takeError()) + "; the tracepoints in force stay");
    return false;
  }
  Traced = std::make_shared<const spec::Spec>(std::move(*S));
  HasTracepoints = !Traced->tracepoints().empty();
  std::vector<std::string> Names;
  for (const spec::Tracepoint &T : Traced->tracepoints())
    Names.push_back(T.Name + (T.FollowsSession ? " (while a session asks)"
                              : T.Enabled        ? ""
                                                 : " (disabled)"));
  L->line("spec edited: tracepoints now " + (Names.empty() ? std::string("none") : join(Names, ", ")) +
          " (rules and passes stay as they were at the start)");
  return true;
}

bool Profiler::recordsNow(const spec::Tracepoint &T) const {
  return T.FollowsSession ? Provider && Provider->wantsTracepoints() : T.Enabled;
}

void Profiler::applyTracepoints(const std::vector<ModuleID> &Ids, bool FlagsOnly) {
  const spec::Spec &S = *Traced;
  bool NamesAssemblies = false;
  for (const spec::Tracepoint &T : S.tracepoints())
    NamesAssemblies |= bool(T.Match.Assembly);
  if (!S.tracepoints().empty())
    recorder();
  if (!Rec)
    return;
  std::map<ModuleID, std::vector<mdMethodDef>> ReJit;
  std::vector<ModuleID> RevertModules;
  std::vector<mdMethodDef> RevertMethods;
  uint64_t Updated = 0;
  for (ModuleID Id : Ids) {
    std::shared_ptr<LoadedModule> Mod = moduleOf(Id);
    bool Kept = bool(Mod);
    if (!Mod && FlagsOnly)
      continue; // no tracepoint's code in it
    if (!Mod && !S.tracepoints().empty())
      Mod = readModule(Id, /*SkipFramework=*/!NamesAssemblies, /*Notify=*/false);
    if (!Mod)
      continue;
    Expected<spec::Selection> Sel = spec::selectTracepoints(S, *Mod->M, Mod->Framework);
    if (!Sel) {
      L->line(sys::path::filename(Mod->Name) + ": tracepoints: " + toString(Sel.takeError()));
      continue;
    }
    bool Any = false;
    std::lock_guard<std::mutex> G(Mod->Lock);
    for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row) {
      auto It = Mod->Traced.find(Row);
      ArrayRef<uint16_t> Uses = Sel->passesOf(Row);
      if (Uses.empty()) {
        if (It != Mod->Traced.end() && It->second.Active) {
          It->second.Active = false;
          Rec->setTracepoints(It->second.Slot, {}, 0);
          RevertModules.push_back(Id);
          RevertMethods.push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
        }
        continue;
      }
      Any = true;
      if (It == Mod->Traced.end() || !It->second.Body) {
        if (std::optional<std::string> Why = weaveTraced(*Mod, Id, Row)) {
          leftAlone(*Mod, Row, "tracepoint: " + *Why);
          Mod->Traced.erase(Row);
          continue;
        }
        It = Mod->Traced.find(Row);
      }
      std::vector<std::string> Enabled;
      unsigned Depth = 0;
      for (uint16_t U : Uses)
        for (const spec::Tracepoint &T : S.tracepoints())
          if (T.Name == Sel->Uses[U].Options[0].second && recordsNow(T)) {
            Enabled.push_back(T.Name);
            Depth = std::max(Depth, T.Depth);
          }
      Rec->setTracepoints(It->second.Slot, Enabled, Depth);
      if (!It->second.Active) {
        It->second.Active = true;
        ReJit[Id].push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
      } else {
        ++Updated;
      }
    }
    if (Any && !Kept) {
      std::lock_guard<std::mutex> M(ModulesLock);
      Modules.emplace(Id, Mod);
    }
  }
  uint64_t Added = 0;
  for (auto &[Id, Methods] : ReJit) {
    Added += Methods.size();
    requestReJit(Id, Methods);
  }
  if (!RevertMethods.empty()) {
    std::vector<HRESULT> Status(RevertMethods.size(), S_OK);
    HRESULT Hr = Info->RequestRevert(ULONG(RevertMethods.size()), RevertModules.data(),
                                     RevertMethods.data(), Status.data());
    uint64_t Failed = 0;
    for (HRESULT H : Status)
      Failed += failed(H);
    if (failed(Hr) || Failed)
      L->line("tracepoints: the runtime refused to revert " +
              Twine(failed(Hr) ? RevertMethods.size() : Failed) + " methods (" +
              hresultText(failed(Hr) ? Hr : S_OK) + "); they keep recording nothing");
    Count.Reverted += RevertMethods.size() - (failed(Hr) ? RevertMethods.size() : Failed);
  }
  Count.Traced += Added;
  if (Added || !RevertMethods.empty() || Updated)
    L->line("tracepoints: " + Twine(Added) + " methods compiled again with tracepoint code, " +
            Twine(RevertMethods.size()) + " reverted to their own IL, " + Twine(Updated) +
            " updated in place");
}

Recorder &Profiler::recorder() {
  std::lock_guard<std::mutex> G(ModulesLock);
  if (!Rec) {
    SmallString<256> Path(OutputDir);
    if (Path.empty())
      sys::fs::current_path(Path);
    sys::path::append(Path, "weft-timeline-" + Twine(getpid()) + ".json");
    Rec = new Recorder(Info, std::string(Path), *L);
    Provider = new EventPipeSink(Info, InfoVersion, *L);
    Provider->onKeywords([this] {
      std::lock_guard<std::mutex> Q(ReJits.Lock);
      ReJits.SessionChanged = true;
      ReJits.Wake.notify_all();
    });
    Sinks.push_back(Provider);
    if (WantsLttng)
      if (std::unique_ptr<EventSink> Lttng = openLttngSink(*L))
        Sinks.push_back(Lttng.release());
    for (EventSink *S : Sinks)
      Rec->addSink(S);
    L->line("timeline: records go to " + Path + " and to the Weft EventPipe provider");
  }
  return *Rec;
}

std::optional<std::string> Profiler::weaveTraced(LoadedModule &Mod, ModuleID Id, uint32_t Row) {
  if (Mod.Weaving == LoadedModule::State::NotStarted)
    Mod.Weaving = startWeave(Mod, Id) ? LoadedModule::State::Weaving
                                      : LoadedModule::State::Refused;
  if (Mod.Weaving != LoadedModule::State::Weaving)
    return std::string("the module cannot be woven (the log says why)");
  if (Mod.Whole && !Mod.Sel.passesOf(Row).empty())
    return std::string("its rules' passes finished the module at its end (coverage, trace): "
                       "they cannot weave it again");
  if (!Mod.TracepointPass) {
    auto Slots = [this, &Mod](passes::MethodContext &C) -> std::optional<uint32_t> {
      const metadata::Module &M = C.module();
      metadata::NamePrinter Names(M);
      metadata::GenericContext Ctx{C.declaringType(), C.row()};
      SlotInfo Info;
      Info.Method = C.displayName();
      const metadata::MethodSig &Sig = C.signature();
      Info.ParamNames.resize(Sig.Params.size());
      for (uint32_t L : M.methodParams(C.row())) {
        uint32_t P = M.param(L);
        uint32_t Seq = M.get(metadata::TableId::Param, P, metadata::ParamCol::Sequence);
        if (Seq >= 1 && Seq <= Info.ParamNames.size())
          Info.ParamNames[Seq - 1] =
              M.getString(M.get(metadata::TableId::Param, P, metadata::ParamCol::Name)).str();
      }
      for (size_t I = 0; I < Sig.Params.size(); ++I) {
        if (Info.ParamNames[I].empty())
          Info.ParamNames[I] = "A_" + std::to_string(I + 1);
        std::string T;
        raw_string_ostream OS(T);
        Names.type(OS, Sig.Params[I], Ctx);
        Info.ParamTypes.push_back(OS.str());
      }
      raw_string_ostream OS(Info.ReturnType);
      Names.type(OS, Sig.Return, Ctx);
      OS.flush();
      uint32_t Slot = Rec->addSlot(std::move(Info));
      if (Slot >= Recorder::MaxSlots)
        return std::nullopt;
      Mod.Traced[C.row()].Slot = Slot;
      return Slot;
    };
    Expected<size_t> N = Mod.Weave->addPass(makeTracepointPass(*Rec, Slots), "tracepoint");
    if (!N)
      return toString(N.takeError());
    if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
      Mod.Weaving = LoadedModule::State::Refused;
      return *Problem;
    }
    Mod.TracepointPass = *N;
  }
  // The method's own IL, from the image (not what a pass gave it at its first compilation).
  uint32_t RVA = Mod.M->get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::RVA);
  uint64_t Offset = 0;
  ArrayRef<uint8_t> Bytes = Mod.Img->rvaTail(RVA, &Offset);
  if (!RVA || Bytes.empty())
    return std::string("it has no IL body in the image");
  Expected<il::RawMethodBody> Raw = il::readMethodBody(Bytes, Offset);
  if (!Raw)
    return toString(Raw.takeError());
  Expected<std::optional<il::EncodedBody>> Woven =
      Mod.Weave->weaveMethod(Row, *Raw, {*Mod.TracepointPass});
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  std::string Skipped = join(Out.Skipped, "; ");
  Out.Skipped.clear();
  Out.Notes.clear();
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
    Mod.Weaving = LoadedModule::State::Refused;
    consumeError(Woven.takeError());
    return *Problem;
  }
  if (!Woven)
    return toString(Woven.takeError());
  if (!*Woven || !Skipped.empty())
    return Skipped.empty() ? std::string("no pass changed it") : "skipped by " + Skipped;
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id))
    return *Failed;
  il::EncodedBody &B = **Woven;
  if (!Mod.Mirror->remapUserStrings(B.Bytes))
    return std::string("the woven body does not decode again (a bug in weft)");
  Mod.Traced[Row].Body = std::make_unique<WovenMethod>(std::move(B.Bytes), B.OffsetMap);
  return std::nullopt;
}

void Profiler::requestReJit(ModuleID Id, const std::vector<mdMethodDef> &Methods) {
  std::vector<ModuleID> Modules(Methods.size(), Id);
  std::vector<mdMethodDef> Tokens = Methods;
  HRESULT Hr =
      InfoVersion >= 10
          ? static_cast<ICorProfilerInfo10 *>(Info)->RequestReJITWithInliners(
                COR_PRF_REJIT_BLOCK_INLINING, ULONG(Tokens.size()), Modules.data(), Tokens.data())
          : Info->RequestReJIT(ULONG(Tokens.size()), Modules.data(), Tokens.data());
  if (failed(Hr)) {
    std::shared_ptr<LoadedModule> Mod = moduleOf(Id);
    L->line((Mod ? sys::path::filename(Mod->Name).str() : std::string("a module")) +
            ": the runtime refused the ReJIT of its matching methods (" + hresultText(Hr) +
            "); those already compiled, and the methods that inlined them, keep their code");
    return;
  }
  Count.ReJitRequested += Tokens.size();
  std::lock_guard<std::mutex> G(ReJits.Lock);
  for (mdMethodDef T : Tokens)
    ReJits.Requested.emplace_back(Id, T);
}

void Profiler::detach() {
  // Every method compiled again with a woven body goes back to its own IL; then the runtime is
  // asked to unload the profiler once no callback runs in it.
  Detaching = true;
  std::vector<ModuleID> Modules;
  std::vector<mdMethodDef> Methods;
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

void Profiler::stopReJitThread() {
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    ReJits.Stop = true;
  }
  ReJits.Wake.notify_all();
  if (ReJits.Thread.joinable())
    ReJits.Thread.join();
}

} // namespace weft::prof
