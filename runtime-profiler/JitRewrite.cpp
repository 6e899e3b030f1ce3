//===- runtime-profiler/JitRewrite.cpp - Weaving at JIT and ReJIT time -------===//
//
// A matching method gets its woven body when it is first compiled (SetILFunctionBody), or when
// the runtime compiles it again through ReJIT (ReadyToRun code, a profiler that attached late);
// the IL offset map goes with it. Inlining of matching methods is refused. With WEFT_VERBOSE each
// method compiled again through ReJIT is logged, with what it was given.
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "runtime-profiler/PluginHost.h"
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

HRESULT Profiler::JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) {
  return guarded("JITCompilationStarted", [&] {
    bool Woven = compilationStarted(FunctionId);
    if (Verbose && !Woven)
      logPrecompiledInliner(FunctionId);
    if (Plugins && Plugins->wants(WEFT_ON_JIT))
      notifyCompiling(false, FunctionId, Woven);
    return S_OK;
  });
}

void Profiler::logPrecompiledInliner(FunctionID Function) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return;
  std::shared_ptr<LoadedModule> Mod = moduleOf(Module);
  uint32_t Row = metadata::tokenRow(Token);
  if (Mod && metadata::tokenTable(Token) == metadata::TableId::MethodDef &&
      Row < Mod->InlinedMatching.size() && Mod->InlinedMatching[Row])
    L->line(sys::path::filename(Mod->Name) + ": " + Mod->methodName(Row) +
            " compiled from its IL: its precompiled code inlined a matching method");
}

HRESULT Profiler::JITInlining(FunctionID CallerId, FunctionID CalleeId, BOOL *ShouldInline) {
  return guarded("JITInlining", [&] {
    if (ShouldInline && matched(CalleeId).first)
      *ShouldInline = 0;
    return S_OK;
  });
}

HRESULT Profiler::JITCachedFunctionSearchStarted(FunctionID FunctionId, BOOL *UseCachedFunction) {
  return guarded("JITCachedFunctionSearchStarted", [&] {
    if (UseCachedFunction && precompiledCodeMustNotRun(FunctionId))
      *UseCachedFunction = 0;
    return S_OK;
  });
}

bool Profiler::precompiledCodeMustNotRun(FunctionID Function) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return false;
  if (matched(Module, Token).first)
    return true;
  std::shared_ptr<LoadedModule> Mod = moduleOf(Module);
  uint32_t Row = metadata::tokenRow(Token);
  return Mod && metadata::tokenTable(Token) == metadata::TableId::MethodDef &&
         Row < Mod->InlinedMatching.size() && Mod->InlinedMatching[Row];
}

void Profiler::findPrecompiledInliners(LoadedModule &Mod, ModuleID Id,
                                       const std::vector<mdMethodDef> &Matching) {
  // The image's own record of where its precompiled code inlined each matching method: that
  // code is declined at the cache search too, and compiled (where JITInlining keeps the matching
  // method out), so no call of a matching method runs its original IL, from the first call on.
  // (ReJIT with inliners, requested at the same time, covers what this misses: other modules.)
  Mod.InlinedMatching.assign(Mod.Sel.methodCount() + 1, false);
  uint64_t Found = 0;
  for (mdMethodDef Method : Matching) {
    BOOL Incomplete = 0;
    ICorProfilerMethodEnum *Enum = nullptr;
    if (failed(Info->EnumNgenModuleMethodsInliningThisMethod(Id, Id, Method, &Incomplete, &Enum)) ||
        !Enum)
      continue;
    COR_PRF_METHOD Batch[64];
    ULONG Got = 0;
    while (succeeded(Enum->Next(64, Batch, &Got)) && Got) {
      for (ULONG I = 0; I < Got; ++I) {
        uint32_t Row = metadata::tokenRow(Batch[I].methodId);
        if (Batch[I].moduleId == Id && Row < Mod.InlinedMatching.size() &&
            !Mod.InlinedMatching[Row]) {
          Mod.InlinedMatching[Row] = true;
          ++Found;
          if (Verbose)
            L->line(sys::path::filename(Mod.Name) + ": " + Mod.methodName(Row) +
                    ": its precompiled code inlined " + Mod.methodName(metadata::tokenRow(Method)) +
                    "; it is compiled instead");
        }
      }
      if (Got < 64)
        break;
    }
    Enum->Release();
  }
  if (Found)
    L->line(sys::path::filename(Mod.Name) + ": " + Twine(Found) +
            " methods whose precompiled code inlined a matching method are compiled instead");
}

