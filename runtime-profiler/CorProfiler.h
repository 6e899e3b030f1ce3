//===- runtime-profiler/CorProfiler.h - CoreCLR profiling ABI, Linux x64 ---*- C++ -*-===//
//
// weft's own declarations of the CoreCLR profiling interfaces as the runtime calls them on
// Linux x64: the PAL's types (HRESULT and BOOL are 32-bit, ULONG and DWORD are 32-bit, WCHAR is
// char16_t, the IDs are pointer-sized), no calling-convention attributes, and COM interfaces as
// C++ classes with pure virtual methods. The Itanium C++ ABI lays a class's vtable out in
// declaration order after its base's, which is the layout the runtime expects; each interface
// states its total slot count (SlotCount) so tests can pin it.
//
// The method order and the IIDs follow corprof.idl of dotnet/runtime (ICorProfilerInfo15 and
// ICorProfilerCallback11 are the newest the .NET 10 runtime knows). Nothing here includes a
// runtime or Windows header.
//
//===----------------------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_CORPROFILER_H
#define WEFT_RUNTIME_PROFILER_CORPROFILER_H

#include <cstddef>
#include <cstdint>

namespace weft::prof {

//===----------------------------------------------------------------------===//
// Basic types of the PAL
//===----------------------------------------------------------------------===//

using HRESULT = int32_t;
using BOOL = int32_t;
using BYTE = uint8_t;
using USHORT = uint16_t;
using UINT = uint32_t;
using ULONG = uint32_t;
using ULONG32 = uint32_t;
using DWORD = uint32_t;
using UINT8 = uint8_t;
using UINT32 = uint32_t;
using UINT64 = uint64_t;
using UINT_PTR = uintptr_t;
using SIZE_T = size_t;
using WCHAR = char16_t;
using LPCWSTR = const WCHAR *;
using LPWSTR = WCHAR *;
using LPCBYTE = const BYTE *;
using HANDLE = void *;

/// A COM GUID in its in-memory layout (16 bytes, little-endian first three fields).
struct GUID {
  uint32_t Data1;
  uint16_t Data2;
  uint16_t Data3;
  uint8_t Data4[8];

  friend constexpr bool operator==(const GUID &, const GUID &) = default;
};
static_assert(sizeof(GUID) == 16);
using IID = GUID;
using CLSID = GUID;
using REFGUID = const GUID &;
using REFIID = const GUID &;
using REFCLSID = const GUID &;
using LPCGUID = const GUID *;

namespace detail {
// Not constexpr: reaching it while parsing a GUID literal makes the constant evaluation fail.
void invalidGuidText();

consteval uint32_t hexValue(char C) {
  if (C >= '0' && C <= '9')
    return uint32_t(C - '0');
  if (C >= 'a' && C <= 'f')
    return uint32_t(C - 'a' + 10);
  if (C >= 'A' && C <= 'F')
    return uint32_t(C - 'A' + 10);
  invalidGuidText();
  return 0;
}

consteval uint32_t hexRun(const char *Text, unsigned Begin, unsigned Digits) {
  uint32_t V = 0;
  for (unsigned I = 0; I != Digits; ++I)
    V = V << 4 | hexValue(Text[Begin + I]);
  return V;
}
} // namespace detail

/// Parses "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" at compile time.
consteval GUID guid(const char (&Text)[37]) {
  if (Text[8] != '-' || Text[13] != '-' || Text[18] != '-' || Text[23] != '-')
    detail::invalidGuidText();
  GUID G{};
  G.Data1 = detail::hexRun(Text, 0, 8);
  G.Data2 = uint16_t(detail::hexRun(Text, 9, 4));
  G.Data3 = uint16_t(detail::hexRun(Text, 14, 4));
  G.Data4[0] = uint8_t(detail::hexRun(Text, 19, 2));
  G.Data4[1] = uint8_t(detail::hexRun(Text, 21, 2));
  for (unsigned I = 0; I != 6; ++I)
    G.Data4[2 + I] = uint8_t(detail::hexRun(Text, 24 + 2 * I, 2));
  return G;
}

//===----------------------------------------------------------------------===//
// HRESULTs
//===----------------------------------------------------------------------===//

inline constexpr HRESULT S_OK = 0;
inline constexpr HRESULT S_FALSE = 1;
inline constexpr HRESULT E_NOTIMPL = static_cast<HRESULT>(0x80004001u);
inline constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
inline constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
inline constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
inline constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
inline constexpr HRESULT E_INVALIDARG = static_cast<HRESULT>(0x80070057u);
inline constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);
/// Returned from Initialize to tell the runtime not to load the profiler after all.
inline constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = static_cast<HRESULT>(0x80131375u);

constexpr bool succeeded(HRESULT Hr) { return Hr >= 0; }
constexpr bool failed(HRESULT Hr) { return Hr < 0; }

//===----------------------------------------------------------------------===//
// Metadata tokens and signatures (the ones the profiling interfaces use)
//===----------------------------------------------------------------------===//

using mdToken = uint32_t;
using mdModule = mdToken;
using mdTypeDef = mdToken;
using mdMethodDef = mdToken;
using mdFieldDef = mdToken;
using CorElementType = uint32_t;
using PCCOR_SIGNATURE = const uint8_t *;
using PCOR_SIGNATURE = uint8_t *;

/// GetModuleMetaData's open flags (the only two it accepts).
inline constexpr DWORD ofRead = 0x0;
inline constexpr DWORD ofWrite = 0x1;

//===----------------------------------------------------------------------===//
// Runtime IDs
//===----------------------------------------------------------------------===//

using ProcessID = uintptr_t;
using AssemblyID = uintptr_t;
using AppDomainID = uintptr_t;
using ModuleID = uintptr_t;
using ClassID = uintptr_t;
using ThreadID = uintptr_t;
using ContextID = uintptr_t;
using FunctionID = uintptr_t;
using ObjectID = uintptr_t;
using GCHandleID = uintptr_t;
using COR_PRF_ELT_INFO = uintptr_t;
using ReJITID = uintptr_t;
using COR_PRF_FRAME_INFO = uintptr_t;
using EVENTPIPE_PROVIDER = uintptr_t;
using EVENTPIPE_EVENT = uintptr_t;
using EVENTPIPE_SESSION = uint64_t;
using ObjectHandleID = void **;

/// What the enter/leave/tailcall hooks of version 3 receive: the FunctionID, or what the
/// FunctionIDMapper returned for it.
union FunctionIDOrClientID {
  FunctionID functionID;
  UINT_PTR clientID;
};

//===----------------------------------------------------------------------===//
// Structs used in signatures
//===----------------------------------------------------------------------===//

/// One old-to-new IL offset pair of an instrumented method.
struct COR_IL_MAP {
  ULONG32 oldOffset;
  ULONG32 newOffset;
  BOOL fAccurate;
};

/// Special ilOffset values of COR_DEBUG_IL_TO_NATIVE_MAP.
enum CorDebugIlToNativeMappingTypes : int32_t { NO_MAPPING = -1, PROLOG = -2, EPILOG = -3 };

/// One IL offset and the native range compiled from it.
struct COR_DEBUG_IL_TO_NATIVE_MAP {
  ULONG32 ilOffset;
  ULONG32 nativeStartOffset;
  ULONG32 nativeEndOffset;
};

/// A field of a class layout: its token and its offset from the ObjectID.
struct COR_FIELD_OFFSET {
  mdFieldDef ridOfField;
  ULONG ulOffset;
};

/// One contiguous run of arguments in memory.
struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
  UINT_PTR startAddress;
  ULONG length;
};

/// Where a function's arguments are (a variable-length struct: numRanges ranges follow).
struct COR_PRF_FUNCTION_ARGUMENT_INFO {
  ULONG numRanges;
  ULONG totalArgumentSize;
  COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
};

/// One contiguous chunk of native code.
struct COR_PRF_CODE_INFO {
  UINT_PTR startAddress;
  SIZE_T size;
};

/// A function and one of its ReJIT versions.
struct COR_PRF_FUNCTION {
  FunctionID functionId;
  ReJITID reJitId;
};

/// A method by module and token.
struct COR_PRF_METHOD {
  ModuleID moduleId;
  mdMethodDef methodId;
};

/// Operating system entry of ASSEMBLYMETADATA.
struct OSINFO {
  DWORD dwOSPlatformId;
  DWORD dwOSMajorVersion;
  DWORD dwOSMinorVersion;
};

/// Version, culture and platform of an assembly (cor.h).
struct ASSEMBLYMETADATA {
  USHORT usMajorVersion;
  USHORT usMinorVersion;
  USHORT usBuildNumber;
  USHORT usRevisionNumber;
  LPWSTR szLocale;
  ULONG cbLocale;
  DWORD *rProcessor;
  ULONG ulProcessor;
  OSINFO *rOS;
  ULONG ulOS;
};

