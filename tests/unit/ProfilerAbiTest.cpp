//===- tests/unit/ProfilerAbiTest.cpp - weft's CoreCLR profiling ABI ------===//
//
// Pins runtime-profiler's declarations to the ABI CoreCLR calls on Linux (x64, arm64): each
// interface's vtable length (the numbers below were counted from dotnet/runtime's
// src/coreclr/inc/corprof.idl and src/coreclr/inc/cor.h, independently of the headers), where its
// first and last methods sit in the compiler's vtable, the IIDs, the layouts of the structs
// passed by pointer or value, and CallbackDefaults' IUnknown.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include <cstddef>
#include <cstring>
#include <gtest/gtest.h>
#include <string>

#include "runtime-profiler/CallbackDefaults.h"
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/MetaData.h"

using namespace weft::prof;

namespace {

/// The vtable slot of a virtual member function, as the Itanium C++ ABI records it: a pointer
/// to a virtual member function holds 1 + the slot's byte offset in the vtable. ARM's variant
/// of the ABI (AArch64: linux-arm64) keeps the virtual flag in the low bit of the adjustment,
/// doubled, and the slot's byte offset as it is.
template <typename Method> unsigned slotOf(Method M) {
  static_assert(sizeof(Method) == 2 * sizeof(void *));
  struct {
    uintptr_t Ptr;
    ptrdiff_t Adj;
  } Raw;
  std::memcpy(&Raw, &M, sizeof Raw);
#if defined(__aarch64__) || defined(__arm__)
  EXPECT_EQ(Raw.Adj & 1, 1) << "not a virtual function";
  EXPECT_EQ(Raw.Adj >> 1, 0) << "not in the primary vtable";
  return unsigned(Raw.Ptr / sizeof(void *));
#else
  EXPECT_EQ(Raw.Ptr & 1, 1u) << "not a virtual function";
  EXPECT_EQ(Raw.Adj, 0) << "not in the primary vtable";
  return unsigned((Raw.Ptr - 1) / sizeof(void *));
#endif
}

TEST(ProfilerAbi, SlotCountsMatchTheIdl) {
  // corprof.idl / unknwn.idl: three IUnknown slots plus each interface's methods.
  EXPECT_EQ(IUnknown::SlotCount, 3u);
  EXPECT_EQ(IClassFactory::SlotCount, 5u);

  EXPECT_EQ(ICorProfilerCallback::SlotCount, 72u);  // 69 methods
  EXPECT_EQ(ICorProfilerCallback2::SlotCount, 80u); // + 8
  EXPECT_EQ(ICorProfilerCallback3::SlotCount, 83u); // + 3
  EXPECT_EQ(ICorProfilerCallback4::SlotCount, 89u); // + 6
  EXPECT_EQ(ICorProfilerCallback5::SlotCount, 90u);
  EXPECT_EQ(ICorProfilerCallback6::SlotCount, 91u);
  EXPECT_EQ(ICorProfilerCallback7::SlotCount, 92u);
  EXPECT_EQ(ICorProfilerCallback8::SlotCount, 94u); // + 2
  EXPECT_EQ(ICorProfilerCallback9::SlotCount, 95u);
  EXPECT_EQ(ICorProfilerCallback10::SlotCount, 97u); // + 2
  EXPECT_EQ(ICorProfilerCallback11::SlotCount, 98u);

  EXPECT_EQ(ICorProfilerInfo::SlotCount, 36u);    // 33 methods
  EXPECT_EQ(ICorProfilerInfo2::SlotCount, 57u);   // + 21
  EXPECT_EQ(ICorProfilerInfo3::SlotCount, 71u);   // + 14
  EXPECT_EQ(ICorProfilerInfo4::SlotCount, 81u);   // + 10
  EXPECT_EQ(ICorProfilerInfo5::SlotCount, 83u);   // + 2
  EXPECT_EQ(ICorProfilerInfo6::SlotCount, 84u);   // + 1
  EXPECT_EQ(ICorProfilerInfo7::SlotCount, 87u);   // + 3
  EXPECT_EQ(ICorProfilerInfo8::SlotCount, 90u);   // + 3
  EXPECT_EQ(ICorProfilerInfo9::SlotCount, 93u);   // + 3
  EXPECT_EQ(ICorProfilerInfo10::SlotCount, 99u);  // + 6
  EXPECT_EQ(ICorProfilerInfo11::SlotCount, 101u); // + 2
  EXPECT_EQ(ICorProfilerInfo12::SlotCount, 108u); // + 7
  EXPECT_EQ(ICorProfilerInfo13::SlotCount, 111u); // + 3
  EXPECT_EQ(ICorProfilerInfo14::SlotCount, 114u); // + 3
  EXPECT_EQ(ICorProfilerInfo15::SlotCount, 115u); // + 1

  EXPECT_EQ(ICorProfilerFunctionControl::SlotCount, 6u);
  EXPECT_EQ(IMethodMalloc::SlotCount, 4u);
  EXPECT_EQ(ICorProfilerAssemblyReferenceProvider::SlotCount, 4u);
  EXPECT_EQ(ICorProfilerObjectEnum::SlotCount, 8u);
  EXPECT_EQ(ICorProfilerFunctionEnum::SlotCount, 8u);
  EXPECT_EQ(ICorProfilerModuleEnum::SlotCount, 8u);
  EXPECT_EQ(ICorProfilerThreadEnum::SlotCount, 8u);
  EXPECT_EQ(ICorProfilerMethodEnum::SlotCount, 8u);

  // cor.h
  EXPECT_EQ(IMetaDataImport::SlotCount, 65u);         // 62 methods
  EXPECT_EQ(IMetaDataImport2::SlotCount, 73u);        // + 8
  EXPECT_EQ(IMetaDataEmit::SlotCount, 52u);           // 49 methods
  EXPECT_EQ(IMetaDataEmit2::SlotCount, 60u);          // + 8
  EXPECT_EQ(IMetaDataAssemblyEmit::SlotCount, 13u);   // 10 methods
  EXPECT_EQ(IMetaDataAssemblyImport::SlotCount, 17u); // 14 methods
}

// Each interface's first method sits right after its base's slots and its last method in its
// last slot; that checks both SlotCount and the declarations against the compiler's layout.
TEST(ProfilerAbi, FirstAndLastMethodsSitInTheirSlots) {
  EXPECT_EQ(slotOf(&IUnknown::QueryInterface), 0u);
  EXPECT_EQ(slotOf(&IUnknown::Release), 2u);
  EXPECT_EQ(slotOf(&IClassFactory::LockServer), IClassFactory::SlotCount - 1);

  EXPECT_EQ(slotOf(&ICorProfilerCallback::Initialize), 3u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback::ExceptionCLRCatcherExecute), 71u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback2::ThreadNameChanged), 72u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback2::HandleDestroyed), 79u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback3::InitializeForAttach), 80u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback3::ProfilerDetachSucceeded), 82u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback4::ReJITCompilationStarted), 83u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback4::SurvivingReferences2), 88u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback5::ConditionalWeakTableElementReferences), 89u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback6::GetAssemblyReferences), 90u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback7::ModuleInMemorySymbolsUpdated), 91u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback8::DynamicMethodJITCompilationStarted), 92u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback8::DynamicMethodJITCompilationFinished), 93u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback9::DynamicMethodUnloaded), 94u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback10::EventPipeEventDelivered), 95u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback10::EventPipeProviderCreated), 96u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback11::LoadAsNotificationOnly), 97u);

  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetClassFromObject), 3u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetILToNativeMapping), 35u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo2::DoStackSnapshot), 36u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo2::GetNotifiedExceptionClauseInfo), 56u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo3::EnumJITedFunctions), 57u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo3::GetModuleInfo2), 70u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo4::EnumThreads), 71u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo4::GetObjectSize2), 80u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo5::GetEventMask2), 81u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo5::SetEventMask2), 82u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo6::EnumNgenModuleMethodsInliningThisMethod), 83u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo7::ApplyMetaData), 84u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo7::ReadInMemorySymbols), 86u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo8::IsFunctionDynamic), 87u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo8::GetDynamicFunctionInfo), 89u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo9::GetNativeCodeStartAddresses), 90u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo9::GetCodeInfo4), 92u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo10::EnumerateObjectReferences), 93u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo10::ResumeRuntime), 98u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo11::GetEnvironmentVariable), 99u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo11::SetEnvironmentVariable), 100u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo12::EventPipeStartSession), 101u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo12::EventPipeWriteEvent), 107u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo13::CreateHandle), 108u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo13::GetObjectIDFromHandle), 110u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo14::EnumerateNonGCObjects), 111u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo14::EventPipeCreateProvider2), 113u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo15::EnumerateGCHeapObjects), 114u);

  EXPECT_EQ(slotOf(&ICorProfilerFunctionControl::SetCodegenFlags), 3u);
  EXPECT_EQ(slotOf(&ICorProfilerFunctionControl::SetILInstrumentedCodeMap), 5u);
  EXPECT_EQ(slotOf(&IMethodMalloc::Alloc), 3u);
  EXPECT_EQ(slotOf(&ICorProfilerAssemblyReferenceProvider::AddAssemblyReference), 3u);
  EXPECT_EQ(slotOf(&ICorProfilerObjectEnum::Next), 7u);
  EXPECT_EQ(slotOf(&ICorProfilerFunctionEnum::Next), 7u);
  EXPECT_EQ(slotOf(&ICorProfilerModuleEnum::Next), 7u);
  EXPECT_EQ(slotOf(&ICorProfilerThreadEnum::Next), 7u);
  EXPECT_EQ(slotOf(&ICorProfilerMethodEnum::Next), 7u);

  EXPECT_EQ(slotOf(&IMetaDataImport::CloseEnum), 3u);
  EXPECT_EQ(slotOf(&IMetaDataImport::IsGlobal), 64u);
  EXPECT_EQ(slotOf(&IMetaDataImport2::EnumGenericParams), 65u);
  EXPECT_EQ(slotOf(&IMetaDataImport2::EnumMethodSpecs), 72u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::SetModuleProps), 3u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::MergeEnd), 51u);
  EXPECT_EQ(slotOf(&IMetaDataEmit2::DefineMethodSpec), 52u);
  EXPECT_EQ(slotOf(&IMetaDataEmit2::ResetENCLog), 59u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyEmit::DefineAssembly), 3u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyEmit::SetManifestResourceProps), 12u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyImport::GetAssemblyProps), 3u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyImport::FindAssembliesByName), 16u);
}

