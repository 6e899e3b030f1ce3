//===- runtime-profiler/ClassFactory.h - The factory CoreCLR creates a profiler by -*- C++ -*-===//
//
// CoreCLR loads the library CORECLR_PROFILER_PATH names, asks its DllGetClassObject for a class
// factory, and creates the profiler through it. ClassFactory<Made> is that factory for a callback
// class Made (a CallbackDefaults, which starts with one reference, its creator's);
// getClassObject hands one out.
//
//===----------------------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_CLASSFACTORY_H
#define WEFT_RUNTIME_PROFILER_CLASSFACTORY_H

#include "runtime-profiler/CorProfiler.h"

#include <atomic>
#include <new>

namespace weft::prof {

template <class Made> class ClassFactory final : public IClassFactory {
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
    auto *P = new (std::nothrow) Made();
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

/// What DllGetClassObject answers: a ClassFactory<Made> as \p Riid.
template <class Made> HRESULT getClassObject(REFIID Riid, void **Out) {
  if (!Out)
    return E_POINTER;
  *Out = nullptr;
  auto *F = new (std::nothrow) ClassFactory<Made>();
  if (!F)
    return E_OUTOFMEMORY;
  HRESULT Hr = F->QueryInterface(Riid, Out);
  F->Release();
  return Hr;
}

} // namespace weft::prof

#endif