/// An assembly reference announced through ICorProfilerAssemblyReferenceProvider.
struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
  void *pbPublicKeyOrToken;
  ULONG cbPublicKeyOrToken;
  LPCWSTR szName;
  ASSEMBLYMETADATA *pMetaData;
  void *pbHashValue;
  ULONG cbHashValue;
  DWORD dwAssemblyRefFlags;
};

//===----------------------------------------------------------------------===//
// Enums and flags
//===----------------------------------------------------------------------===//

/// DoStackSnapshot's infoFlags.
enum COR_PRF_SNAPSHOT_INFO : uint32_t {
  COR_PRF_SNAPSHOT_DEFAULT = 0x0,
  COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
  COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2,
};

/// Kinds of static field (bits).
enum COR_PRF_STATIC_TYPE : uint32_t {
  COR_PRF_FIELD_NOT_A_STATIC = 0x0,
  COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
  COR_PRF_FIELD_THREAD_STATIC = 0x2,
  COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
  COR_PRF_FIELD_RVA_STATIC = 0x8,
};

/// The event mask of SetEventMask, and the low half of SetEventMask2's.
enum COR_PRF_MONITOR : uint32_t {
  COR_PRF_MONITOR_NONE = 0x00000000,
  COR_PRF_MONITOR_FUNCTION_UNLOADS = 0x00000001,
  COR_PRF_MONITOR_CLASS_LOADS = 0x00000002,
  COR_PRF_MONITOR_MODULE_LOADS = 0x00000004,
  COR_PRF_MONITOR_ASSEMBLY_LOADS = 0x00000008,
  COR_PRF_MONITOR_APPDOMAIN_LOADS = 0x00000010,
  COR_PRF_MONITOR_JIT_COMPILATION = 0x00000020,
  COR_PRF_MONITOR_EXCEPTIONS = 0x00000040,
  COR_PRF_MONITOR_GC = 0x00000080,
  COR_PRF_MONITOR_OBJECT_ALLOCATED = 0x00000100,
  COR_PRF_MONITOR_THREADS = 0x00000200,
  COR_PRF_MONITOR_REMOTING = 0x00000400,
  COR_PRF_MONITOR_CODE_TRANSITIONS = 0x00000800,
  COR_PRF_MONITOR_ENTERLEAVE = 0x00001000,
  COR_PRF_MONITOR_CCW = 0x00002000,
  COR_PRF_MONITOR_REMOTING_COOKIE = 0x00004000 | COR_PRF_MONITOR_REMOTING,
  COR_PRF_MONITOR_REMOTING_ASYNC = 0x00008000 | COR_PRF_MONITOR_REMOTING,
  COR_PRF_MONITOR_SUSPENDS = 0x00010000,
  COR_PRF_MONITOR_CACHE_SEARCHES = 0x00020000,
  COR_PRF_ENABLE_REJIT = 0x00040000,
  COR_PRF_ENABLE_INPROC_DEBUGGING = 0x00080000,
  COR_PRF_ENABLE_JIT_MAPS = 0x00100000,
  COR_PRF_DISABLE_INLINING = 0x00200000,
  COR_PRF_DISABLE_OPTIMIZATIONS = 0x00400000,
  COR_PRF_ENABLE_OBJECT_ALLOCATED = 0x00800000,
  COR_PRF_MONITOR_CLR_EXCEPTIONS = 0x01000000,
  COR_PRF_MONITOR_ALL = 0x0107FFFF,
  COR_PRF_ENABLE_FUNCTION_ARGS = 0x02000000,
  COR_PRF_ENABLE_FUNCTION_RETVAL = 0x04000000,
  COR_PRF_ENABLE_FRAME_INFO = 0x08000000,
  COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000,
  COR_PRF_USE_PROFILE_IMAGES = 0x20000000,
  COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST = 0x40000000,
  COR_PRF_DISABLE_ALL_NGEN_IMAGES = 0x80000000,
  COR_PRF_ALL = 0x8FFFFFFF,
  COR_PRF_REQUIRE_PROFILE_IMAGE =
      COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE,
  COR_PRF_ALLOWABLE_AFTER_ATTACH =
      COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
      COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC |
      COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |
      COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
      COR_PRF_ENABLE_REJIT,
  COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER =
      COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS |
      COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
      COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |
      COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS |
      COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS |
      COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
      COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_CLR_EXCEPTIONS |
      COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES,
  /// The flags that can only be set in Initialize.
  COR_PRF_MONITOR_IMMUTABLE =
      COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING |
      COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC |
      COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS | COR_PRF_ENABLE_OBJECT_ALLOCATED |
      COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO |
      COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST |
      COR_PRF_DISABLE_ALL_NGEN_IMAGES,
};

/// The high half of SetEventMask2's event mask.
enum COR_PRF_HIGH_MONITOR : uint32_t {
  COR_PRF_HIGH_MONITOR_NONE = 0x00000000,
  COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES = 0x00000001,
  COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED = 0x00000002,
  COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS = 0x00000004,
  COR_PRF_HIGH_DISABLE_TIERED_COMPILATION = 0x00000008,
  COR_PRF_HIGH_BASIC_GC = 0x00000010,
  COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS = 0x00000020,
  COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE = 0,
  COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED = 0x00000040,
  COR_PRF_HIGH_MONITOR_EVENT_PIPE = 0x00000080,
  COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED = 0x00000100,
  COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH =
      COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
      COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |
      COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE,
  COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER =
      COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
      COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |
      COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
      COR_PRF_HIGH_MONITOR_EVENT_PIPE,
  /// The high flags that can only be set in Initialize.
  COR_PRF_HIGH_MONITOR_IMMUTABLE = COR_PRF_HIGH_DISABLE_TIERED_COMPILATION,
};

/// Special IDs.
enum COR_PRF_MISC : uint32_t {
  PROFILER_PARENT_UNKNOWN = 0xFFFFFFFD,
  PROFILER_GLOBAL_CLASS = 0xFFFFFFFE,
  PROFILER_GLOBAL_MODULE = 0xFFFFFFFF,
};

/// Result of a search for precompiled code (FOUND is 0).
enum COR_PRF_JIT_CACHE : uint32_t {
  COR_PRF_CACHED_FUNCTION_FOUND = 0,
  COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1,
};

/// Why a managed/unmanaged transition happened.
enum COR_PRF_TRANSITION_REASON : uint32_t {
  COR_PRF_TRANSITION_CALL = 0,
  COR_PRF_TRANSITION_RETURN = 1,
};

/// Why the runtime suspends.
enum COR_PRF_SUSPEND_REASON : uint32_t {
  COR_PRF_SUSPEND_OTHER = 0,
  COR_PRF_SUSPEND_FOR_GC = 1,
  COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
  COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
  COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
  COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
  COR_PRF_SUSPEND_FOR_GC_PREP = 7,
  COR_PRF_SUSPEND_FOR_REJIT = 8,
  COR_PRF_SUSPEND_FOR_PROFILER = 9,
};

/// Which runtime GetRuntimeInformation describes.
enum COR_PRF_RUNTIME_TYPE : uint32_t {
  COR_PRF_DESKTOP_CLR = 0x1,
  COR_PRF_CORE_CLR = 0x2,
};

/// RequestReJITWithInliners' flags.
enum COR_PRF_REJIT_FLAGS : uint32_t {
  COR_PRF_REJIT_BLOCK_INLINING = 0x1,
  COR_PRF_REJIT_INLINING_CALLBACKS = 0x2,
};

/// Types of EventPipe event parameters.
enum COR_PRF_EVENTPIPE_PARAM_TYPE : uint32_t {
  COR_PRF_EVENTPIPE_OBJECT = 1,
  COR_PRF_EVENTPIPE_BOOLEAN = 3,
  COR_PRF_EVENTPIPE_CHAR = 4,
  COR_PRF_EVENTPIPE_SBYTE = 5,
  COR_PRF_EVENTPIPE_BYTE = 6,
  COR_PRF_EVENTPIPE_INT16 = 7,
  COR_PRF_EVENTPIPE_UINT16 = 8,
  COR_PRF_EVENTPIPE_INT32 = 9,
  COR_PRF_EVENTPIPE_UINT32 = 10,
  COR_PRF_EVENTPIPE_INT64 = 11,
  COR_PRF_EVENTPIPE_UINT64 = 12,
  COR_PRF_EVENTPIPE_SINGLE = 13,
  COR_PRF_EVENTPIPE_DOUBLE = 14,
  COR_PRF_EVENTPIPE_DECIMAL = 15,
  COR_PRF_EVENTPIPE_DATETIME = 16,
  COR_PRF_EVENTPIPE_GUID = 17,
  COR_PRF_EVENTPIPE_STRING = 18,
  COR_PRF_EVENTPIPE_ARRAY = 19,
};