// Methods a profiler leans on, at the positions counted in the idl and cor.h.
TEST(ProfilerAbi, MethodsWeftCallsSitInTheirSlots) {
  EXPECT_EQ(slotOf(&ICorProfilerCallback::ModuleLoadFinished), 14u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback::JITCompilationStarted), 23u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback::Shutdown), 4u);
  EXPECT_EQ(slotOf(&ICorProfilerCallback4::GetReJITParameters), 84u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetFunctionInfo), 15u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::SetEventMask), 16u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetModuleInfo), 20u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetModuleMetaData), 21u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetILFunctionBody), 22u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::GetILFunctionBodyAllocator), 23u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::SetILFunctionBody), 24u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo::SetILInstrumentedCodeMap), 29u);
  EXPECT_EQ(slotOf(&ICorProfilerInfo4::RequestReJIT), 73u);
  EXPECT_EQ(slotOf(&ICorProfilerFunctionControl::SetILFunctionBody), 4u);
  EXPECT_EQ(slotOf(&IMetaDataImport::GetTypeDefProps), 12u);
  EXPECT_EQ(slotOf(&IMetaDataImport::GetMethodProps), 30u);
  EXPECT_EQ(slotOf(&IMetaDataImport::GetSigFromToken), 41u);
  EXPECT_EQ(slotOf(&IMetaDataImport::IsValidToken), 61u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::DefineMethod), 10u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::DefineTypeRefByName), 12u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::DefineMemberRef), 14u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::GetTokenFromSig), 23u);
  EXPECT_EQ(slotOf(&IMetaDataEmit::DefineUserString), 28u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyEmit::DefineAssemblyRef), 4u);
  EXPECT_EQ(slotOf(&IMetaDataAssemblyImport::CloseEnum), 15u);
}

