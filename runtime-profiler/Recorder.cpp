//===- runtime-profiler/Recorder.cpp --------------------------------------===//
#include "runtime-profiler/Recorder.h"

#include "runtime-profiler/EventSink.h"
#include "runtime-profiler/Log.h"
#include "runtime-profiler/MetaData.h"
#include "support/Port.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

namespace {

enum Kind : uint8_t { Enter = 1, Value = 2, Leave = 3, Note = 4 };

/// A record's fixed part, followed by its text.
struct RecordHead {
  uint32_t Size; // with the head
  uint8_t Kind;
  uint8_t Pad[3];
  uint32_t Slot;
  uint64_t Nanos;
};

/// Longest text of a note (the runtime's events on the timeline); a longer one is dropped.
constexpr size_t MaxNote = 16384;
/// Bytes any value's text may need however it is cut: a number, null, or a marker string.
constexpr size_t MinValue = 40;
/// What an object whose fields are cut keeps for the end: the cut member (`,"...":N`) and
/// the closing braces.
constexpr size_t CutReserve = 16;

/// The recorder the woven code reaches: one per process, never freed once made (threads may
/// finish after the runtime shut the profiler down).
std::atomic<Recorder *> Active{nullptr};

template <typename T> T readAt(uintptr_t Address) {
  T V;
  std::memcpy(&V, reinterpret_cast<const void *>(Address), sizeof V);
  return V;
}

/// A primitive of element type \p Type at \p Address, as JSON; false if it is not one.
template <typename T> void appendNumber(std::string &Out, T V) {
  char Buf[64];
  std::to_chars_result R = std::to_chars(Buf, Buf + sizeof Buf, V);
  StringRef Text(Buf, size_t(R.ptr - Buf));
  // JSON has no NaN or infinities: those go as strings.
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(V)) {
      appendJsonString(Out, Text);
      return;
    }
  Out.append(Text.data(), Text.size());
}

/// A primitive of element type \p Type at \p Address, as JSON (shortest round-trip text for
/// floating point); false if it is not one.
bool formatPrimitive(std::string &Out, uint8_t Type, uintptr_t Address) {
  switch (Type) {
  case 0x02: Out += readAt<uint8_t>(Address) ? "true" : "false"; return true;
  case 0x03:
  case 0x07: appendNumber(Out, readAt<uint16_t>(Address)); return true;
  case 0x04: appendNumber(Out, int(readAt<int8_t>(Address))); return true;
  case 0x05: appendNumber(Out, unsigned(readAt<uint8_t>(Address))); return true;
  case 0x06: appendNumber(Out, readAt<int16_t>(Address)); return true;
  case 0x08: appendNumber(Out, readAt<int32_t>(Address)); return true;
  case 0x09: appendNumber(Out, readAt<uint32_t>(Address)); return true;
  case 0x0A:
  case 0x18: appendNumber(Out, readAt<int64_t>(Address)); return true;
  case 0x0B:
  case 0x19: appendNumber(Out, readAt<uint64_t>(Address)); return true;
  case 0x0C: appendNumber(Out, readAt<float>(Address)); return true;
  case 0x0D: appendNumber(Out, readAt<double>(Address)); return true;
  default: return false;
  }
}

int64_t readInteger(uint8_t Type, uintptr_t Address) {
  switch (Type) {
  case 0x02:
  case 0x05: return readAt<uint8_t>(Address);
  case 0x04: return readAt<int8_t>(Address);
  case 0x03:
  case 0x07: return readAt<uint16_t>(Address);
  case 0x06: return readAt<int16_t>(Address);
  case 0x08: return readAt<int32_t>(Address);
  case 0x09: return readAt<uint32_t>(Address);
  default: return readAt<int64_t>(Address);
  }
}

const std::pair<StringRef, uint8_t> PrimitiveNames[] = {
    {"System.Boolean", 0x02}, {"System.Char", 0x03},   {"System.SByte", 0x04},
    {"System.Byte", 0x05},    {"System.Int16", 0x06},  {"System.UInt16", 0x07},
    {"System.Int32", 0x08},   {"System.UInt32", 0x09}, {"System.Int64", 0x0A},
    {"System.UInt64", 0x0B},  {"System.Single", 0x0C}, {"System.Double", 0x0D},
    {"System.IntPtr", 0x18},  {"System.UIntPtr", 0x19}};

uint32_t currentTid() { return port::currentThreadId(); }

/// \p Most becomes \p Value if that is more.
void raiseTo(std::atomic<uint64_t> &Most, uint64_t Value) {
  uint64_t Now = Most.load(std::memory_order_relaxed);
  while (Value > Now && !Most.compare_exchange_weak(Now, Value))
    ;
}

/// A JSON string appended within a limit: characters are written while they fit, and a cut
/// string ends with "..." (the characters before it given back to make room), so the text is
/// always a whole string. The limit leaves room for `"..."` at least.
class JsonString {
public:
  JsonString(std::string &Out, size_t Limit) : Out(Out), Limit(Limit) { Out += '"'; }
  /// Appends code point \p C; false once a character did not fit (the string is cut).
  bool put(uint32_t C) {
    if (Cut)
      return false;
    char Buf[8];
    size_t N = encode(C, Buf);
    if (Out.size() + N + 1 > Limit) { // and the closing quote
      Cut = true;
      return false;
    }
    Starts[Count++ % 3] = Out.size();
    Out.append(Buf, N);
    return true;
  }
  /// Closes the string; \p More: characters were left out before the limit was reached.
  void finish(bool More) {
    if (Cut || More) {
      // Each character is a byte at least: giving back three makes room for the marker.
      for (unsigned Back = 0; Out.size() + 4 > Limit && Back < 3 && Count > Back; ++Back)
        Out.resize(Starts[(Count - 1 - Back) % 3]);
      Out += "...";
    }
    Out += '"';
  }

private:
  static size_t encode(uint32_t C, char *Buf) {
    switch (C) {
    case '"': return copy(Buf, "\\\"");
    case '\\': return copy(Buf, "\\\\");
    case '\n': return copy(Buf, "\\n");
    case '\r': return copy(Buf, "\\r");
    case '\t': return copy(Buf, "\\t");
    default: break;
    }
    if (C < 0x20)
      return size_t(std::snprintf(Buf, 8, "\\u%04x", unsigned(C)));
    if (C >= 0xD800 && C <= 0xDFFF) // an unpaired surrogate: no character of its own
      C = 0xFFFD;
    if (C < 0x80) {
      Buf[0] = char(C);
      return 1;
    }
    if (C < 0x800) {
      Buf[0] = char(0xC0 | (C >> 6)), Buf[1] = char(0x80 | (C & 0x3F));
      return 2;
    }
    if (C < 0x10000) {
      Buf[0] = char(0xE0 | (C >> 12)), Buf[1] = char(0x80 | ((C >> 6) & 0x3F));
      Buf[2] = char(0x80 | (C & 0x3F));
      return 3;
    }
    Buf[0] = char(0xF0 | (C >> 18)), Buf[1] = char(0x80 | ((C >> 12) & 0x3F));
    Buf[2] = char(0x80 | ((C >> 6) & 0x3F)), Buf[3] = char(0x80 | (C & 0x3F));
    return 4;
  }
  static size_t copy(char *Buf, const char *Text) {
    size_t N = std::strlen(Text);
    std::memcpy(Buf, Text, N);
    return N;
  }

