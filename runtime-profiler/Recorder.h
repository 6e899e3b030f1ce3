//===- runtime-profiler/Recorder.h - Tracepoint records -------*- C++ -*-===//
//
// What a tracepoint records and where it goes. Each instrumented method has a slot: a flag byte
// the woven code tests (one load and a branch when no tracepoint on it is enabled), the
// tracepoints on it, and what its parameters are called. When the flag is set the woven code
// calls the recorder's entry points directly (`calli` to their addresses, without a GC
// transition, so no collection runs during a call and the objects handed over stay where they
// are): enter, one value for each argument, leave, one value for the return value or the
// exception. Values come as objects and are formatted here, from the runtime's own description
// of their class, within a byte budget.
//
// The entry points never throw and never wait long: a collection another thread asks for waits
// until they return. A class seen for the first time is described by a thread of the
// recorder's own (the runtime answers there), which the call waits for 20 ms at most, and not
// at all once the runtime begins to suspend threads; a value whose class is not described by
// then says so, and the class is described for the next call.
//
// Records go into a bounded ring per thread, written by the thread alone; when a ring is full
// the thread's records are dropped and counted, never waited for. A writer thread drains the
// rings ten times a second into a Chrome trace-event file (Perfetto opens it) with one "B" and
// one "E" event for each call, so calls nest per thread as they happened. Each event is one line:
// the file can be read while the program runs. The file is made when the first record is
// written: a process that records nothing leaves none.
//
// What the entry points read (a slot's tracepoint names, class descriptions) is replaced, never
// changed in place; what is replaced is freed once no call that may have read it is under way.
// A module's unload frees its slots and the descriptions of the classes that depend on it.
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
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace weft::prof {

class EventSink;
struct IMetaDataImport;
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
  /// Most bytes of one value's JSON text; what does not fit is cut, the text staying JSON.
  static constexpr size_t ValueBudget = 4096;
  /// How long one call may wait, in all, for classes to be described while the runtime does not
  /// suspend threads (once it begins to, the call waits no more).
  static constexpr std::chrono::milliseconds DescribeWait{20};

  Recorder(ICorProfilerInfo7 *Info, std::string Path, Log &L);
  ~Recorder();

  /// A new slot (its flag cleared), or MaxSlots when there is no room left.
  uint32_t addSlot(SlotInfo Info);
  /// Slots whose methods are gone (their module unloaded, or their weave failed): taken again
  /// by addSlot once their records are written.
  void freeSlots(const std::vector<uint32_t> &Slots);
  /// The byte the woven code of \p Slot tests.
  const uint8_t *flag(uint32_t Slot) const { return &Flags[Slot]; }
  /// The enabled tracepoints on \p Slot now (none clears its flag), and how deep their object
  /// arguments' fields are recorded.
  void setTracepoints(uint32_t Slot, const std::vector<std::string> &Enabled, unsigned Depth);
  /// Module \p Module is unloading: the descriptions of classes that depend on it (theirs, their
  /// bases', their type arguments') are dropped, since their ClassIDs may be reused.
  void moduleUnloading(ModuleID Module);
  /// The runtime begins (true) or ends (false) suspending threads: calls stop waiting for
  /// descriptions until it resumes them.
  static void runtimeSuspending(bool Suspending) noexcept;
  /// Writes what is left, closes the file (with the counts); later records are dropped.
  void stop();
  uint64_t dropped() const;
  /// Calls entered into a method with an enabled tracepoint (recorded or dropped).
  uint64_t calls() const;
  /// The timeline file: its name once made, else the name it will have.
  std::string path() const;
  /// Whether the file was made (something was recorded).
  bool wrote() const;

  /// What the recorder holds and how long calls waited for descriptions, for the log.
  struct Figures {
    uint64_t SlotsInUse = 0, SlotsFree = 0, Classes = 0, Retired = 0;
    uint64_t Described = 0, NotInTime = 0, LongestWaitMicros = 0;
    /// Waits a suspension of the runtime (a collection) ended, and the longest it waited for a
    /// call to stop waiting.
    uint64_t SuspensionStops = 0, LongestSuspensionWaitMicros = 0;
  };
  Figures figures() const;

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
  static void enter(uint32_t Slot) noexcept;
  static void value(uint32_t Slot, uint32_t Index, void *Object) noexcept;
  static void leave(uint32_t Slot) noexcept;

private:
  struct Slot;
  struct ClassDesc;
  struct Reading;
  ThreadRing *ring();
  void record(uint8_t Kind, uint32_t Slot, const std::string &Text, uint64_t Nanos);
  void recordValue(uint32_t Slot, uint32_t Index, uintptr_t Object);
  void writerLoop();
  void drain(bool Final);
  /// Writes \p Text to the file, making it first if it is not made yet; false if it cannot be.
  bool write(const std::string &Text); // with OutLock held
  bool open();                         // with OutLock held
  /// \p Object as JSON (null, a number, a string, {"type": ..., "fields": {...}}), appended to
  /// \p Out without passing \p Limit bytes (Out.size() + MinValue at least on entry); classes
  /// not described yet are waited for until \p Until.
  void formatObject(std::string &Out, uintptr_t Object, unsigned Depth, size_t Limit,
                    std::chrono::steady_clock::time_point Until);
  void formatFields(std::string &Out, uintptr_t Object, const ClassDesc &D, unsigned Depth,
                    size_t Limit, std::chrono::steady_clock::time_point Until);
  void formatField(std::string &Out, uintptr_t Address, const uint8_t *Sig, size_t Size,
                   unsigned Depth, size_t Limit, std::chrono::steady_clock::time_point Until);
  /// What the recorder knows of \p Class: described by the describer thread (the runtime
  /// answers there), waited for until \p Until when first seen; null if not described by then.
  const ClassDesc *describe(ClassID Class, std::chrono::steady_clock::time_point Until);
  const ClassDesc *describeSlow(ClassID Class, std::chrono::steady_clock::time_point Until);
  void describerLoop();
  const ClassDesc *describeNow(ClassID Class);
  /// An enum's literals into \p D, should its base turn out to be System.Enum.
  void readLiterals(IMetaDataImport &Import, mdTypeDef Type, ClassDesc &D);
  /// The modules \p Class depends on (its own, its type arguments', an array's element's).
  void dependencies(ClassID Class, std::vector<ModuleID> &Out, unsigned Depth);
  const ClassDesc *keep(ClassID Class, std::unique_ptr<ClassDesc> D);
  /// Frees \p Object once no call that began before now is under way.
  template <typename T> void retire(const T *Object);
  /// Frees what was retired before the oldest call under way began.
  void reclaim();

  ICorProfilerInfo7 *Info;
  std::string Path;
  Log &L;
  std::FILE *Out = nullptr; // under OutLock; made at the first write
  bool OpenFailed = false;  // under OutLock
  std::atomic<bool> Opened{false};
  std::vector<EventSink *> Sinks;
  uint32_t Pid = 0;
  std::chrono::steady_clock::time_point Start;
  std::unique_ptr<uint8_t[]> Flags;
  /// Slots by number, read without a lock below SlotCount (written before it grows).
  std::unique_ptr<Slot *[]> Table;
  std::vector<std::unique_ptr<Slot>> Owned;
  mutable std::mutex SlotsLock; // for adding and freeing
  /// Freed slots, each with the number of drains done when it was freed: taken again two
  /// drains later (one that began after it was freed has then read its records).
  std::vector<std::pair<uint32_t, uint64_t>> FreeSlots; // under SlotsLock
  std::atomic<uint64_t> Drains{0};
  Slot *slot(uint32_t Index) const;
  std::atomic<uint32_t> SlotCount{0};
  ULONG StringLengthOffset = 0, StringBufferOffset = 0;

  // Class descriptions. Lock order: DescribeLock, then ClassesLock.
  mutable std::mutex ClassesLock;
  std::unordered_map<ClassID, std::unique_ptr<ClassDesc>> Classes;
  std::vector<ClassID> Asked; // for the describer, under ClassesLock
  std::condition_variable Described, DescribeWake;
  bool StopDescriber = false, Suspending = false;        // under ClassesLock
  std::chrono::steady_clock::time_point SuspendingSince; // under ClassesLock
  /// Held while a class is described: an unload waits for it.
  std::mutex DescribeLock;
  /// Bumped when descriptions are dropped: each thread's cache of them is then stale.
  std::atomic<uint64_t> Generation{1};
  std::atomic<uint64_t> DescribedCount{0}, NotInTime{0}, LongestWaitNanos{0}, SuspensionStops{0},
      LongestSuspensionWaitNanos{0};
  /// Test only: the describer sleeps this long before each class (WEFT_TEST_DESCRIBE_DELAY_MS),
  /// standing in for a describer the system keeps from running.
  std::chrono::milliseconds DescribeDelay{0};
  std::thread Describer;

  // What was replaced or dropped, freed once no call that may read it is under way: each call
  // publishes the epoch it began in (ThreadRing::Reading), each retired object the epoch it was
  // retired in.
  std::atomic<uint64_t> Epoch{1};
  mutable std::mutex RetiredLock;
  std::vector<std::pair<uint64_t, std::function<void()>>> Retired;

  mutable std::mutex RingsLock;
  /// Gone, plus \p Field summed over the rings still held.
  uint64_t total(std::atomic<uint64_t> ThreadRing::*Field, const std::atomic<uint64_t> &Gone) const;
  std::vector<std::unique_ptr<ThreadRing>> Rings;
  std::atomic<uint64_t> DroppedGone{0}, CallsGone{0}; // of rings already freed
  std::atomic<bool> Stopped{false};
  /// Held while the file is written (the writer thread's drain, the trace runtime's calls).
  mutable std::mutex OutLock;
  std::mutex TraceLock;
  std::vector<std::string> TraceNames; // under TraceLock
  std::mutex WakeLock;
  std::condition_variable Wake;
  bool StopWriter = false; // under WakeLock
  std::thread Writer;
};

} // namespace weft::prof

#endif