struct IidCase {
  GUID Declared;
  GUID Expected;
  const char *Name;
};

TEST(ProfilerAbi, IidsMatchTheIdl) {
  // Written out from the uuid() attributes of corprof.idl and the EXTERN_GUIDs of cor.h (COM's
  // own for IUnknown and IClassFactory).
  const IidCase Cases[] = {
      {IID_IUnknown,
       {0x00000000, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}},
       "IUnknown"},
      {IID_IClassFactory,
       {0x00000001, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}},
       "IClassFactory"},
      {IID_ICorProfilerCallback,
       {0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}},
       "ICorProfilerCallback"},
      {IID_ICorProfilerCallback2,
       {0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}},
       "ICorProfilerCallback2"},
      {IID_ICorProfilerCallback3,
       {0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}},
       "ICorProfilerCallback3"},
      {IID_ICorProfilerCallback4,
       {0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}},
       "ICorProfilerCallback4"},
      {IID_ICorProfilerCallback5,
       {0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}},
       "ICorProfilerCallback5"},
      {IID_ICorProfilerCallback6,
       {0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}},
       "ICorProfilerCallback6"},
      {IID_ICorProfilerCallback7,
       {0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}},
       "ICorProfilerCallback7"},
      {IID_ICorProfilerCallback8,
       {0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}},
       "ICorProfilerCallback8"},
      {IID_ICorProfilerCallback9,
       {0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}},
       "ICorProfilerCallback9"},
      {IID_ICorProfilerCallback10,
       {0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}},
       "ICorProfilerCallback10"},
      {IID_ICorProfilerCallback11,
       {0x42350846, 0xAAED, 0x47F7, {0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE}},
       "ICorProfilerCallback11"},
      {IID_ICorProfilerInfo,
       {0x28B5557D, 0x3F3F, 0x48B4, {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}},
       "ICorProfilerInfo"},
      {IID_ICorProfilerInfo2,
       {0xCC0935CD, 0xA518, 0x487D, {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}},
       "ICorProfilerInfo2"},
      {IID_ICorProfilerInfo3,
       {0xB555ED4F, 0x452A, 0x4E54, {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}},
       "ICorProfilerInfo3"},
      {IID_ICorProfilerInfo4,
       {0x0D8FDCAA, 0x6257, 0x47BF, {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}},
       "ICorProfilerInfo4"},
      {IID_ICorProfilerInfo5,
       {0x07602928, 0xCE38, 0x4B83, {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}},
       "ICorProfilerInfo5"},
      {IID_ICorProfilerInfo6,
       {0xF30A070D, 0xBFFB, 0x46A7, {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}},
       "ICorProfilerInfo6"},
      {IID_ICorProfilerInfo7,
       {0x9AEECC0D, 0x63E0, 0x4187, {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}},
       "ICorProfilerInfo7"},
      {IID_ICorProfilerInfo8,
       {0xC5AC80A6, 0x782E, 0x4716, {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}},
       "ICorProfilerInfo8"},
      {IID_ICorProfilerInfo9,
       {0x008170DB, 0xF8CC, 0x4796, {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}},
       "ICorProfilerInfo9"},
      {IID_ICorProfilerInfo10,
       {0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}},
       "ICorProfilerInfo10"},
      {IID_ICorProfilerInfo11,
       {0x06398876, 0x8987, 0x4154, {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}},
       "ICorProfilerInfo11"},
      {IID_ICorProfilerInfo12,
       {0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}},
       "ICorProfilerInfo12"},
      {IID_ICorProfilerInfo13,
       {0x6E6C7EE2, 0x0701, 0x4EC2, {0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34}},
       "ICorProfilerInfo13"},
      {IID_ICorProfilerInfo14,
       {0xF460E352, 0xD76D, 0x4FE9, {0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D}},
       "ICorProfilerInfo14"},
      {IID_ICorProfilerInfo15,
       {0xB446462D, 0xBD22, 0x41DD, {0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56}},
       "ICorProfilerInfo15"},
      {IID_IMethodMalloc,
       {0xA0EFB28B, 0x6EE2, 0x4D7B, {0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8}},
       "IMethodMalloc"},
      {IID_ICorProfilerFunctionControl,
       {0xF0963021, 0xE1EA, 0x4732, {0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6}},
       "ICorProfilerFunctionControl"},
      {IID_ICorProfilerAssemblyReferenceProvider,
       {0x66A78C24, 0x2EEF, 0x4F65, {0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38, 0xBF, 0x3C}},
       "ICorProfilerAssemblyReferenceProvider"},
      {IID_ICorProfilerObjectEnum,
       {0x2C6269BD, 0x2D13, 0x4321, {0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF}},
       "ICorProfilerObjectEnum"},
      {IID_ICorProfilerFunctionEnum,
       {0xFF71301A, 0xB994, 0x429D, {0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF}},
       "ICorProfilerFunctionEnum"},
      {IID_ICorProfilerModuleEnum,
       {0xB0266D75, 0x2081, 0x4493, {0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91}},
       "ICorProfilerModuleEnum"},
      {IID_ICorProfilerThreadEnum,
       {0x571194F7, 0x25ED, 0x419F, {0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01}},
       "ICorProfilerThreadEnum"},
      {IID_ICorProfilerMethodEnum,
       {0xFCCEE788, 0x0088, 0x454B, {0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42}},
       "ICorProfilerMethodEnum"},
      {IID_IMetaDataImport,
       {0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}},
       "IMetaDataImport"},
      {IID_IMetaDataImport2,
       {0xFCE5EFA0, 0x8BBA, 0x4F8E, {0xA0, 0x36, 0x8F, 0x20, 0x22, 0xB0, 0x84, 0x66}},
       "IMetaDataImport2"},
      {IID_IMetaDataEmit,
       {0xBA3FEE4C, 0xECB9, 0x4E41, {0x83, 0xB7, 0x18, 0x3F, 0xA4, 0x1C, 0xD8, 0x59}},
       "IMetaDataEmit"},
      {IID_IMetaDataEmit2,
       {0xF5DD9950, 0xF693, 0x42E6, {0x83, 0x0E, 0x7B, 0x83, 0x3E, 0x81, 0x46, 0xA9}},
       "IMetaDataEmit2"},
      {IID_IMetaDataAssemblyEmit,
       {0x211EF15B, 0x5317, 0x4438, {0xB1, 0x96, 0xDE, 0xC8, 0x7B, 0x88, 0x76, 0x93}},
       "IMetaDataAssemblyEmit"},
      {IID_IMetaDataAssemblyImport,
       {0xEE62470B, 0xE94B, 0x424E, {0x9B, 0x7C, 0x2F, 0x00, 0xC9, 0x24, 0x9F, 0x93}},
       "IMetaDataAssemblyImport"},
  };
  for (const IidCase &C : Cases)
    EXPECT_TRUE(C.Declared == C.Expected) << C.Name;
  // No two interfaces share an IID.
  for (const IidCase &A : Cases)
    for (const IidCase &B : Cases) {
      if (&A != &B) {
        EXPECT_FALSE(A.Declared == B.Declared) << A.Name << " and " << B.Name;
      }
    }
}