/// EventPipe levels.
enum COR_PRF_EVENTPIPE_LEVEL : uint32_t {
  COR_PRF_EVENTPIPE_LOGALWAYS = 0,
  COR_PRF_EVENTPIPE_CRITICAL = 1,
  COR_PRF_EVENTPIPE_ERROR = 2,
  COR_PRF_EVENTPIPE_WARNING = 3,
  COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
  COR_PRF_EVENTPIPE_VERBOSE = 5,
};

/// A provider an EventPipe session enables (passed by value to EventPipeAddProviderToSession).
struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
  const WCHAR *providerName;
  UINT64 keywords;
  UINT32 loggingLevel;
  const WCHAR *filterData;
};

/// One parameter of an event EventPipeDefineEvent defines.
struct COR_PRF_EVENTPIPE_PARAM_DESC {
  UINT32 type;
  UINT32 elementType;
  const WCHAR *name;
};

/// One piece of an event's payload.
struct COR_PRF_EVENT_DATA {
  UINT64 ptr;
  UINT32 size;
  UINT32 reserved;
};

/// Filter data given to an EventPipe provider callback.
struct COR_PRF_FILTER_DATA {
  UINT64 Ptr;
  UINT32 Size;
  UINT32 Type;
};

/// Strength of a handle CreateHandle makes.
enum COR_PRF_HANDLE_TYPE : uint32_t {
  COR_PRF_HANDLE_TYPE_WEAK = 0x1,
  COR_PRF_HANDLE_TYPE_STRONG = 0x2,
  COR_PRF_HANDLE_TYPE_PINNED = 0x3,
};

/// Kind of a GC root in RootReferences2.
enum COR_PRF_GC_ROOT_KIND : uint32_t {
  COR_PRF_GC_ROOT_STACK = 1,
  COR_PRF_GC_ROOT_FINALIZER = 2,
  COR_PRF_GC_ROOT_HANDLE = 3,
  COR_PRF_GC_ROOT_OTHER = 0,
};

/// Properties of a GC root (bits).
enum COR_PRF_GC_ROOT_FLAGS : uint32_t {
  COR_PRF_GC_ROOT_PINNING = 0x1,
  COR_PRF_GC_ROOT_WEAKREF = 0x2,
  COR_PRF_GC_ROOT_INTERIOR = 0x4,
  COR_PRF_GC_ROOT_REFCOUNTED = 0x8,
};

/// FinalizeableObjectQueued's flags.
enum COR_PRF_FINALIZER_FLAGS : uint32_t {
  COR_PRF_FINALIZER_CRITICAL = 0x1,
};

/// GC generations.
enum COR_PRF_GC_GENERATION : uint32_t {
  COR_PRF_GC_GEN_0 = 0,
  COR_PRF_GC_GEN_1 = 1,
  COR_PRF_GC_GEN_2 = 2,
  COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
  COR_PRF_GC_PINNED_OBJECT_HEAP = 4,
};

/// A range of memory of one GC generation.
struct COR_PRF_GC_GENERATION_RANGE {
  COR_PRF_GC_GENERATION generation;
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

/// A range of the non-GC (frozen object) heap.
struct COR_PRF_NONGC_HEAP_RANGE {
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

/// Kinds of exception clause.
enum COR_PRF_CLAUSE_TYPE : uint32_t {
  COR_PRF_CLAUSE_NONE = 0,
  COR_PRF_CLAUSE_FILTER = 1,
  COR_PRF_CLAUSE_CATCH = 2,
  COR_PRF_CLAUSE_FINALLY = 3,
};

/// The exception clause being entered or left, and its frame.
struct COR_PRF_EX_CLAUSE_INFO {
  COR_PRF_CLAUSE_TYPE clauseType;
  UINT_PTR programCounter;
  UINT_PTR framePointer;
  UINT_PTR shadowStackPointer;
};

/// Why a GC happened.
enum COR_PRF_GC_REASON : uint32_t {
  COR_PRF_GC_INDUCED = 1,
  COR_PRF_GC_OTHER = 0,
};

/// GetModuleInfo2's module flags (bits).
enum COR_PRF_MODULE_FLAGS : uint32_t {
  COR_PRF_MODULE_DISK = 0x00000001,
  COR_PRF_MODULE_NGEN = 0x00000002,
  COR_PRF_MODULE_DYNAMIC = 0x00000004,
  COR_PRF_MODULE_COLLECTIBLE = 0x00000008,
  COR_PRF_MODULE_RESOURCE = 0x00000010,
  COR_PRF_MODULE_FLAT_LAYOUT = 0x00000020,
  COR_PRF_MODULE_WINDOWS_RUNTIME = 0x00000040,
};

/// ICorProfilerFunctionControl::SetCodegenFlags' flags.
enum COR_PRF_CODEGEN_FLAGS : uint32_t {
  COR_PRF_CODEGEN_DISABLE_INLINING = 0x0001,
  COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x0002,
  COR_PRF_CODEGEN_DEBUG_INFO = 0x0003,
};

//===----------------------------------------------------------------------===//
// Function types the runtime calls (hooks, mappers, enumeration callbacks)
//===----------------------------------------------------------------------===//

using FunctionIDMapper = UINT_PTR(FunctionID FuncId, BOOL *HookFunction);
using FunctionIDMapper2 = UINT_PTR(FunctionID FuncId, void *ClientData, BOOL *HookFunction);

using FunctionEnter = void(FunctionID FuncId);
using FunctionLeave = void(FunctionID FuncId);
using FunctionTailcall = void(FunctionID FuncId);

using FunctionEnter2 = void(FunctionID FuncId, UINT_PTR ClientData, COR_PRF_FRAME_INFO Frame,
                            COR_PRF_FUNCTION_ARGUMENT_INFO *ArgumentInfo);
using FunctionLeave2 = void(FunctionID FuncId, UINT_PTR ClientData, COR_PRF_FRAME_INFO Frame,
                            COR_PRF_FUNCTION_ARGUMENT_RANGE *RetvalRange);
using FunctionTailcall2 = void(FunctionID FuncId, UINT_PTR ClientData, COR_PRF_FRAME_INFO Frame);

using FunctionEnter3 = void(FunctionIDOrClientID Id);
using FunctionLeave3 = void(FunctionIDOrClientID Id);
using FunctionTailcall3 = void(FunctionIDOrClientID Id);

using FunctionEnter3WithInfo = void(FunctionIDOrClientID Id, COR_PRF_ELT_INFO EltInfo);
using FunctionLeave3WithInfo = void(FunctionIDOrClientID Id, COR_PRF_ELT_INFO EltInfo);
using FunctionTailcall3WithInfo = void(FunctionIDOrClientID Id, COR_PRF_ELT_INFO EltInfo);

using StackSnapshotCallback = HRESULT(FunctionID FuncId, UINT_PTR Ip, COR_PRF_FRAME_INFO FrameInfo,
                                      ULONG32 ContextSize, BYTE *Context, void *ClientData);
using ObjectReferenceCallback = BOOL(ObjectID Root, ObjectID *Reference, void *ClientData);
/// Called for each object of the GC heap; returning FALSE stops the walk. (A pointer type, as
/// in the idl.)
using ObjectCallback = BOOL (*)(ObjectID Object, void *CallbackState);
using EventPipeProviderCallback = void(const UINT8 *SourceId, UINT32 IsEnabled, UINT8 Level,
                                       UINT64 MatchAnyKeywords, UINT64 MatchAllKeywords,
                                       COR_PRF_FILTER_DATA *FilterData, void *CallbackData);

//===----------------------------------------------------------------------===//
// COM basics
//===----------------------------------------------------------------------===//

/// The root of every COM interface: interface lookup and reference counting.
struct IUnknown {
  static constexpr unsigned SlotCount = 3;

  virtual HRESULT QueryInterface(REFIID Riid, void **Object) = 0;
  virtual ULONG AddRef() = 0;
  virtual ULONG Release() = 0;
};

/// What DllGetClassObject hands out: makes the profiler object.
struct IClassFactory : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 2;

  virtual HRESULT CreateInstance(IUnknown *Outer, REFIID Riid, void **Object) = 0;
  virtual HRESULT LockServer(BOOL Lock) = 0;
};

struct ICorProfilerFunctionControl;
struct ICorProfilerAssemblyReferenceProvider;
struct ICorProfilerObjectEnum;
struct ICorProfilerFunctionEnum;
struct ICorProfilerModuleEnum;
struct ICorProfilerThreadEnum;
struct ICorProfilerMethodEnum;
struct IMethodMalloc;

//===----------------------------------------------------------------------===//
// Callbacks: the runtime calls the profiler
//===----------------------------------------------------------------------===//

/// The runtime's notifications to the profiler, version 1 (startup, loads, JIT, threads,
/// transitions, suspension, GC, exceptions, COM vtables).
struct ICorProfilerCallback : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 69;