  std::string &Out;
  size_t Limit;
  size_t Starts[3] = {};
  unsigned Count = 0;
  bool Cut = false;
};

/// \p Units (UTF-16 code units, read from \p Address on) as a JSON string within \p Limit;
/// unpaired surrogates become U+FFFD.
void appendUtf16(std::string &Out, uintptr_t Address, size_t Units, size_t Limit) {
  JsonString S(Out, Limit);
  size_t I = 0;
  while (I < Units) {
    uint32_t C = readAt<uint16_t>(Address + 2 * I);
    size_t Used = 1;
    if (C >= 0xD800 && C <= 0xDBFF && I + 1 < Units) {
      uint32_t Low = readAt<uint16_t>(Address + 2 * (I + 1));
      if (Low >= 0xDC00 && Low <= 0xDFFF)
        C = 0x10000 + ((C - 0xD800) << 10) + (Low - 0xDC00), Used = 2;
    }
    if (!S.put(C))
      break;
    I += Used;
  }
  S.finish(I < Units);
}

/// \p Text (UTF-8, as weft makes names) as a JSON string within \p Limit.
void appendUtf8(std::string &Out, StringRef Text, size_t Limit) {
  JsonString S(Out, Limit);
  size_t I = 0;
  while (I < Text.size()) {
    uint8_t Lead = uint8_t(Text[I]);
    size_t N = Lead < 0x80 ? 1 : Lead >= 0xF0 ? 4 : Lead >= 0xE0 ? 3 : Lead >= 0xC0 ? 2 : 1;
    uint32_t C = N == 1 ? (Lead < 0x80 ? Lead : 0xFFFD) : Lead & (0x7F >> N);
    for (size_t K = 1; K < N && C != 0xFFFD; ++K)
      C = I + K < Text.size() ? (C << 6) | (uint8_t(Text[I + K]) & 0x3F) : 0xFFFD;
    if (C > 0x10FFFF)
      C = 0xFFFD;
    if (!S.put(C))
      break;
    I += N;
  }
  S.finish(I < Text.size());
}

} // namespace

/// One thread's records: it writes at Head, the writer reads at Tail.
struct ThreadRing {
  static constexpr size_t Capacity = size_t(1) << 20;
  std::unique_ptr<uint8_t[]> Data{new uint8_t[Capacity]};
  std::atomic<uint64_t> Head{0}, Tail{0};
  std::atomic<uint64_t> Dropped{0}, Calls{0}; // written by the thread alone
  std::atomic<bool> Gone{false};
  /// The epoch the thread's call under way began in (0: none): what was retired since may
  /// still be read by it.
  std::atomic<uint64_t> Reading{0};
  uint32_t Tid = 0;
  /// The thread's own: after a drop, its records are dropped until a call begins with half the
  /// ring free, so that no value is taken for another call's.
  bool Dropping = false;
  /// The writer's own: the event being built (its values may come in the next drain).
  std::string Pending;
  bool PendingEnter = false, PendingFirstValue = true;
  /// The same event's parts, for the EventPipe provider: method, tracepoints, and its values as
  /// JSON (the arguments' array, or the result's object).
  std::string PendingMethod, PendingNames, PendingJson;

