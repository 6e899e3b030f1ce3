//===- runtime-profiler/Profiler.h - weft's CoreCLR profiler --*- C++ -*-===//
//
// The profiler object CoreCLR creates: it reads the configuration (runtime-profiler/Config.h) at
// start, matches each loaded module's methods against the spec with weft's own metadata reader
// (reading the image where the runtime placed it), and instruments the matching methods when they
// are first compiled. Every callback catches everything: a failure leaves the method as it was
// and the log says why.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_PROFILER_H
#define WEFT_RUNTIME_PROFILER_PROFILER_H

#include "runtime-profiler/CallbackDefaults.h"
#include "runtime-profiler/Config.h"
#include "runtime-profiler/Log.h"
#include "runtime-profiler/PluginHost.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace weft::metadata {
class AssemblyResolver;
}

namespace weft::prof {

/// weft's class id (Identity.h has it as text).
inline constexpr GUID CLSID_WeftProfiler = guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6");

struct LoadedModule;
struct WovenMethod;
class Recorder;
class GcEvents;
class EventSink;
class EventPipeSink;

class Profiler final : public CallbackDefaults {
public:
  Profiler();
  ~Profiler() override;

  HRESULT Initialize(IUnknown *ProfilerInfoUnk) override;
  /// Loaded into a running process (`weft attach`): the settings come in the request's data.
  HRESULT InitializeForAttach(IUnknown *ProfilerInfoUnk, void *ClientData, UINT Size) override;
  HRESULT ProfilerAttachComplete() override;
  HRESULT ProfilerDetachSucceeded() override;
  HRESULT Shutdown() override;

  /// The trace pass's runtime in this process hands the profiler the names of its methods and
  /// the calls it recorded (libweft_profiler.so's weft_trace_name and weft_trace_calls): they go
  /// on the timeline and to the Weft provider. Nothing happens before the profiler has attached.
  static void traceName(int32_t Id, const char16_t *Name, int32_t Length) noexcept;
  static void traceCalls(uint32_t Tid, const int64_t *Calls, int32_t Count) noexcept;
  HRESULT ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) override;
  /// The module's ID is not valid once this returns (and may be given to another module): the
  /// profiler forgets it everywhere, waiting for its own thread to be done with it.
  HRESULT ModuleUnloadStarted(ModuleID ModuleId) override;
  /// While the runtime suspends threads (a collection), tracepoint calls wait for nothing.
  HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON Reason) override;
  HRESULT RuntimeSuspendAborted() override;
  HRESULT RuntimeResumeStarted() override;
  HRESULT JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) override;
  /// A method the spec matches is never inlined: its caller would get its original IL.
  HRESULT JITInlining(FunctionID CallerId, FunctionID CalleeId, BOOL *ShouldInline) override;
  /// A method the spec matches does not run its ReadyToRun code: it is compiled, and woven then.
  HRESULT JITCachedFunctionSearchStarted(FunctionID FunctionId, BOOL *UseCachedFunction) override;
  /// A ReJIT of a matching method gets the body its first compilation got (woven now if it had
  /// none); the methods that had inlined one keep their IL.
  HRESULT GetReJITParameters(ModuleID ModuleId, mdMethodDef MethodId,
                             ICorProfilerFunctionControl *Control) override;
  HRESULT ReJITError(ModuleID ModuleId, mdMethodDef MethodId, FunctionID FunctionId,
                     HRESULT HrStatus) override;
  /// Counts (and with WEFT_VERBOSE logs) each compilation of a ReJIT, with what it was given,
  /// and tells the plugins that ask.
  HRESULT ReJITCompilationStarted(FunctionID FunctionId, ReJITID RejitId,
                                  BOOL IsSafeToBlock) override;
  HRESULT GarbageCollectionStarted(int GenerationCount, BOOL *GenerationCollected,
                                   COR_PRF_GC_REASON Reason) override;
  HRESULT GarbageCollectionFinished() override;
  HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER Provider, DWORD EventId, DWORD EventVersion,
                                  ULONG MetadataBlobSize, LPCBYTE MetadataBlob,
                                  ULONG EventDataSize, LPCBYTE EventData, LPCGUID ActivityId,
                                  LPCGUID RelatedActivityId, ThreadID EventThread,
                                  ULONG StackFrameCount, UINT_PTR *StackFrames) override;

