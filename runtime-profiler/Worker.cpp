//===- runtime-profiler/Worker.cpp - The profiler's own thread ---------------===//
//
// ReJIT is never requested inside a callback: a thread of the profiler's own asks for it, and
// also looks for edits of the spec file, for sessions that change the Weft provider's keywords
// and, attached, for `weft detach`'s request.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/EventPipeSink.h"
#include "runtime-profiler/Identity.h"
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
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

void Profiler::reJitThread() {
  std::unique_lock<std::mutex> G(ReJits.Lock);
  // Attached, the thread also looks for control requests (`weft detach`, `weft attach`), and
  // with a spec file for its edits, five times a second.
  bool Polls = Attached || !SpecPath.empty();
  while (true) {
    auto Ready = [&] {
      return ReJits.Stop ||
             (!Detaching && (!ReJits.Pending.empty() || ReJits.SessionChanged ||
                             (!NewModules.empty() && Traced && !Traced->tracepoints().empty())));
    };
    if (Polls)
      ReJits.Wake.wait_for(G, std::chrono::milliseconds(200), Ready);
    else
      ReJits.Wake.wait(G, Ready);
    if (ReJits.Stop)
      return;
    if (Attached && ReJits.Pending.empty()) {
      G.unlock();
      try {
        takeControlRequest();
      } catch (...) {
        L->line("control: an unexpected error while taking a request");
      }
      G.lock();
    }
    if (Detaching)
      continue; // nothing is instrumented until a re-attach
    if (!ReJits.Pending.empty()) {
      auto [Id, Methods] = std::move(ReJits.Pending.front());
      ReJits.Pending.pop_front();
      G.unlock();
      try {
        if (moduleOf(Id))
          requestReJit(Id, Methods);
      } catch (...) {
        L->line("the ReJIT thread: an unexpected error; the methods it was asking for keep "
                "their code");
      }
      G.lock();
      continue;
    }
    G.unlock();
    try {
      bool Edited = !SpecPath.empty() && specEdited(), Session = false;
      std::vector<ModuleID> Ids, Kept;
      {
        std::lock_guard<std::mutex> Q(ReJits.Lock);
        std::swap(Session, ReJits.SessionChanged);
        Ids = Edited ? AllModules : NewModules;
        if (Session && !Edited)
          Kept = AllModules;
        NewModules.clear();
      }
      if (Session) {
        L->line(Twine("eventpipe: ") +
                (Provider->wantsTracepoints() ? "a session asks" : "no session asks") +
                " for the tracepoint keyword now");
        // The tracepoints that follow the sessions record or not from now on.
        if (Traced && !Kept.empty())
          applyTracepoints(Kept, /*FlagsOnly=*/true);
      }
      if (Traced && (Edited || !Traced->tracepoints().empty()) && !Ids.empty())
        applyTracepoints(Ids);
    } catch (...) {
      L->line("tracepoints: an unexpected error; the methods keep the code they had");
    }
    G.lock();
  }
}

void Profiler::stopReJitThread() {
  {
    std::lock_guard<std::mutex> G(ReJits.Lock);
    ReJits.Stop = true;
  }
  ReJits.Wake.notify_all();
  if (ReJits.Thread.joinable())
    ReJits.Thread.join();
}

} // namespace weft::prof