  void drop() {
    Dropped.store(Dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

namespace {
/// Marks the thread's ring gone when the thread ends; the writer frees it once read.
struct RingHandle {
  ThreadRing *Ring = nullptr;
  ~RingHandle() {
    if (Ring)
      Ring->Gone.store(true, std::memory_order_release);
  }
};
thread_local RingHandle Mine;

/// The class descriptions this thread used last, without a lock; valid while the recorder's
/// generation is the one they were taken in.
struct CachedDesc {
  ClassID Class = 0;
  const void *Desc = nullptr;
  uint64_t Generation = 0;
};
thread_local CachedDesc Recent[64];
} // namespace

/// A call of an entry point under way on \p Ring: published before the call reads anything
/// that may be retired (sequentially consistent, so a retirement either sees it or happened
/// before the call's reads).
struct Recorder::Reading {
  ThreadRing &Ring;
  Reading(Recorder &R, ThreadRing &Ring) : Ring(Ring) {
    Ring.Reading.store(R.Epoch.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
  }
  ~Reading() { Ring.Reading.store(0, std::memory_order_release); }
};

struct Recorder::Slot {
  SlotInfo Info;
  /// The enabled tracepoints' names as JSON; replaced and retired, never changed in place.
  std::atomic<const std::string *> Names{new std::string("[]")};
  std::atomic<unsigned> Depth{0};
};

struct Recorder::ClassDesc {
  enum class Kinds { Other, String, Primitive, Enum, Array } Kind = Kinds::Other;
  std::string Name;
  uint8_t Element = 0; // Primitive and Enum: the element type of the value
  std::vector<std::pair<int64_t, std::string>> Literals; // Enum
  struct Field {
    std::string Name;
    ULONG Offset;
    std::vector<uint8_t> Sig;
  };
  std::vector<Field> Fields; // instance fields, the base classes' first
  /// A value type: its field offsets count from its value, which a box has after the method
  /// table pointer.
  bool ValueType = false;
  /// The modules whose unload ends the class (sorted).
  std::vector<ModuleID> Modules;
};

Recorder::Recorder(ICorProfilerInfo7 *Info, std::string P, Log &L)
    : Info(Info), Path(std::move(P)), L(L), Pid(uint32_t(getpid())),
      Start(std::chrono::steady_clock::now()), Flags(new uint8_t[MaxSlots]()),
      Table(new Slot *[MaxSlots]()) {
  if (failed(Info->GetStringLayout2(&StringLengthOffset, &StringBufferOffset)))
    StringLengthOffset = StringBufferOffset = 0;
  if (const char *Delay = std::getenv("WEFT_TEST_DESCRIBE_DELAY_MS"))
    DescribeDelay = std::chrono::milliseconds(std::atoi(Delay));
  Writer = std::thread([this] { writerLoop(); });
  Describer = std::thread([this] { describerLoop(); });
  Active.store(this, std::memory_order_release);
}

Recorder::~Recorder() { stop(); }

bool Recorder::open() {
  if (Out || OpenFailed)
    return Out;
  // The file holds argument values: the user's alone, made anew (never a file or link that is
  // there already: a name taken gets the next, weft-timeline-PID-2.json and on).
  std::string Base = Path;
  StringRef Stem = StringRef(Base).drop_back(StringRef(Base).endswith(".json") ? 5 : 0);
  int Fd = -1, Error = 0;
  for (unsigned N = 1; N <= 100 && Fd < 0; ++N) {
    std::string Name = N == 1 ? Base : (Twine(Stem) + "-" + Twine(N) + ".json").str();
    Fd = port::createNewFile(Name.c_str());
    Error = errno;
    if (Fd >= 0)
      Path = Name;
    else if (Error != EEXIST && Error != ELOOP)
      break;
  }
  if (Fd >= 0)
    Out = ::fdopen(Fd, "wb"); // binary: no CRLF on Windows
  if (!Out) {
    if (Fd >= 0)
      ::close(Fd);
    OpenFailed = true;
    std::string Why = Error == EEXIST || Error == ELOOP
                          ? " or the next 99 names (all taken)"
                          : std::string(" (") + std::strerror(Error) + ")";
    L.line("timeline: cannot make " + Twine(Base) + Why + "; the records are dropped");
    return false;
  }
  Opened.store(true, std::memory_order_release);
  std::fprintf(Out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  std::fprintf(Out,
               "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"pid "
               "%u\"}},\n",
               Pid, Pid);
  L.line("timeline: made " + Path);
  return true;
}

bool Recorder::write(const std::string &Text) {
  if (Text.empty() || !open())
    return false;
  std::fwrite(Text.data(), 1, Text.size(), Out);
  std::fflush(Out);
  return true;
}

std::string Recorder::path() const {
  std::lock_guard<std::mutex> G(OutLock);
  return Path;
}

bool Recorder::wrote() const { return Opened.load(std::memory_order_acquire); }

uint32_t Recorder::addSlot(SlotInfo Info) {
  std::lock_guard<std::mutex> G(SlotsLock);
  uint64_t Done = Drains.load();
  for (auto It = FreeSlots.begin(); It != FreeSlots.end(); ++It)
    if (Done >= It->second + 2) {
      uint32_t N = It->first;
      FreeSlots.erase(It);
      Table[N]->Info = std::move(Info);
      return N;
    }
  uint32_t N = SlotCount.load();
  if (N >= MaxSlots)
    return MaxSlots;
  Owned.push_back(std::make_unique<Slot>());
  Owned.back()->Info = std::move(Info);
  Table[N] = Owned.back().get();
  SlotCount.store(N + 1, std::memory_order_release);
  return N;
}

void Recorder::freeSlots(const std::vector<uint32_t> &Slots) {
  for (uint32_t S : Slots)
    setTracepoints(S, {}, 0);
  std::lock_guard<std::mutex> G(SlotsLock);
  for (uint32_t S : Slots)
    if (S < SlotCount.load() &&
        llvm::none_of(FreeSlots, [&](const auto &F) { return F.first == S; }))
      FreeSlots.emplace_back(S, Drains.load());
}

Recorder::Slot *Recorder::slot(uint32_t Index) const {
  return Index < SlotCount.load(std::memory_order_acquire) ? Table[Index] : nullptr;
}

void Recorder::setTracepoints(uint32_t Index, const std::vector<std::string> &Enabled,
                              unsigned Depth) {
  // The names go whole into every call's record: past a kilobyte the list is cut.
  std::string Names = "[";
  for (size_t I = 0; I < Enabled.size(); ++I) {
    if (I)
      Names += ',';
    if (Names.size() + Enabled[I].size() > 1024) {
      Names += "\"...\"";
      break;
    }
    appendJsonString(Names, Enabled[I]);
  }
  Names += ']';
  Slot *S = slot(Index);
  if (!S)
    return;
  retire(S->Names.exchange(new std::string(std::move(Names)), std::memory_order_seq_cst));
  S->Depth.store(Depth, std::memory_order_relaxed);
  reinterpret_cast<std::atomic<uint8_t> *>(&Flags[Index])
      ->store(Enabled.empty() ? 0 : 1, std::memory_order_release);
}

template <typename T> void Recorder::retire(const T *Object) {
  if (!Object)
    return;
  std::lock_guard<std::mutex> G(RetiredLock);
  Retired.emplace_back(Epoch.fetch_add(1, std::memory_order_seq_cst), [Object] { delete Object; });
}

void Recorder::reclaim() {
  uint64_t Oldest = UINT64_MAX;
  {
    std::lock_guard<std::mutex> G(RingsLock);
    for (const auto &R : Rings)
      if (uint64_t E = R->Reading.load(std::memory_order_seq_cst))
        Oldest = std::min(Oldest, E);
  }
  // A call that began in epoch E read nothing retired before E (retiring moves the epoch on).
  std::vector<std::function<void()>> Free;
  {
    std::lock_guard<std::mutex> G(RetiredLock);
    for (auto It = Retired.begin(); It != Retired.end();)
      if (It->first < Oldest) {
        Free.push_back(std::move(It->second));
        It = Retired.erase(It);
      } else {
        ++It;
      }
  }
  for (auto &F : Free)
    F();
}

ThreadRing *Recorder::ring() {
  if (Mine.Ring)
    return Mine.Ring;
  auto R = std::make_unique<ThreadRing>();
  R->Tid = currentTid();
  std::lock_guard<std::mutex> G(RingsLock);
  Rings.push_back(std::move(R));
  Mine.Ring = Rings.back().get();
  return Mine.Ring;
}

uint64_t Recorder::now() const {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - Start)
                      .count());
}

void Recorder::traceName(uint32_t Id, std::string Name) {
  std::lock_guard<std::mutex> G(TraceLock);
  if (Id >= TraceNames.size())
    TraceNames.resize(size_t(Id) + 1);
  TraceNames[Id] = std::move(Name);
}

void Recorder::traceCalls(uint32_t Tid, const int64_t *Calls, int32_t Count) {
  if (Stopped.load(std::memory_order_relaxed) || !Calls || Count < 3)
    return;
  int64_t Origin =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Start.time_since_epoch()).count();
  std::string Text, Head = "{\"ph\":\"X\",\"cat\":\"trace\",\"pid\":" + std::to_string(Pid) +
                               ",\"tid\":" + std::to_string(Tid) + ",";
  {
    std::lock_guard<std::mutex> G(TraceLock);
    for (int32_t I = 0; I + 2 < Count; I += 3) {
      int64_t Id = Calls[I];
      if (Id < 0 || uint64_t(Id) >= TraceNames.size())
        continue;
      const std::string &Name = TraceNames[size_t(Id)];
      uint64_t At = uint64_t(std::max<int64_t>(0, Calls[I + 1] - Origin)),
               Took = uint64_t(std::max<int64_t>(0, Calls[I + 2]));
      char Times[80];
      std::snprintf(Times, sizeof Times, "\"ts\":%.3f,\"dur\":%.3f,\"name\":", double(At) / 1000,
                    double(Took) / 1000);
      Text += Head + Times;
      appendJsonString(Text, Name);
      Text += "},\n";
      for (EventSink *S : Sinks)
        if (S->wantsCalls())
          S->call(Name, At, Took, Tid);
    }
  }
  std::lock_guard<std::mutex> G(OutLock);
  write(Text);
}

void Recorder::note(uint64_t Nanos, const std::string &Members) {
  record(Note, 0, Members, Nanos);
}

void Recorder::record(uint8_t K, uint32_t SlotIndex, const std::string &Text, uint64_t Nanos) {
  if (Stopped.load(std::memory_order_relaxed))
    return;
  ThreadRing &R = *ring();
  // Values are within their budget and names within theirs; a note too long is dropped whole
  // (cut, it would not be JSON).
  if (K == Note && Text.size() > MaxNote) {
    R.drop();
    return;
  }
  RecordHead H{};
  H.Kind = K;
  H.Slot = SlotIndex;
  H.Size = uint32_t(sizeof H + Text.size());
  H.Nanos = Nanos;
  uint64_t Head = R.Head.load(std::memory_order_relaxed);
  uint64_t Free = ThreadRing::Capacity - (Head - R.Tail.load(std::memory_order_acquire));
  if (R.Dropping && (K == Value || K == Leave || Free < ThreadRing::Capacity / 2)) {
    R.drop();
    return;
  }
  R.Dropping = false;
  if (H.Size > Free) {
    R.Dropping = true;
    R.drop();
    return;
  }
  auto Put = [&](uint64_t At, const void *Bytes, size_t N) {
    size_t Pos = At % ThreadRing::Capacity, First = std::min(N, ThreadRing::Capacity - Pos);
    std::memcpy(R.Data.get() + Pos, Bytes, First);
    std::memcpy(R.Data.get(), static_cast<const uint8_t *>(Bytes) + First, N - First);
  };
  Put(Head, &H, sizeof H);
  Put(Head + sizeof H, Text.data(), Text.size());
  R.Head.store(Head + H.Size, std::memory_order_release);
}

// The entry points: nothing may cross into the runtime, which called them from managed code. A
// failure (memory for the thread's ring or a value's text) loses that record, counted where
// the thread's ring exists.

void Recorder::enter(uint32_t SlotIndex) noexcept {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (!R || R->Stopped.load(std::memory_order_relaxed))
    return;
  try {
    Slot *S = R->slot(SlotIndex);
    if (!S)
      return;
    ThreadRing &Ring = *R->ring();
    Reading Now(*R, Ring);
    Ring.Calls.store(Ring.Calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    R->record(Enter, SlotIndex, *S->Names.load(std::memory_order_seq_cst), R->now());
  } catch (...) {
    if (Mine.Ring)
      Mine.Ring->drop();
  }
}

void Recorder::leave(uint32_t SlotIndex) noexcept {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (!R || R->Stopped.load(std::memory_order_relaxed))
    return;
  try {
    if (R->slot(SlotIndex))
      R->record(Leave, SlotIndex, std::string(), R->now());
  } catch (...) {
    if (Mine.Ring)
      Mine.Ring->drop();
  }
}

void Recorder::value(uint32_t SlotIndex, uint32_t Index, void *Object) noexcept {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (!R || R->Stopped.load(std::memory_order_relaxed))
    return;
  try {
    R->recordValue(SlotIndex, Index, reinterpret_cast<uintptr_t>(Object));
  } catch (...) {
    if (Mine.Ring)
      Mine.Ring->drop();
  }
}

void Recorder::recordValue(uint32_t SlotIndex, uint32_t Index, uintptr_t Object) {
  Slot *S = slot(SlotIndex);
  if (!S)
    return;
  unsigned Depth = S->Depth.load(std::memory_order_relaxed);
  ThreadRing &Ring = *ring();
  if (Ring.Dropping) { // its call was dropped: so is the value, unformatted
    Ring.drop();
    return;
  }
  Reading Now(*this, Ring);
  // The index leads the text, four hex digits.
  char Lead[8];
  std::snprintf(Lead, sizeof Lead, "%04x", Index & 0xFFFF);
  std::string Text;
  Text.reserve(64);
  Text += Lead;
  formatObject(Text, Object, Depth, Text.size() + ValueBudget,
               std::chrono::steady_clock::now() + DescribeWait);
  record(Value, SlotIndex, Text, 0); // a value has its call's time
}

void Recorder::runtimeSuspending(bool Now) noexcept {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (!R)
    return;
  try {
    std::lock_guard<std::mutex> G(R->ClassesLock);
    R->Suspending = Now;
    R->SuspendingSince = std::chrono::steady_clock::now();
  } catch (...) {
    return;
  }
  if (Now)
    R->Described.notify_all();
}

const Recorder::ClassDesc *Recorder::describe(ClassID Class,
                                              std::chrono::steady_clock::time_point Until) {
  uint64_t Gen = Generation.load(std::memory_order_seq_cst);
  CachedDesc &Hit = Recent[(Class >> 4) % 64];
  if (Hit.Class == Class && Hit.Desc && Hit.Generation == Gen)
    return static_cast<const ClassDesc *>(Hit.Desc);
  const ClassDesc *D = describeSlow(Class, Until);
  if (D)
    Hit = {Class, D, Gen};
  return D;
}

const Recorder::ClassDesc *Recorder::describeSlow(ClassID Class,
                                                  std::chrono::steady_clock::time_point Until) {
  std::unique_lock<std::mutex> G(ClassesLock);
  if (auto It = Classes.find(Class); It != Classes.end())
    return It->second.get();
  // The runtime answers questions about classes only inside its callbacks or on threads of its
  // own: the describer describes the class, once, while this call waits a little. A collection
  // another thread asks for waits for this call: once the runtime begins to suspend threads,
  // the call waits no more.
  if (llvm::find(Asked, Class) == Asked.end())
    Asked.push_back(Class);
  DescribeWake.notify_one();
  auto Began = std::chrono::steady_clock::now();
  Described.wait_until(G, Until, [&] { return Suspending || Classes.count(Class) > 0; });
  uint64_t Waited = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - Began)
          .count());
  raiseTo(LongestWaitNanos, Waited);
  if (Suspending && !Classes.count(Class)) { // how long the suspension waited for the call
    ++SuspensionStops;
    raiseTo(LongestSuspensionWaitNanos,
            uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - std::max(SuspendingSince, Began))
                         .count()));
  }
  auto It = Classes.find(Class);
  if (It == Classes.end()) {
    ++NotInTime;
    return nullptr;
  }
  return It->second.get();
}