private:
  HRESULT initialize(IUnknown *ProfilerInfoUnk, llvm::StringRef AttachData, bool Attaching);
  /// The log: \p Named, or attached, weft-profiler-PID.log in the output folder.
  std::string logPath(const std::string &Named) const;
  void moduleLoaded(ModuleID ModuleId);
  /// Weaves the method if the spec matches it; whether it got a new body.
  bool compilationStarted(FunctionID FunctionId);
  /// Logs \p Function if its precompiled code inlined a matching method (it is compiled instead).
  void logPrecompiledInliner(FunctionID Function);
  /// "File.dll: method 0x06000001 (Name)", for the log.
  std::string methodText(ModuleID Module, mdToken Method);
  /// Tells the plugins that ask about a (re)compilation of \p Function.
  void notifyCompiling(bool ReJit, FunctionID Function, bool Woven);
  /// Makes the module's weave (its editor mirrored into the runtime, the passes begun); false,
  /// logged, if it cannot.
  bool startWeave(LoadedModule &Mod, ModuleID ModuleId);
  /// The woven body of method \p Row of \p Mod, woven at the first call (null if the passes
  /// leave it as it is or it cannot be woven; the log says why). Called with the module locked.
  /// \p Fresh says whether it was woven now.
  const WovenMethod *weaveOnce(LoadedModule &Mod, ModuleID ModuleId, uint32_t Row, bool *Fresh);
  /// Weaves method \p Row of \p Mod: null if the passes leave it as it is or a problem does.
  std::unique_ptr<WovenMethod> weave(LoadedModule &Mod, ModuleID ModuleId, uint32_t Row);
  /// Counts and logs method \p Row of \p Mod left as it was, and why.
  void leftAlone(LoadedModule &Mod, uint32_t Row, const llvm::Twine &Why);
  /// Hands \p W's IL offset map over with \p Set (the JIT's or a ReJIT's); logs a refusal.
  template <typename Fn>
  void giveMap(LoadedModule &Mod, uint32_t Row, const WovenMethod &W, Fn &&Set);
  /// Asks the runtime, from the ReJIT thread, to compile again the methods of ReadyToRun
  /// module \p Mod that the spec matches and every method that inlined one (nothing if the
  /// module is unloading).
  void requestReJit(ModuleID ModuleId, const std::vector<mdMethodDef> &Methods);
  /// The same with ModuleGate held and the module known to be loaded.
  void askReJit(ModuleID ModuleId, const std::vector<mdMethodDef> &Methods);
  /// Forgets unloading module \p Id: its ID in every list, its tracepoint slots, the class
  /// descriptions that depend on it.
  void forgetModule(ModuleID Id);
  /// Logs what the recorder and the module lists hold, at shutdown.
  void logHeld();
  /// The modules loaded now (a copy).
  std::unordered_set<ModuleID> liveModules();
  void reJitThread();
  /// Whether \p Function's ReadyToRun code must not run: the spec matches it, or its code inlined
  /// a method the spec matches.
  bool precompiledCodeMustNotRun(FunctionID Function);
  /// Marks the methods of ReadyToRun module \p Mod whose code inlined one of \p Matching.
  void findPrecompiledInliners(LoadedModule &Mod, ModuleID ModuleId,
                               const std::vector<mdMethodDef> &Matching);
  void stopReJitThread();
  // Attach and detach (AttachDetach.cpp). An attached profiler takes control requests from a
  // folder only its user may enter: `weft detach` reverts what it did; `weft attach` to a process
  // whose profiler detached starts it again, with the settings of its first attach.
  /// Makes sure the folder of control requests (\p Named, else the user's own) is private; logs
  /// why not, and then takes no request.
  void openControlFolder(const std::string &Named, llvm::StringRef Settings);
  /// Takes the pending control request, if any (on the profiler's thread).
  void takeControlRequest();
  /// Answers the request at \p Request for its client (`REQUEST.reply`).
  void reply(const std::string &Request, llvm::StringRef Answer);
  /// Reverts every method compiled again with a woven body and stops instrumenting.
  void detach();
  /// Instruments again after a detach, as the first attach did; the reason if it cannot.
  std::optional<std::string> reattach(llvm::StringRef Settings);
  /// The modules the runtime has loaded.
  std::vector<ModuleID> loadedModules();
  /// Hands the runtime what the passes defined since the last call: the metadata applied, the
  /// bodies of the methods they added. A description of what failed, if anything did.
  std::optional<std::string> publishAdditions(LoadedModule &Mod, ModuleID ModuleId);
  /// Weaves every method of \p Mod and finishes the module, keeping the bodies; writes what the
  /// passes write beside the module. A description of what failed, if anything did.
  std::optional<std::string> weaveWholeModule(LoadedModule &Mod);
  /// Gives method \p Method of the module the body \p Bytes (header, code, sections).
  std::optional<std::string> setBody(ModuleID ModuleId, mdToken Method,
                                     llvm::ArrayRef<uint8_t> Bytes);
  std::shared_ptr<LoadedModule> moduleOf(ModuleID ModuleId);
  /// The module's image and metadata as the runtime loaded them; null (logged if it is a
  /// problem) when it has none to read, or is the shared framework's and \p SkipFramework says
  /// so. \p Notify: tell the plugins it loaded.
  std::shared_ptr<LoadedModule> readModule(ModuleID Id, bool SkipFramework, bool Notify);

  // Tracepoints: the spec's "tracepoints", applied through ReJIT and reverted with
  // RequestRevert while the program runs; the spec file is watched for edits.
  /// Re-reads the spec file if it changed: true when another spec is now in force (a spec that
  /// does not parse is logged and the one in force stays).
  bool specEdited();
  /// Brings the methods of \p Ids to what the tracepoints in force say: new matches woven and
  /// compiled again, methods no longer matched reverted, the others' tracepoints updated.
  void applyTracepoints(const std::vector<ModuleID> &Ids, bool FlagsOnly = false);
  /// Whether \p T records now: as the spec says, or while a session asks for the Weft
  /// provider's tracepoint keyword.
  bool recordsNow(const spec::Tracepoint &T) const;
  /// Weaves method \p Row of \p Mod with its tracepoint code (and its rules' passes); the
  /// reason if it cannot. Called with the module locked.
  std::optional<std::string> weaveTraced(LoadedModule &Mod, ModuleID Id, uint32_t Row);
  /// The module and MethodDef row of \p Function if the spec matches it.
  std::pair<std::shared_ptr<LoadedModule>, uint32_t> matched(FunctionID Function,
                                                             ModuleID *ModuleOut = nullptr);
  /// The module of \p ModuleId and the row of \p Method if the spec matches it.
  std::pair<std::shared_ptr<LoadedModule>, uint32_t> matched(ModuleID ModuleId, mdToken Method);
  /// Runs \p Work, turning any exception into a log line and \p OnError: nothing may cross
  /// into the runtime.
  template <typename Fn> HRESULT guarded(const char *Callback, Fn &&Work, HRESULT OnError = S_OK);

  std::unique_ptr<Log> L;
  bool Verbose = false; // WEFT_VERBOSE: log what each pass left alone, and why
  bool Attached = false; // loaded into a running process
  std::atomic<bool> Detaching{false};
  std::string ControlDir;     // where control requests come from (attached), or none
  std::string AttachSettings; // the first attach's settings, which a re-attach must repeat
  DWORD MaskLow = 0, MaskHigh = 0; // the events asked for at the start
  std::string OutputDir; // WEFT_OUTPUT_DIR
  std::string SpecPath;  // the spec file, if the settings name one
  std::string SpecText;  // its text when last read
  std::string SpecRefusal; // why the watch last refused it, said once
  /// The tracepoints in force come from this spec (edits replace it; the rules stay as they
  /// were at the start).
  std::shared_ptr<const spec::Spec> Traced; // the profiler's thread's alone, once it runs
  /// Whether Traced has tracepoints, for the callbacks' threads.
  std::atomic<bool> HasTracepoints{false};
  /// Made with the first tracepoint and never freed: woven code may call it until the end.
  Recorder *Rec = nullptr;
  /// Where timeline records also go, made with the recorder and never freed either (the runtime
  /// may call the EventPipe provider's callback until the end): the Weft provider, and LTTng
  /// with WEFT_LTTNG=1.
  std::vector<EventSink *> Sinks;
  EventPipeSink *Provider = nullptr; // among Sinks
  bool WantsLttng = false;
  /// The recorder, made now if it was not (its file is weft-timeline-PID.json in the output
  /// folder).
  Recorder &recorder();
  /// Garbage collections on the timeline (--gc), if asked for.
  std::unique_ptr<GcEvents> Gc;
  /// Every module loaded, in order (tracepoints added later may name any of them), and those
  /// loaded since the worker last applied the tracepoints; under ReJits.Lock. Unloads remove
  /// theirs.
  std::vector<ModuleID> AllModules, NewModules;
  std::unordered_set<ModuleID> LiveModules; // under ReJits.Lock
  /// Held shared while the profiler's thread hands module IDs to the runtime, exclusively while
  /// a module's unload forgets it: no ID is used once its module's unload began.
  std::shared_mutex ModuleGate;
  Config Conf;
  std::unique_ptr<PluginHost> Plugins; // the spec's plugins' hooks, if any has some
  ICorProfilerInfo7 *Info = nullptr;
  unsigned InfoVersion = 0;
  /// Whether a module is one the spec may instrument (never a file the passes use; logs why
  /// not); \p Framework says whether it is the shared framework's.
  bool considered(llvm::StringRef Path, bool *Framework);

  /// Finds assemblies in the folder of the runtime's own framework (made once it is known).
  metadata::AssemblyResolver *frameworkResolver();

  std::string FrameworkDir; // System.Private.CoreLib's folder, known from the first module
  std::unique_ptr<metadata::AssemblyResolver> Frameworks;
  std::mutex ModulesLock;
  std::unordered_map<ModuleID, std::shared_ptr<LoadedModule>> Modules;
  struct Counts {
    std::atomic<uint64_t> ModulesSeen{0}, ModulesMatched{0}, MethodsMatched{0};
    std::atomic<uint64_t> Compiled{0};        // JIT compilations
    std::atomic<uint64_t> CompiledMatched{0}; // methods the spec matches, counted once each
    std::atomic<uint64_t> Rewritten{0}, Unchanged{0}, LeftAlone{0};
    std::atomic<uint64_t> ReJitRequested{0}, ReJitted{0}, ReJitFailed{0};
    // Compilations of a ReJIT (one per instantiation): with a body weft gave, or as they were.
    std::atomic<uint64_t> ReJitCompiledWoven{0}, ReJitCompiledAsItWas{0};
    std::atomic<uint64_t> Traced{0}, Reverted{0};
  } Count;
  /// ReJIT is requested from a thread of weft's own, never inside a callback: ReadyToRun modules
  /// queue their matching methods at load.
  struct ReJitQueue {
    std::mutex Lock;
    std::condition_variable Wake;
    std::deque<std::pair<ModuleID, std::vector<mdMethodDef>>> Pending;
    std::vector<std::pair<ModuleID, mdMethodDef>> Requested; // all ReJIT asked for, for detach
    bool Stop = false;
    /// The keywords sessions ask of the Weft provider changed since the thread last looked.
    bool SessionChanged = false;
    std::thread Thread;
  } ReJits;
  /// How long each rewrite took (reading the body, the passes, encoding, handing it over), in
  /// microseconds; summarized at shutdown.
  std::mutex TimesLock;
  std::vector<float> RewriteMicros;
};

} // namespace weft::prof

#endif
