//===- runtime-profiler/Identity.h - How a runtime finds weft's profiler --*- C++ -*-===//
//
// What `weft run` (and a host that sets the variables itself) gives CoreCLR to load the profiler,
// and the variables the profiler reads.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_IDENTITY_H
#define WEFT_RUNTIME_PROFILER_IDENTITY_H

#include "support/Port.h"

#include <cstdlib>
#include <string>

namespace weft::prof {

/// The profiler's class id, as CORECLR_PROFILER takes it.
inline constexpr const char ProfilerClsid[] = "{E56F61AE-E543-4D22-8B50-7334A9E7F8D6}";
/// The library's file name; `weft run` looks for it beside the weft executable, then in ../lib.
inline constexpr const char ProfilerLibrary[] = WEFT_SHARED_LIBRARY("weft_profiler");

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
/// The processes to instrument in a tree `weft run` starts: globs, ';' between them, matched
/// against the program's name, its main assembly's file name or its command line (default: all
/// but the .NET SDK's own; runtime-profiler/ProcessFilter.h).
inline constexpr const char ProcessesVariable[] = "WEFT_PROCESSES";
/// 1: timeline records also go to LTTng-UST (libweft_lttng.so beside the profiler).
inline constexpr const char LttngVariable[] = "WEFT_LTTNG";

/// Where `weft attach` tells an attached profiler to take its control requests (its own choice of
/// the folder below, so that the two agree whatever the target's environment says).
inline constexpr const char ControlDirVariable[] = "WEFT_CONTROL_DIR";

/// The folder of control requests for processes of user \p Uid, as a process with this
/// environment sees it: `$XDG_RUNTIME_DIR/weft` when that folder is \p Uid's (the session's
/// private runtime folder), else `weft-UID` in `$TMPDIR` (or /tmp). Only its user may enter it
/// (support/PrivateFiles.h checks it); requests in it are files named for the process.
inline std::string controlFolder(port::UserId Uid) {
  if (const char *Run = std::getenv("XDG_RUNTIME_DIR");
      Run && *Run == '/' && port::isFolderOwnedBy(Run, Uid))
    return std::string(Run) + "/weft";
  const char *Tmp = std::getenv("TMPDIR");
  return std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/weft-" + std::to_string(Uid);
}

/// The request, in \p Folder, that the profiler in process \p Pid revert what it did and stop
/// instrumenting (`weft detach`), or start again with the settings the file holds (`weft attach`
/// to a process whose profiler detached: a profiler that used ReJIT stays loaded). The profiler
/// removes a request when it takes it.
inline std::string detachRequestPath(const std::string &Folder, long Pid) {
  return Folder + "/detach-" + std::to_string(Pid);
}
inline std::string attachRequestPath(const std::string &Folder, long Pid) {
  return Folder + "/attach-" + std::to_string(Pid);
}

} // namespace weft::prof

#endif
