//===- runtime-profiler/Identity.h - How a runtime finds weft's profiler --*- C++ -*-===//
//
// What `weft run` (and a host that sets the variables itself) gives CoreCLR to load the profiler,
// and the variables the profiler reads.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_IDENTITY_H
#define WEFT_RUNTIME_PROFILER_IDENTITY_H

#include <cstdlib>
#include <string>

namespace weft::prof {

/// The profiler's class id, as CORECLR_PROFILER takes it.
inline constexpr const char ProfilerClsid[] = "{E56F61AE-E543-4D22-8B50-7334A9E7F8D6}";
/// The library's file name; `weft run` looks for it beside the weft executable, then in ../lib.
inline constexpr const char ProfilerLibrary[] = "libweft_profiler.so";

/// The variables the profiler reads at start.
inline constexpr const char SpecVariable[] = "WEFT_SPEC";     // a spec file (weft.json)
inline constexpr const char PassesVariable[] = "WEFT_PASSES"; // pass uses, ';' between them
inline constexpr const char LogVariable[] = "WEFT_LOG";       // the log file (default: stderr)
inline constexpr const char VerboseVariable[] = "WEFT_VERBOSE"; // 1: also what passes left alone
/// Where the files `weave` writes beside its output go (a coverage map: MODULE.dll.coverage.json);
/// default: the program's current directory.
inline constexpr const char OutputDirVariable[] = "WEFT_OUTPUT_DIR";
/// Garbage collections on the timeline, at this level: informational or verbose.
inline constexpr const char GcVariable[] = "WEFT_GC";
/// 1: timeline records also go to LTTng-UST (libweft_lttng.so beside the profiler).
inline constexpr const char LttngVariable[] = "WEFT_LTTNG";

/// The file `weft detach` writes to ask the profiler attached to process \p Pid to revert what it
/// did and detach; the profiler removes it when it takes the request. In TMPDIR (or /tmp), as
/// the runtime's diagnostics socket.
inline std::string detachRequestPath(long Pid) {
  const char *Tmp = std::getenv("TMPDIR");
  return std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/weft-detach-" + std::to_string(Pid);
}

} // namespace weft::prof

#endif
