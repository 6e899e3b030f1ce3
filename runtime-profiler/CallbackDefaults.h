//===- runtime-profiler/CallbackDefaults.h - A do-nothing profiler callback -*- C++ -*-===//
//
// CallbackDefaults implements every method of ICorProfilerCallback through
// ICorProfilerCallback11 by returning S_OK and leaving out-parameters as the runtime passed
// them, plus IUnknown with an atomic reference count. A profiler derives from it and overrides
// the few callbacks it cares about.
//
//===----------------------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_CALLBACKDEFAULTS_H
#define WEFT_RUNTIME_PROFILER_CALLBACKDEFAULTS_H

#include <atomic>

#include "runtime-profiler/CorProfiler.h"

namespace weft::prof {

/// A profiler callback object that accepts every notification and does nothing; the base of
/// weft's profilers. Heap-allocate it: it starts with one reference, its creator's, and the
/// last Release deletes it.
class CallbackDefaults : public ICorProfilerCallback11 {
public:
  CallbackDefaults() = default;
  CallbackDefaults(const CallbackDefaults &) = delete;
  CallbackDefaults &operator=(const CallbackDefaults &) = delete;
  // Declared after every interface method, so its vtable slots come after the COM ones.
  virtual ~CallbackDefaults() = default;

  /// Whether QueryInterface answers \p Riid with this object.
  static bool implements(REFIID Riid) {
    return Riid == IID_IUnknown || Riid == IID_ICorProfilerCallback ||
           Riid == IID_ICorProfilerCallback2 || Riid == IID_ICorProfilerCallback3 ||
           Riid == IID_ICorProfilerCallback4 || Riid == IID_ICorProfilerCallback5 ||
           Riid == IID_ICorProfilerCallback6 || Riid == IID_ICorProfilerCallback7 ||
           Riid == IID_ICorProfilerCallback8 || Riid == IID_ICorProfilerCallback9 ||
           Riid == IID_ICorProfilerCallback10 || Riid == IID_ICorProfilerCallback11;
  }

  /// The current reference count (for tests and diagnostics).
  ULONG refCount() const { return Refs.load(std::memory_order_relaxed); }

  // IUnknown
  HRESULT QueryInterface(REFIID Riid, void **Object) override {
    if (!Object)
      return E_POINTER;
    if (!implements(Riid)) {
      *Object = nullptr;
      return E_NOINTERFACE;
    }
    // Every callback interface is this object's primary base, at offset zero.
    *Object = static_cast<ICorProfilerCallback11 *>(this);
    AddRef();
    return S_OK;
  }
  ULONG AddRef() override { return Refs.fetch_add(1, std::memory_order_relaxed) + 1; }
  ULONG Release() override {
    ULONG Left = Refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
    if (Left == 0)
      delete this;
    return Left;
  }