TEST(ProfilerAbi, GuidTextIsParsedCaseInsensitively) {
  constexpr GUID Lower = guid("b0266d75-2081-4493-af7f-028ba34db891");
  static_assert(Lower == IID_ICorProfilerModuleEnum);
  static_assert(Lower.Data1 == 0xB0266D75 && Lower.Data2 == 0x2081 && Lower.Data3 == 0x4493);
  static_assert(Lower.Data4[0] == 0xAF && Lower.Data4[7] == 0x91);
  // The in-memory bytes are the COM layout: Data1..Data3 little-endian, Data4 as written.
  const uint8_t Bytes[16] = {0x75, 0x6D, 0x26, 0xB0, 0x81, 0x20, 0x93, 0x44,
                             0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91};
  EXPECT_EQ(std::memcmp(&Lower, Bytes, 16), 0);
}

TEST(ProfilerAbi, StructLayouts) {
  EXPECT_EQ(sizeof(GUID), 16u);
  EXPECT_EQ(sizeof(COR_IL_MAP), 12u);
  EXPECT_EQ(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP), 12u);
  EXPECT_EQ(sizeof(COR_FIELD_OFFSET), 8u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE), 16u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO), 24u);
  EXPECT_EQ(offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges), 8u);
  EXPECT_EQ(sizeof(COR_PRF_CODE_INFO), 16u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION), 16u);
  EXPECT_EQ(sizeof(COR_PRF_METHOD), 16u);
  EXPECT_EQ(sizeof(COR_PRF_EX_CLAUSE_INFO), 32u);
  EXPECT_EQ(offsetof(COR_PRF_EX_CLAUSE_INFO, programCounter), 8u);
  EXPECT_EQ(sizeof(COR_PRF_GC_GENERATION_RANGE), 32u);
  EXPECT_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeStart), 8u);
  EXPECT_EQ(sizeof(COR_PRF_NONGC_HEAP_RANGE), 24u);
  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG), 32u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, filterData), 24u);
  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC), 16u);
  EXPECT_EQ(sizeof(COR_PRF_EVENT_DATA), 16u);
  EXPECT_EQ(sizeof(COR_PRF_FILTER_DATA), 16u);
  EXPECT_EQ(sizeof(OSINFO), 12u);
  EXPECT_EQ(sizeof(ASSEMBLYMETADATA), 56u);
  EXPECT_EQ(offsetof(ASSEMBLYMETADATA, szLocale), 8u);
  EXPECT_EQ(offsetof(ASSEMBLYMETADATA, ulOS), 48u);
  EXPECT_EQ(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO), 48u);
  EXPECT_EQ(sizeof(FunctionIDOrClientID), 8u);

  // The PAL's scalar types.
  EXPECT_EQ(sizeof(HRESULT), 4u);
  EXPECT_EQ(sizeof(BOOL), 4u);
  EXPECT_EQ(sizeof(ULONG), 4u);
  EXPECT_EQ(sizeof(DWORD), 4u);
  EXPECT_EQ(sizeof(WCHAR), 2u);
  EXPECT_EQ(sizeof(mdToken), 4u);
  EXPECT_EQ(sizeof(FunctionID), 8u);
  EXPECT_EQ(sizeof(ObjectID), 8u);
  // Enums travel as 32-bit values, also in the arrays RootReferences2 gets.
  EXPECT_EQ(sizeof(COR_PRF_GC_ROOT_KIND), 4u);
  EXPECT_EQ(sizeof(COR_PRF_GC_ROOT_FLAGS), 4u);
  EXPECT_EQ(sizeof(COR_PRF_JIT_CACHE), 4u);
  EXPECT_EQ(sizeof(CorSaveSize), 4u);
}

