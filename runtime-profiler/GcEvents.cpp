//===- runtime-profiler/GcEvents.cpp --------------------------------------===//
#include "runtime-profiler/GcEvents.h"
#include "runtime-profiler/EventSink.h"
#include "runtime-profiler/Log.h"
#include "runtime-profiler/Recorder.h"
#include "support/Port.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

namespace {

/// The runtime provider's GC events (their ids in Microsoft-Windows-DotNETRuntime).
enum : DWORD {
  GCStart = 1,
  GCEnd = 2,
  GCRestartEEEnd = 3,
  GCHeapStats = 4,
  GCSuspendEEBegin = 9,
  GCAllocationTick = 10,
};
constexpr UINT64 GCKeyword = 0x1;

/// Reads a payload front to back; a read past its end gives 0 and marks it short.
struct Payload {
  const uint8_t *Data;
  ULONG Size, Pos = 0;
  bool Short = false;
  template <typename T> T get() {
    T V{};
    if (Pos + sizeof V > Size) {
      Short = true;
      Pos = Size;
      return V;
    }
    std::memcpy(&V, Data + Pos, sizeof V);
    Pos += sizeof V;
    return V;
  }
  /// A NUL-terminated UTF-16 string.
  std::string text() {
    std::vector<UTF16> Units;
    while (Pos + 2 <= Size) {
      UTF16 U;
      std::memcpy(&U, Data + Pos, 2);
      Pos += 2;
      if (!U)
        break;
      Units.push_back(U);
    }
    std::string Out;
    if (!convertUTF16ToUTF8String(Units, Out))
      Out = "?";
    return Out;
  }
};

std::string sizesJson(const std::vector<uint64_t> &Sizes) {
  static const char *Names[] = {"gen0", "gen1", "gen2", "loh", "poh"};
  std::string Out = "{";
  for (size_t I = 0; I < Sizes.size() && I < 5; ++I)
    Out += std::string(I ? "," : "") + "\"" + Names[I] + "\":" + std::to_string(Sizes[I]);
  return Out + "}";
}

uint32_t currentThread() { return port::currentThreadId(); }

std::string micros(uint64_t Nanos) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.3f", double(Nanos) / 1000.0);
  return Buf;
}

} // namespace

Expected<uint32_t> GcEvents::parseLevel(StringRef Text) {
  if (Text == "informational" || Text == "4")
    return COR_PRF_EVENTPIPE_INFORMATIONAL;
  if (Text == "verbose" || Text == "5")
    return COR_PRF_EVENTPIPE_VERBOSE;
  return createStringError(inconvertibleErrorCode(),
                           "WEFT_GC: unknown level '" + Text +
                               "' (informational: collections and heap sizes; verbose: also "
                               "allocation ticks)");
}

GcEvents::GcEvents(ICorProfilerInfo7 *Info, unsigned InfoVersion, Recorder &R, Log &L,
                   uint32_t Level, std::vector<EventSink *> Sinks)
    : Info(Info), InfoVersion(InfoVersion), R(R), L(L), Level(Level), Sinks(std::move(Sinks)) {}

void GcEvents::startSession() {
  if (InfoVersion < 12) {
    L.line("gc: the runtime has no EventPipe for profilers (ICorProfilerInfo12); only the GC "
           "callbacks are recorded");
    return;
  }
  static const WCHAR Provider[] = {'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', '-', 'W', 'i',
                                   'n', 'd', 'o', 'w', 's', '-', 'D', 'o', 't', 'N', 'E', 'T',
                                   'R', 'u', 'n', 't', 'i', 'm', 'e', 0};
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG Config{Provider, GCKeyword, Level, nullptr};
  HRESULT Hr = static_cast<ICorProfilerInfo12 *>(Info)->EventPipeStartSession(
      1, &Config, /*RequestRundown=*/0, &Session);
  if (failed(Hr)) {
    Session = 0;
    L.line("gc: the runtime refused the EventPipe session (" + hresultText(Hr) +
           "); only the GC callbacks are recorded");
  }
}