/// The first method the passes added that has no body yet, or 0.
static uint32_t addedWithoutBody(LoadedModule &Mod) {
  const std::map<uint32_t, NewBody> &Bodies = Mod.Weave->outcome().Bodies;
  const metadata::Editor &E = *Mod.E;
  for (uint32_t Row = Mod.MethodsWithBodies + 1; Row <= E.rowCount(metadata::TableId::MethodDef);
       ++Row) {
    uint32_t Flags = E.get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::Flags);
    uint32_t Impl = E.get(metadata::TableId::MethodDef, Row, metadata::MethodDefCol::ImplFlags);
    bool NeedsBody = !(Flags & 0x2400) && !(Impl & 0x1003); // abstract, pinvoke; runtime, internal
    if (NeedsBody && !Bodies.count(Row))
      return Row;
  }
  return 0;
}

bool Profiler::startWeave(LoadedModule &Mod, ModuleID Id) {
  StringRef Name = sys::path::filename(Mod.Name);
  IUnknown *Unk = nullptr;
  if (HRESULT Hr = Info->GetModuleMetaData(Id, ofRead | ofWrite, IID_IMetaDataEmit2, &Unk);
      failed(Hr) || !Unk) {
    L->line(Name + ": the runtime gives no IMetaDataEmit2 for the module (" + hresultText(Hr) +
            "); its methods stay as they are");
    return false;
  }
  Mod.Emit = static_cast<IMetaDataEmit2 *>(Unk);
  void *P = nullptr;
  if (failed(Mod.Emit->QueryInterface(IID_IMetaDataAssemblyEmit, &P)) || !P) {
    L->line(Name + ": the module's metadata has no IMetaDataAssemblyEmit; its methods stay as "
                   "they are");
    return false;
  }
  Mod.AssemblyEmit = static_cast<IMetaDataAssemblyEmit *>(P);
  Mod.E = std::make_unique<metadata::Editor>(*Mod.M);
  Mod.MethodsWithBodies = Mod.M->rowCount(metadata::TableId::MethodDef);
  Mod.Mirror = std::make_unique<EmitMirror>(Mod.Emit, Mod.AssemblyEmit);
  Mod.E->setObserver(Mod.Mirror.get());
  Mod.Resolver = std::make_unique<metadata::AssemblyResolver>(
      std::vector<std::string>{sys::path::parent_path(Mod.Name).str()}, frameworkResolver());
  passes::WeaveOptions O;
  O.Resolver = Mod.Resolver.get();
  O.Threads = 1;
  O.KeepRemaps = true; // a whole-module weave hands each body over with its IL offset map
  O.InputPath = Mod.Name;
  O.ProcessId = uint32_t(::getpid()); // what the woven code writes is this process's own
  auto W = passes::ModuleWeave::start(*Mod.Img, *Mod.E, Mod.Sel, O);
  std::optional<std::string> Problem = Mod.Mirror->takeProblem();
  if (!W || Problem) {
    L->line(Name + ": the passes cannot begin: " + (W ? *Problem : toString(W.takeError())) +
            "; its methods stay as they are");
    return false;
  }
  Mod.Weave = std::move(*W);
  if (addedWithoutBody(Mod)) {
    if (std::optional<std::string> Failed = weaveWholeModule(Mod)) {
      L->line(Name + ": " + *Failed + "; its methods stay as they are");
      return false;
    }
  }
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id)) {
    L->line(Name + ": the passes cannot begin: " + *Failed + "; its methods stay as they are");
    return false;
  }
  return true;
}