  virtual HRESULT Initialize(IUnknown *ProfilerInfoUnk) = 0;
  virtual HRESULT Shutdown() = 0;

  virtual HRESULT AppDomainCreationStarted(AppDomainID AppDomainId) = 0;
  virtual HRESULT AppDomainCreationFinished(AppDomainID AppDomainId, HRESULT HrStatus) = 0;
  virtual HRESULT AppDomainShutdownStarted(AppDomainID AppDomainId) = 0;
  virtual HRESULT AppDomainShutdownFinished(AppDomainID AppDomainId, HRESULT HrStatus) = 0;

  virtual HRESULT AssemblyLoadStarted(AssemblyID AssemblyId) = 0;
  virtual HRESULT AssemblyLoadFinished(AssemblyID AssemblyId, HRESULT HrStatus) = 0;
  virtual HRESULT AssemblyUnloadStarted(AssemblyID AssemblyId) = 0;
  virtual HRESULT AssemblyUnloadFinished(AssemblyID AssemblyId, HRESULT HrStatus) = 0;

  virtual HRESULT ModuleLoadStarted(ModuleID ModuleId) = 0;
  virtual HRESULT ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) = 0;
  virtual HRESULT ModuleUnloadStarted(ModuleID ModuleId) = 0;
  virtual HRESULT ModuleUnloadFinished(ModuleID ModuleId, HRESULT HrStatus) = 0;
  virtual HRESULT ModuleAttachedToAssembly(ModuleID ModuleId, AssemblyID AssemblyId) = 0;

  virtual HRESULT ClassLoadStarted(ClassID ClassId) = 0;
  virtual HRESULT ClassLoadFinished(ClassID ClassId, HRESULT HrStatus) = 0;
  virtual HRESULT ClassUnloadStarted(ClassID ClassId) = 0;
  virtual HRESULT ClassUnloadFinished(ClassID ClassId, HRESULT HrStatus) = 0;
  virtual HRESULT FunctionUnloadStarted(FunctionID FunctionId) = 0;

  virtual HRESULT JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) = 0;
  virtual HRESULT JITCompilationFinished(FunctionID FunctionId, HRESULT HrStatus,
                                         BOOL IsSafeToBlock) = 0;
  virtual HRESULT JITCachedFunctionSearchStarted(FunctionID FunctionId,
                                                 BOOL *UseCachedFunction) = 0;
  virtual HRESULT JITCachedFunctionSearchFinished(FunctionID FunctionId,
                                                  COR_PRF_JIT_CACHE Result) = 0;
  virtual HRESULT JITFunctionPitched(FunctionID FunctionId) = 0;
  virtual HRESULT JITInlining(FunctionID CallerId, FunctionID CalleeId, BOOL *ShouldInline) = 0;

  virtual HRESULT ThreadCreated(ThreadID ThreadId) = 0;
  virtual HRESULT ThreadDestroyed(ThreadID ThreadId) = 0;
  virtual HRESULT ThreadAssignedToOSThread(ThreadID ManagedThreadId, DWORD OsThreadId) = 0;

  virtual HRESULT RemotingClientInvocationStarted() = 0;
  virtual HRESULT RemotingClientSendingMessage(GUID *Cookie, BOOL IsAsync) = 0;
  virtual HRESULT RemotingClientReceivingReply(GUID *Cookie, BOOL IsAsync) = 0;
  virtual HRESULT RemotingClientInvocationFinished() = 0;
  virtual HRESULT RemotingServerReceivingMessage(GUID *Cookie, BOOL IsAsync) = 0;
  virtual HRESULT RemotingServerInvocationStarted() = 0;
  virtual HRESULT RemotingServerInvocationReturned() = 0;
  virtual HRESULT RemotingServerSendingReply(GUID *Cookie, BOOL IsAsync) = 0;

  virtual HRESULT UnmanagedToManagedTransition(FunctionID FunctionId,
                                               COR_PRF_TRANSITION_REASON Reason) = 0;
  virtual HRESULT ManagedToUnmanagedTransition(FunctionID FunctionId,
                                               COR_PRF_TRANSITION_REASON Reason) = 0;

  virtual HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON SuspendReason) = 0;
  virtual HRESULT RuntimeSuspendFinished() = 0;
  virtual HRESULT RuntimeSuspendAborted() = 0;
  virtual HRESULT RuntimeResumeStarted() = 0;
  virtual HRESULT RuntimeResumeFinished() = 0;
  virtual HRESULT RuntimeThreadSuspended(ThreadID ThreadId) = 0;
  virtual HRESULT RuntimeThreadResumed(ThreadID ThreadId) = 0;

  virtual HRESULT MovedReferences(ULONG RangeCount, ObjectID *OldRangeStarts,
                                  ObjectID *NewRangeStarts, ULONG *RangeLengths) = 0;
  virtual HRESULT ObjectAllocated(ObjectID ObjectId, ClassID ClassId) = 0;
  virtual HRESULT ObjectsAllocatedByClass(ULONG ClassCount, ClassID *ClassIds,
                                          ULONG *ObjectCounts) = 0;
  virtual HRESULT ObjectReferences(ObjectID ObjectId, ClassID ClassId, ULONG RefCount,
                                   ObjectID *RefIds) = 0;
  virtual HRESULT RootReferences(ULONG RootCount, ObjectID *RootIds) = 0;

  virtual HRESULT ExceptionThrown(ObjectID ThrownObjectId) = 0;
  virtual HRESULT ExceptionSearchFunctionEnter(FunctionID FunctionId) = 0;
  virtual HRESULT ExceptionSearchFunctionLeave() = 0;
  virtual HRESULT ExceptionSearchFilterEnter(FunctionID FunctionId) = 0;
  virtual HRESULT ExceptionSearchFilterLeave() = 0;
  virtual HRESULT ExceptionSearchCatcherFound(FunctionID FunctionId) = 0;
  virtual HRESULT ExceptionOSHandlerEnter(UINT_PTR Unused) = 0;
  virtual HRESULT ExceptionOSHandlerLeave(UINT_PTR Unused) = 0;
  virtual HRESULT ExceptionUnwindFunctionEnter(FunctionID FunctionId) = 0;
  virtual HRESULT ExceptionUnwindFunctionLeave() = 0;
  virtual HRESULT ExceptionUnwindFinallyEnter(FunctionID FunctionId) = 0;
  virtual HRESULT ExceptionUnwindFinallyLeave() = 0;
  virtual HRESULT ExceptionCatcherEnter(FunctionID FunctionId, ObjectID ObjectId) = 0;
  virtual HRESULT ExceptionCatcherLeave() = 0;

  virtual HRESULT COMClassicVTableCreated(ClassID WrappedClassId, REFGUID ImplementedIid,
                                          void *VTable, ULONG VTableSlots) = 0;
  virtual HRESULT COMClassicVTableDestroyed(ClassID WrappedClassId, REFGUID ImplementedIid,
                                            void *VTable) = 0;

  virtual HRESULT ExceptionCLRCatcherFound() = 0;
  virtual HRESULT ExceptionCLRCatcherExecute() = 0;
};

/// Version 2 callbacks: thread names, GC start/finish and roots, GC handles.
struct ICorProfilerCallback2 : ICorProfilerCallback {
  static constexpr unsigned SlotCount = ICorProfilerCallback::SlotCount + 8;

  virtual HRESULT ThreadNameChanged(ThreadID ThreadId, ULONG NameLength, WCHAR *Name) = 0;
  virtual HRESULT GarbageCollectionStarted(int GenerationCount, BOOL *GenerationCollected,
                                           COR_PRF_GC_REASON Reason) = 0;
  virtual HRESULT SurvivingReferences(ULONG RangeCount, ObjectID *RangeStarts,
                                      ULONG *RangeLengths) = 0;
  virtual HRESULT GarbageCollectionFinished() = 0;
  virtual HRESULT FinalizeableObjectQueued(DWORD FinalizerFlags, ObjectID ObjectId) = 0;
  virtual HRESULT RootReferences2(ULONG RootCount, ObjectID *RootRefIds,
                                  COR_PRF_GC_ROOT_KIND *RootKinds, COR_PRF_GC_ROOT_FLAGS *RootFlags,
                                  UINT_PTR *RootIds) = 0;
  virtual HRESULT HandleCreated(GCHandleID HandleId, ObjectID InitialObjectId) = 0;
  virtual HRESULT HandleDestroyed(GCHandleID HandleId) = 0;
};

/// Version 3 callbacks: attach and detach.
struct ICorProfilerCallback3 : ICorProfilerCallback2 {
  static constexpr unsigned SlotCount = ICorProfilerCallback2::SlotCount + 3;