std::vector<uint64_t> GcEvents::sizes() {
  std::vector<uint64_t> Out(5, 0);
  COR_PRF_GC_GENERATION_RANGE Ranges[64];
  ULONG Count = 0;
  if (failed(Info->GetGenerationBounds(64, &Count, Ranges)))
    return Out;
  for (ULONG I = 0; I < Count && I < 64; ++I)
    if (uint32_t(Ranges[I].generation) < 5)
      Out[Ranges[I].generation] += Ranges[I].rangeLength;
  return Out;
}

void GcEvents::started(int Count, const BOOL *Collected, COR_PRF_GC_REASON Reason) {
  int Generation = -1;
  for (int G = 0; G < Count && G < 3; ++G)
    if (Collected[G])
      Generation = G;
  std::lock_guard<std::mutex> G(Lock);
  Running.push_back({R.now(), Generation, Reason == COR_PRF_GC_INDUCED, sizes()});
}

void GcEvents::finished() {
  std::lock_guard<std::mutex> G(Lock);
  if (Running.empty())
    return;
  Open O = std::move(Running.back());
  Running.pop_back();
  if (O.Generation >= 0)
    ++Collections[O.Generation];
  Induced += O.Induced;
  uint64_t End = R.now();
  std::vector<uint64_t> After = sizes();
  for (EventSink *Sink : Sinks)
    if (Sink->wantsCollections()) {
      uint64_t Before = 0, Total = 0;
      for (uint64_t B : O.Before)
        Before += B;
      for (uint64_t A : After)
        Total += A;
      Sink->collection(uint32_t(O.Generation), O.Induced ? "induced" : "other",
                       double(End - O.StartNanos) / 1000.0, Before, Total, currentThread());
    }
  R.note(O.StartNanos,
         "\"ph\":\"X\",\"cat\":\"gc\",\"name\":\"GC gen" + std::to_string(O.Generation) +
             "\",\"dur\":" + micros(End - O.StartNanos) + ",\"args\":{\"generation\":" +
             std::to_string(O.Generation) + ",\"reason\":\"" +
             (O.Induced ? "induced" : "other") + "\",\"before\":" + sizesJson(O.Before) +
             ",\"after\":" + sizesJson(After) + "}");
}

