//===- runtime-profiler/ShutdownFigures.cpp - The profiler's figures at shutdown ---===//
//
// What the log says when the runtime shuts down: the counts of what was matched, woven, left
// alone and compiled again, and the time each rewrite took.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/GcEvents.h"
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"
#include "runtime-profiler/Recorder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

HRESULT Profiler::Shutdown() {
  return guarded("Shutdown", [&] {
    stopReJitThread();
    if (Gc)
      Gc->stop();
    if (Rec) {
      Rec->stop();
      L->line("timeline: " + Twine(Count.Traced.load()) +
              " methods compiled with tracepoint "
              "code, " +
              Twine(Count.Reverted.load()) + " reverted; " + Twine(Rec->calls()) +
              " calls recorded; " +
              (Rec->wrote() ? "records in " + Rec->path() : std::string("no records, no file")) +
              " (" + Twine(Rec->dropped()) + " dropped)");
      logHeld();
    }
    if (Plugins)
      Plugins->releaseAll();
    if (L && Conf.Spec)
      L->line("shutting down: " + Twine(Count.ModulesSeen.load()) + " modules loaded, " +
              Twine(Count.ModulesMatched.load()) + " with methods the spec matches (" +
              Twine(Count.MethodsMatched.load()) + " methods); " + Twine(Count.Compiled.load()) +
              " compilations, of " + Twine(Count.CompiledMatched.load()) +
              " matching methods: " + Twine(Count.Rewritten.load()) + " rewritten, " +
              Twine(Count.Unchanged.load()) + " unchanged by the passes, " +
              Twine(Count.LeftAlone.load()) + " left as they were after a problem" +
              (Count.ReJitRequested
                   ? "; " + Twine(Count.ReJitRequested.load()) + " methods requested for ReJIT: " +
                         Twine(Count.ReJitted.load()) + " given a woven body, " +
                         Twine(Count.ReJitFailed.load()) + " ReJIT failures"
                   : Twine()) +
              (Count.ReJitCompiledWoven || Count.ReJitCompiledAsItWas
                   ? "; ReJIT compilations: " + Twine(Count.ReJitCompiledWoven.load()) +
                         " with a body weft gave, " + Twine(Count.ReJitCompiledAsItWas.load()) +
                         " with their own IL"
                   : Twine()));
    if (L && !RewriteMicros.empty()) {
      std::vector<float> T = RewriteMicros;
      std::sort(T.begin(), T.end());
      auto At = [&](double Q) { return T[std::min(T.size() - 1, size_t(Q * T.size()))]; };
      auto Us = [](float V) {
        char Buf[32];
        std::snprintf(Buf, sizeof Buf, "%.1f us", double(V));
        return std::string(Buf);
      };
      L->line("time per method woven at JIT time (the first includes beginning the passes): "
              "median " +
              Us(At(0.5)) + ", 90th percentile " + Us(At(0.9)) + ", 99th percentile " +
              Us(At(0.99)) + ", most " + Us(T.back()) + ", over " + Twine(T.size()) + " methods");
    }
    return S_OK;
  });
}

void Profiler::logHeld() {
  // What the profiler still holds: modules leave it as they unload, so these do not grow with
  // the modules a process loads and unloads.
  Recorder::Figures F = Rec->figures();
  size_t Listed = 0, Read = 0;
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    Listed = AllModules.size();
  }
  {
    std::lock_guard<std::mutex> G(ModulesLock);
    Read = Modules.size();
  }
  L->line(formatv("recorder: {0} classes described, the longest wait {1} us, {2} values recorded "
                  "before their class was described, {3} waits ended by a suspension of the "
                  "runtime (the longest it waited for a call {4} us); held at exit: {5} modules "
                  "listed, {6} read, {7} tracepoint slots ({8} free), {9} class descriptions, "
                  "{10} replaced objects not yet freed",
                  F.Described, F.LongestWaitMicros, F.NotInTime, F.SuspensionStops,
                  F.LongestSuspensionWaitMicros, Listed, Read, F.SlotsInUse, F.SlotsFree, F.Classes,
                  F.Retired));
}

} // namespace weft::prof
