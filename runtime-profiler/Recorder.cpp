//===- runtime-profiler/Recorder.cpp --------------------------------------===//
#include "runtime-profiler/Recorder.h"
#include "runtime-profiler/EventSink.h"
#include "runtime-profiler/Log.h"
#include "runtime-profiler/MetaData.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cinttypes>
#include <cstring>
#include <sys/syscall.h>
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

/// Longest text of one value (a string argument is cut there).
constexpr size_t MaxText = 4096;

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

uint32_t currentTid() { return uint32_t(syscall(SYS_gettid)); }

} // namespace

/// One thread's records: it writes at Head, the writer reads at Tail.
struct ThreadRing {
  static constexpr size_t Capacity = size_t(1) << 20;
  std::unique_ptr<uint8_t[]> Data{new uint8_t[Capacity]};
  std::atomic<uint64_t> Head{0}, Tail{0};
  std::atomic<uint64_t> Dropped{0}, Calls{0}; // written by the thread alone
  std::atomic<bool> Gone{false};
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
} // namespace

struct Recorder::Slot {
  SlotInfo Info;
  /// The enabled tracepoints' names as JSON; replaced, never freed (a call may be reading it).
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
};

Recorder::Recorder(ICorProfilerInfo7 *Info, std::string P, Log &L)
    : Info(Info), Path(std::move(P)), L(L), Pid(uint32_t(getpid())),
      Start(std::chrono::steady_clock::now()), Flags(new uint8_t[MaxSlots]()),
      Table(new Slot *[MaxSlots]()) {
  if (failed(Info->GetStringLayout2(&StringLengthOffset, &StringBufferOffset)))
    StringLengthOffset = StringBufferOffset = 0;
  Out = std::fopen(Path.c_str(), "w");
  if (!Out) {
    L.line("tracepoints: cannot write " + Path + " (" + std::strerror(errno) +
           "); their records are dropped");
  } else {
    std::fprintf(Out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    std::fprintf(Out,
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"pid "
                 "%u\"}},\n",
                 Pid, Pid);
    std::fflush(Out);
  }
  Active.store(this, std::memory_order_release);
  Writer = std::thread([this] { writerLoop(); });
}

Recorder::~Recorder() { stop(); }

uint32_t Recorder::addSlot(SlotInfo Info) {
  std::lock_guard<std::mutex> G(SlotsLock);
  uint32_t N = SlotCount.load();
  if (N >= MaxSlots)
    return MaxSlots;
  Owned.push_back(std::make_unique<Slot>());
  Owned.back()->Info = std::move(Info);
  Table[N] = Owned.back().get();
  SlotCount.store(N + 1, std::memory_order_release);
  return N;
}

Recorder::Slot *Recorder::slot(uint32_t Index) const {
  return Index < SlotCount.load(std::memory_order_acquire) ? Table[Index] : nullptr;
}

void Recorder::setTracepoints(uint32_t Index, const std::vector<std::string> &Enabled,
                              unsigned Depth) {
  std::string Names = "[";
  for (size_t I = 0; I < Enabled.size(); ++I) {
    if (I)
      Names += ',';
    appendJsonString(Names, Enabled[I]);
  }
  Names += ']';
  Slot *S = slot(Index);
  if (!S)
    return;
  S->Names.store(new std::string(std::move(Names)), std::memory_order_release);
  S->Depth.store(Depth, std::memory_order_relaxed);
  reinterpret_cast<std::atomic<uint8_t> *>(&Flags[Index])
      ->store(Enabled.empty() ? 0 : 1, std::memory_order_release);
}

ThreadRing *Recorder::ring() {
  if (Mine.Ring)
    return Mine.Ring;
  auto R = std::make_unique<ThreadRing>();
  R->Tid = currentTid();
  Mine.Ring = R.get();
  std::lock_guard<std::mutex> G(RingsLock);
  Rings.push_back(std::move(R));
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
  if (Out && !Text.empty()) {
    std::fwrite(Text.data(), 1, Text.size(), Out);
    std::fflush(Out);
  }
}

void Recorder::note(uint64_t Nanos, const std::string &Members) {
  record(Note, 0, Members, Nanos);
}

void Recorder::record(uint8_t K, uint32_t SlotIndex, const std::string &Text, uint64_t Nanos) {
  if (Stopped.load(std::memory_order_relaxed))
    return;
  ThreadRing &R = *ring();
  RecordHead H{};
  H.Kind = K;
  H.Slot = SlotIndex;
  size_t Len = std::min(Text.size(), K == Note ? MaxText * 4 : MaxText + 64);
  H.Size = uint32_t(sizeof H + Len);
  H.Nanos = Nanos;
  uint64_t Head = R.Head.load(std::memory_order_relaxed);
  uint64_t Free = ThreadRing::Capacity - (Head - R.Tail.load(std::memory_order_acquire));
  if (R.Dropping && (K == Value || K == Leave || Free < ThreadRing::Capacity / 2)) {
    R.Dropped.store(R.Dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  R.Dropping = false;
  if (H.Size > Free) {
    R.Dropping = true;
    R.Dropped.store(R.Dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  auto Put = [&](uint64_t At, const void *Bytes, size_t N) {
    size_t Pos = At % ThreadRing::Capacity, First = std::min(N, ThreadRing::Capacity - Pos);
    std::memcpy(R.Data.get() + Pos, Bytes, First);
    std::memcpy(R.Data.get(), static_cast<const uint8_t *>(Bytes) + First, N - First);
  };
  Put(Head, &H, sizeof H);
  Put(Head + sizeof H, Text.data(), Len);
  R.Head.store(Head + H.Size, std::memory_order_release);
}

void Recorder::enter(uint32_t SlotIndex) {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (Slot *S = R ? R->slot(SlotIndex) : nullptr) {
    ThreadRing &Ring = *R->ring();
    Ring.Calls.store(Ring.Calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    R->record(Enter, SlotIndex, *S->Names.load(std::memory_order_acquire), R->now());
  }
}

void Recorder::leave(uint32_t SlotIndex) {
  Recorder *R = Active.load(std::memory_order_acquire);
  if (R && R->slot(SlotIndex))
    R->record(Leave, SlotIndex, std::string(), R->now());
}

void Recorder::value(uint32_t SlotIndex, uint32_t Index, void *Object) {
  Recorder *R = Active.load(std::memory_order_acquire);
  Slot *S = R ? R->slot(SlotIndex) : nullptr;
  if (!S)
    return;
  unsigned Depth = S->Depth.load(std::memory_order_relaxed);
  ThreadRing &Ring = *R->ring();
  if (Ring.Dropping) { // its call was dropped: so is the value, unformatted
    Ring.Dropped.store(Ring.Dropped.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
    return;
  }
  std::string Text;
  try {
    R->formatObject(Text, reinterpret_cast<uintptr_t>(Object), Depth);
  } catch (...) {
    Text = "\"<not readable>\"";
  }
  // The index leads the text, four hex digits.
  char Lead[8];
  std::snprintf(Lead, sizeof Lead, "%04x", Index & 0xFFFF);
  R->record(Value, SlotIndex, Lead + Text, 0); // a value has its call's time
}

const Recorder::ClassDesc *Recorder::describe(ClassID Class) {
  // Descriptions are never freed: each thread keeps the ones it used last, without a lock.
  struct Cached {
    ClassID Class;
    const ClassDesc *Desc;
  };
  thread_local Cached Recent[64] = {};
  Cached &Hit = Recent[(Class >> 4) % 64];
  if (Hit.Class == Class && Hit.Desc)
    return Hit.Desc;
  const ClassDesc *D = describeSlow(Class);
  if (D)
    Hit = {Class, D};
  return D;
}

const Recorder::ClassDesc *Recorder::describeSlow(ClassID Class) {
  std::unique_lock<std::mutex> G(ClassesLock);
  if (auto It = Classes.find(Class); It != Classes.end())
    return It->second.get();
  if (std::this_thread::get_id() == Writer.get_id()) {
    G.unlock();
    return describeNow(Class);
  }
  // The runtime answers questions about classes only inside its callbacks or on threads of its
  // own (the writer's): the class is described there, once, while this call waits a little.
  Asked.push_back(Class);
  {
    std::lock_guard<std::mutex> W(WakeLock);
    HasAsked = true;
  }
  Wake.notify_all();
  Described.wait_for(G, std::chrono::milliseconds(500), [&] { return Classes.count(Class) > 0; });
  auto It = Classes.find(Class);
  return It == Classes.end() ? nullptr : It->second.get();
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
      if (const ClassDesc *E = describeNow(ElemClass))
        Elem = E->Name;
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
    IUnknown *Unk = nullptr;
    if (failed(Info->GetModuleMetaData(Module, ofRead, IID_IMetaDataImport, &Unk)) || !Unk)
      break;
    auto *Import = static_cast<IMetaDataImport *>(Unk);
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
    if (Level == 0) {
      // An enum's literals, should its base turn out to be System.Enum.
      HCORENUM Enum = nullptr;
      mdFieldDef Fields[64];
      ULONG Got = 0;
      while (succeeded(Import->EnumFields(&Enum, Type, Fields, 64, &Got)) && Got) {
        for (ULONG I = 0; I < Got; ++I) {
          WCHAR FName[256];
          ULONG FLength = 0;
          DWORD Attr = 0, ConstType = 0;
          PCCOR_SIGNATURE Sig = nullptr;
          ULONG SigSize = 0, ValueLength = 0;
          UVCP_CONSTANT Constant = nullptr;
          if (failed(Import->GetFieldProps(Fields[I], nullptr, FName, 256, &FLength, &Attr, &Sig,
                                           &SigSize, &ConstType, &Constant, &ValueLength)))
            continue;
          std::string FieldName =
              utf8(ArrayRef<WCHAR>(FName, FLength ? std::min<ULONG>(FLength, 256) - 1 : 0));
          if (!(Attr & 0x10) && SigSize >= 2) // the instance field value__: the underlying type
            D->Element = Sig[SigSize - 1];
          else if ((Attr & 0x40) && Constant && ConstType >= 0x02 && ConstType <= 0x0B)
            D->Literals.emplace_back(readInteger(uint8_t(ConstType), uintptr_t(Constant)),
                                     FieldName);
        }
        if (Got < 64)
          break;
      }
      if (Enum)
        Import->CloseEnum(Enum);
    }
    Import->Release();
    Levels.push_back(std::move(Own));
    C = Parent;
  }
  for (auto Level = Levels.rbegin(); Level != Levels.rend(); ++Level)
    for (ClassDesc::Field &F : *Level) {
      if (D->ValueType)
        F.Offset += sizeof(void *);
      D->Fields.push_back(std::move(F));
    }
  return keep(Class, std::move(D));
}

const Recorder::ClassDesc *Recorder::keep(ClassID Class, std::unique_ptr<ClassDesc> D) {
  std::lock_guard<std::mutex> G(ClassesLock);
  auto &Slot = Classes[Class];
  if (!Slot)
    Slot = std::move(D);
  Described.notify_all();
  return Slot.get();
}

void Recorder::formatObject(std::string &Out, uintptr_t Object, unsigned Depth) {
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
  const ClassDesc *Desc = describe(Class);
  if (!Desc) {
    Out += "\"<not described in time>\"";
    return;
  }
  const ClassDesc &D = *Desc;
  uintptr_t Data = Object + sizeof(void *); // a boxed value follows the method table pointer
  switch (D.Kind) {
  case ClassDesc::Kinds::String: {
    uint32_t Length = readAt<uint32_t>(Object + StringLengthOffset);
    size_t Shown = std::min<size_t>(Length, MaxText / 4);
    std::vector<WCHAR> Units(Shown);
    std::memcpy(Units.data(), reinterpret_cast<const void *>(Object + StringBufferOffset),
                Shown * sizeof(WCHAR));
    std::string Text = utf8(Units);
    if (Shown < Length)
      Text += "...";
    appendJsonString(Out, Text);
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
        appendJsonString(Out, Name);
        return;
      }
    Out += std::to_string(V);
    return;
  }
  case ClassDesc::Kinds::Array:
    Out += "{\"type\":";
    appendJsonString(Out, D.Name);
    Out += ",\"length\":" + std::to_string(readAt<uint32_t>(Object + sizeof(void *))) + "}";
    return;
  case ClassDesc::Kinds::Other: break;
  }
  Out += "{\"type\":";
  appendJsonString(Out, D.Name);
  if (Depth > 0 && !D.Fields.empty()) {
    Out += ",\"fields\":{";
    bool First = true;
    for (const ClassDesc::Field &F : D.Fields) {
      if (!First)
        Out += ',';
      First = false;
      appendJsonString(Out, F.Name);
      Out += ':';
      formatField(Out, Object + F.Offset, F.Sig.data(), F.Sig.size(), Depth - 1);
    }
    Out += '}';
  }
  Out += '}';
}

void Recorder::formatField(std::string &Out, uintptr_t Address, const uint8_t *Sig, size_t Size,
                           unsigned Depth) {
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
    formatObject(Out, readAt<uintptr_t>(Address), Depth);
    return;
  case 0x15: // generic instance: a class one is a reference
    if (I + 1 < Size && Sig[I + 1] == 0x12) {
      formatObject(Out, readAt<uintptr_t>(Address), Depth);
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
    Wake.wait_for(G, std::chrono::milliseconds(100), [&] { return StopWriter || HasAsked; });
    HasAsked = false;
    G.unlock();
    std::vector<ClassID> Now;
    {
      std::lock_guard<std::mutex> C(ClassesLock);
      Now.swap(Asked);
    }
    for (ClassID Class : Now)
      describeNow(Class);
    drain(false);
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
    if (Out) {
      std::fwrite(Text.data(), 1, Text.size(), Out);
      std::fflush(Out);
    }
  }
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

void Recorder::stop() {
  if (Stopped.exchange(true))
    return;
  {
    std::lock_guard<std::mutex> G(WakeLock);
    StopWriter = true;
  }
  Wake.notify_all();
  if (Writer.joinable())
    Writer.join();
  drain(true);
  std::lock_guard<std::mutex> G(OutLock);
  if (Out) {
    std::fprintf(Out,
                 "{\"ph\":\"M\",\"name\":\"weft_records\",\"pid\":%u,\"args\":{\"dropped\":%" PRIu64
                 "}}\n]}\n",
                 Pid, dropped());
    std::fclose(Out);
    Out = nullptr;
  }
}

} // namespace weft::prof
