//===- bench/nullprofiler/NullProfiler.cpp - A profiler that does nothing --===//
//
// What the runtime itself charges a process for loading a profiler, which bench/profiler.sh
// subtracts from weft's: CoreCLR loads this library, creates the profiler through its class
// factory (whatever CLSID CORECLR_PROFILER names) and calls Initialize, which asks for no event.
// Every callback is CallbackDefaults' S_OK. Not part of weft: only the benchmark loads it.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/CallbackDefaults.h"
#include "runtime-profiler/ClassFactory.h"

using namespace weft::prof;

namespace {

class NullProfiler final : public CallbackDefaults {};

} // namespace

extern "C" __attribute__((visibility("default"))) HRESULT
DllGetClassObject(REFCLSID, REFIID Riid, void **Out) {
  return getClassObject<NullProfiler>(Riid, Out);
}

extern "C" __attribute__((visibility("default"))) HRESULT DllCanUnloadNow() { return S_FALSE; }
