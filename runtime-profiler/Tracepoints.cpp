//===- runtime-profiler/Tracepoints.cpp - The spec watch and the tracepoints it applies ---===//
//
// The spec file is read again when it changes; the tracepoints of the new version are woven into
// the methods they match and compiled again through ReJIT, and methods no longer matched are
// reverted (RequestRevert).
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "metadata/Names.h"
#include "runtime-profiler/EventPipeSink.h"
#include "runtime-profiler/LttngSink.h"
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/ProfilerInternals.h"
#include "runtime-profiler/Recorder.h"
#include "runtime-profiler/TracepointPass.h"
#include "support/Port.h"
#include "support/PrivateFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

bool Profiler::specEdited() {
  if (!port::nameExists(SpecPath.c_str()) && errno == ENOENT)
    return false; // gone for a moment: an editor replacing it
  // Only a regular file of the user's own, read whole (never mapped: an editor may truncate it
  // as it is read; never a FIFO, which would block this thread).
  Expected<std::string> Text = readOwnedFile(SpecPath, port::currentUser(), MaxSpecBytes);
  if (!Text) {
    std::string Why = toString(Text.takeError());
    if (Why != SpecRefusal) // said once, not five times a second
      L->line("spec edited: " + Why + "; the tracepoints in force stay");
    SpecRefusal = std::move(Why);
    return false;
  }
  SpecRefusal.clear();
  if (*Text == SpecText)
    return false;
  SpecText = std::move(*Text);
  Expected<spec::Spec> S = spec::Spec::parse(SpecText, SpecPath);
  if (!S) {
    L->line("spec edited: " + toString(S.takeError()) + "; the tracepoints in force stay");
    return false;
  }
  Traced = std::make_shared<const spec::Spec>(std::move(*S));
  HasTracepoints = !Traced->tracepoints().empty();
  std::vector<std::string> Names;
  for (const spec::Tracepoint &T : Traced->tracepoints())
    Names.push_back(T.Name + (T.FollowsSession ? " (while a session asks)"
                              : T.Enabled      ? ""
                                               : " (disabled)"));
  L->line("spec edited: tracepoints now " +
          (Names.empty() ? std::string("none") : join(Names, ", ")) +
          " (rules and passes stay as they were at the start)");
  return true;
}

bool Profiler::recordsNow(const spec::Tracepoint &T) const {
  return T.FollowsSession ? Provider && Provider->wantsTracepoints() : T.Enabled;
}

