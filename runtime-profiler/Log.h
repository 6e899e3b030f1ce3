//===- runtime-profiler/Log.h - The profiler's log -------------*- C++ -*-===//
//
// One line per decision, to WEFT_LOG (appended: a process may start others that log to the same
// file) or to stderr. Each line is written whole with one write, so lines of threads and of
// processes sharing the file do not mix. Logging never fails the caller.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_LOG_H
#define WEFT_RUNTIME_PROFILER_LOG_H

#include "runtime-profiler/CorProfiler.h"

#include "llvm/ADT/Twine.h"

#include <string>

namespace weft::prof {

class Log {
public:
  /// Logs to \p Path, or to stderr when it is empty or cannot be opened (then the first line
  /// says why).
  explicit Log(const std::string &Path);
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

} // namespace weft::prof

#endif