void Recorder::describerLoop() {
  while (true) {
    {
      std::unique_lock<std::mutex> G(ClassesLock);
      DescribeWake.wait(G, [&] { return StopDescriber || !Asked.empty(); });
      if (StopDescriber)
        return;
    }
    if (DescribeDelay.count())
      std::this_thread::sleep_for(DescribeDelay);
    // Under DescribeLock from taking the class to keeping its description: an unload drops
    // what is asked and waits for the class under way.
    std::lock_guard<std::mutex> D(DescribeLock);
    ClassID Class = 0;
    {
      std::lock_guard<std::mutex> G(ClassesLock);
      if (Asked.empty())
        continue;
      Class = Asked.front();
      Asked.erase(Asked.begin());
    }
    try {
      describeNow(Class);
    } catch (...) {
      // Not described: the calls that meet it say so.
    }
  }
}

void Recorder::dependencies(ClassID Class, std::vector<ModuleID> &Out, unsigned Depth) {
  if (!Class || Depth > 8)
    return;
  CorElementType ElemType{};
  ClassID ElemClass = 0;
  ULONG Rank = 0;
  if (Info->IsArrayClass(Class, &ElemType, &ElemClass, &Rank) == S_OK) {
    dependencies(ElemClass, Out, Depth + 1);
    return;
  }
  ModuleID Module = 0;
  mdTypeDef Type = 0;
  ClassID Parent = 0;
  ULONG32 Count = 0;
  if (failed(Info->GetClassIDInfo2(Class, &Module, &Type, &Parent, 0, &Count, nullptr)))
    return;
  Out.push_back(Module);
  if (!Count)
    return;
  std::vector<ClassID> Args(std::min<ULONG32>(Count, 64));
  if (succeeded(Info->GetClassIDInfo2(Class, &Module, &Type, &Parent, ULONG32(Args.size()), &Count,
                                      Args.data())))
    for (ClassID A : Args)
      dependencies(A, Out, Depth + 1);
}