void GcEvents::delivered(DWORD Id, DWORD Version, const uint8_t *Data, ULONG Size) {
  // The GC keyword brings more events than these (per-heap histories, marks, joins...): they
  // are let go at once.
  if (Id != GCStart && Id != GCEnd && Id != GCRestartEEEnd && Id != GCHeapStats &&
      Id != GCSuspendEEBegin && Id != GCAllocationTick)
    return;
  Payload P{Data, Size};
  uint64_t Now = R.now();
  std::lock_guard<std::mutex> G(Lock);
  switch (Id) {
  case GCStart: {
    uint32_t Count = P.get<uint32_t>(), Depth = P.get<uint32_t>(), Reason = P.get<uint32_t>();
    uint32_t Type = Version >= 1 ? P.get<uint32_t>() : 0;
    ++Starts;
    R.note(Now, "\"ph\":\"i\",\"s\":\"p\",\"cat\":\"gc\",\"name\":\"GCStart\",\"args\":{\"count\":" +
                    std::to_string(Count) + ",\"depth\":" + std::to_string(Depth) +
                    ",\"reason\":" + std::to_string(Reason) + ",\"type\":" +
                    std::to_string(Type) + "}");
    return;
  }
  case GCEnd: {
    uint32_t Count = P.get<uint32_t>(), Depth = P.get<uint32_t>();
    ++Ends;
    R.note(Now, "\"ph\":\"i\",\"s\":\"p\",\"cat\":\"gc\",\"name\":\"GCEnd\",\"args\":{\"count\":" +
                    std::to_string(Count) + ",\"depth\":" + std::to_string(Depth) + "}");
    return;
  }
  case GCSuspendEEBegin: PauseStart = Now; return;
  case GCRestartEEEnd:
    if (PauseStart) {
      ++Pauses;
      R.note(PauseStart, "\"ph\":\"X\",\"cat\":\"gc\",\"name\":\"GC pause\",\"dur\":" +
                             micros(Now - PauseStart) + ",\"args\":{}");
      PauseStart = 0;
    }
    return;
  case GCHeapStats: {
    std::vector<uint64_t> Sizes(5), Promoted(5);
    for (int Gen = 0; Gen < 4; ++Gen) {
      Sizes[Gen] = P.get<uint64_t>();
      Promoted[Gen] = P.get<uint64_t>();
    }
    P.get<uint64_t>(); // finalization-promoted size
    P.get<uint64_t>(); // and count
    uint32_t Pinned = P.get<uint32_t>();
    P.get<uint32_t>(); // sync blocks
    uint32_t Handles = P.get<uint32_t>();
    P.get<uint16_t>(); // ClrInstanceID
    if (Version >= 2) {
      Sizes[4] = P.get<uint64_t>();
      Promoted[4] = P.get<uint64_t>();
    }
    ++HeapStats;
    R.note(Now, "\"ph\":\"C\",\"cat\":\"gc\",\"name\":\"GC heap\",\"args\":" + sizesJson(Sizes));
    R.note(Now, "\"ph\":\"i\",\"s\":\"p\",\"cat\":\"gc\",\"name\":\"GCHeapStats\",\"args\":{"
                "\"sizes\":" + sizesJson(Sizes) + ",\"promoted\":" + sizesJson(Promoted) +
                    ",\"pinned\":" + std::to_string(Pinned) + ",\"handles\":" +
                    std::to_string(Handles) + "}");
    return;
  }
  case GCAllocationTick: {
    uint32_t Amount = P.get<uint32_t>(), Kind = P.get<uint32_t>();
    P.get<uint16_t>(); // ClrInstanceID
    uint64_t Amount64 = Version >= 2 ? P.get<uint64_t>() : Amount;
    std::string Type;
    if (Version >= 2) {
      P.get<uint64_t>(); // TypeID
      Type = P.text();
    }
    ++Ticks;
    TickBytes += Amount64;
    std::string TypeJson;
    appendJsonString(TypeJson, Type);
    static const char *Kinds[] = {"small", "large", "pinned"};
    R.note(Now, "\"ph\":\"i\",\"s\":\"t\",\"cat\":\"gc\",\"name\":\"GCAllocationTick\",\"args\":{"
                "\"bytes\":" + std::to_string(Amount64) + ",\"kind\":\"" +
                    (Kind < 3 ? Kinds[Kind] : "other") + "\",\"type\":" + TypeJson + "}");
    return;
  }
  default: return;
  }
}

void GcEvents::stop() {
  if (Session) {
    static_cast<ICorProfilerInfo12 *>(Info)->EventPipeStopSession(Session);
    Session = 0;
  }
  std::lock_guard<std::mutex> G(Lock);
  L.line("gc: " + Twine(Collections[0] + Collections[1] + Collections[2]) +
         " collections from the callbacks (condemned generation 0: " + Twine(Collections[0]) +
         ", 1: " + Twine(Collections[1]) + ", 2: " + Twine(Collections[2]) + "; " +
         Twine(Induced) + " induced); from EventPipe " + Twine(Starts) + " GCStart, " +
         Twine(Ends) + " GCEnd, " + Twine(Pauses) + " pauses, " + Twine(HeapStats) +
         " GCHeapStats, " + Twine(Ticks) + " allocation ticks for " + Twine(TickBytes) +
         " bytes");
}

} // namespace weft::prof