/// Where the files the passes write beside module \p Name go in \p Dir: `Dir/Name.suffix`, the
/// same for every process of a tree that loads the module (the same module makes the same map);
/// but where another process left other contents under that name (another module of that
/// name), `Dir/Name.PID.suffix`, so that neither overwrites the other's.
static std::string sideFilesBase(const passes::WeaveOutcome &Out, StringRef Dir, StringRef Name) {
  SmallString<256> Base(Dir);
  sys::path::append(Base, Name);
  auto Differs = [&](StringRef Suffix, StringRef Ours) {
    auto Theirs = MemoryBuffer::getFile(Base + Suffix, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
    return Theirs && (*Theirs)->getBuffer() != Ours;
  };
  bool Clash = false;
  for (const auto &[Suffix, Text] : Out.SideFiles)
    Clash |= Differs(Suffix, Text);
  for (const auto &[Suffix, File] : Out.SideFilesOnDisk)
    if (auto Ours = MemoryBuffer::getFile(File.path(), false, false, /*IsVolatile=*/true))
      Clash |= Differs(Suffix, (*Ours)->getBuffer());
  if (Clash)
    Base += "." + std::to_string(::getpid());
  return std::string(Base);
}

std::optional<std::string> Profiler::weaveWholeModule(LoadedModule &Mod) {
  // A pass that adds methods whose bodies it can only give at the module's end (coverage learns
  // its counter count there) gets the module's whole weave now, as offline: every method read
  // from the image the runtime loaded, in row order, then the end.
  auto Start = std::chrono::steady_clock::now();
  uint32_t Rows = Mod.M->rowCount(metadata::TableId::MethodDef);
  std::map<uint32_t, metadata::pdb::BodyRemap> &Remaps = Mod.Weave->outcome().Remaps;
  for (uint32_t Row = 1; Row <= Rows; ++Row) {
    Expected<std::optional<BodyBytes>> B = Mod.Weave->body(Row);
    if (!B)
      return "the passes cannot weave the module: " + toString(B.takeError());
    if (!*B)
      continue;
    auto W = std::make_unique<WovenMethod>((*B)->Bytes.vec(), Remaps[Row].OffsetMap);
    if (!Mod.Mirror->remapUserStrings(W->Bytes))
      return "a woven body does not decode again (a bug in weft)";
    Remaps.erase(Row);
    Mod.Woven[Row] = std::move(W);
  }
  if (Error E = Mod.Weave->finish())
    return "the passes cannot finish the module: " + toString(std::move(E));
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem())
    return *Problem;
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  for (const std::string &Warning : Out.Warnings)
    L->line(sys::path::filename(Mod.Name) + ": " + Warning);
  Out.Warnings.clear();
  // What weave writes beside its output (a coverage map) goes to the output folder.
  if (!Out.SideFiles.empty() || !Out.SideFilesOnDisk.empty()) {
    SmallString<256> Dir(OutputDir.empty() ? "." : OutputDir);
    std::string Base = sideFilesBase(Out, Dir, sys::path::filename(Mod.Name));
    if (Error E = passes::writeSideFiles(Out, Base))
      L->line(sys::path::filename(Mod.Name) +
              ": cannot write what the passes write beside the "
              "module: " +
              toString(std::move(E)));
    else
      for (const auto &Side : Out.SideFiles)
        L->line(sys::path::filename(Mod.Name) + ": wrote " + Base + Side.first);
    for (const auto &Side : Out.SideFilesOnDisk)
      L->line(sys::path::filename(Mod.Name) + ": wrote " + Base + Side.first);
  }
  Mod.Whole = true;
  float Micros =
      std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - Start).count();
  L->line(sys::path::filename(Mod.Name) +
          ": the passes finish the module only at its end: " + Twine(Mod.Woven.size()) +
          " methods woven at once, in " + Twine(unsigned(Micros / 1000)) + " ms");
  return std::nullopt;
}

