//===- runtime-profiler/Identity.h - How a runtime finds weft's profiler --*- C++ -*-===//
//
// What `weft run` (and a host that sets the variables itself) gives CoreCLR to load the profiler,
// and the variables the profiler reads.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_IDENTITY_H
#define WEFT_RUNTIME_PROFILER_IDENTITY_H

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

} // namespace weft::prof

#endif
