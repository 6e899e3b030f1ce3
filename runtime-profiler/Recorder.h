//===- runtime-profiler/Recorder.h - Tracepoint records -------*- C++ -*-===//
//
// What a tracepoint records and where it goes. Each instrumented method has a slot: a flag byte
// the woven code tests (one load and a branch when no tracepoint on it is enabled), the
// tracepoints on it, and what its parameters are called. When the flag is set the woven code
// calls the recorder's entry points directly (`calli` to their addresses, without a GC
// transition, so no collection runs during a call and the objects handed over stay where they
// are): enter, one value for each argument, leave, one value for the return value or the
// exception. Values come as objects and are formatted here, from the runtime's own description
// of their class.
//
// Records go into a bounded ring per thread, written by the thread alone; when a ring is full
// the thread's records are dropped and counted, never waited for. A writer thread drains the
// rings ten times a second into a Chrome trace-event file (Perfetto opens it) with one "B" and
// one "E" event for each call, so calls nest per thread as they happened. Each event is one line:
// the file can be read while the program runs.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_RECORDER_H
#define WEFT_RUNTIME_PROFILER_RECORDER_H

#include "runtime-profiler/CorProfiler.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace weft::prof {

class EventSink;
class Log;
struct ThreadRing;

/// A method's parameters as the tracepoints name them.
struct SlotInfo {
  std::string Method;                  // "Namespace.Type::Method"
  std::vector<std::string> ParamNames; // by position (0: the first after `this`)
  std::vector<std::string> ParamTypes; // as in IL text: int32, string, class Ns.T, ...
  std::string ReturnType;              // "void" for none
};

class Recorder {
public:
  /// Value indexes for what is not a parameter.
  static constexpr uint32_t ReturnValue = 0xFFFF, Thrown = 0xFFFE;
  static constexpr uint32_t MaxSlots = 1u << 16;

  Recorder(ICorProfilerInfo7 *Info, std::string Path, Log &L);
  ~Recorder();

  /// A new slot (its flag cleared), or MaxSlots when there is no room left.
  uint32_t addSlot(SlotInfo Info);
  /// The byte the woven code of \p Slot tests.
  const uint8_t *flag(uint32_t Slot) const { return &Flags[Slot]; }
  /// The enabled tracepoints on \p Slot now (none clears its flag), and how deep their object
  /// arguments' fields are recorded.
  void setTracepoints(uint32_t Slot, const std::vector<std::string> &Enabled, unsigned Depth);
  /// Writes what is left, closes the file (with the counts); later records are dropped.
  void stop();
  uint64_t dropped() const;
  /// Calls entered into a method with an enabled tracepoint (recorded or dropped).
  uint64_t calls() const;
  const std::string &path() const { return Path; }

  /// Where tracepoint records also go (the Weft EventPipe provider, LTTng).
  void addSink(EventSink *S) { Sinks.push_back(S); }

  /// Nanoseconds since the recorder began (the timeline's clock).
  uint64_t now() const;

  /// The trace pass's runtime in this process (through the library's weft_trace_name and
  /// weft_trace_calls): the name of its method \p Id; calls recorded on thread \p Tid as
  /// (id, start, duration) triples, \p Count longs in all, in nanoseconds of the monotonic
  /// clock. The calls go on the timeline and to the sinks.
  void traceName(uint32_t Id, std::string Name);
  void traceCalls(uint32_t Tid, const int64_t *Calls, int32_t Count);
  /// An event of the runtime's on the timeline, on the calling thread, at \p Nanos:
  /// \p Members are its JSON members but pid, tid and ts ("ph", "name", "cat", "args", ...).
  void note(uint64_t Nanos, const std::string &Members);

  // The entry points the woven code calls (their addresses are in its IL).
  static void enter(uint32_t Slot);
  static void value(uint32_t Slot, uint32_t Index, void *Object);
  static void leave(uint32_t Slot);

private:
  struct Slot;
  struct ClassDesc;
  ThreadRing *ring();
  void record(uint8_t Kind, uint32_t Slot, const std::string &Text, uint64_t Nanos);
  void writerLoop();
  void drain(bool Final);
  /// \p Object as JSON (null, a number, a string, {"type": ..., "fields": {...}}).
  void formatObject(std::string &Out, uintptr_t Object, unsigned Depth);
  void formatField(std::string &Out, uintptr_t Address, const uint8_t *Sig, size_t Size,
                   unsigned Depth);
  /// What the recorder knows of \p Class: described by the writer thread (the runtime answers
  /// there), waited for (half a second at most) when first seen; null if it took too long.
  const ClassDesc *describe(ClassID Class);
  const ClassDesc *describeSlow(ClassID Class);
  const ClassDesc *describeNow(ClassID Class);
  const ClassDesc *keep(ClassID Class, std::unique_ptr<ClassDesc> D);

  ICorProfilerInfo7 *Info;
  std::string Path;
  Log &L;
  std::FILE *Out = nullptr;
  std::vector<EventSink *> Sinks;
  uint32_t Pid = 0;
  std::chrono::steady_clock::time_point Start;
  std::unique_ptr<uint8_t[]> Flags;
  /// Slots by number, read without a lock below SlotCount (written before it grows).
  std::unique_ptr<Slot *[]> Table;
  std::vector<std::unique_ptr<Slot>> Owned;
  std::mutex SlotsLock; // for adding
  Slot *slot(uint32_t Index) const;
  std::atomic<uint32_t> SlotCount{0};
  ULONG StringLengthOffset = 0, StringBufferOffset = 0;
  std::mutex ClassesLock;
  std::unordered_map<ClassID, std::unique_ptr<ClassDesc>> Classes;
  std::vector<ClassID> Asked; // for the writer to describe
  std::condition_variable Described;
  mutable std::mutex RingsLock;
  /// Gone, plus \p Field summed over the rings still held.
  uint64_t total(std::atomic<uint64_t> ThreadRing::*Field, const std::atomic<uint64_t> &Gone) const;
  std::vector<std::unique_ptr<ThreadRing>> Rings;
  std::atomic<uint64_t> DroppedGone{0}, CallsGone{0}; // of rings already freed
  std::atomic<bool> Stopped{false};
  /// Held while the file is written (the writer thread's drain, the trace runtime's calls).
  std::mutex OutLock;
  std::mutex TraceLock;
  std::vector<std::string> TraceNames; // under TraceLock
  std::mutex WakeLock;
  std::condition_variable Wake;
  bool StopWriter = false, HasAsked = false; // under WakeLock
  std::thread Writer;
};

} // namespace weft::prof

#endif