std::optional<std::string> Profiler::publishAdditions(LoadedModule &Mod, ModuleID Id) {
  // Every method the passes added needs its body before a method that uses it runs.
  std::map<uint32_t, NewBody> &Bodies = Mod.Weave->outcome().Bodies;
  if (uint32_t Row = addedWithoutBody(Mod))
    return "the passes added " + Mod.methodName(Row) + " without a body (a bug in weft)";
  Mod.MethodsWithBodies = Mod.E->rowCount(metadata::TableId::MethodDef);
  if (Mod.Mirror->takeDefinitions())
    if (HRESULT Hr = Info->ApplyMetaData(Id); failed(Hr))
      return "the runtime did not apply the types and methods the passes added (" +
             hresultText(Hr) + ")";
  for (auto &[Row, Body] : Bodies)
    if (!Mod.Mirror->remapUserStrings(Body.Bytes))
      return "a method the passes added (" + Mod.methodName(Row) +
             ") does not decode (a bug in weft)";
    else if (std::optional<std::string> Failed =
                 setBody(Id, metadata::makeToken(metadata::TableId::MethodDef, Row), Body.Bytes))
      return "a method the passes added (" + Mod.methodName(Row) + "): " + *Failed;
  Bodies.clear();
  return std::nullopt;
}

std::optional<std::string> Profiler::setBody(ModuleID Id, mdToken Method, ArrayRef<uint8_t> Bytes) {
  IMethodMalloc *Malloc = nullptr;
  if (HRESULT Hr = Info->GetILFunctionBodyAllocator(Id, &Malloc); failed(Hr) || !Malloc)
    return "no allocator for the new body (" + hresultText(Hr) + ")";
  void *Copy = Malloc->Alloc(ULONG(Bytes.size()));
  Malloc->Release();
  if (!Copy)
    return std::string("the runtime could not allocate the new body");
  std::memcpy(Copy, Bytes.data(), Bytes.size());
  if (HRESULT Hr = Info->SetILFunctionBody(Id, Method, static_cast<LPCBYTE>(Copy)); failed(Hr))
    return "the runtime refused the new body (" + hresultText(Hr) + ")";
  return std::nullopt;
}

std::unique_ptr<WovenMethod> Profiler::weave(LoadedModule &Mod, ModuleID Id, uint32_t Row) {
  StringRef File = sys::path::filename(Mod.Name);
  auto LeaveAlone = [&](const Twine &Why) {
    leftAlone(Mod, Row, Why);
    return nullptr;
  };
  mdToken Token = metadata::makeToken(metadata::TableId::MethodDef, Row);
  LPCBYTE Header = nullptr;
  ULONG Size = 0;
  if (HRESULT Hr = Info->GetILFunctionBody(Id, Token, &Header, &Size); failed(Hr) || !Header)
    return LeaveAlone("the runtime gives no IL body (" + hresultText(Hr) + ")");
  Expected<il::RawMethodBody> Raw = il::readMethodBody(ArrayRef<uint8_t>(Header, Size), 0);
  if (!Raw)
    return LeaveAlone(toString(Raw.takeError()));
  Expected<std::optional<il::EncodedBody>> Woven = Mod.Weave->weaveMethod(Row, *Raw);
  passes::WeaveOutcome &Out = Mod.Weave->outcome();
  if (Verbose)
    for (const std::string &S : Out.Skipped)
      L->line(File + ": skipped by " + S);
  Out.Skipped.clear();
  Out.Notes.clear();
  if (std::optional<std::string> Problem = Mod.Mirror->takeProblem()) {
    // The runtime's metadata and the editor no longer agree: nothing more can be woven here.
    Mod.Weaving = LoadedModule::State::Refused;
    consumeError(Woven.takeError());
    return LeaveAlone(*Problem + "; the module's other methods stay as they are too");
  }
  if (!Woven)
    return LeaveAlone(toString(Woven.takeError()));
  if (!*Woven) {
    ++Count.Unchanged;
    return nullptr;
  }
  if (std::optional<std::string> Failed = publishAdditions(Mod, Id)) {
    Mod.Weaving = LoadedModule::State::Refused;
    return LeaveAlone(*Failed + "; the module's other methods stay as they are too");
  }
  il::EncodedBody &B = **Woven;
  if (!Mod.Mirror->remapUserStrings(B.Bytes))
    return LeaveAlone("the woven body does not decode again (a bug in weft)");
  return std::make_unique<WovenMethod>(std::move(B.Bytes), B.OffsetMap);
}

