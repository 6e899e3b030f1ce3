//===- runtime-profiler/ProfilerInternals.h - What the profiler's parts share --*- C++ -*-===//
//
// The profiler (Profiler.h) is one object whose parts live in files by concern: Profiler.cpp
// (start and the runtime's event callbacks), ModuleMatching.cpp, JitRewrite.cpp (JIT and ReJIT),
// Tracepoints.cpp (the spec watch and tracepoints), Worker.cpp (the profiler's own thread),
// AttachDetach.cpp and ShutdownFigures.cpp. This header holds what several of them use.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_PROFILERINTERNALS_H
#define WEFT_RUNTIME_PROFILER_PROFILERINTERNALS_H

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "runtime-profiler/EmitMirror.h"
#include "runtime-profiler/Profiler.h"
#include "support/Format.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace weft::prof {

/// A body the passes wove and where each original instruction went in it.
struct WovenMethod {
  std::vector<uint8_t> Bytes;
  std::vector<COR_IL_MAP> Map;

  WovenMethod(std::vector<uint8_t> B, llvm::ArrayRef<std::pair<uint32_t, uint32_t>> OffsetMap)
      : Bytes(std::move(B)) {
    Map.reserve(OffsetMap.size());
    for (auto [Old, New] : OffsetMap)
      Map.push_back(COR_IL_MAP{Old, New, 1});
  }
};

/// What the profiler knows of a module with methods the spec matches.
struct LoadedModule {
  std::string Name;
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
  spec::Selection Sel;

  /// The weave, made at the first compilation of a matching method; one method at a time.
  std::mutex Lock;
  enum class State { NotStarted, Weaving, Refused } Weaving = State::NotStarted;
  IMetaDataEmit2 *Emit = nullptr;
  IMetaDataAssemblyEmit *AssemblyEmit = nullptr;
  std::unique_ptr<metadata::AssemblyResolver> Resolver; // its folder, then the framework's
  std::unique_ptr<metadata::Editor> E;
  std::unique_ptr<EmitMirror> Mirror;
  std::unique_ptr<passes::ModuleWeave> Weave;
  /// The rows already handled: IL is rewritten once per method definition, however many
  /// instantiations of it are compiled.
  std::vector<bool> Done;
  /// MethodDef rows up to this one have a body (the module's own, and those published).
  uint32_t MethodsWithBodies = 0;
  /// A ReadyToRun module: its matching methods are compiled again through ReJIT (with the methods
  /// that inlined them), so each woven body is kept to be handed over again.
  bool ReJits = false;
  std::unordered_map<uint32_t, std::unique_ptr<WovenMethod>> Woven;
  /// The rows a ReJIT was given their woven body for (GetReJITParameters).
  std::unordered_set<uint32_t> ReJitBodies;
  /// Methods of the module whose precompiled code inlined a matching method: that code must not
  /// run (their rows; filled at load, read-only after).
  std::vector<bool> InlinedMatching;
  /// The passes finish their module-level code only at the module's end (coverage's counter
  /// count, say): every matching method was woven when the weave began, and Woven has them all.
  bool Whole = false;
  /// The shared framework's: only tracepoints that name assemblies match in it.
  bool Framework = false;
  /// Loaded in a collectible context: the runtime compiles none of its methods again (no
  /// ReJIT), so tracepoints cannot reach them.
  bool Collectible = false;
  /// Tracepoints: the tracepoint pass's number in Weave, once added, and each method woven with
  /// it: its recorder slot, its body, and whether the runtime runs that body (compiled again
  /// through ReJIT; reverted when no tracepoint names it any more).
  std::optional<size_t> TracepointPass;
  struct TracedMethod {
    uint32_t Slot = UINT32_MAX; // none yet
    std::unique_ptr<WovenMethod> Body;
    bool Active = false;
  };
  std::unordered_map<uint32_t, TracedMethod> Traced;

  ~LoadedModule() {
    Weave.reset();
    if (AssemblyEmit)
      AssemblyEmit->Release();
    if (Emit)
      Emit->Release();
  }
  std::string methodName(uint32_t Row) const {
    using namespace metadata;
    llvm::StringRef Name;
    if (E && Row >= 1 && Row <= E->rowCount(TableId::MethodDef))
      Name = E->getString(E->get(TableId::MethodDef, Row, MethodDefCol::Name));
    else if (Row >= 1 && Row <= M->rowCount(TableId::MethodDef))
      Name = M->getString(M->get(TableId::MethodDef, Row, MethodDefCol::Name));
    return "method 0x" + hexstr(makeToken(TableId::MethodDef, Row), false, 8) + " (" + Name.str() +
           ")";
  }
};

template <typename Fn> HRESULT Profiler::guarded(const char *Callback, Fn &&Work, HRESULT OnError) {
  try {
    return Work();
  } catch (...) {
    if (L)
      L->line(llvm::Twine(Callback) + ": an unexpected error; the runtime goes on without "
                                      "weft's work for it");
    return OnError;
  }
}

} // namespace weft::prof

#endif
