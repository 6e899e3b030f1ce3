//===- runtime-profiler/Log.h - The profiler's log -------------*- C++ -*-===//
//
// One line per decision, to WEFT_LOG (appended: a process may start others that log to the same
// file) or to stderr (never for a profiler attached to a running process). Each line is written whole with one write, so lines of threads and of
// processes sharing the file do not mix. Logging never fails the caller.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_LOG_H
#define WEFT_RUNTIME_PROFILER_LOG_H

#include "runtime-profiler/CorProfiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace weft::prof {

class Log {
public:
  /// Logs to \p Path, or, if \p MayUseStderr, to stderr when it is empty or cannot be opened
  /// (then the first line says why); else nowhere then. A profiler attached to a running
  /// process never writes to its stderr: that is the program's, often a service's log.
  explicit Log(const std::string &Path, bool MayUseStderr = true);
  ~Log();
  Log(const Log &) = delete;
  Log &operator=(const Log &) = delete;

  /// Writes "weft-profiler[PID]: <Line>".
  void line(const llvm::Twine &Line);

private:
  int Fd = 2;
  bool Owned = false;
};

/// "HRESULT 0x80131375", for messages.
std::string hresultText(HRESULT Hr);

/// UTF-16 text from the runtime (names, paths) as UTF-8; a marker if it is not UTF-16.
std::string utf8(llvm::ArrayRef<WCHAR> Text);

/// Appends \p S to \p Out as a JSON string (quoted, escaped).
void appendJsonString(std::string &Out, llvm::StringRef S);

} // namespace weft::prof

#endif
