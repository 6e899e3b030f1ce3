//===- runtime-profiler/Profiler.cpp --------------------------------------===//
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/Identity.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace weft::prof {

/// What the profiler knows of a module with methods the spec matches.
struct LoadedModule {
  std::string Name;
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
  spec::Selection Sel;
};

namespace {

std::string utf8(ArrayRef<WCHAR> Text) {
  std::string Out;
  ArrayRef<UTF16> Units(reinterpret_cast<const UTF16 *>(Text.data()), Text.size());
  if (!convertUTF16ToUTF8String(Units, Out))
    Out = "<name not UTF-16>";
  return Out;
}

std::string hresult(HRESULT Hr) { return "HRESULT 0x" + utohexstr(uint32_t(Hr), false, 8); }

/// The newest ICorProfilerInfo the runtime answers, from 15 down to 7 (ApplyMetadata, .NET Core
/// 3.0 and later); 0 if it answers none of them.
unsigned newestInfo(IUnknown *Unk, ICorProfilerInfo7 **Out) {
  const GUID *Iids[] = {&IID_ICorProfilerInfo15, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo13,
                        &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo10,
                        &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo8,  &IID_ICorProfilerInfo7};
  unsigned Version = 15;
  for (const GUID *Iid : Iids) {
    void *P = nullptr;
    if (succeeded(Unk->QueryInterface(*Iid, &P)) && P) {
      *Out = static_cast<ICorProfilerInfo7 *>(P); // each derives from the one before
      return Version;
    }
    --Version;
  }
  return 0;
}

std::string runtimeDescription(ICorProfilerInfo7 *Info) {
  USHORT Instance = 0, Major = 0, Minor = 0, Build = 0, Qfe = 0;
  COR_PRF_RUNTIME_TYPE Type{};
  WCHAR Version[64] = {};
  ULONG Length = 0;
  if (failed(Info->GetRuntimeInformation(&Instance, &Type, &Major, &Minor, &Build, &Qfe, 64,
                                         &Length, Version)))
    return "an unknown runtime";
  std::string Text = Type == COR_PRF_CORE_CLR ? "CoreCLR " : "a runtime of type " +
                                                                 std::to_string(uint32_t(Type)) +
                                                                 " ";
  Text += std::to_string(Major) + "." + std::to_string(Minor) + "." + std::to_string(Build);
  if (Length > 1)
    Text += " (" + utf8(ArrayRef<WCHAR>(Version, std::min<ULONG>(Length, 64) - 1)) + ")";
  return Text;
}

} // namespace

Profiler::Profiler() = default;

Profiler::~Profiler() {
  if (Info)
    Info->Release();
}

template <typename Fn> HRESULT Profiler::guarded(const char *Callback, Fn &&Work) {
  try {
    return Work();
  } catch (...) {
    if (L)
      L->line(Twine(Callback) + ": an unexpected error; the runtime goes on without weft's work "
                                "for it");
    return S_OK;
  }
}

HRESULT Profiler::Initialize(IUnknown *ProfilerInfoUnk) {
  return guarded("Initialize", [&] { return initialize(ProfilerInfoUnk); });
}

HRESULT Profiler::initialize(IUnknown *Unk) {
  const char *LogPath = std::getenv(LogVariable);
  L = std::make_unique<Log>(LogPath ? LogPath : "");
  InfoVersion = Unk ? newestInfo(Unk, &Info) : 0;
  if (!InfoVersion) {
    L->line("declined: the runtime offers no ICorProfilerInfo7 or later (weft needs .NET Core 3.0 "
            "or later); nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  std::string Runtime = runtimeDescription(Info);
  Expected<Config> C = Config::fromEnvironment();
  if (!C) {
    L->line("declined on " + Runtime + ": " + toString(C.takeError()) +
            "; nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  Conf = std::move(*C);
  DWORD Events = COR_PRF_MONITOR_NONE;
  if (Conf.Spec)
    Events = COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_JIT_COMPILATION;
  if (HRESULT Hr = Info->SetEventMask(Events); failed(Hr)) {
    L->line("declined on " + Runtime + ": the runtime refused the event mask (" + hresult(Hr) +
            "); nothing is instrumented");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  L->line("attached to " + Runtime + " through ICorProfilerInfo" + Twine(InfoVersion) + "; " +
          Conf.Source);
  return S_OK;
}

HRESULT Profiler::Shutdown() {
  return guarded("Shutdown", [&] {
    if (L && Conf.Spec)
      L->line("shutting down: " + Twine(Count.ModulesSeen.load()) + " modules loaded, " +
              Twine(Count.ModulesMatched.load()) + " with methods the spec matches (" +
              Twine(Count.MethodsMatched.load()) + " methods); " + Twine(Count.Compiled.load()) +
              " methods compiled, " + Twine(Count.CompiledMatched.load()) + " of them matched, " +
              Twine(Count.Rewritten.load()) + " rewritten, " + Twine(Count.LeftAlone.load()) +
              " left as they were");
    return S_OK;
  });
}

HRESULT Profiler::ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) {
  return guarded("ModuleLoadFinished", [&] {
    if (succeeded(HrStatus))
      moduleLoaded(ModuleId);
    return S_OK;
  });
}

void Profiler::moduleLoaded(ModuleID Id) {
  ++Count.ModulesSeen;
  LPCBYTE Base = nullptr;
  WCHAR Name[1024] = {};
  ULONG NameLength = 0;
  AssemblyID Assembly = 0;
  DWORD Flags = 0;
  if (HRESULT Hr = Info->GetModuleInfo2(Id, &Base, 1024, &NameLength, Name, &Assembly, &Flags);
      failed(Hr)) {
    L->line("a module: GetModuleInfo2 failed (" + hresult(Hr) + "); its methods stay as they are");
    return;
  }
  std::string Path = utf8(ArrayRef<WCHAR>(Name, NameLength ? std::min<ULONG>(NameLength, 1024) - 1 : 0));
  if ((Flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_RESOURCE)) || !Base)
    return; // no IL image to read: reflection-emitted or resource-only
  if (!considered(Path))
    return;
  pe::Image::Layout Layout =
      (Flags & COR_PRF_MODULE_FLAT_LAYOUT) ? pe::Image::Layout::Flat : pe::Image::Layout::Mapped;
  // A flat image may be shorter than a page: read no header past the file's end.
  size_t HeaderLimit = 4096;
  uint64_t FileSize = 0;
  if (Layout == pe::Image::Layout::Flat && !sys::fs::file_size(Path, FileSize))
    HeaderLimit = std::min<uint64_t>(HeaderLimit, FileSize);
  else if (Layout == pe::Image::Layout::Flat)
    HeaderLimit = 512;
  auto Mod = std::make_shared<LoadedModule>();
  Mod->Name = Path;
  auto Fail = [&](Error E) {
    L->line(Path + ": cannot read the module's metadata: " + toString(std::move(E)) +
            "; its methods stay as they are");
  };
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::createLoaded(Base, Layout, Path, HeaderLimit);
  if (!Img)
    return Fail(Img.takeError());
  Mod->Img = std::move(*Img);
  if (!Mod->Img->isManaged())
    return Fail(createStringError(inconvertibleErrorCode(), "not a managed image"));
  auto M = metadata::Module::create(Mod->Img->metadata(), Mod->Img->metadataOffset());
  if (!M)
    return Fail(M.takeError());
  Mod->M = std::move(*M);
  Expected<spec::Selection> Sel = spec::select(*Conf.Spec, *Mod->M);
  if (!Sel)
    return Fail(Sel.takeError());
  uint32_t Matched = 0;
  for (uint32_t Row = 1; Row <= Sel->methodCount(); ++Row)
    Matched += !Sel->passesOf(Row).empty();
  if (!Matched)
    return;
  Mod->Sel = std::move(*Sel);
  ++Count.ModulesMatched;
  Count.MethodsMatched += Matched;
  L->line(sys::path::filename(Path) + ": " + Twine(Matched) + " of " +
          Twine(Mod->Sel.methodCount()) + " methods match the spec");
  std::lock_guard<std::mutex> G(ModulesLock);
  Modules[Id] = std::move(Mod);
}

bool Profiler::considered(StringRef Path) {
  StringRef Dir = sys::path::parent_path(Path);
  {
    std::lock_guard<std::mutex> G(ModulesLock);
    if (FrameworkDir.empty() && sys::path::filename(Path) == "System.Private.CoreLib.dll")
      FrameworkDir = Dir.str();
    if (!Conf.Spec->namesAssemblies() && !FrameworkDir.empty() && Dir == FrameworkDir)
      return false; // --pass and specs without "assembly" rules are for the program's own code
  }
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real) && llvm::is_contained(Conf.PassFiles, std::string(Real))) {
    L->line(sys::path::filename(Path) + ": a file the passes' options name (a probe or "
                                        "replacement assembly); left as it is");
    return false;
  }
  return true;
}

HRESULT Profiler::ModuleUnloadStarted(ModuleID ModuleId) {
  return guarded("ModuleUnloadStarted", [&] {
    std::lock_guard<std::mutex> G(ModulesLock);
    Modules.erase(ModuleId);
    return S_OK;
  });
}

std::shared_ptr<LoadedModule> Profiler::moduleOf(ModuleID Id) {
  std::lock_guard<std::mutex> G(ModulesLock);
  auto It = Modules.find(Id);
  return It == Modules.end() ? nullptr : It->second;
}

HRESULT Profiler::JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) {
  return guarded("JITCompilationStarted", [&] {
    compilationStarted(FunctionId);
    return S_OK;
  });
}

void Profiler::compilationStarted(FunctionID Function) {
  ++Count.Compiled;
  ClassID Class = 0;
  ModuleID Module = 0;
  mdToken Token = 0;
  if (failed(Info->GetFunctionInfo(Function, &Class, &Module, &Token)))
    return;
  std::shared_ptr<LoadedModule> Mod = moduleOf(Module);
  if (!Mod || (Token >> 24) != 0x06)
    return;
  uint32_t Row = Token & 0xFFFFFF;
  if (Row == 0 || Row > Mod->Sel.methodCount() || Mod->Sel.passesOf(Row).empty())
    return;
  ++Count.CompiledMatched;
  ++Count.LeftAlone; // rewriting comes with the method contexts over IMetaDataEmit
}

} // namespace weft::prof
