//===- runtime-profiler/ClassFactory.cpp - What CoreCLR calls first -------===//
//
// CoreCLR loads the library named by CORECLR_PROFILER_PATH, asks DllGetClassObject for the class
// factory of the CLSID in CORECLR_PROFILER (ClassFactory.h), and creates the profiler through it.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/ClassFactory.h"
#include "runtime-profiler/Profiler.h"

using namespace weft::prof;

extern "C" __attribute__((visibility("default"))) HRESULT
DllGetClassObject(REFCLSID Clsid, REFIID Riid, void **Out) {
  if (!Out)
    return E_POINTER;
  *Out = nullptr;
  if (!(Clsid == CLSID_WeftProfiler))
    return CLASS_E_CLASSNOTAVAILABLE;
  return getClassObject<Profiler>(Riid, Out);
}

extern "C" __attribute__((visibility("default"))) HRESULT DllCanUnloadNow() { return S_FALSE; }

// The trace pass's runtime (passes/trace/runtime) looks these up in the library the
// runtime loaded as its profiler and hands it its method names and recorded calls, from managed
// code: they never throw.
extern "C" __attribute__((visibility("default"))) void
weft_trace_name(int32_t Id, const char16_t *Name, int32_t Length) noexcept {
  weft::prof::Profiler::traceName(Id, Name, Length);
}

extern "C" __attribute__((visibility("default"))) void
weft_trace_calls(uint32_t Tid, const int64_t *Calls, int32_t Count) noexcept {
  weft::prof::Profiler::traceCalls(Tid, Calls, Count);
}