const Recorder::ClassDesc *Recorder::describeNow(ClassID Class) {
  {
    std::lock_guard<std::mutex> G(ClassesLock);
    if (auto It = Classes.find(Class); It != Classes.end())
      return It->second.get();
  }
  auto D = std::make_unique<ClassDesc>();
  CorElementType ElemType{};
  ClassID ElemClass = 0;
  ULONG Rank = 0;
  if (Info->IsArrayClass(Class, &ElemType, &ElemClass, &Rank) == S_OK) {
    D->Kind = ClassDesc::Kinds::Array;
    std::string Elem = "?";
    if (ElemClass)
      if (const ClassDesc *E = describeNow(ElemClass)) {
        Elem = E->Name;
        D->Modules = E->Modules;
      }
    D->Name = Elem + (Rank == 1 ? "[]" : "[" + std::string(Rank - 1, ',') + "]");
    return keep(Class, std::move(D));
  }
  // The class and its bases: names, and the instance fields where they lie.
  ClassID C = Class;
  std::vector<std::vector<ClassDesc::Field>> Levels;
  for (unsigned Level = 0; C && Level < 32; ++Level) {
    ModuleID Module = 0;
    mdTypeDef Type = 0;
    ClassID Parent = 0;
    ULONG32 TypeArgs = 0;
    if (failed(Info->GetClassIDInfo2(C, &Module, &Type, &Parent, 0, &TypeArgs, nullptr)))
      break;
    dependencies(C, D->Modules, 0);
    IUnknown *Unk = nullptr;
    if (failed(Info->GetModuleMetaData(Module, ofRead, IID_IMetaDataImport, &Unk)) || !Unk)
      break;
    auto *Import = static_cast<IMetaDataImport *>(Unk);
    auto Release = llvm::make_scope_exit([&] { Import->Release(); });
    WCHAR Name[512];
    ULONG NameLength = 0;
    DWORD TypeFlags = 0;
    mdToken Extends = 0;
    std::string TypeName;
    if (succeeded(Import->GetTypeDefProps(Type, Name, 512, &NameLength, &TypeFlags, &Extends)))
      TypeName = utf8(ArrayRef<WCHAR>(Name, NameLength ? std::min<ULONG>(NameLength, 512) - 1 : 0));
    if (Level == 0) {
      D->Name = TypeName;
      for (auto [PName, Elem] : PrimitiveNames)
        if (TypeName == PName)
          D->Kind = ClassDesc::Kinds::Primitive, D->Element = Elem;
      if (TypeName == "System.String")
        D->Kind = ClassDesc::Kinds::String;
    } else if (Level == 1 && TypeName == "System.Enum") {
      D->Kind = ClassDesc::Kinds::Enum;
    } else if (Level == 1 && TypeName == "System.ValueType") {
      D->ValueType = true;
    }
    std::vector<ClassDesc::Field> Own;
    std::vector<COR_FIELD_OFFSET> Offsets(256);
    ULONG Count = 0, Size = 0;
    if (succeeded(Info->GetClassLayout(C, Offsets.data(), ULONG(Offsets.size()), &Count, &Size)))
      for (ULONG I = 0; I < std::min<ULONG>(Count, ULONG(Offsets.size())); ++I) {
        WCHAR FName[256];
        ULONG FLength = 0;
        DWORD Attr = 0;
        PCCOR_SIGNATURE Sig = nullptr;
        ULONG SigSize = 0;
        if (failed(Import->GetFieldProps(Offsets[I].ridOfField, nullptr, FName, 256, &FLength,
                                         &Attr, &Sig, &SigSize, nullptr, nullptr, nullptr)))
          continue;
        Own.push_back({utf8(ArrayRef<WCHAR>(FName, FLength ? std::min<ULONG>(FLength, 256) - 1 : 0)),
                       Offsets[I].ulOffset, std::vector<uint8_t>(Sig, Sig + SigSize)});
      }
    if (Level == 0)
      readLiterals(*Import, Type, *D);
    Levels.push_back(std::move(Own));
    C = Parent;
  }
  for (auto Level = Levels.rbegin(); Level != Levels.rend(); ++Level)
    for (ClassDesc::Field &F : *Level) {
      if (D->ValueType)
        F.Offset += sizeof(void *);
      D->Fields.push_back(std::move(F));
    }
  llvm::sort(D->Modules);
  D->Modules.erase(std::unique(D->Modules.begin(), D->Modules.end()), D->Modules.end());
  return keep(Class, std::move(D));
}