const WovenMethod *Profiler::weaveOnce(LoadedModule &Mod, ModuleID Id, uint32_t Row, bool *Fresh) {
  *Fresh = false;
  if (Mod.Done.empty())
    Mod.Done.assign(Mod.Sel.methodCount() + 1, false);
  if (Mod.Done[Row]) { // another instantiation, or a ReJIT, of a method already handled
    auto It = Mod.Woven.find(Row);
    return It == Mod.Woven.end() ? nullptr : It->second.get();
  }
  Mod.Done[Row] = true;
  *Fresh = true;
  ++Count.CompiledMatched;
  if (Mod.Weaving == LoadedModule::State::NotStarted)
    Mod.Weaving = startWeave(Mod, Id) ? LoadedModule::State::Weaving : LoadedModule::State::Refused;
  if (Mod.Weaving != LoadedModule::State::Weaving) {
    ++Count.LeftAlone;
    return nullptr;
  }
  if (Mod.Whole) { // woven when the weave began
    auto It = Mod.Woven.find(Row);
    if (It == Mod.Woven.end()) {
      ++Count.Unchanged;
      return nullptr;
    }
    return It->second.get();
  }
  auto Start = std::chrono::steady_clock::now();
  std::unique_ptr<WovenMethod> W = weave(Mod, Id, Row);
  float Micros =
      std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - Start).count();
  {
    std::lock_guard<std::mutex> T(TimesLock);
    RewriteMicros.push_back(Micros);
  }
  if (!W)
    return nullptr;
  // A module whose methods may be compiled again through ReJIT keeps each body to hand it over
  // again; others need it only until the runtime has copied it.
  if (!Mod.ReJits)
    Mod.Woven.clear();
  return (Mod.Woven[Row] = std::move(W)).get();
}

bool Profiler::compilationStarted(FunctionID Function) {
  ++Count.Compiled;
  // Attached, methods are woven only through ReJIT, which detaching can revert.
  if (Attached)
    return false;
  ModuleID Module = 0;
  auto [Mod, Row] = matched(Function, &Module);
  if (!Mod)
    return false;
  std::lock_guard<std::mutex> G(Mod->Lock);
  bool Fresh = false;
  const WovenMethod *W = weaveOnce(*Mod, Module, Row, &Fresh);
  if (!W || !Fresh)
    return false; // the IL is per method definition: set once, for every instantiation
  mdToken Token = metadata::makeToken(metadata::TableId::MethodDef, Row);
  if (std::optional<std::string> Failed = setBody(Module, Token, W->Bytes)) {
    leftAlone(*Mod, Row, *Failed);
    return false;
  }
  ++Count.Rewritten;
  giveMap(*Mod, Row, *W, [&](ULONG N, COR_IL_MAP *Map) {
    return Info->SetILInstrumentedCodeMap(Function, 1, N, Map);
  });
  return true;
}

void Profiler::leftAlone(LoadedModule &Mod, uint32_t Row, const Twine &Why) {
  ++Count.LeftAlone;
  L->line(sys::path::filename(Mod.Name) + ": " + Mod.methodName(Row) + " left as it is: " + Why);
}

template <typename Fn>
void Profiler::giveMap(LoadedModule &Mod, uint32_t Row, const WovenMethod &W, Fn &&Set) {
  // Where each original instruction went, for debuggers and stack traces.
  std::vector<COR_IL_MAP> Map = W.Map; // the runtime's parameter is not const
  if (Map.empty())
    return;
  if (HRESULT Hr = Set(ULONG(Map.size()), Map.data()); failed(Hr))
    L->line(sys::path::filename(Mod.Name) + ": " + Mod.methodName(Row) +
            ": the runtime refused its IL offset map (" + hresultText(Hr) +
            "); stack traces may show other lines");
}