void Profiler::applyTracepoints(const std::vector<ModuleID> &Ids, bool FlagsOnly) {
  const spec::Spec &S = *Traced;
  bool NamesAssemblies = false;
  for (const spec::Tracepoint &T : S.tracepoints())
    NamesAssemblies |= bool(T.Match.Assembly);
  if (!S.tracepoints().empty())
    recorder();
  if (!Rec)
    return;
  std::map<ModuleID, std::vector<mdMethodDef>> ReJit;
  std::vector<ModuleID> RevertModules;
  std::vector<mdMethodDef> RevertMethods;
  uint64_t Updated = 0;
  // Modules that began to unload since \p Ids was taken are left out; the others cannot begin
  // to until the runtime has what it is given here.
  std::shared_lock<std::shared_mutex> Gate(ModuleGate);
  std::unordered_set<ModuleID> Live = liveModules();
  for (ModuleID Id : Ids) {
    if (!Live.count(Id))
      continue;
    std::shared_ptr<LoadedModule> Mod = moduleOf(Id);
    bool Kept = bool(Mod);
    if (!Mod && FlagsOnly)
      continue; // no tracepoint's code in it
    if (!Mod && !S.tracepoints().empty())
      Mod = readModule(Id, /*SkipFramework=*/!NamesAssemblies, /*Notify=*/false);
    if (!Mod)
      continue;
    Expected<spec::Selection> Sel = spec::selectTracepoints(S, *Mod->M, Mod->Framework);
    if (!Sel) {
      L->line(sys::path::filename(Mod->Name) + ": tracepoints: " + toString(Sel.takeError()));
      continue;
    }
    if (Mod->Collectible) {
      uint32_t Named = 0;
      for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row)
        Named += !Sel->passesOf(Row).empty();
      if (Named)
        L->line(sys::path::filename(Mod->Name) + ": tracepoints: " + Twine(Named) +
                " methods named, in a collectible context: the runtime compiles none of them "
                "again (no ReJIT there), so they keep their code");
      continue;
    }
    bool Any = false;
    std::lock_guard<std::mutex> G(Mod->Lock);
    for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row) {
      auto It = Mod->Traced.find(Row);
      ArrayRef<uint16_t> Uses = Sel->passesOf(Row);
      if (Uses.empty()) {
        if (It != Mod->Traced.end() && It->second.Active) {
          It->second.Active = false;
          Rec->setTracepoints(It->second.Slot, {}, 0);
          RevertModules.push_back(Id);
          RevertMethods.push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
        }
        continue;
      }
      Any = true;
      if (It == Mod->Traced.end() || !It->second.Body) {
        if (std::optional<std::string> Why = weaveTraced(*Mod, Id, Row)) {
          leftAlone(*Mod, Row, "tracepoint: " + *Why);
          if (It = Mod->Traced.find(Row); It != Mod->Traced.end())
            Rec->freeSlots({It->second.Slot});
          Mod->Traced.erase(Row);
          continue;
        }
        It = Mod->Traced.find(Row);
      }
      std::vector<std::string> Enabled;
      unsigned Depth = 0;
      for (uint16_t U : Uses)
        for (const spec::Tracepoint &T : S.tracepoints())
          if (T.Name == Sel->Uses[U].Options[0].second && recordsNow(T)) {
            Enabled.push_back(T.Name);
            Depth = std::max(Depth, T.Depth);
          }
      Rec->setTracepoints(It->second.Slot, Enabled, Depth);
      if (!It->second.Active) {
        It->second.Active = true;
        ReJit[Id].push_back(metadata::makeToken(metadata::TableId::MethodDef, Row));
      } else {
        ++Updated;
      }
    }
    if (Any && !Kept) {
      std::lock_guard<std::mutex> M(ModulesLock);
      Modules.emplace(Id, Mod);
    }
  }
  uint64_t Added = 0;
  for (auto &[Id, Methods] : ReJit) {
    Added += Methods.size();
    askReJit(Id, Methods);
  }
  if (!RevertMethods.empty()) {
    std::vector<HRESULT> Status(RevertMethods.size(), S_OK);
    HRESULT Hr = Info->RequestRevert(ULONG(RevertMethods.size()), RevertModules.data(),
                                     RevertMethods.data(), Status.data());
    uint64_t Failed = 0;
    for (HRESULT H : Status)
      Failed += failed(H);
    if (failed(Hr) || Failed)
      L->line("tracepoints: the runtime refused to revert " +
              Twine(failed(Hr) ? RevertMethods.size() : Failed) + " methods (" +
              hresultText(failed(Hr) ? Hr : S_OK) + "); they keep recording nothing");
    Count.Reverted += RevertMethods.size() - (failed(Hr) ? RevertMethods.size() : Failed);
  }
  Count.Traced += Added;
  if (Added || !RevertMethods.empty() || Updated)
    L->line("tracepoints: " + Twine(Added) + " methods compiled again with tracepoint code, " +
            Twine(RevertMethods.size()) + " reverted to their own IL, " + Twine(Updated) +
            " updated in place");
}

Recorder &Profiler::recorder() {
  std::lock_guard<std::mutex> G(ModulesLock);
  if (!Rec) {
    SmallString<256> Path(OutputDir);
    if (Path.empty())
      sys::fs::current_path(Path);
    sys::path::append(Path, "weft-timeline-" + Twine(getpid()) + ".json");
    Rec = new Recorder(Info, std::string(Path), *L);
    Provider = new EventPipeSink(Info, InfoVersion, *L);
    Provider->onKeywords([this] {
      std::lock_guard<std::mutex> Q(ReJits.Lock);
      ReJits.SessionChanged = true;
      ReJits.Wake.notify_all();
    });
    Sinks.push_back(Provider);
    if (WantsLttng)
      if (std::unique_ptr<EventSink> Lttng = openLttngSink(*L))
        Sinks.push_back(Lttng.release());
    for (EventSink *S : Sinks)
      Rec->addSink(S);
    L->line("timeline: records go to the Weft EventPipe provider, and to " + Path +
            " from the first one");
  }
  return *Rec;
}