  virtual HRESULT InitializeForAttach(IUnknown *ProfilerInfoUnk, void *ClientData,
                                      UINT ClientDataSize) = 0;
  virtual HRESULT ProfilerAttachComplete() = 0;
  virtual HRESULT ProfilerDetachSucceeded() = 0;
};

/// Version 4 callbacks: ReJIT, and 64-bit moved/surviving reference ranges.
struct ICorProfilerCallback4 : ICorProfilerCallback3 {
  static constexpr unsigned SlotCount = ICorProfilerCallback3::SlotCount + 6;

  virtual HRESULT ReJITCompilationStarted(FunctionID FunctionId, ReJITID RejitId,
                                          BOOL IsSafeToBlock) = 0;
  virtual HRESULT GetReJITParameters(ModuleID ModuleId, mdMethodDef MethodId,
                                     ICorProfilerFunctionControl *FunctionControl) = 0;
  virtual HRESULT ReJITCompilationFinished(FunctionID FunctionId, ReJITID RejitId, HRESULT HrStatus,
                                           BOOL IsSafeToBlock) = 0;
  virtual HRESULT ReJITError(ModuleID ModuleId, mdMethodDef MethodId, FunctionID FunctionId,
                             HRESULT HrStatus) = 0;
  virtual HRESULT MovedReferences2(ULONG RangeCount, ObjectID *OldRangeStarts,
                                   ObjectID *NewRangeStarts, SIZE_T *RangeLengths) = 0;
  virtual HRESULT SurvivingReferences2(ULONG RangeCount, ObjectID *RangeStarts,
                                       SIZE_T *RangeLengths) = 0;
};

/// Version 5 callbacks: ConditionalWeakTable dependent handles.
struct ICorProfilerCallback5 : ICorProfilerCallback4 {
  static constexpr unsigned SlotCount = ICorProfilerCallback4::SlotCount + 1;

  virtual HRESULT ConditionalWeakTableElementReferences(ULONG RootCount, ObjectID *KeyRefIds,
                                                        ObjectID *ValueRefIds,
                                                        GCHandleID *RootIds) = 0;
};

/// Version 6 callbacks: assembly references before a load (not raised by CoreCLR).
struct ICorProfilerCallback6 : ICorProfilerCallback5 {
  static constexpr unsigned SlotCount = ICorProfilerCallback5::SlotCount + 1;

  virtual HRESULT GetAssemblyReferences(const WCHAR *AssemblyPath,
                                        ICorProfilerAssemblyReferenceProvider *Provider) = 0;
};

/// Version 7 callbacks: in-memory symbols updated.
struct ICorProfilerCallback7 : ICorProfilerCallback6 {
  static constexpr unsigned SlotCount = ICorProfilerCallback6::SlotCount + 1;

  virtual HRESULT ModuleInMemorySymbolsUpdated(ModuleID ModuleId) = 0;
};

/// Version 8 callbacks: dynamic methods (IL stubs, LCG) compiled.
struct ICorProfilerCallback8 : ICorProfilerCallback7 {
  static constexpr unsigned SlotCount = ICorProfilerCallback7::SlotCount + 2;

  virtual HRESULT DynamicMethodJITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock,
                                                     LPCBYTE ILHeader, ULONG ILHeaderSize) = 0;
  virtual HRESULT DynamicMethodJITCompilationFinished(FunctionID FunctionId, HRESULT HrStatus,
                                                      BOOL IsSafeToBlock) = 0;
};

/// Version 9 callbacks: dynamic methods unloaded.
struct ICorProfilerCallback9 : ICorProfilerCallback8 {
  static constexpr unsigned SlotCount = ICorProfilerCallback8::SlotCount + 1;

  virtual HRESULT DynamicMethodUnloaded(FunctionID FunctionId) = 0;
};

/// Version 10 callbacks: EventPipe events and providers.
struct ICorProfilerCallback10 : ICorProfilerCallback9 {
  static constexpr unsigned SlotCount = ICorProfilerCallback9::SlotCount + 2;

  virtual HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER Provider, DWORD EventId,
                                          DWORD EventVersion, ULONG MetadataBlobSize,
                                          LPCBYTE MetadataBlob, ULONG EventDataSize,
                                          LPCBYTE EventData, LPCGUID ActivityId,
                                          LPCGUID RelatedActivityId, ThreadID EventThread,
                                          ULONG StackFrameCount, UINT_PTR *StackFrames) = 0;
  virtual HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER Provider) = 0;
};

/// Version 11 callbacks: loading as a notification-only profiler.
struct ICorProfilerCallback11 : ICorProfilerCallback10 {
  static constexpr unsigned SlotCount = ICorProfilerCallback10::SlotCount + 1;

  virtual HRESULT LoadAsNotificationOnly(BOOL *NotificationOnly) = 0;
};

//===----------------------------------------------------------------------===//
// Helpers the runtime hands to the profiler
//===----------------------------------------------------------------------===//

/// The old allocator for new IL bodies (SetILFunctionBody); any allocator works nowadays.
struct IMethodMalloc : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 1;

  virtual void *Alloc(ULONG Size) = 0;
};

/// What GetReJITParameters gets: sets the new IL and code generation flags of a ReJIT.
struct ICorProfilerFunctionControl : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 3;

  virtual HRESULT SetCodegenFlags(DWORD Flags) = 0;
  virtual HRESULT SetILFunctionBody(ULONG NewILMethodHeaderSize, LPCBYTE NewILMethodHeader) = 0;
  virtual HRESULT SetILInstrumentedCodeMap(ULONG EntryCount, COR_IL_MAP *Entries) = 0;
};

/// Lets GetAssemblyReferences announce assembly references the profiler will add.
struct ICorProfilerAssemblyReferenceProvider : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 1;

  virtual HRESULT AddAssemblyReference(const COR_PRF_ASSEMBLY_REFERENCE_INFO *Info) = 0;
};

/// Enumerates objects (frozen or non-GC heap objects).
struct ICorProfilerObjectEnum : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 5;

  virtual HRESULT Skip(ULONG Count) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerObjectEnum **Enum) = 0;
  virtual HRESULT GetCount(ULONG *Count) = 0;
  virtual HRESULT Next(ULONG Count, ObjectID *Objects, ULONG *Fetched) = 0;
};

/// Enumerates compiled functions.
struct ICorProfilerFunctionEnum : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 5;

  virtual HRESULT Skip(ULONG Count) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerFunctionEnum **Enum) = 0;
  virtual HRESULT GetCount(ULONG *Count) = 0;
  virtual HRESULT Next(ULONG Count, COR_PRF_FUNCTION *Ids, ULONG *Fetched) = 0;
};

/// Enumerates loaded modules.
struct ICorProfilerModuleEnum : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 5;

  virtual HRESULT Skip(ULONG Count) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerModuleEnum **Enum) = 0;
  virtual HRESULT GetCount(ULONG *Count) = 0;
  virtual HRESULT Next(ULONG Count, ModuleID *Ids, ULONG *Fetched) = 0;
};

/// Enumerates managed threads.
struct ICorProfilerThreadEnum : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 5;

  virtual HRESULT Skip(ULONG Count) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerThreadEnum **Enum) = 0;
  virtual HRESULT GetCount(ULONG *Count) = 0;
  virtual HRESULT Next(ULONG Count, ThreadID *Ids, ULONG *Fetched) = 0;
};

/// Enumerates methods (by module and token).
struct ICorProfilerMethodEnum : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 5;

  virtual HRESULT Skip(ULONG Count) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerMethodEnum **Enum) = 0;
  virtual HRESULT GetCount(ULONG *Count) = 0;
  virtual HRESULT Next(ULONG Count, COR_PRF_METHOD *Elements, ULONG *Fetched) = 0;
};

//===----------------------------------------------------------------------===//
// Info: the profiler calls the runtime
//===----------------------------------------------------------------------===//