  // ICorProfilerCallback
  HRESULT Initialize(IUnknown *) override { return S_OK; }
  HRESULT Shutdown() override { return S_OK; }
  HRESULT AppDomainCreationStarted(AppDomainID) override { return S_OK; }
  HRESULT AppDomainCreationFinished(AppDomainID, HRESULT) override { return S_OK; }
  HRESULT AppDomainShutdownStarted(AppDomainID) override { return S_OK; }
  HRESULT AppDomainShutdownFinished(AppDomainID, HRESULT) override { return S_OK; }
  HRESULT AssemblyLoadStarted(AssemblyID) override { return S_OK; }
  HRESULT AssemblyLoadFinished(AssemblyID, HRESULT) override { return S_OK; }
  HRESULT AssemblyUnloadStarted(AssemblyID) override { return S_OK; }
  HRESULT AssemblyUnloadFinished(AssemblyID, HRESULT) override { return S_OK; }
  HRESULT ModuleLoadStarted(ModuleID) override { return S_OK; }
  HRESULT ModuleLoadFinished(ModuleID, HRESULT) override { return S_OK; }
  HRESULT ModuleUnloadStarted(ModuleID) override { return S_OK; }
  HRESULT ModuleUnloadFinished(ModuleID, HRESULT) override { return S_OK; }
  HRESULT ModuleAttachedToAssembly(ModuleID, AssemblyID) override { return S_OK; }
  HRESULT ClassLoadStarted(ClassID) override { return S_OK; }
  HRESULT ClassLoadFinished(ClassID, HRESULT) override { return S_OK; }
  HRESULT ClassUnloadStarted(ClassID) override { return S_OK; }
  HRESULT ClassUnloadFinished(ClassID, HRESULT) override { return S_OK; }
  HRESULT FunctionUnloadStarted(FunctionID) override { return S_OK; }
  HRESULT JITCompilationStarted(FunctionID, BOOL) override { return S_OK; }
  HRESULT JITCompilationFinished(FunctionID, HRESULT, BOOL) override { return S_OK; }
  HRESULT JITCachedFunctionSearchStarted(FunctionID, BOOL *) override { return S_OK; }
  HRESULT JITCachedFunctionSearchFinished(FunctionID, COR_PRF_JIT_CACHE) override { return S_OK; }
  HRESULT JITFunctionPitched(FunctionID) override { return S_OK; }
  HRESULT JITInlining(FunctionID, FunctionID, BOOL *) override { return S_OK; }
  HRESULT ThreadCreated(ThreadID) override { return S_OK; }
  HRESULT ThreadDestroyed(ThreadID) override { return S_OK; }
  HRESULT ThreadAssignedToOSThread(ThreadID, DWORD) override { return S_OK; }
  HRESULT RemotingClientInvocationStarted() override { return S_OK; }
  HRESULT RemotingClientSendingMessage(GUID *, BOOL) override { return S_OK; }
  HRESULT RemotingClientReceivingReply(GUID *, BOOL) override { return S_OK; }
  HRESULT RemotingClientInvocationFinished() override { return S_OK; }
  HRESULT RemotingServerReceivingMessage(GUID *, BOOL) override { return S_OK; }
  HRESULT RemotingServerInvocationStarted() override { return S_OK; }
  HRESULT RemotingServerInvocationReturned() override { return S_OK; }
  HRESULT RemotingServerSendingReply(GUID *, BOOL) override { return S_OK; }
  HRESULT UnmanagedToManagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override {
    return S_OK;
  }
  HRESULT ManagedToUnmanagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override {
    return S_OK;
  }
  HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) override { return S_OK; }
  HRESULT RuntimeSuspendFinished() override { return S_OK; }
  HRESULT RuntimeSuspendAborted() override { return S_OK; }
  HRESULT RuntimeResumeStarted() override { return S_OK; }
  HRESULT RuntimeResumeFinished() override { return S_OK; }
  HRESULT RuntimeThreadSuspended(ThreadID) override { return S_OK; }
  HRESULT RuntimeThreadResumed(ThreadID) override { return S_OK; }
  HRESULT MovedReferences(ULONG, ObjectID *, ObjectID *, ULONG *) override { return S_OK; }
  HRESULT ObjectAllocated(ObjectID, ClassID) override { return S_OK; }
  HRESULT ObjectsAllocatedByClass(ULONG, ClassID *, ULONG *) override { return S_OK; }
  HRESULT ObjectReferences(ObjectID, ClassID, ULONG, ObjectID *) override { return S_OK; }
  HRESULT RootReferences(ULONG, ObjectID *) override { return S_OK; }
  HRESULT ExceptionThrown(ObjectID) override { return S_OK; }
  HRESULT ExceptionSearchFunctionEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionSearchFunctionLeave() override { return S_OK; }
  HRESULT ExceptionSearchFilterEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionSearchFilterLeave() override { return S_OK; }
  HRESULT ExceptionSearchCatcherFound(FunctionID) override { return S_OK; }
  HRESULT ExceptionOSHandlerEnter(UINT_PTR) override { return S_OK; }
  HRESULT ExceptionOSHandlerLeave(UINT_PTR) override { return S_OK; }
  HRESULT ExceptionUnwindFunctionEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionUnwindFunctionLeave() override { return S_OK; }
  HRESULT ExceptionUnwindFinallyEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionUnwindFinallyLeave() override { return S_OK; }
  HRESULT ExceptionCatcherEnter(FunctionID, ObjectID) override { return S_OK; }
  HRESULT ExceptionCatcherLeave() override { return S_OK; }
  HRESULT COMClassicVTableCreated(ClassID, REFGUID, void *, ULONG) override { return S_OK; }
  HRESULT COMClassicVTableDestroyed(ClassID, REFGUID, void *) override { return S_OK; }
  HRESULT ExceptionCLRCatcherFound() override { return S_OK; }
  HRESULT ExceptionCLRCatcherExecute() override { return S_OK; }

