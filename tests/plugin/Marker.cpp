//===- tests/plugin/Marker.cpp - A plugin with runtime hooks, built twice -===//
//
// Built as weft-marker-a and weft-marker-b (MARKER_TAG "a" / "b"; MARKER_EVENTS the WEFT_ON_*
// bits each asks for). Its pass `mark-TAG` makes each method it is given print "TAG: Type::Method"
// when entered; with the option fail=NAME it fails on the methods called NAME. Its runtime hooks
// count what the profiler shows them (ReJIT compilations also by whether weft gave them a woven
// body; unloads also by the module's file name), keep a counter on each method object (released
// by the profiler), and at exit write the counts to the file WEFT_MARKER_REPORT_TAG names, one
// "name count" line each; the first module load also appends TAG to the file WEFT_MARKER_ORDER
// names, to show the hooks' order.
//
//===----------------------------------------------------------------------===//
#include "weaving/Emit.h"
#include "weaving/Pass.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/Support/ErrorHandling.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

using namespace llvm;
using namespace weft;
using namespace weft::passes;

namespace {

const std::string Tag = MARKER_TAG;

class Mark final : public Pass {
public:
  explicit Mark(const PassOptions &O) : Fail(O.get("fail").str()) {}

  Error beginModule(ModuleContext &MC) override {
    Expected<metadata::Token> Console = MC.frameworkType("System.Console", "System", "Console");
    if (!Console)
      return Console.takeError();
    const uint8_t Sig[] = {metadata::SigDefault, 1, uint8_t(metadata::ElementType::Void),
                           uint8_t(metadata::ElementType::String)};
    WriteLine = MC.memberRef(*Console, "WriteLine", Sig);
    return Error::success();
  }

  Error runOnMethod(MethodContext &C) override {
    std::string Name = C.displayName();
    if (!Fail.empty() && StringRef(Name).endswith("::" + Fail))
      return createStringError(inconvertibleErrorCode(), "mark-" + Tag + " fails on " + Name);
    il::MethodBody &B = C.body();
    Emitter E(B, B.instructions().empty() ? nullptr : B.instructions().front());
    E.tok(il::Opcode::Ldstr, C.userString(Tag + ": " + Name));
    E.tok(il::Opcode::Call, WriteLine);
    return Error::success();
  }

private:
  std::string Fail;
  metadata::Token WriteLine = 0;
};

void registerPasses(PassRegistry &R) {
  Error E = R.add({"mark-" + Tag, "Test plugin pass: prints '" + Tag + ": Type::Method' on entry",
                   {{"fail", "fail on the methods of this name"}},
                   [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
                     return std::make_unique<Mark>(O);
                   }});
  if (E)
    report_fatal_error(std::move(E));
}

struct Counts {
  std::atomic<int> Modules{0}, Unloads{0}, Jit{0}, Woven{0}, ReJit{0}, ReJitWoven{0}, GcStarts{0},
      GcEnds{0}, Induced{0}, DataSet{0}, DataReleased{0};
  std::mutex Lock;
  std::map<std::string, int> Unloaded; // by file name
  ~Counts() { // at exit, after the profiler released the data
    const char *Path = std::getenv(("WEFT_MARKER_REPORT_" + Tag).c_str());
    if (!Path || !Modules)
      return; // not in the profiled process (`weft run` loads plugins too, to check the spec)
    if (FILE *F = std::fopen(Path, "w")) {
      std::fprintf(F,
                   "modules %d\nunloads %d\njit %d\nwoven %d\nrejit %d\nrejit-woven %d\n"
                   "gc-start %d\ngc-end %d\ninduced %d\ndata-set %d\ndata-released %d\n",
                   Modules.load(), Unloads.load(), Jit.load(), Woven.load(), ReJit.load(),
                   ReJitWoven.load(), GcStarts.load(), GcEnds.load(), Induced.load(),
                   DataSet.load(), DataReleased.load());
      for (const auto &[Name, N] : Unloaded)
        std::fprintf(F, "unloaded:%s %d\n", Name.c_str(), N);
      std::fclose(F);
    }
  }
} Count;

void moduleLoaded(const weftModuleEvent *) {
  if (Count.Modules++ == 0)
    if (const char *Path = std::getenv("WEFT_MARKER_ORDER"))
      if (FILE *F = std::fopen(Path, "a")) {
        std::fprintf(F, "%s\n", Tag.c_str());
        std::fclose(F);
      }
}

void moduleUnloading(const weftModuleEvent *E) {
  ++Count.Unloads;
  std::string Path = E->Path ? E->Path : "";
  std::lock_guard<std::mutex> G(Count.Lock);
  ++Count.Unloaded[Path.substr(Path.find_last_of('/') + 1)];
}

void compiling(const weftMethodEvent *E, bool ReJit) {
  ++(ReJit ? Count.ReJit : Count.Jit);
  Count.Woven += E->Woven;
  if (ReJit)
    Count.ReJitWoven += E->Woven;
  // A counter per method, kept by the profiler under this plugin's key.
  auto *N = static_cast<std::atomic<int> *>(E->Services->GetData(E->Method, E->Plugin));
  if (!N) {
    N = new std::atomic<int>(0);
    E->Services->SetData(E->Method, E->Plugin, N, [](void *P) {
      ++Count.DataReleased;
      delete static_cast<std::atomic<int> *>(P);
    });
    ++Count.DataSet;
  }
  ++*N;
}

void garbageCollection(const weftGcEvent *E) {
  if (E->Finished) {
    ++Count.GcEnds;
    return;
  }
  ++Count.GcStarts;
  Count.Induced += E->Reason == 1;
}

const weftRuntimeHooks Hooks = {
    MARKER_EVENTS,
    moduleLoaded,
    moduleUnloading,
    [](const weftMethodEvent *E) { compiling(E, false); },
    [](const weftMethodEvent *E) { compiling(E, true); },
    garbageCollection,
};

} // namespace

extern "C" WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void) {
  return {WEFT_PLUGIN_API_VERSION, "weft-test-marker-" MARKER_TAG, "1.0", registerPasses, &Hooks};
}
