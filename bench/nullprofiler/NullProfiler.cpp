//===- bench/nullprofiler/NullProfiler.cpp - A profiler that does nothing --===//
//
// What the runtime itself charges a process for loading a profiler, which bench/profiler.sh
// subtracts from weft's: CoreCLR loads this library, creates the profiler through its class
// factory (whatever CLSID CORECLR_PROFILER names) and calls Initialize, which asks for no event.
// Every callback is CallbackDefaults' S_OK. Not part of weft: only the benchmark loads it.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/CallbackDefaults.h"

#include <atomic>
#include <new>

using namespace weft::prof;

namespace {

class NullProfiler final : public CallbackDefaults {};

class Factory final : public IClassFactory {
public:
  HRESULT QueryInterface(REFIID Riid, void **Out) override {
    if (!Out)
      return E_POINTER;
    *Out = nullptr;
    if (!(Riid == IID_IUnknown || Riid == IID_IClassFactory))
      return E_NOINTERFACE;
    *Out = this;
    AddRef();
    return S_OK;
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
    auto *P = new (std::nothrow) NullProfiler();
    if (!P)
      return E_OUTOFMEMORY;
    HRESULT Hr = P->QueryInterface(Riid, Out);
    P->Release();
    return Hr;
  }
  HRESULT LockServer(BOOL) override { return S_OK; }

private:
  std::atomic<ULONG> Refs{1};
};

} // namespace

extern "C" __attribute__((visibility("default"))) HRESULT
DllGetClassObject(REFCLSID, REFIID Riid, void **Out) {
  if (!Out)
    return E_POINTER;
  *Out = nullptr;
  auto *F = new (std::nothrow) Factory();
  if (!F)
    return E_OUTOFMEMORY;
  HRESULT Hr = F->QueryInterface(Riid, Out);
  F->Release();
  return Hr;
}

extern "C" __attribute__((visibility("default"))) HRESULT DllCanUnloadNow() { return S_FALSE; }