std::optional<std::string> Profiler::weaveTraced(LoadedModule &Mod, ModuleID Id, uint32_t Row) {
  if (Mod.Weaving == LoadedModule::State::NotStarted)
    Mod.Weaving = startWeave(Mod, Id) ? LoadedModule::State::Weaving : LoadedModule::State::Refused;
  if (Mod.Weaving != LoadedModule::State::Weaving)
    return std::string("the module cannot be woven (the log says why)");
  if (Mod.Whole && !Mod.Sel.passesOf(Row).empty())
    return std::string("its rules' passes finished the module at its end (coverage, trace): "
                       "they cannot weave it again");
  if (!Mod.TracepointPass) {
    auto Slots = [this, &Mod](passes::MethodContext &C) -> std::optional<uint32_t> {
      const metadata::Module &M = C.module();
      metadata::NamePrinter Names(M);
      metadata::GenericContext Ctx{C.declaringType(), C.row()};
      SlotInfo Info;
      Info.Method = C.displayName();
      const metadata::MethodSig &Sig = C.signature();
      Info.ParamNames.resize(Sig.Params.size());
      for (uint32_t L : M.methodParams(C.row())) {
        uint32_t P = M.param(L);
        uint32_t Seq = M.get(metadata::TableId::Param, P, metadata::ParamCol::Sequence);
        if (Seq >= 1 && Seq <= Info.ParamNames.size())
          Info.ParamNames[Seq - 1] =
              M.getString(M.get(metadata::TableId::Param, P, metadata::ParamCol::Name)).str();
      }
      for (size_t I = 0; I < Sig.Params.size(); ++I) {
        if (Info.ParamNames[I].empty())
          Info.ParamNames[I] = "A_" + std::to_string(I + 1);
        std::string T;
        raw_string_ostream OS(T);
        Names.type(OS, Sig.Params[I], Ctx);
        Info.ParamTypes.push_back(OS.str());
      }
      raw_string_ostream OS(Info.ReturnType);
      Names.type(OS, Sig.Return, Ctx);
      OS.flush();
      uint32_t Slot = Rec->addSlot(std::move(Info));
      if (Slot >= Recorder::MaxSlots)
        return std::nullopt;
      Mod.Traced[C.row()].Slot = Slot;
      return Slot;
    };
    Expected<size_t> N = Mod.Weave->addPass(makeTracepointPass(*Rec, Slots), "tracepoint");
    if (!N)
      return toString(N.takeError());
    if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
      Mod.Weaving = LoadedModule::State::Refused;
      return *Problem;
    }
    Mod.TracepointPass = *N;
  }
  // The method's own IL, from the image (not what a pass gave it at its first compilation).
  uint32_t RVA = Mod.M->get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::RVA);
  uint64_t Offset = 0;
  ArrayRef<uint8_t> Bytes = Mod.Img->rvaTail(RVA, &Offset);
  if (!RVA || Bytes.empty())
    return std::string("it has no IL body in the image");
  Expected<il::RawMethodBody> Raw = il::readMethodBody(Bytes, Offset);
  if (!Raw)
    return toString(Raw.takeError());
  Expected<std::optional<il::EncodedBody>> Woven =
      Mod.Weave->weaveMethod(Row, *Raw, {*Mod.TracepointPass});
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  std::string Skipped = join(Out.Skipped, "; ");
  Out.Skipped.clear();
  Out.Notes.clear();
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
    Mod.Weaving = LoadedModule::State::Refused;
    consumeError(Woven.takeError());
    return *Problem;
  }
  if (!Woven)
    return toString(Woven.takeError());
  if (!*Woven || !Skipped.empty())
    return Skipped.empty() ? std::string("no pass changed it") : "skipped by " + Skipped;
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id))
    return *Failed;
  il::EncodedBody &B = **Woven;
  if (!Mod.Mirror->remapUserStrings(B.Bytes))
    return std::string("the woven body does not decode again (a bug in weft)");
  Mod.Traced[Row].Body = std::make_unique<WovenMethod>(std::move(B.Bytes), B.OffsetMap);
  return std::nullopt;
}

} // namespace weft::prof