void Profiler::notifyCompiling(bool ReJit, FunctionID Function, bool Woven) {
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0, Type = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return;
  ModuleID ClassModule = 0;
  if (Class && failed(Info->GetClassIDInfo(Class, &ClassModule, &Type)))
    Type = 0;
  Plugins->methodCompiling(ReJit, Module, Function, Token, Type, Woven);
}

HRESULT Profiler::ReJITCompilationStarted(FunctionID FunctionId, ReJITID, BOOL) {
  return guarded("ReJITCompilationStarted", [&] {
    ClassID Class = 0;
    ModuleID Module = 0;
    mdToken Token = 0;
    if (failed(Info->GetFunctionInfo(FunctionId, &Class, &Module, &Token)))
      return S_OK;
    // What GetReJITParameters gave this method: weft asks for ReJIT of the methods it weaves and
    // of those that inlined one, so a method it gave no body had inlined one.
    const char *How = "as it was: it had inlined a matching method";
    bool Woven = false;
    if (std::shared_ptr<LoadedModule> Mod = moduleOf(Module)) {
      uint32_t Row = metadata::tokenRow(Token);
      std::lock_guard<std::mutex> G(Mod->Lock);
      auto Traced = Mod->Traced.find(Row);
      if (Traced != Mod->Traced.end() && Traced->second.Active && Traced->second.Body) {
        Woven = true;
        How = "with its tracepoint code";
      } else if (Mod->ReJitBodies.count(Row)) {
        Woven = true;
        How = "with its woven body";
      } else if (Row >= 1 && Row <= Mod->Sel.methodCount() && !Mod->Sel.passesOf(Row).empty()) {
        How = "as it was: the passes left it as it is";
      }
    }
    ++(Woven ? Count.ReJitCompiledWoven : Count.ReJitCompiledAsItWas);
    if (Verbose)
      L->line(methodText(Module, Token) + " compiled again through ReJIT " + How);
    if (Plugins && Plugins->wants(WEFT_ON_REJIT))
      notifyCompiling(true, FunctionId, Woven);
    return S_OK;
  });
}

std::string Profiler::methodText(ModuleID Module, mdToken Token) {
  if (std::shared_ptr<LoadedModule> Mod = moduleOf(Module))
    return sys::path::filename(Mod->Name).str() + ": " + Mod->methodName(metadata::tokenRow(Token));
  // A module the spec matches nothing in: its name and the method's, as the runtime has them.
  std::string File = "a module", Name;
  WCHAR Text[1024] = {};
  ULONG Length = 0;
  LPCBYTE Base = nullptr;
  AssemblyID Assembly = 0;
  if (succeeded(Info->GetModuleInfo(Module, &Base, 1024, &Length, Text, &Assembly)))
    File = sys::path::filename(
               utf8(ArrayRef<WCHAR>(Text, Length ? std::min<ULONG>(Length, 1024) - 1 : 0)))
               .str();
  IUnknown *Unk = nullptr;
  if (succeeded(Info->GetModuleMetaData(Module, ofRead, IID_IMetaDataImport, &Unk)) && Unk) {
    auto *Import = static_cast<IMetaDataImport *>(Unk);
    mdTypeDef Type = 0;
    Length = 0;
    if (succeeded(Import->GetMethodProps(Token, &Type, Text, 1024, &Length, nullptr, nullptr,
                                         nullptr, nullptr, nullptr)))
      Name = utf8(ArrayRef<WCHAR>(Text, Length ? std::min<ULONG>(Length, 1024) - 1 : 0));
    Import->Release();
  }
  return File + ": method 0x" + hexstr(Token, false, 8) + " (" + Name + ")";
}

