//===- runtime-profiler/EventPipeSink.h - weft's EventPipe provider -*- C++ -*-===//
//
// The provider "Weft", made through the profiling API (ICorProfilerInfo14::
// EventPipeCreateProvider2, with a callback, or ICorProfilerInfo12::EventPipeCreateProvider),
// so that `dotnet-trace collect --providers Weft:KEYWORDS:LEVEL` and DiagnosticsClient sessions
// receive what the timeline records:
//
//   id 1  TracepointEnter  keyword 0x1  Method, Tracepoints, Arguments (JSON), ThreadId
//   id 2  TracepointLeave  keyword 0x1  Method, Result (JSON: "return" or "exception"), ThreadId
//   id 3  GarbageCollection keyword 0x2 Generation, Reason, DurationMicroseconds, HeapBefore,
//                                       HeapAfter, ThreadId
//
// All at level 4 (informational). What a session enables, the callback keeps: nothing is
// formatted for the provider while no session asks for a keyword, and the profiler is told when
// the keywords asked for change (tracepoints may follow them).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_EVENTPIPESINK_H
#define WEFT_RUNTIME_PROFILER_EVENTPIPESINK_H

#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/EventSink.h"

#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace weft::prof {

class Log;

class EventPipeSink final : public EventSink {
public:
  static constexpr uint64_t TracepointKeyword = 0x1, GcKeyword = 0x2, CallKeyword = 0x4;

  /// Makes the provider and its events; none (logged) on a runtime without ICorProfilerInfo12.
  EventPipeSink(ICorProfilerInfo7 *Info, unsigned InfoVersion, Log &L);
  /// Whether a session asks for events of \p Keyword now.
  bool wants(uint64_t Keyword) const;
  bool wantsTracepoints() const override { return wants(TracepointKeyword); }
  bool wantsCollections() const override { return wants(GcKeyword); }
  bool wantsCalls() const override { return wants(CallKeyword); }
  void tracepoint(bool Enter, llvm::StringRef Method, llvm::StringRef Tracepoints,
                  llvm::StringRef Json, uint32_t Tid) override;
  void collection(uint32_t Generation, llvm::StringRef Reason, double Micros, uint64_t Before,
                  uint64_t After, uint32_t Tid) override;
  void call(llvm::StringRef Method, uint64_t StartNanos, uint64_t Nanos, uint32_t Tid) override;
  /// \p F is called (on the runtime's thread that enabled or disabled the provider) each time
  /// the keywords sessions ask for change.
  void onKeywords(std::function<void()> F) { Changed = std::move(F); }

private:
  static void enabled(const UINT8 *SourceId, UINT32 IsEnabled, UINT8 Level, UINT64 Any,
                      UINT64 All, COR_PRF_FILTER_DATA *Filter, void *Data);
  ICorProfilerInfo12 *Info = nullptr;
  EVENTPIPE_PROVIDER Provider = 0;
  EVENTPIPE_EVENT Enter = 0, Leave = 0, Collection = 0, Call = 0;
  /// The keywords sessions ask for; all of them when the runtime has no callback to say.
  std::atomic<uint64_t> Keywords{0};
  std::function<void()> Changed;
};

} // namespace weft::prof

#endif