/// The runtime's services to the profiler, version 1 (IDs to metadata, event mask, IL bodies,
/// hooks, IL maps).
struct ICorProfilerInfo : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 33;

  virtual HRESULT GetClassFromObject(ObjectID ObjectId, ClassID *ClassId) = 0;
  virtual HRESULT GetClassFromToken(ModuleID ModuleId, mdTypeDef TypeDef, ClassID *ClassId) = 0;
  virtual HRESULT GetCodeInfo(FunctionID FunctionId, LPCBYTE *Start, ULONG *Size) = 0;
  virtual HRESULT GetEventMask(DWORD *Events) = 0;
  virtual HRESULT GetFunctionFromIP(LPCBYTE Ip, FunctionID *FunctionId) = 0;
  virtual HRESULT GetFunctionFromToken(ModuleID ModuleId, mdToken Token,
                                       FunctionID *FunctionId) = 0;
  virtual HRESULT GetHandleFromThread(ThreadID ThreadId, HANDLE *Thread) = 0;
  virtual HRESULT GetObjectSize(ObjectID ObjectId, ULONG *Size) = 0;
  virtual HRESULT IsArrayClass(ClassID ClassId, CorElementType *BaseElemType, ClassID *BaseClassId,
                               ULONG *Rank) = 0;
  virtual HRESULT GetThreadInfo(ThreadID ThreadId, DWORD *Win32ThreadId) = 0;
  virtual HRESULT GetCurrentThreadID(ThreadID *ThreadId) = 0;
  virtual HRESULT GetClassIDInfo(ClassID ClassId, ModuleID *ModuleId, mdTypeDef *TypeDefToken) = 0;
  virtual HRESULT GetFunctionInfo(FunctionID FunctionId, ClassID *ClassId, ModuleID *ModuleId,
                                  mdToken *Token) = 0;
  virtual HRESULT SetEventMask(DWORD Events) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks(FunctionEnter *Enter, FunctionLeave *Leave,
                                             FunctionTailcall *Tailcall) = 0;
  virtual HRESULT SetFunctionIDMapper(FunctionIDMapper *Mapper) = 0;
  virtual HRESULT GetTokenAndMetaDataFromFunction(FunctionID FunctionId, REFIID Riid,
                                                  IUnknown **Import, mdToken *Token) = 0;
  virtual HRESULT GetModuleInfo(ModuleID ModuleId, LPCBYTE *BaseLoadAddress, ULONG NameCapacity,
                                ULONG *NameLength, WCHAR *Name, AssemblyID *AssemblyId) = 0;
  virtual HRESULT GetModuleMetaData(ModuleID ModuleId, DWORD OpenFlags, REFIID Riid,
                                    IUnknown **Out) = 0;
  virtual HRESULT GetILFunctionBody(ModuleID ModuleId, mdMethodDef MethodId, LPCBYTE *MethodHeader,
                                    ULONG *MethodSize) = 0;
  virtual HRESULT GetILFunctionBodyAllocator(ModuleID ModuleId, IMethodMalloc **Malloc) = 0;
  virtual HRESULT SetILFunctionBody(ModuleID ModuleId, mdMethodDef MethodId,
                                    LPCBYTE NewILMethodHeader) = 0;
  virtual HRESULT GetAppDomainInfo(AppDomainID AppDomainId, ULONG NameCapacity, ULONG *NameLength,
                                   WCHAR *Name, ProcessID *ProcessId) = 0;
  virtual HRESULT GetAssemblyInfo(AssemblyID AssemblyId, ULONG NameCapacity, ULONG *NameLength,
                                  WCHAR *Name, AppDomainID *AppDomainId, ModuleID *ModuleId) = 0;
  virtual HRESULT SetFunctionReJIT(FunctionID FunctionId) = 0;
  virtual HRESULT ForceGC() = 0;
  virtual HRESULT SetILInstrumentedCodeMap(FunctionID FunctionId, BOOL StartJit, ULONG EntryCount,
                                           COR_IL_MAP *Entries) = 0;
  virtual HRESULT GetInprocInspectionInterface(IUnknown **Out) = 0;
  virtual HRESULT GetInprocInspectionIThisThread(IUnknown **Out) = 0;
  virtual HRESULT GetThreadContext(ThreadID ThreadId, ContextID *ContextId) = 0;
  virtual HRESULT BeginInprocDebugging(BOOL ThisThreadOnly, DWORD *ProfilerContext) = 0;
  virtual HRESULT EndInprocDebugging(DWORD ProfilerContext) = 0;
  virtual HRESULT GetILToNativeMapping(FunctionID FunctionId, ULONG32 MapCapacity,
                                       ULONG32 *MapLength, COR_DEBUG_IL_TO_NATIVE_MAP *Map) = 0;
};

/// Version 2 services: stack snapshots, generics, layouts, statics, GC generations.
struct ICorProfilerInfo2 : ICorProfilerInfo {
  static constexpr unsigned SlotCount = ICorProfilerInfo::SlotCount + 21;

  virtual HRESULT DoStackSnapshot(ThreadID Thread, StackSnapshotCallback *Callback,
                                  ULONG32 InfoFlags, void *ClientData, BYTE *Context,
                                  ULONG32 ContextSize) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks2(FunctionEnter2 *Enter, FunctionLeave2 *Leave,
                                              FunctionTailcall2 *Tailcall) = 0;
  virtual HRESULT GetFunctionInfo2(FunctionID FuncId, COR_PRF_FRAME_INFO FrameInfo,
                                   ClassID *ClassId, ModuleID *ModuleId, mdToken *Token,
                                   ULONG32 TypeArgCapacity, ULONG32 *TypeArgCount,
                                   ClassID *TypeArgs) = 0;
  virtual HRESULT GetStringLayout(ULONG *BufferLengthOffset, ULONG *StringLengthOffset,
                                  ULONG *BufferOffset) = 0;
  virtual HRESULT GetClassLayout(ClassID ClassId, COR_FIELD_OFFSET *FieldOffsets,
                                 ULONG FieldOffsetCapacity, ULONG *FieldOffsetCount,
                                 ULONG *ClassSize) = 0;
  virtual HRESULT GetClassIDInfo2(ClassID ClassId, ModuleID *ModuleId, mdTypeDef *TypeDefToken,
                                  ClassID *ParentClassId, ULONG32 TypeArgCapacity,
                                  ULONG32 *TypeArgCount, ClassID *TypeArgs) = 0;
  virtual HRESULT GetCodeInfo2(FunctionID FunctionId, ULONG32 CodeInfoCapacity,
                               ULONG32 *CodeInfoCount, COR_PRF_CODE_INFO *CodeInfos) = 0;
  virtual HRESULT GetClassFromTokenAndTypeArgs(ModuleID ModuleId, mdTypeDef TypeDef,
                                               ULONG32 TypeArgCount, ClassID *TypeArgs,
                                               ClassID *ClassId) = 0;
  virtual HRESULT GetFunctionFromTokenAndTypeArgs(ModuleID ModuleId, mdMethodDef FuncDef,
                                                  ClassID ClassId, ULONG32 TypeArgCount,
                                                  ClassID *TypeArgs, FunctionID *FunctionId) = 0;
  virtual HRESULT EnumModuleFrozenObjects(ModuleID ModuleId, ICorProfilerObjectEnum **Enum) = 0;
  virtual HRESULT GetArrayObjectInfo(ObjectID ObjectId, ULONG32 DimensionCount,
                                     ULONG32 *DimensionSizes, int *DimensionLowerBounds,
                                     BYTE **Data) = 0;
  virtual HRESULT GetBoxClassLayout(ClassID ClassId, ULONG32 *BufferOffset) = 0;
  virtual HRESULT GetThreadAppDomain(ThreadID ThreadId, AppDomainID *AppDomainId) = 0;
  virtual HRESULT GetRVAStaticAddress(ClassID ClassId, mdFieldDef FieldToken, void **Address) = 0;
  virtual HRESULT GetAppDomainStaticAddress(ClassID ClassId, mdFieldDef FieldToken,
                                            AppDomainID AppDomainId, void **Address) = 0;
  virtual HRESULT GetThreadStaticAddress(ClassID ClassId, mdFieldDef FieldToken, ThreadID ThreadId,
                                         void **Address) = 0;
  virtual HRESULT GetContextStaticAddress(ClassID ClassId, mdFieldDef FieldToken,
                                          ContextID ContextId, void **Address) = 0;
  virtual HRESULT GetStaticFieldInfo(ClassID ClassId, mdFieldDef FieldToken,
                                     COR_PRF_STATIC_TYPE *FieldInfo) = 0;
  virtual HRESULT GetGenerationBounds(ULONG RangeCapacity, ULONG *RangeCount,
                                      COR_PRF_GC_GENERATION_RANGE *Ranges) = 0;
  virtual HRESULT GetObjectGeneration(ObjectID ObjectId, COR_PRF_GC_GENERATION_RANGE *Range) = 0;
  virtual HRESULT GetNotifiedExceptionClauseInfo(COR_PRF_EX_CLAUSE_INFO *Info) = 0;
};

/// Version 3 services: detach, enter/leave hooks 3, module enumeration, runtime version.
struct ICorProfilerInfo3 : ICorProfilerInfo2 {
  static constexpr unsigned SlotCount = ICorProfilerInfo2::SlotCount + 14;

