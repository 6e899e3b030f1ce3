//===- runtime-profiler/ClassFactory.cpp - What CoreCLR calls first -------===//
//
// CoreCLR loads the library named by CORECLR_PROFILER_PATH, asks DllGetClassObject for the class
// factory of the CLSID in CORECLR_PROFILER, and creates the profiler through it.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Profiler.h"

#include <atomic>
#include <new>

using namespace weft::prof;

namespace {

class Factory final : public IClassFactory {
public:
  HRESULT QueryInterface(REFIID Riid, void **Out) override {
    if (!Out)
      return E_POINTER;
    if (Riid == IID_IUnknown || Riid == IID_IClassFactory) {
      *Out = this;
      AddRef();
      return S_OK;
    }
    *Out = nullptr;
    return E_NOINTERFACE;
  }
  ULONG AddRef() override { return ++Refs; }
  ULONG Release() override {
    ULONG N = --Refs;
    if (N == 0)
      delete this;
    return N;
  }
  HRESULT CreateInstance(IUnknown *Outer, REFIID Riid, void **Out) override {
    if (!Out)
      return E_POINTER;
    *Out = nullptr;
    if (Outer)
      return CLASS_E_NOAGGREGATION;
    auto *P = new (std::nothrow) Profiler();
    if (!P)
      return E_OUTOFMEMORY;
    HRESULT Hr = P->QueryInterface(Riid, Out);
    P->Release(); // the reference the query took is the caller's
    return Hr;
  }
  HRESULT LockServer(BOOL) override { return S_OK; }

private:
  std::atomic<ULONG> Refs{1};
};

} // namespace

extern "C" __attribute__((visibility("default"))) HRESULT
DllGetClassObject(REFCLSID Clsid, REFIID Riid, void **Out) {
  if (!Out)
    return E_POINTER;
  *Out = nullptr;
  if (!(Clsid == CLSID_WeftProfiler))
    return CLASS_E_CLASSNOTAVAILABLE;
  auto *F = new (std::nothrow) Factory();
  if (!F)
    return E_OUTOFMEMORY;
  HRESULT Hr = F->QueryInterface(Riid, Out);
  F->Release();
  return Hr;
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