TEST(ProfilerAbi, FlagValues) {
  EXPECT_EQ(COR_PRF_MONITOR_MODULE_LOADS, 0x4u);
  EXPECT_EQ(COR_PRF_MONITOR_JIT_COMPILATION, 0x20u);
  EXPECT_EQ(COR_PRF_MONITOR_ENTERLEAVE, 0x1000u);
  EXPECT_EQ(COR_PRF_ENABLE_REJIT, 0x40000u);
  EXPECT_EQ(COR_PRF_DISABLE_INLINING, 0x200000u);
  EXPECT_EQ(COR_PRF_MONITOR_ALL, 0x0107FFFFu);
  EXPECT_EQ(COR_PRF_DISABLE_ALL_NGEN_IMAGES, 0x80000000u);
  EXPECT_EQ(COR_PRF_ALL, 0x8FFFFFFFu);
  EXPECT_EQ(COR_PRF_REQUIRE_PROFILE_IMAGE, 0x20001800u);
  EXPECT_EQ(COR_PRF_ALLOWABLE_AFTER_ATTACH, 0x106502FEu);
  EXPECT_EQ(COR_PRF_MONITOR_IMMUTABLE, 0xEE98CC00u);
  EXPECT_EQ(COR_PRF_HIGH_DISABLE_TIERED_COMPILATION, 0x8u);
  EXPECT_EQ(COR_PRF_HIGH_MONITOR_EVENT_PIPE, 0x80u);
  EXPECT_EQ(COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED, 0x100u);
  EXPECT_EQ(COR_PRF_MODULE_DYNAMIC, 0x4u);
  EXPECT_EQ(COR_PRF_MODULE_FLAT_LAYOUT, 0x20u);
  EXPECT_EQ(COR_PRF_REJIT_BLOCK_INLINING, 0x1u);
  EXPECT_EQ(COR_PRF_SUSPEND_FOR_PROFILER, 9u);
  EXPECT_EQ(COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS, 0x2u);
  EXPECT_EQ(uint32_t(PROLOG), 0xFFFFFFFEu);
  EXPECT_EQ(E_NOINTERFACE, static_cast<HRESULT>(0x80004002u));
  EXPECT_EQ(CORPROF_E_PROFILER_CANCEL_ACTIVATION, static_cast<HRESULT>(0x80131375u));
  EXPECT_TRUE(failed(E_FAIL));
  EXPECT_TRUE(succeeded(S_FALSE));
}