void Recorder::readLiterals(IMetaDataImport &Import, mdTypeDef Type, ClassDesc &D) {
  // An enum's literals, should its base turn out to be System.Enum.
  HCORENUM Enum = nullptr;
  mdFieldDef Fields[64];
  ULONG Got = 0;
  while (succeeded(Import.EnumFields(&Enum, Type, Fields, 64, &Got)) && Got) {
    for (ULONG I = 0; I < Got; ++I) {
      WCHAR FName[256];
      ULONG FLength = 0;
      DWORD Attr = 0, ConstType = 0;
      PCCOR_SIGNATURE Sig = nullptr;
      ULONG SigSize = 0, ValueLength = 0;
      UVCP_CONSTANT Constant = nullptr;
      if (failed(Import.GetFieldProps(Fields[I], nullptr, FName, 256, &FLength, &Attr, &Sig,
                                      &SigSize, &ConstType, &Constant, &ValueLength)))
        continue;
      std::string FieldName =
          utf8(ArrayRef<WCHAR>(FName, FLength ? std::min<ULONG>(FLength, 256) - 1 : 0));
      if (!(Attr & 0x10) && SigSize >= 2) // the instance field value__: the underlying type
        D.Element = Sig[SigSize - 1];
      else if ((Attr & 0x40) && Constant && ConstType >= 0x02 && ConstType <= 0x0B)
        D.Literals.emplace_back(readInteger(uint8_t(ConstType), uintptr_t(Constant)), FieldName);
    }
    if (Got < 64)
      break;
  }
  if (Enum)
    Import.CloseEnum(Enum);
}

const Recorder::ClassDesc *Recorder::keep(ClassID Class, std::unique_ptr<ClassDesc> D) {
  std::lock_guard<std::mutex> G(ClassesLock);
  auto &Slot = Classes[Class];
  if (!Slot) {
    Slot = std::move(D);
    ++DescribedCount;
  }
  Described.notify_all();
  return Slot.get();
}

void Recorder::moduleUnloading(ModuleID Module) {
  // The module's classes' ClassIDs may be reused once it is gone: their descriptions go, and so
  // does every thread's cached copy (the generation moves on). Calls under way that hold one
  // are done with it before it is freed.
  std::lock_guard<std::mutex> D(DescribeLock);
  std::vector<std::unique_ptr<ClassDesc>> Dropped;
  {
    std::lock_guard<std::mutex> G(ClassesLock);
    Asked.clear(); // asked for by calls already answered; asked again when met again
    for (auto It = Classes.begin(); It != Classes.end();)
      if (std::binary_search(It->second->Modules.begin(), It->second->Modules.end(), Module)) {
        Dropped.push_back(std::move(It->second));
        It = Classes.erase(It);
      } else {
        ++It;
      }
  }
  if (Dropped.empty())
    return;
  Generation.fetch_add(1, std::memory_order_seq_cst);
  for (auto &Desc : Dropped)
    retire(Desc.release());
}

