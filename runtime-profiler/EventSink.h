//===- runtime-profiler/EventSink.h - Where timeline records also go -*- C++ -*-===//
//
// Besides its file, the timeline hands each tracepoint call, each collection and each call the
// trace pass's runtime recorded to sinks: the
// Weft EventPipe provider (EventPipeSink.h) and, where LTTng-UST is installed, its tracepoints
// (LttngSink.h). A sink says whether anyone listens, so nothing is made for it otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_EVENTSINK_H
#define WEFT_RUNTIME_PROFILER_EVENTSINK_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace weft::prof {

class EventSink {
public:
  virtual ~EventSink() = default;
  virtual bool wantsTracepoints() const = 0;
  virtual bool wantsCollections() const = 0;
  /// A call's enter (\p Json: its arguments) or leave (\p Json: its result or exception), made
  /// on thread \p Tid.
  virtual void tracepoint(bool Enter, llvm::StringRef Method, llvm::StringRef Tracepoints,
                          llvm::StringRef Json, uint32_t Tid) = 0;
  virtual void collection(uint32_t Generation, llvm::StringRef Reason, double Micros,
                          uint64_t Before, uint64_t After, uint32_t Tid) = 0;
  /// A call of a method the trace pass wove, \p StartNanos on the timeline's clock.
  virtual bool wantsCalls() const { return false; }
  virtual void call(llvm::StringRef, uint64_t /*StartNanos*/, uint64_t /*Nanos*/,
                    uint32_t /*Tid*/) {}
};

} // namespace weft::prof

#endif