// A profiler as weft writes one: CallbackDefaults with a few overrides.
class CountingProfiler : public CallbackDefaults {
public:
  explicit CountingProfiler(int *Destroyed) : Destroyed(Destroyed) {}
  ~CountingProfiler() override { ++*Destroyed; }

  HRESULT JITCompilationStarted(FunctionID Id, BOOL) override {
    LastJitted = Id;
    return S_OK;
  }
  HRESULT ModuleLoadFinished(ModuleID Id, HRESULT) override {
    LastModule = Id;
    return S_FALSE;
  }

  FunctionID LastJitted = 0;
  ModuleID LastModule = 0;

private:
  int *Destroyed;
};

TEST(ProfilerAbi, CallbackDefaultsAnswersTheCallbackInterfaces) {
  int Destroyed = 0;
  auto *P = new CountingProfiler(&Destroyed);
  EXPECT_EQ(P->refCount(), 1u);

  void *Out = nullptr;
  ASSERT_EQ(P->QueryInterface(IID_ICorProfilerCallback11, &Out), S_OK);
  EXPECT_EQ(Out, static_cast<ICorProfilerCallback11 *>(P));
  EXPECT_EQ(P->refCount(), 2u);

  const GUID Others[] = {IID_IUnknown,
                         IID_ICorProfilerCallback,
                         IID_ICorProfilerCallback2,
                         IID_ICorProfilerCallback5,
                         IID_ICorProfilerCallback8,
                         IID_ICorProfilerCallback10};
  for (const GUID &Iid : Others) {
    void *Again = nullptr;
    EXPECT_EQ(P->QueryInterface(Iid, &Again), S_OK);
    EXPECT_EQ(Again, Out);
    static_cast<IUnknown *>(Again)->Release();
  }
  EXPECT_EQ(P->refCount(), 2u);

  void *None = reinterpret_cast<void *>(uintptr_t(1));
  EXPECT_EQ(P->QueryInterface(IID_ICorProfilerInfo, &None), E_NOINTERFACE);
  EXPECT_EQ(None, nullptr);
  None = reinterpret_cast<void *>(uintptr_t(1));
  EXPECT_EQ(P->QueryInterface(guid("01234567-89AB-CDEF-0123-456789ABCDEF"), &None), E_NOINTERFACE);
  EXPECT_EQ(None, nullptr);
  EXPECT_EQ(P->QueryInterface(IID_IClassFactory, &None), E_NOINTERFACE);
  EXPECT_EQ(P->QueryInterface(IID_IUnknown, nullptr), E_POINTER);
  EXPECT_EQ(P->refCount(), 2u);

  // The runtime calls through the interface; the overrides and the defaults answer.
  auto *Callback = static_cast<ICorProfilerCallback11 *>(Out);
  EXPECT_EQ(Callback->JITCompilationStarted(42, 1), S_OK);
  EXPECT_EQ(P->LastJitted, 42u);
  EXPECT_EQ(Callback->ModuleLoadFinished(7, S_OK), S_FALSE);
  EXPECT_EQ(P->LastModule, 7u);
  EXPECT_EQ(Callback->Shutdown(), S_OK);
  BOOL NotificationOnly = 0;
  EXPECT_EQ(Callback->LoadAsNotificationOnly(&NotificationOnly), S_OK);
  EXPECT_EQ(NotificationOnly, 0);

  EXPECT_EQ(Callback->AddRef(), 3u);
  EXPECT_EQ(Callback->Release(), 2u);
  EXPECT_EQ(Callback->Release(), 1u);
  EXPECT_EQ(Destroyed, 0);
  EXPECT_EQ(P->Release(), 0u);
  EXPECT_EQ(Destroyed, 1);
}