HRESULT Profiler::GetReJITParameters(ModuleID ModuleId, mdMethodDef Method,
                                     ICorProfilerFunctionControl *Control) {
  return guarded("GetReJITParameters", [&] {
    if (Detaching)
      return S_OK;
    if (std::shared_ptr<LoadedModule> T = moduleOf(ModuleId)) {
      std::lock_guard<std::mutex> G(T->Lock);
      uint32_t TRow = metadata::tokenRow(Method);
      auto It = T->Traced.find(TRow);
      if (It != T->Traced.end() && It->second.Active && It->second.Body && Control) {
        const WovenMethod &W = *It->second.Body;
        if (HRESULT Hr = Control->SetILFunctionBody(ULONG(W.Bytes.size()), W.Bytes.data());
            failed(Hr)) {
          leftAlone(*T, TRow, "the runtime refused its tracepoint body (" + hresultText(Hr) + ")");
          return S_OK;
        }
        ++Count.ReJitted;
        giveMap(*T, TRow, W, [&](ULONG N, COR_IL_MAP *Map) {
          return Control->SetILInstrumentedCodeMap(N, Map);
        });
        return S_OK;
      }
    }
    auto [Mod, Row] = matched(ModuleId, Method);
    if (!Mod)
      return S_OK; // a method that had inlined a matching one: compiled again from its own IL
    std::lock_guard<std::mutex> G(Mod->Lock);
    bool Fresh = false;
    const WovenMethod *W = weaveOnce(*Mod, ModuleId, Row, &Fresh);
    if (!W || !Control)
      return S_OK;
    if (HRESULT Hr = Control->SetILFunctionBody(ULONG(W->Bytes.size()), W->Bytes.data());
        failed(Hr)) {
      leftAlone(*Mod, Row, "the runtime refused the body for its ReJIT (" + hresultText(Hr) + ")");
      return S_OK;
    }
    Count.Rewritten += Fresh;
    ++Count.ReJitted;
    Mod->ReJitBodies.insert(Row);
    giveMap(*Mod, Row, *W,
            [&](ULONG N, COR_IL_MAP *Map) { return Control->SetILInstrumentedCodeMap(N, Map); });
    return S_OK;
  });
}

HRESULT Profiler::ReJITError(ModuleID ModuleId, mdMethodDef Method, FunctionID, HRESULT Status) {
  return guarded("ReJITError", [&] {
    ++Count.ReJitFailed;
    std::shared_ptr<LoadedModule> Mod = moduleOf(ModuleId);
    L->line((Mod ? sys::path::filename(Mod->Name).str() : std::string("a module")) + ": " +
            (Mod ? Mod->methodName(metadata::tokenRow(Method))
                 : "method 0x" + hexstr(Method, false, 8)) +
            ": the runtime could not compile it again (" + hresultText(Status) +
            "); it keeps the code it had");
    return S_OK;
  });
}

void Profiler::requestReJit(ModuleID Id, const std::vector<mdMethodDef> &Methods) {
  std::shared_lock<std::shared_mutex> Gate(ModuleGate);
  if (liveModules().count(Id))
    askReJit(Id, Methods);
}

void Profiler::askReJit(ModuleID Id, const std::vector<mdMethodDef> &Methods) {
  std::vector<ModuleID> Modules(Methods.size(), Id);
  std::vector<mdMethodDef> Tokens = Methods;
  HRESULT Hr =
      InfoVersion >= 10
          ? static_cast<ICorProfilerInfo10 *>(Info)->RequestReJITWithInliners(
                COR_PRF_REJIT_BLOCK_INLINING, ULONG(Tokens.size()), Modules.data(), Tokens.data())
          : Info->RequestReJIT(ULONG(Tokens.size()), Modules.data(), Tokens.data());
  if (failed(Hr)) {
    std::shared_ptr<LoadedModule> Mod = moduleOf(Id);
    L->line((Mod ? sys::path::filename(Mod->Name).str() : std::string("a module")) +
            ": the runtime refused the ReJIT of its matching methods (" + hresultText(Hr) +
            "); those already compiled, and the methods that inlined them, keep their code");
    return;
  }
  Count.ReJitRequested += Tokens.size();
  std::lock_guard<std::mutex> G(ReJits.Lock);
  for (mdMethodDef T : Tokens)
    ReJits.Requested.emplace_back(Id, T);
}

} // namespace weft::prof