  virtual HRESULT EnumJITedFunctions(ICorProfilerFunctionEnum **Enum) = 0;
  virtual HRESULT RequestProfilerDetach(DWORD ExpectedCompletionMilliseconds) = 0;
  virtual HRESULT SetFunctionIDMapper2(FunctionIDMapper2 *Mapper, void *ClientData) = 0;
  virtual HRESULT GetStringLayout2(ULONG *StringLengthOffset, ULONG *BufferOffset) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks3(FunctionEnter3 *Enter, FunctionLeave3 *Leave,
                                              FunctionTailcall3 *Tailcall) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks3WithInfo(FunctionEnter3WithInfo *Enter,
                                                      FunctionLeave3WithInfo *Leave,
                                                      FunctionTailcall3WithInfo *Tailcall) = 0;
  virtual HRESULT GetFunctionEnter3Info(FunctionID FunctionId, COR_PRF_ELT_INFO EltInfo,
                                        COR_PRF_FRAME_INFO *FrameInfo, ULONG *ArgumentInfoSize,
                                        COR_PRF_FUNCTION_ARGUMENT_INFO *ArgumentInfo) = 0;
  virtual HRESULT GetFunctionLeave3Info(FunctionID FunctionId, COR_PRF_ELT_INFO EltInfo,
                                        COR_PRF_FRAME_INFO *FrameInfo,
                                        COR_PRF_FUNCTION_ARGUMENT_RANGE *RetvalRange) = 0;
  virtual HRESULT GetFunctionTailcall3Info(FunctionID FunctionId, COR_PRF_ELT_INFO EltInfo,
                                           COR_PRF_FRAME_INFO *FrameInfo) = 0;
  virtual HRESULT EnumModules(ICorProfilerModuleEnum **Enum) = 0;
  virtual HRESULT GetRuntimeInformation(USHORT *ClrInstanceId, COR_PRF_RUNTIME_TYPE *RuntimeType,
                                        USHORT *MajorVersion, USHORT *MinorVersion,
                                        USHORT *BuildNumber, USHORT *QFEVersion,
                                        ULONG VersionCapacity, ULONG *VersionLength,
                                        WCHAR *Version) = 0;
  virtual HRESULT GetThreadStaticAddress2(ClassID ClassId, mdFieldDef FieldToken,
                                          AppDomainID AppDomainId, ThreadID ThreadId,
                                          void **Address) = 0;
  virtual HRESULT GetAppDomainsContainingModule(ModuleID ModuleId, ULONG32 AppDomainCapacity,
                                                ULONG32 *AppDomainCount,
                                                AppDomainID *AppDomainIds) = 0;
  virtual HRESULT GetModuleInfo2(ModuleID ModuleId, LPCBYTE *BaseLoadAddress, ULONG NameCapacity,
                                 ULONG *NameLength, WCHAR *Name, AssemblyID *AssemblyId,
                                 DWORD *ModuleFlags) = 0;
};

/// Version 4 services: ReJIT requests and versions, thread enumeration, 64-bit object sizes.
struct ICorProfilerInfo4 : ICorProfilerInfo3 {
  static constexpr unsigned SlotCount = ICorProfilerInfo3::SlotCount + 10;

  virtual HRESULT EnumThreads(ICorProfilerThreadEnum **Enum) = 0;
  virtual HRESULT InitializeCurrentThread() = 0;
  virtual HRESULT RequestReJIT(ULONG FunctionCount, ModuleID *ModuleIds,
                               mdMethodDef *MethodIds) = 0;
  virtual HRESULT RequestRevert(ULONG FunctionCount, ModuleID *ModuleIds, mdMethodDef *MethodIds,
                                HRESULT *Status) = 0;
  virtual HRESULT GetCodeInfo3(FunctionID FunctionId, ReJITID ReJitId, ULONG32 CodeInfoCapacity,
                               ULONG32 *CodeInfoCount, COR_PRF_CODE_INFO *CodeInfos) = 0;
  virtual HRESULT GetFunctionFromIP2(LPCBYTE Ip, FunctionID *FunctionId, ReJITID *ReJitId) = 0;
  virtual HRESULT GetReJITIDs(FunctionID FunctionId, ULONG ReJitIdCapacity, ULONG *ReJitIdCount,
                              ReJITID *ReJitIds) = 0;
  virtual HRESULT GetILToNativeMapping2(FunctionID FunctionId, ReJITID ReJitId, ULONG32 MapCapacity,
                                        ULONG32 *MapLength, COR_DEBUG_IL_TO_NATIVE_MAP *Map) = 0;
  virtual HRESULT EnumJITedFunctions2(ICorProfilerFunctionEnum **Enum) = 0;
  virtual HRESULT GetObjectSize2(ObjectID ObjectId, SIZE_T *Size) = 0;
};

/// Version 5 services: the 64-bit event mask (low and high halves).
struct ICorProfilerInfo5 : ICorProfilerInfo4 {
  static constexpr unsigned SlotCount = ICorProfilerInfo4::SlotCount + 2;

  virtual HRESULT GetEventMask2(DWORD *EventsLow, DWORD *EventsHigh) = 0;
  virtual HRESULT SetEventMask2(DWORD EventsLow, DWORD EventsHigh) = 0;
};

/// Version 6 services: methods of a precompiled module that inlined a given method.
struct ICorProfilerInfo6 : ICorProfilerInfo5 {
  static constexpr unsigned SlotCount = ICorProfilerInfo5::SlotCount + 1;

  virtual HRESULT EnumNgenModuleMethodsInliningThisMethod(ModuleID InlinersModuleId,
                                                          ModuleID InlineeModuleId,
                                                          mdMethodDef InlineeMethodId,
                                                          BOOL *IncompleteData,
                                                          ICorProfilerMethodEnum **Enum) = 0;
};

/// Version 7 services: applying emitted metadata, in-memory symbols.
struct ICorProfilerInfo7 : ICorProfilerInfo6 {
  static constexpr unsigned SlotCount = ICorProfilerInfo6::SlotCount + 3;

  virtual HRESULT ApplyMetaData(ModuleID ModuleId) = 0;
  virtual HRESULT GetInMemorySymbolsLength(ModuleID ModuleId, DWORD *SymbolBytes) = 0;
  virtual HRESULT ReadInMemorySymbols(ModuleID ModuleId, DWORD ReadOffset, BYTE *SymbolBytes,
                                      DWORD ByteCount, DWORD *BytesRead) = 0;
};

/// Version 8 services: dynamic methods.
struct ICorProfilerInfo8 : ICorProfilerInfo7 {
  static constexpr unsigned SlotCount = ICorProfilerInfo7::SlotCount + 3;

  virtual HRESULT IsFunctionDynamic(FunctionID FunctionId, BOOL *IsDynamic) = 0;
  virtual HRESULT GetFunctionFromIP3(LPCBYTE Ip, FunctionID *FunctionId, ReJITID *ReJitId) = 0;
  virtual HRESULT GetDynamicFunctionInfo(FunctionID FunctionId, ModuleID *ModuleId,
                                         PCCOR_SIGNATURE *Sig, ULONG *SigSize, ULONG NameCapacity,
                                         ULONG *NameLength, WCHAR *Name) = 0;
};

/// Version 9 services: the native code versions of a method.
struct ICorProfilerInfo9 : ICorProfilerInfo8 {
  static constexpr unsigned SlotCount = ICorProfilerInfo8::SlotCount + 3;

  virtual HRESULT GetNativeCodeStartAddresses(FunctionID FunctionId, ReJITID ReJitId,
                                              ULONG32 AddressCapacity, ULONG32 *AddressCount,
                                              UINT_PTR *CodeStartAddresses) = 0;
  virtual HRESULT GetILToNativeMapping3(UINT_PTR NativeCodeStartAddress, ULONG32 MapCapacity,
                                        ULONG32 *MapLength, COR_DEBUG_IL_TO_NATIVE_MAP *Map) = 0;
  virtual HRESULT GetCodeInfo4(UINT_PTR NativeCodeStartAddress, ULONG32 CodeInfoCapacity,
                               ULONG32 *CodeInfoCount, COR_PRF_CODE_INFO *CodeInfos) = 0;
};

/// Version 10 services: object references, frozen objects, ReJIT with inliners, suspension.
struct ICorProfilerInfo10 : ICorProfilerInfo9 {
  static constexpr unsigned SlotCount = ICorProfilerInfo9::SlotCount + 6;

  virtual HRESULT EnumerateObjectReferences(ObjectID ObjectId, ObjectReferenceCallback *Callback,
                                            void *ClientData) = 0;
  virtual HRESULT IsFrozenObject(ObjectID ObjectId, BOOL *Frozen) = 0;
  virtual HRESULT GetLOHObjectSizeThreshold(DWORD *Threshold) = 0;
  virtual HRESULT RequestReJITWithInliners(DWORD RejitFlags, ULONG FunctionCount,
                                           ModuleID *ModuleIds, mdMethodDef *MethodIds) = 0;
  virtual HRESULT SuspendRuntime() = 0;
  virtual HRESULT ResumeRuntime() = 0;
};

/// Version 11 services: the managed process's environment variables.
struct ICorProfilerInfo11 : ICorProfilerInfo10 {
  static constexpr unsigned SlotCount = ICorProfilerInfo10::SlotCount + 2;