// What the runtime does: read the object's vtable and call a slot with the object first.
TEST(ProfilerAbi, RuntimeStyleCallsReachTheOverrides) {
  int Destroyed = 0;
  auto *P = new CountingProfiler(&Destroyed);
  ICorProfilerCallback11 *Obj = P;
  void **VTable = *reinterpret_cast<void ***>(Obj);

  using JitStarted = HRESULT (*)(void *, FunctionID, BOOL);
  EXPECT_EQ(reinterpret_cast<JitStarted>(VTable[23])(Obj, 99, 1), S_OK);
  EXPECT_EQ(P->LastJitted, 99u);

  using ModuleFinished = HRESULT (*)(void *, ModuleID, HRESULT);
  EXPECT_EQ(reinterpret_cast<ModuleFinished>(VTable[14])(Obj, 5, S_OK), S_FALSE);
  EXPECT_EQ(P->LastModule, 5u);

  using QueryInterfaceFn = HRESULT (*)(void *, const GUID &, void **);
  void *Out = nullptr;
  EXPECT_EQ(reinterpret_cast<QueryInterfaceFn>(VTable[0])(Obj, IID_ICorProfilerCallback3, &Out),
            S_OK);
  EXPECT_EQ(Out, static_cast<void *>(Obj));

  using ReleaseFn = ULONG (*)(void *);
  EXPECT_EQ(reinterpret_cast<ReleaseFn>(VTable[2])(Obj), 1u);
  EXPECT_EQ(reinterpret_cast<ReleaseFn>(VTable[2])(Obj), 0u);
  EXPECT_EQ(Destroyed, 1);
}

