//===- tests/targets/ProfilerDllTest.cpp - The profiler library as a runtime loads it -===//
//
// Loads the profiler library built for this platform (weft_profiler.dll beside weft.exe) the way
// CoreCLR does: by its file, then DllGetClassObject for weft's class id, IClassFactory's
// CreateInstance for a callback interface, and calls through the vtables as plain functions
// taking the object first, which is how code built by another compiler (the runtime's) calls
// them on x64. Initialize is not called: that needs a runtime.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Identity.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace weft::prof;
using namespace llvm;

namespace {

using QueryInterfaceFn = HRESULT (*)(void *, const GUID &, void **);
using AddRefFn = ULONG (*)(void *);
using ReleaseFn = ULONG (*)(void *);
using CreateInstanceFn = HRESULT (*)(void *, void *, const GUID &, void **);
using DllGetClassObjectFn = HRESULT (*)(const GUID &, const GUID &, void **);
using DllCanUnloadNowFn = HRESULT (*)();

void **vtableOf(void *Object) { return *static_cast<void ***>(Object); }

/// The library, beside weft.exe: <build>/cli, two folders up from this test's. LLVM's
/// DynamicLibrary is LoadLibrary and GetProcAddress here (<windows.h>'s macros would clash with
/// CorProfiler.h's names).
sys::DynamicLibrary loadProfiler() {
  std::string Exe = sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&loadProfiler));
  SmallString<256> Path(
      sys::path::parent_path(sys::path::parent_path(sys::path::parent_path(Exe))));
  sys::path::append(Path, "cli", ProfilerLibrary);
  std::string Why;
  sys::DynamicLibrary M = sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Why);
  EXPECT_TRUE(M.isValid()) << "cannot load " << Path.str().str() << ": " << Why;
  return M;
}

constexpr GUID Clsid = guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6");

TEST(ProfilerDll, ExportsTheEntryPoints) {
  sys::DynamicLibrary M = loadProfiler();
  ASSERT_TRUE(M.isValid());
  for (const char *Name :
       {"DllGetClassObject", "DllCanUnloadNow", "weft_trace_name", "weft_trace_calls"})
    EXPECT_NE(M.getAddressOfSymbol(Name), nullptr) << Name;
  auto CanUnload = reinterpret_cast<DllCanUnloadNowFn>(M.getAddressOfSymbol("DllCanUnloadNow"));
  ASSERT_NE(CanUnload, nullptr);
  EXPECT_EQ(CanUnload(), S_FALSE);
}

TEST(ProfilerDll, MakesTheProfilerThroughItsClassFactory) {
  sys::DynamicLibrary M = loadProfiler();
  ASSERT_TRUE(M.isValid());
  auto GetClassObject =
      reinterpret_cast<DllGetClassObjectFn>(M.getAddressOfSymbol("DllGetClassObject"));
  ASSERT_NE(GetClassObject, nullptr);

  void *Factory = reinterpret_cast<void *>(1);
  EXPECT_EQ(GetClassObject(IID_IUnknown, IID_IClassFactory, &Factory), CLASS_E_CLASSNOTAVAILABLE);
  EXPECT_EQ(Factory, nullptr);
  ASSERT_EQ(GetClassObject(Clsid, IID_IClassFactory, &Factory), S_OK);
  ASSERT_NE(Factory, nullptr);

  // IClassFactory: QueryInterface, AddRef, Release, CreateInstance, LockServer.
  void **F = vtableOf(Factory);
  void *Same = nullptr;
  EXPECT_EQ(reinterpret_cast<QueryInterfaceFn>(F[0])(Factory, IID_IUnknown, &Same), S_OK);
  EXPECT_EQ(Same, Factory);
  reinterpret_cast<ReleaseFn>(F[2])(Factory);
  void *Profiler = nullptr;
  EXPECT_EQ(reinterpret_cast<CreateInstanceFn>(F[3])(Factory, Factory, IID_IUnknown, &Profiler),
            CLASS_E_NOAGGREGATION);
  ASSERT_EQ(reinterpret_cast<CreateInstanceFn>(F[3])(Factory, nullptr, IID_ICorProfilerCallback11,
                                                     &Profiler),
            S_OK);
  ASSERT_NE(Profiler, nullptr);
  EXPECT_EQ(reinterpret_cast<ReleaseFn>(F[2])(Factory), 0u);

  // The profiler answers every callback interface the runtime asks for, with itself, and none
  // it does not implement; its vtable has ICorProfilerCallback11's 98 slots, all filled.
  void **P = vtableOf(Profiler);
  for (unsigned I = 0; I < ICorProfilerCallback11::SlotCount; ++I)
    EXPECT_NE(P[I], nullptr) << "slot " << I;
  for (const GUID &Iid : {IID_IUnknown, IID_ICorProfilerCallback, IID_ICorProfilerCallback2,
                          IID_ICorProfilerCallback3, IID_ICorProfilerCallback11}) {
    void *Out = nullptr;
    EXPECT_EQ(reinterpret_cast<QueryInterfaceFn>(P[0])(Profiler, Iid, &Out), S_OK);
    EXPECT_EQ(Out, Profiler);
    reinterpret_cast<ReleaseFn>(P[2])(Profiler);
  }
  void *Out = reinterpret_cast<void *>(1);
  EXPECT_EQ(reinterpret_cast<QueryInterfaceFn>(P[0])(Profiler, IID_IClassFactory, &Out),
            E_NOINTERFACE);
  EXPECT_EQ(Out, nullptr);
  EXPECT_EQ(reinterpret_cast<AddRefFn>(P[1])(Profiler), 2u);
  EXPECT_EQ(reinterpret_cast<ReleaseFn>(P[2])(Profiler), 1u);
  EXPECT_EQ(reinterpret_cast<ReleaseFn>(P[2])(Profiler), 0u);
}

} // namespace
