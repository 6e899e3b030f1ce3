//===- runtime-profiler/EventPipeSink.cpp ---------------------------------===//
#include "runtime-profiler/EventPipeSink.h"
#include "runtime-profiler/Log.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <vector>

using namespace llvm;

namespace weft::prof {

namespace {

/// \p S as NUL-terminated UTF-16.
std::vector<WCHAR> wide(StringRef S) {
  SmallVector<UTF16, 64> Units;
  if (!convertUTF8ToUTF16String(S, Units))
    Units.clear();
  std::vector<WCHAR> Out(Units.begin(), Units.end());
  if (Out.empty() || Out.back() != 0)
    Out.push_back(0);
  return Out;
}

/// One field of an event's payload, as EventPipeWriteEvent takes it.
COR_PRF_EVENT_DATA piece(const void *Data, size_t Size) {
  return COR_PRF_EVENT_DATA{reinterpret_cast<UINT64>(Data), UINT32(Size), 0};
}
template <typename T> COR_PRF_EVENT_DATA piece(const T &V) { return piece(&V, sizeof V); }
COR_PRF_EVENT_DATA piece(const std::vector<WCHAR> &S) {
  return piece(S.data(), S.size() * sizeof(WCHAR));
}

/// The sink whose provider the runtime's callback is about (one per process: the provider's
/// callback has no data of its own).
std::atomic<EventPipeSink *> TheSink{nullptr};

} // namespace

EventPipeSink::EventPipeSink(ICorProfilerInfo7 *I, unsigned InfoVersion, Log &L) {
  if (InfoVersion < 12) {
    L.line("eventpipe: the runtime offers no EventPipe to profilers (ICorProfilerInfo12); the "
           "Weft provider is not made");
    return;
  }
  Info = static_cast<ICorProfilerInfo12 *>(I);
  std::vector<WCHAR> Name = wide("Weft");
  TheSink = this;
  HRESULT Hr;
  if (InfoVersion >= 14) {
    Hr = static_cast<ICorProfilerInfo14 *>(I)->EventPipeCreateProvider2(Name.data(), &enabled,
                                                                        &Provider);
  } else {
    Hr = Info->EventPipeCreateProvider(Name.data(), &Provider);
    Keywords = ~uint64_t(0); // no callback: the runtime alone filters
  }
  if (failed(Hr)) {
    L.line("eventpipe: the runtime refused the Weft provider (" + hresultText(Hr) + ")");
    Provider = 0;
    return;
  }
  struct Param {
    uint32_t Type;
    const char *Name;
  };
  auto Define = [&](const char *EventName, uint32_t Id, uint64_t Keyword,
                    std::initializer_list<Param> Params, EVENTPIPE_EVENT *Out) {
    std::vector<std::vector<WCHAR>> Names;
    std::vector<COR_PRF_EVENTPIPE_PARAM_DESC> Descs;
    for (const Param &P : Params)
      Names.push_back(wide(P.Name));
    size_t K = 0;
    for (const Param &P : Params)
      Descs.push_back({P.Type, 0, Names[K++].data()});
    std::vector<WCHAR> Event = wide(EventName);
    if (HRESULT H = Info->EventPipeDefineEvent(Provider, Event.data(), Id, Keyword, 1,
                                               COR_PRF_EVENTPIPE_INFORMATIONAL, 0, false,
                                               UINT32(Descs.size()), Descs.data(), Out);
        failed(H)) {
      L.line("eventpipe: the runtime refused the event " + Twine(EventName) + " (" +
             hresultText(H) + ")");
      *Out = 0;
    }
  };
  Define("TracepointEnter", 1, TracepointKeyword,
         {{COR_PRF_EVENTPIPE_STRING, "Method"},
          {COR_PRF_EVENTPIPE_STRING, "Tracepoints"},
          {COR_PRF_EVENTPIPE_STRING, "Arguments"},
          {COR_PRF_EVENTPIPE_UINT32, "ThreadId"}},
         &Enter);
  Define("TracepointLeave", 2, TracepointKeyword,
         {{COR_PRF_EVENTPIPE_STRING, "Method"},
          {COR_PRF_EVENTPIPE_STRING, "Result"},
          {COR_PRF_EVENTPIPE_UINT32, "ThreadId"}},
         &Leave);
  Define("GarbageCollection", 3, GcKeyword,
         {{COR_PRF_EVENTPIPE_UINT32, "Generation"},
          {COR_PRF_EVENTPIPE_STRING, "Reason"},
          {COR_PRF_EVENTPIPE_DOUBLE, "DurationMicroseconds"},
          {COR_PRF_EVENTPIPE_UINT64, "HeapBefore"},
          {COR_PRF_EVENTPIPE_UINT64, "HeapAfter"},
          {COR_PRF_EVENTPIPE_UINT32, "ThreadId"}},
         &Collection);
  Define("TraceCall", 4, CallKeyword,
         {{COR_PRF_EVENTPIPE_STRING, "Method"},
          {COR_PRF_EVENTPIPE_DOUBLE, "StartMicroseconds"},
          {COR_PRF_EVENTPIPE_DOUBLE, "DurationMicroseconds"},
          {COR_PRF_EVENTPIPE_UINT32, "ThreadId"}},
         &Call);
}

void EventPipeSink::enabled(const UINT8 *, UINT32 IsEnabled, UINT8, UINT64 Any, UINT64,
                            COR_PRF_FILTER_DATA *, void *) {
  EventPipeSink *Self = TheSink.load();
  if (!Self)
    return;
  uint64_t Now = IsEnabled ? (Any ? Any : ~uint64_t(0)) : 0;
  if (Self->Keywords.exchange(Now) != Now && Self->Changed)
    Self->Changed();
}

bool EventPipeSink::wants(uint64_t Keyword) const {
  return Provider && (Keywords.load(std::memory_order_relaxed) & Keyword);
}

void EventPipeSink::tracepoint(bool IsEnter, StringRef Method, StringRef Tracepoints,
                               StringRef Json, uint32_t Tid) {
  EVENTPIPE_EVENT Event = IsEnter ? Enter : Leave;
  if (!Event || !wants(TracepointKeyword))
    return;
  std::vector<WCHAR> M = wide(Method), T = wide(Tracepoints), J = wide(Json);
  SmallVector<COR_PRF_EVENT_DATA, 4> Data{piece(M)};
  if (IsEnter)
    Data.push_back(piece(T));
  Data.push_back(piece(J));
  Data.push_back(piece(Tid));
  Info->EventPipeWriteEvent(Event, UINT32(Data.size()), Data.data(), nullptr, nullptr);
}

void EventPipeSink::collection(uint32_t Generation, StringRef Reason, double Micros,
                               uint64_t Before, uint64_t After, uint32_t Tid) {
  if (!Collection || !wants(GcKeyword))
    return;
  std::vector<WCHAR> R = wide(Reason);
  COR_PRF_EVENT_DATA Data[] = {piece(Generation), piece(R),    piece(Micros),
                               piece(Before),     piece(After), piece(Tid)};
  Info->EventPipeWriteEvent(Collection, 6, Data, nullptr, nullptr);
}

void EventPipeSink::call(StringRef Method, uint64_t StartNanos, uint64_t Nanos, uint32_t Tid) {
  if (!Call || !wants(CallKeyword))
    return;
  std::vector<WCHAR> M = wide(Method);
  double Start = double(StartNanos) / 1000, Micros = double(Nanos) / 1000;
  COR_PRF_EVENT_DATA Data[] = {piece(M), piece(Start), piece(Micros), piece(Tid)};
  Info->EventPipeWriteEvent(Call, 4, Data, nullptr, nullptr);
}

} // namespace weft::prof