  // ICorProfilerCallback2
  HRESULT ThreadNameChanged(ThreadID, ULONG, WCHAR *) override { return S_OK; }
  HRESULT GarbageCollectionStarted(int, BOOL *, COR_PRF_GC_REASON) override { return S_OK; }
  HRESULT SurvivingReferences(ULONG, ObjectID *, ULONG *) override { return S_OK; }
  HRESULT GarbageCollectionFinished() override { return S_OK; }
  HRESULT FinalizeableObjectQueued(DWORD, ObjectID) override { return S_OK; }
  HRESULT RootReferences2(ULONG, ObjectID *, COR_PRF_GC_ROOT_KIND *, COR_PRF_GC_ROOT_FLAGS *,
                          UINT_PTR *) override {
    return S_OK;
  }
  HRESULT HandleCreated(GCHandleID, ObjectID) override { return S_OK; }
  HRESULT HandleDestroyed(GCHandleID) override { return S_OK; }

  // ICorProfilerCallback3
  HRESULT InitializeForAttach(IUnknown *, void *, UINT) override { return S_OK; }
  HRESULT ProfilerAttachComplete() override { return S_OK; }
  HRESULT ProfilerDetachSucceeded() override { return S_OK; }

  // ICorProfilerCallback4
  HRESULT ReJITCompilationStarted(FunctionID, ReJITID, BOOL) override { return S_OK; }
  HRESULT GetReJITParameters(ModuleID, mdMethodDef, ICorProfilerFunctionControl *) override {
    return S_OK;
  }
  HRESULT ReJITCompilationFinished(FunctionID, ReJITID, HRESULT, BOOL) override { return S_OK; }
  HRESULT ReJITError(ModuleID, mdMethodDef, FunctionID, HRESULT) override { return S_OK; }
  HRESULT MovedReferences2(ULONG, ObjectID *, ObjectID *, SIZE_T *) override { return S_OK; }
  HRESULT SurvivingReferences2(ULONG, ObjectID *, SIZE_T *) override { return S_OK; }

  // ICorProfilerCallback5
  HRESULT ConditionalWeakTableElementReferences(ULONG, ObjectID *, ObjectID *,
                                                GCHandleID *) override {
    return S_OK;
  }

  // ICorProfilerCallback6
  HRESULT GetAssemblyReferences(const WCHAR *, ICorProfilerAssemblyReferenceProvider *) override {
    return S_OK;
  }

  // ICorProfilerCallback7
  HRESULT ModuleInMemorySymbolsUpdated(ModuleID) override { return S_OK; }

  // ICorProfilerCallback8
  HRESULT DynamicMethodJITCompilationStarted(FunctionID, BOOL, LPCBYTE, ULONG) override {
    return S_OK;
  }
  HRESULT DynamicMethodJITCompilationFinished(FunctionID, HRESULT, BOOL) override { return S_OK; }

  // ICorProfilerCallback9
  HRESULT DynamicMethodUnloaded(FunctionID) override { return S_OK; }

  // ICorProfilerCallback10
  HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD, DWORD, ULONG, LPCBYTE, ULONG, LPCBYTE,
                                  LPCGUID, LPCGUID, ThreadID, ULONG, UINT_PTR *) override {
    return S_OK;
  }
  HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER) override { return S_OK; }

  // ICorProfilerCallback11
  HRESULT LoadAsNotificationOnly(BOOL *) override { return S_OK; }

private:
  std::atomic<uint32_t> Refs{1};
};

} // namespace weft::prof

#endif // WEFT_RUNTIME_PROFILER_CALLBACKDEFAULTS_H