void Recorder::formatObject(std::string &Out, uintptr_t Object, unsigned Depth, size_t Limit,
                            std::chrono::steady_clock::time_point Until) {
  if (!Object) {
    Out += "null";
    return;
  }
  // The object's method table is its ClassID (GetClassFromObject may be called only inside
  // the runtime's callbacks; no collection runs during this call, so the pointer is clean).
  ClassID Class = readAt<uintptr_t>(Object);
  if (!Class) {
    Out += "\"<unknown>\"";
    return;
  }
  const ClassDesc *Desc = describe(Class, Until);
  if (!Desc) {
    Out += "\"<not described in time>\"";
    return;
  }
  const ClassDesc &D = *Desc;
  uintptr_t Data = Object + sizeof(void *); // a boxed value follows the method table pointer
  switch (D.Kind) {
  case ClassDesc::Kinds::String: {
    uint32_t Length = readAt<uint32_t>(Object + StringLengthOffset);
    appendUtf16(Out, Object + StringBufferOffset, Length, Limit);
    return;
  }
  case ClassDesc::Kinds::Primitive:
    if (!formatPrimitive(Out, D.Element, Data))
      Out += "null";
    return;
  case ClassDesc::Kinds::Enum: {
    int64_t V = readInteger(D.Element, Data);
    for (const auto &[Number, Name] : D.Literals)
      if (Number == V) {
        appendUtf8(Out, Name, Limit);
        return;
      }
    Out += std::to_string(V);
    return;
  }
  case ClassDesc::Kinds::Array: {
    std::string Length =
        ",\"length\":" + std::to_string(readAt<uint32_t>(Object + sizeof(void *))) + "}";
    Out += "{\"type\":";
    appendUtf8(Out, D.Name, Limit - Length.size());
    Out += Length;
    return;
  }
  case ClassDesc::Kinds::Other: break;
  }
  bool Fields = Depth > 0 && !D.Fields.empty();
  Out += "{\"type\":";
  appendUtf8(Out, D.Name, Limit - 1 - (Fields ? CutReserve : 0));
  if (Fields)
    formatFields(Out, Object, D, Depth, Limit - 1, Until);
  Out += '}';
}

void Recorder::formatFields(std::string &Out, uintptr_t Object, const ClassDesc &D, unsigned Depth,
                            size_t Limit, std::chrono::steady_clock::time_point Until) {
  // Each field gets an equal share of what is left (what one does not use goes to the next);
  // fields that do not fit are counted in a last member, "...": N.
  auto Cut = [&](size_t Left) { Out += ",\"...\":" + std::to_string(Left); };
  if (Out.size() + 11 + MinValue + CutReserve > Limit)
    return Cut(D.Fields.size());
  Out += ",\"fields\":{";
  size_t Inner = Limit - 1; // the fields' closing brace
  for (size_t I = 0; I < D.Fields.size(); ++I) {
    const ClassDesc::Field &F = D.Fields[I];
    size_t Mark = Out.size();
    if (I)
      Out += ',';
    appendJsonString(Out, F.Name);
    Out += ':';
    size_t Left = D.Fields.size() - I;
    if (Out.size() + MinValue + CutReserve > Inner) {
      Out.resize(Mark);
      if (I)
        Cut(Left);
      else
        Out += "\"...\":" + std::to_string(Left);
      break;
    }
    size_t Room = Inner - CutReserve - Out.size();
    size_t Share = std::max(MinValue, Room / Left);
    formatField(Out, Object + F.Offset, F.Sig.data(), F.Sig.size(), Depth - 1, Out.size() + Share,
                Until);
  }
  Out += '}';
}

void Recorder::formatField(std::string &Out, uintptr_t Address, const uint8_t *Sig, size_t Size,
                           unsigned Depth, size_t Limit,
                           std::chrono::steady_clock::time_point Until) {
  size_t I = 1; // after FIELD (0x06)
  while (I < Size && (Sig[I] == 0x1F || Sig[I] == 0x20)) // custom modifiers
    I += 2;
  uint8_t Type = I < Size ? Sig[I] : 0;
  if (formatPrimitive(Out, Type, Address))
    return;
  switch (Type) {
  case 0x0E: // string
  case 0x12: // class
  case 0x1C: // object
  case 0x1D: // szarray
  case 0x14: // array
    formatObject(Out, readAt<uintptr_t>(Address), Depth, Limit, Until);
    return;
  case 0x15: // generic instance: a class one is a reference
    if (I + 1 < Size && Sig[I + 1] == 0x12) {
      formatObject(Out, readAt<uintptr_t>(Address), Depth, Limit, Until);
      return;
    }
    break;
  default: break;
  }
  Out += "\"<value>\"";
}

void Recorder::writerLoop() {
  std::unique_lock<std::mutex> G(WakeLock);
  while (!StopWriter) {
    Wake.wait_for(G, std::chrono::milliseconds(100), [&] { return StopWriter; });
    G.unlock();
    try {
      drain(false);
      reclaim();
    } catch (...) {
      // Memory for the text: what was read is lost; the next drain goes on.
    }
    G.lock();
  }
}