// The installed runtime knows every IID declared here: each appears in libcoreclr.so.
TEST(ProfilerAbi, InstalledRuntimeKnowsTheIids) {
  std::string Dir = weft::test::netCoreAppDir();
  if (Dir.empty())
    GTEST_SKIP() << "no Microsoft.NETCore.App installed";
  std::string Image = weft::test::readFile(Dir + "/libcoreclr.so");
  if (Image.empty())
    GTEST_SKIP() << "no libcoreclr.so in " << Dir;
  auto Has = [&](const GUID &G) {
    return Image.find(std::string(reinterpret_cast<const char *>(&G), sizeof G)) !=
           std::string::npos;
  };
  const std::pair<GUID, const char *> Iids[] = {
      {IID_ICorProfilerCallback, "ICorProfilerCallback"},
      {IID_ICorProfilerCallback11, "ICorProfilerCallback11"},
      {IID_ICorProfilerInfo, "ICorProfilerInfo"},
      {IID_ICorProfilerInfo12, "ICorProfilerInfo12"},
      {IID_ICorProfilerInfo15, "ICorProfilerInfo15"},
      {IID_ICorProfilerFunctionControl, "ICorProfilerFunctionControl"},
      {IID_IMethodMalloc, "IMethodMalloc"},
      {IID_IMetaDataImport, "IMetaDataImport"},
      {IID_IMetaDataImport2, "IMetaDataImport2"},
      {IID_IMetaDataEmit, "IMetaDataEmit"},
      {IID_IMetaDataEmit2, "IMetaDataEmit2"},
      {IID_IMetaDataAssemblyEmit, "IMetaDataAssemblyEmit"},
      {IID_IMetaDataAssemblyImport, "IMetaDataAssemblyImport"},
  };
  for (const auto &[Iid, Name] : Iids)
    EXPECT_TRUE(Has(Iid)) << Name << " not in " << Dir << "/libcoreclr.so";
}

} // namespace
