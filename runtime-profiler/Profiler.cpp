//===- runtime-profiler/Profiler.cpp --------------------------------------===//
#include "runtime-profiler/Profiler.h"

#include "il/BodyReader.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "runtime-profiler/EmitMirror.h"
#include "runtime-profiler/EventPipeSink.h"
#include "runtime-profiler/GcEvents.h"
#include "runtime-profiler/Identity.h"
#include "runtime-profiler/LttngSink.h"
#include "runtime-profiler/ProcessFilter.h"
#include "runtime-profiler/ProfilerInternals.h"
#include "runtime-profiler/Recorder.h"
#include "runtime-profiler/TracepointPass.h"
#include "support/Format.h"
#include "support/Port.h"
#include "support/PrivateFiles.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
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
  const std::pair<uint32_t, const char *> All[] = {{WEFT_ON_MODULE_LOAD, "module load"},
                                                   {WEFT_ON_MODULE_UNLOAD, "module unload"},
                                                   {WEFT_ON_JIT, "JIT"},
                                                   {WEFT_ON_REJIT, "ReJIT"},
                                                   {WEFT_ON_GC, "GC"}};
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
  std::string Text = Type == COR_PRF_CORE_CLR
                         ? "CoreCLR "
                         : "a runtime of type " + std::to_string(uint32_t(Type)) + " ";
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
  return guarded(
      "Initialize", [&] { return initialize(ProfilerInfoUnk, {}, false); },
      CORPROF_E_PROFILER_CANCEL_ACTIVATION);
}

HRESULT Profiler::InitializeForAttach(IUnknown *ProfilerInfoUnk, void *ClientData, UINT Size) {
  std::string Data(static_cast<const char *>(ClientData), ClientData ? Size : 0);
  return guarded(
      "InitializeForAttach", [&] { return initialize(ProfilerInfoUnk, Data, true); },
      CORPROF_E_PROFILER_CANCEL_ACTIVATION);
}

std::string Profiler::logPath(const std::string &Named) const {
  if (!Named.empty() || !Attached)
    return Named;
  // Attached, the program's stderr is not weft's: the log goes to the output folder.
  SmallString<256> Path(OutputDir);
  if (Path.empty())
    sys::fs::current_path(Path);
  sys::path::append(Path, "weft-profiler-" + Twine(::getpid()) + ".log");
  return std::string(Path);
}