void Recorder::drain(bool Final) {
  std::vector<ThreadRing *> Now;
  {
    std::lock_guard<std::mutex> G(RingsLock);
    for (auto &R : Rings)
      Now.push_back(R.get());
  }
  std::string Text;
  std::vector<uint8_t> Bytes;
  auto Flush = [&](ThreadRing &R) {
    if (R.Pending.empty())
      return;
    Text += R.Pending + (R.PendingEnter ? "]}},\n" : "}},\n");
    R.Pending.clear();
    for (EventSink *Sink : Sinks)
      if (Sink->wantsTracepoints())
        Sink->tracepoint(R.PendingEnter, R.PendingMethod, R.PendingNames,
                         R.PendingJson + (R.PendingEnter ? "]" : "}"), R.Tid);
  };
  for (ThreadRing *RP : Now) {
    ThreadRing &R = *RP;
    bool Gone = R.Gone.load(std::memory_order_acquire);
    uint64_t Head = R.Head.load(std::memory_order_acquire), Tail = R.Tail.load();
    Bytes.resize(Head - Tail);
    for (uint64_t At = Tail; At < Head; ++At)
      Bytes[At - Tail] = R.Data[At % ThreadRing::Capacity];
    R.Tail.store(Head, std::memory_order_release);
    for (size_t Pos = 0; Pos + sizeof(RecordHead) <= Bytes.size();) {
      RecordHead H;
      std::memcpy(&H, Bytes.data() + Pos, sizeof H);
      StringRef Body(reinterpret_cast<const char *>(Bytes.data()) + Pos + sizeof H,
                     H.Size - sizeof H);
      Pos += H.Size;
      char Ts[64];
      std::snprintf(Ts, sizeof Ts, "%.3f", double(H.Nanos) / 1000.0);
      if (H.Kind == Note) {
        Flush(R);
        Text += "{" + Body.str() + ",\"pid\":" + std::to_string(Pid) +
                ",\"tid\":" + std::to_string(R.Tid) + ",\"ts\":" + Ts + "},\n";
        continue;
      }
      Slot *Sl = slot(H.Slot);
      if (!Sl)
        continue;
      const SlotInfo *S = &Sl->Info;
      std::string Common = ",\"pid\":" + std::to_string(Pid) + ",\"tid\":" + std::to_string(R.Tid) +
                           ",\"ts\":" + Ts + ",\"cat\":\"tracepoint\",\"name\":";
      if (H.Kind == Enter || H.Kind == Leave) {
        Flush(R);
        R.PendingEnter = H.Kind == Enter;
        R.PendingFirstValue = true;
        R.Pending = std::string("{\"ph\":\"") + (R.PendingEnter ? "B" : "E") + "\"" + Common;
        appendJsonString(R.Pending, S->Method);
        R.Pending += ",\"args\":{";
        if (R.PendingEnter)
          R.Pending += "\"tracepoints\":" + Body.str() + ",\"arguments\":[";
        R.PendingMethod = S->Method;
        R.PendingNames = R.PendingEnter ? Body.str() : "";
        R.PendingJson = R.PendingEnter ? "[" : "{";
        continue;
      }
      if (R.Pending.empty() || Body.size() < 4)
        continue; // a value whose call was dropped
      uint32_t Index = 0;
      Body.substr(0, 4).getAsInteger(16, Index);
      StringRef Value = Body.drop_front(4);
      if (!R.PendingFirstValue)
        R.Pending += ',';
      R.PendingFirstValue = false;
      size_t Mark = R.Pending.size(); // what is added next goes to the provider's JSON too
      auto Mirror = llvm::make_scope_exit([&] {
        if (R.PendingJson.size() > 1)
          R.PendingJson += ',';
        R.PendingJson.append(R.Pending, Mark, std::string::npos);
      });
      if (R.PendingEnter) {
        R.Pending += "{\"name\":";
        appendJsonString(R.Pending, Index < S->ParamNames.size() ? S->ParamNames[Index] : "?");
        R.Pending += ",\"type\":";
        appendJsonString(R.Pending, Index < S->ParamTypes.size() ? S->ParamTypes[Index] : "?");
        R.Pending += ",\"value\":" + Value.str() + "}";
      } else if (Index == ReturnValue) {
        R.Pending += "\"return\":{\"type\":";
        appendJsonString(R.Pending, S->ReturnType);
        R.Pending += ",\"value\":" + Value.str() + "}";
      } else {
        R.Pending += "\"exception\":" + Value.str();
      }
    }
    if (Final || Gone)
      Flush(R);
  }
  if (!Text.empty()) {
    std::lock_guard<std::mutex> G(OutLock);
    write(Text);
  }
  Drains.fetch_add(1);
  // Rings of threads that ended, read to the end, are freed.
  std::lock_guard<std::mutex> G(RingsLock);
  for (auto It = Rings.begin(); It != Rings.end();) {
    ThreadRing &R = **It;
    if (R.Gone.load(std::memory_order_acquire) && R.Head.load() == R.Tail.load() &&
        R.Pending.empty() && !Final) {
      DroppedGone += R.Dropped.load();
      CallsGone += R.Calls.load();
      It = Rings.erase(It);
    } else {
      ++It;
    }
  }
}

uint64_t Recorder::total(std::atomic<uint64_t> ThreadRing::*Field,
                         const std::atomic<uint64_t> &Gone) const {
  uint64_t N = Gone.load();
  std::lock_guard<std::mutex> G(RingsLock);
  for (const auto &R : Rings)
    N += ((*R).*Field).load();
  return N;
}

uint64_t Recorder::calls() const { return total(&ThreadRing::Calls, CallsGone); }
uint64_t Recorder::dropped() const { return total(&ThreadRing::Dropped, DroppedGone); }

Recorder::Figures Recorder::figures() const {
  Figures F;
  {
    std::lock_guard<std::mutex> G(SlotsLock);
    F.SlotsFree = FreeSlots.size();
    F.SlotsInUse = SlotCount.load() - F.SlotsFree;
  }
  {
    std::lock_guard<std::mutex> G(ClassesLock);
    F.Classes = Classes.size();
  }
  {
    std::lock_guard<std::mutex> G(RetiredLock);
    F.Retired = Retired.size();
  }
  F.Described = DescribedCount.load();
  F.NotInTime = NotInTime.load();
  F.LongestWaitMicros = LongestWaitNanos.load() / 1000;
  F.SuspensionStops = SuspensionStops.load();
  F.LongestSuspensionWaitMicros = LongestSuspensionWaitNanos.load() / 1000;
  return F;
}

void Recorder::stop() {
  if (Stopped.exchange(true))
    return;
  {
    std::lock_guard<std::mutex> G(WakeLock);
    StopWriter = true;
  }
  Wake.notify_all();
  {
    std::lock_guard<std::mutex> G(ClassesLock);
    StopDescriber = true;
  }
  DescribeWake.notify_all();
  if (Writer.joinable())
    Writer.join();
  if (Describer.joinable())
    Describer.join();
  drain(true);
  std::lock_guard<std::mutex> G(OutLock);
  uint64_t Lost = dropped();
  // Nothing recorded, nothing lost: no file. Records lost alone still make one, to say so.
  if (Out || (Lost && open())) {
    std::fprintf(Out,
                 "{\"ph\":\"M\",\"name\":\"weft_records\",\"pid\":%u,\"args\":{\"dropped\":%" PRIu64
                 "}}\n]}\n",
                 Pid, Lost);
    std::fclose(Out);
    Out = nullptr;
  }
}

} // namespace weft::prof