  virtual HRESULT GetEnvironmentVariable(const WCHAR *Name, ULONG ValueCapacity, ULONG *ValueLength,
                                         WCHAR *Value) = 0;
  virtual HRESULT SetEnvironmentVariable(const WCHAR *Name, const WCHAR *Value) = 0;
};

/// Version 12 services: EventPipe sessions, providers and events.
struct ICorProfilerInfo12 : ICorProfilerInfo11 {
  static constexpr unsigned SlotCount = ICorProfilerInfo11::SlotCount + 7;

  virtual HRESULT EventPipeStartSession(UINT32 ConfigCount,
                                        COR_PRF_EVENTPIPE_PROVIDER_CONFIG *Configs,
                                        BOOL RequestRundown, EVENTPIPE_SESSION *Session) = 0;
  virtual HRESULT EventPipeAddProviderToSession(EVENTPIPE_SESSION Session,
                                                COR_PRF_EVENTPIPE_PROVIDER_CONFIG Config) = 0;
  virtual HRESULT EventPipeStopSession(EVENTPIPE_SESSION Session) = 0;
  virtual HRESULT EventPipeCreateProvider(const WCHAR *ProviderName,
                                          EVENTPIPE_PROVIDER *Provider) = 0;
  virtual HRESULT EventPipeGetProviderInfo(EVENTPIPE_PROVIDER Provider, ULONG NameCapacity,
                                           ULONG *NameLength, WCHAR *ProviderName) = 0;
  virtual HRESULT EventPipeDefineEvent(EVENTPIPE_PROVIDER Provider, const WCHAR *EventName,
                                       UINT32 EventId, UINT64 Keywords, UINT32 EventVersion,
                                       UINT32 Level, UINT8 Opcode, BOOL NeedStack,
                                       UINT32 ParamDescCount,
                                       COR_PRF_EVENTPIPE_PARAM_DESC *ParamDescs,
                                       EVENTPIPE_EVENT *Event) = 0;
  virtual HRESULT EventPipeWriteEvent(EVENTPIPE_EVENT Event, UINT32 DataCount,
                                      COR_PRF_EVENT_DATA *Data, LPCGUID ActivityId,
                                      LPCGUID RelatedActivityId) = 0;
};

/// Version 13 services: GC handles made by the profiler.
struct ICorProfilerInfo13 : ICorProfilerInfo12 {
  static constexpr unsigned SlotCount = ICorProfilerInfo12::SlotCount + 3;

  virtual HRESULT CreateHandle(ObjectID Object, COR_PRF_HANDLE_TYPE Type,
                               ObjectHandleID *Handle) = 0;
  virtual HRESULT DestroyHandle(ObjectHandleID Handle) = 0;
  virtual HRESULT GetObjectIDFromHandle(ObjectHandleID Handle, ObjectID *Object) = 0;
};

/// Version 14 services: the non-GC heap, EventPipe providers with a callback.
struct ICorProfilerInfo14 : ICorProfilerInfo13 {
  static constexpr unsigned SlotCount = ICorProfilerInfo13::SlotCount + 3;

  virtual HRESULT EnumerateNonGCObjects(ICorProfilerObjectEnum **Enum) = 0;
  virtual HRESULT GetNonGCHeapBounds(ULONG RangeCapacity, ULONG *RangeCount,
                                     COR_PRF_NONGC_HEAP_RANGE *Ranges) = 0;
  virtual HRESULT EventPipeCreateProvider2(const WCHAR *ProviderName,
                                           EventPipeProviderCallback *Callback,
                                           EVENTPIPE_PROVIDER *Provider) = 0;
};

/// Version 15 services (the newest of .NET 10): walking the GC heap.
struct ICorProfilerInfo15 : ICorProfilerInfo14 {
  static constexpr unsigned SlotCount = ICorProfilerInfo14::SlotCount + 1;

  virtual HRESULT EnumerateGCHeapObjects(ObjectCallback Callback, void *CallbackState) = 0;
};

//===----------------------------------------------------------------------===//
// IIDs
//===----------------------------------------------------------------------===//

inline constexpr GUID IID_IUnknown = guid("00000000-0000-0000-C000-000000000046");
inline constexpr GUID IID_IClassFactory = guid("00000001-0000-0000-C000-000000000046");

inline constexpr GUID IID_ICorProfilerCallback = guid("176FBED1-A55C-4796-98CA-A9DA0EF883E7");
inline constexpr GUID IID_ICorProfilerCallback2 = guid("8A8CC829-CCF2-49FE-BBAE-0F022228071A");
inline constexpr GUID IID_ICorProfilerCallback3 = guid("4FD2ED52-7731-4B8D-9469-03D2CC3086C5");
inline constexpr GUID IID_ICorProfilerCallback4 = guid("7B63B2E3-107D-4D48-B2F6-F61E229470D2");
inline constexpr GUID IID_ICorProfilerCallback5 = guid("8DFBA405-8C9F-45F8-BFFA-83B14CEF78B5");
inline constexpr GUID IID_ICorProfilerCallback6 = guid("FC13DF4B-4448-4F4F-950C-BA8D19D00C36");
inline constexpr GUID IID_ICorProfilerCallback7 = guid("F76A2DBA-1D52-4539-866C-2AA518F9EFC3");
inline constexpr GUID IID_ICorProfilerCallback8 = guid("5BED9B15-C079-4D47-BFE2-215A140C07E0");
inline constexpr GUID IID_ICorProfilerCallback9 = guid("27583EC3-C8F5-482F-8052-194B8CE4705A");
inline constexpr GUID IID_ICorProfilerCallback10 = guid("CEC5B60E-C69C-495F-87F6-84D28EE16FFB");
inline constexpr GUID IID_ICorProfilerCallback11 = guid("42350846-AAED-47F7-B128-FD0C98881CDE");

inline constexpr GUID IID_ICorProfilerInfo = guid("28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48");
inline constexpr GUID IID_ICorProfilerInfo2 = guid("CC0935CD-A518-487D-B0BB-A93214E65478");
inline constexpr GUID IID_ICorProfilerInfo3 = guid("B555ED4F-452A-4E54-8B39-B5360BAD32A0");
inline constexpr GUID IID_ICorProfilerInfo4 = guid("0D8FDCAA-6257-47BF-B1BF-94DAC88466EE");
inline constexpr GUID IID_ICorProfilerInfo5 = guid("07602928-CE38-4B83-81E7-74ADAF781214");
inline constexpr GUID IID_ICorProfilerInfo6 = guid("F30A070D-BFFB-46A7-B1D8-8781EF7B698A");
inline constexpr GUID IID_ICorProfilerInfo7 = guid("9AEECC0D-63E0-4187-8C00-E312F503F663");
inline constexpr GUID IID_ICorProfilerInfo8 = guid("C5AC80A6-782E-4716-8044-39598C60CFBF");
inline constexpr GUID IID_ICorProfilerInfo9 = guid("008170DB-F8CC-4796-9A51-DC8AA0B47012");
inline constexpr GUID IID_ICorProfilerInfo10 = guid("2F1B5152-C869-40C9-AA5F-3ABE026BD720");
inline constexpr GUID IID_ICorProfilerInfo11 = guid("06398876-8987-4154-B621-40A00D6E4D04");
inline constexpr GUID IID_ICorProfilerInfo12 = guid("27B24CCD-1CB1-47C5-96EE-98190DC30959");
inline constexpr GUID IID_ICorProfilerInfo13 = guid("6E6C7EE2-0701-4EC2-9D29-2E8733B66934");
inline constexpr GUID IID_ICorProfilerInfo14 = guid("F460E352-D76D-4FE9-835F-F6AF9D6E862D");
inline constexpr GUID IID_ICorProfilerInfo15 = guid("B446462D-BD22-41DD-872D-DC714C49EB56");

inline constexpr GUID IID_IMethodMalloc = guid("A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8");
inline constexpr GUID IID_ICorProfilerFunctionControl =
    guid("F0963021-E1EA-4732-8581-E01B0BD3C0C6");
inline constexpr GUID IID_ICorProfilerAssemblyReferenceProvider =
    guid("66A78C24-2EEF-4F65-B45F-DD1D8038BF3C");
inline constexpr GUID IID_ICorProfilerObjectEnum = guid("2C6269BD-2D13-4321-AE12-6686365FD6AF");
inline constexpr GUID IID_ICorProfilerFunctionEnum = guid("FF71301A-B994-429D-A10B-B345A65280EF");
inline constexpr GUID IID_ICorProfilerModuleEnum = guid("B0266D75-2081-4493-AF7F-028BA34DB891");
inline constexpr GUID IID_ICorProfilerThreadEnum = guid("571194F7-25ED-419F-AA8B-7016B3159701");
inline constexpr GUID IID_ICorProfilerMethodEnum = guid("FCCEE788-0088-454B-A811-C99F298D1942");

} // namespace weft::prof

#endif // WEFT_RUNTIME_PROFILER_CORPROFILER_H