HRESULT Profiler::initialize(IUnknown *Unk, StringRef AttachData, bool Attaching) {
  Attached = Attaching;
  OutputDir = setting(OutputDirVariable, AttachData, Attaching);
  L = std::make_unique<Log>(logPath(setting(LogVariable, AttachData, Attaching)),
                            /*MayUseStderr=*/!Attaching);
  Verbose = setting(VerboseVariable, AttachData, Attaching) == "1";
  WantsLttng = setting(LttngVariable, AttachData, Attaching) == "1";
  // A process of the tree `weft run` started that is not one to instrument (the SDK's build
  // processes, by default) declines at once: nothing of weft stays in it.
  if (!Attaching) {
    Expected<ProcessFilter> Filter = ProcessFilter::parse(setting(ProcessesVariable, {}, false));
    std::string Why;
    ProcessIdentity Me = ProcessIdentity::current();
    if (!Filter)
      Why = toString(Filter.takeError());
    if (!Why.empty() || !Filter->chooses(Me, Why)) {
      L->line("declined: this process (" + Me.commandLine() + ") is not instrumented: " + Why);
      return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
  }
  InfoVersion = Unk ? newestInfo(Unk, &Info) : 0;
  if (!InfoVersion) {
    L->line("declined: the runtime offers no ICorProfilerInfo7 or later (weft needs .NET Core 3.0 "
            "or later); nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  std::string Runtime = runtimeDescription(Info);
  SpecPath = setting(SpecVariable, AttachData, Attaching);
  // The spec steers what runs in this process: only its user's own file, read whole.
  Expected<std::string> Text =
      SpecPath.empty() ? std::string() : readOwnedFile(SpecPath, port::currentUser(), MaxSpecBytes);
  Expected<Config> C =
      Text ? Config::from(SpecPath, *Text, setting(PassesVariable, AttachData, Attaching))
           : Text.takeError();
  if (!C) {
    L->line("declined on " + Runtime + ": " + toString(C.takeError()) +
            "; nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  Conf = std::move(*C);
  if (!SpecPath.empty()) {
    SpecText = std::move(*Text);
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
  // Suspensions: a tracepoint call stops waiting for a class's description when the runtime
  // begins to suspend threads (the collection would wait for it).
  if (Conf.Spec)
    Events = COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_REJIT |
             COR_PRF_MONITOR_SUSPENDS;
  // A profiler that attaches may not watch cache searches: code compiled ahead of time is then
  // replaced through ReJIT only.
  if (Conf.Spec && !Attaching)
    Events |= COR_PRF_MONITOR_CACHE_SEARCHES;
  for (const plugin::LoadedPlugin &P : Conf.Plugins) {
    uint32_t Wanted = P.C && P.C->HasHooks ? P.C->Hooks.Events : P.Runtime ? P.Runtime->Events : 0;
    L->line("plugin " + P.Name + (P.Version.empty() ? "" : " " + P.Version) + " (" + P.Path +
            "): passes " + join(P.Passes, ", ") +
            (Wanted ? "; runtime events " + eventNames(Wanted) : ""));
    if (!P.Warning.empty())
      L->line("warning: " + P.Warning);
  }
  Plugins = std::make_unique<PluginHost>(Conf.Plugins, *L);
  if (Plugins->wants(WEFT_ON_GC))
    High |= COR_PRF_HIGH_BASIC_GC; // the collections' start and end, concurrent GC left on
  if (!Plugins->events())
    Plugins.reset();
  MaskLow = Events;
  MaskHigh = High;
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
          " through ICorProfilerInfo" + Twine(InfoVersion) + "; " + Conf.Source +
          "; process: " + ProcessIdentity::current().commandLine());
  if (Attaching)
    openControlFolder(setting(ControlDirVariable, AttachData, Attaching), AttachData);
  {
    std::lock_guard<std::mutex> G(TraceGate);
    TheProfiler = this;
  }
  return S_OK;
}

void Profiler::traceName(int32_t Id, const char16_t *Name, int32_t Length) noexcept {
  try {
    std::lock_guard<std::mutex> G(TraceGate);
    Profiler *P = TheProfiler;
    if (!P || Id < 0 || !Name || Length < 0)
      return;
    Recorder &R = P->recorder();
    if (Id == 0)
      P->L->line("trace: the trace pass's calls go on the timeline too, " + R.path());
    R.traceName(uint32_t(Id), utf8(ArrayRef<WCHAR>(Name, size_t(Length))));
  } catch (...) {
    // Memory for the name: the method's calls go unnamed, so off the timeline.
  }
}

void Profiler::traceCalls(uint32_t Tid, const int64_t *Calls, int32_t Count) noexcept {
  try {
    std::lock_guard<std::mutex> G(TraceGate);
    if (Profiler *P = TheProfiler)
      P->recorder().traceCalls(Tid, Calls, Count);
  } catch (...) {
    // Memory for the events' text: these calls are not on the timeline.
  }
}

HRESULT Profiler::RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) {
  Recorder::runtimeSuspending(true);
  return S_OK;
}

HRESULT Profiler::RuntimeSuspendAborted() {
  Recorder::runtimeSuspending(false);
  return S_OK;
}

HRESULT Profiler::RuntimeResumeStarted() {
  Recorder::runtimeSuspending(false);
  return S_OK;
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

HRESULT Profiler::EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD EventId, DWORD Version, ULONG,
                                          LPCBYTE, ULONG Size, LPCBYTE Data, LPCGUID, LPCGUID,
                                          ThreadID, ULONG, UINT_PTR *) {
  return guarded("EventPipeEventDelivered", [&] {
    if (Gc && Data)
      Gc->delivered(EventId, Version, Data, Size);
    return S_OK;
  });
}

} // namespace weft::prof
