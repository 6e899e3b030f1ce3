//===- runtime-profiler/GcEvents.h - Garbage collections on the timeline -*- C++ -*-===//
//
// With `--gc LEVEL` (WEFT_GC: informational or verbose, as the runtime's own GC events are
// enabled by the GC keyword and a level), the profiler puts the program's garbage collections on
// the recorder's timeline (runtime-profiler/Recorder.h), from two sources:
//
//  - the profiler's GC callbacks (COR_PRF_HIGH_BASIC_GC): each collection's condemned
//    generation, reason (induced or not), time from its start to its end, and the size of each
//    generation before and after it (GetGenerationBounds);
//  - an in-process EventPipe session on Microsoft-Windows-DotNETRuntime with the GC keyword
//    (ICorProfilerInfo12::EventPipeStartSession; events come to EventPipeEventDelivered on the
//    thread that wrote them): GCStart/GCEnd (count, depth, reason, type), the pause from
//    GCSuspendEEBegin to GCRestartEEEnd, GCHeapStats (each generation's size and promoted bytes)
//    and, at the verbose level, GCAllocationTick (about every 100 KB allocated: the amount, the
//    kind, the type), decoded from their payloads.
//
// At exit the log gives the counts: collections per condemned generation (comparable with
// GC.CollectionCount), events of each kind, bytes the allocation ticks account for.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_GCEVENTS_H
#define WEFT_RUNTIME_PROFILER_GCEVENTS_H

#include "runtime-profiler/CorProfiler.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace weft::prof {

class EventSink;
class Log;
class Recorder;

class GcEvents {
public:
  /// The level named by WEFT_GC ("informational" or "verbose"); an error for anything else.
  static llvm::Expected<uint32_t> parseLevel(llvm::StringRef Text);

  GcEvents(ICorProfilerInfo7 *Info, unsigned InfoVersion, Recorder &R, Log &L, uint32_t Level,
           std::vector<EventSink *> Sinks);
  /// Starts the EventPipe session (a runtime without ICorProfilerInfo12 has none: logged).
  void startSession();
  void started(int Count, const BOOL *Collected, COR_PRF_GC_REASON Reason);
  void finished();
  void delivered(DWORD EventId, DWORD Version, const uint8_t *Data, ULONG Size);
  /// Stops the session and logs the counts.
  void stop();

private:
  /// Each generation's size (0 to 4: gen0, gen1, gen2, large and pinned object heaps).
  std::vector<uint64_t> sizes();

  ICorProfilerInfo7 *Info;
  unsigned InfoVersion;
  Recorder &R;
  Log &L;
  uint32_t Level;
  std::vector<EventSink *> Sinks;
  EVENTPIPE_SESSION Session = 0;
  std::mutex Lock;
  struct Open {
    uint64_t StartNanos;
    int Generation;
    bool Induced;
    std::vector<uint64_t> Before;
  };
  std::vector<Open> Running; // collections started and not finished (a background one may
                             // have ephemeral ones inside it)
  uint64_t PauseStart = 0;
  uint64_t Collections[3] = {}, Induced = 0;
  uint64_t Starts = 0, Ends = 0, HeapStats = 0, Pauses = 0, Ticks = 0, TickBytes = 0;
};

} // namespace weft::prof

#endif
