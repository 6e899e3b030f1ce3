//===- runtime-profiler/Profiler.h - weft's CoreCLR profiler --*- C++ -*-===//
//
// The profiler object CoreCLR creates: it reads the configuration (runtime-profiler/Config.h) at
// start, matches each loaded module's methods against the spec with weft's own metadata reader
// (reading the image where the runtime placed it), and instruments the matching methods when they
// are first compiled. Every callback catches everything: a failure leaves the method as it was
// and the log says why.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_PROFILER_H
#define WEFT_RUNTIME_PROFILER_PROFILER_H

#include "runtime-profiler/CallbackDefaults.h"
#include "runtime-profiler/Config.h"
#include "runtime-profiler/Log.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace weft::prof {

/// weft's class id (Identity.h has it as text).
inline constexpr GUID CLSID_WeftProfiler = guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6");

struct LoadedModule;

class Profiler final : public CallbackDefaults {
public:
  Profiler();
  ~Profiler() override;

  HRESULT Initialize(IUnknown *ProfilerInfoUnk) override;
  HRESULT Shutdown() override;
  HRESULT ModuleLoadFinished(ModuleID ModuleId, HRESULT HrStatus) override;
  HRESULT ModuleUnloadStarted(ModuleID ModuleId) override;
  HRESULT JITCompilationStarted(FunctionID FunctionId, BOOL IsSafeToBlock) override;

private:
  HRESULT initialize(IUnknown *ProfilerInfoUnk);
  void moduleLoaded(ModuleID ModuleId);
  void compilationStarted(FunctionID FunctionId);
  std::shared_ptr<LoadedModule> moduleOf(ModuleID ModuleId);
  /// Runs \p Work, turning any exception into a log line: nothing may cross into the runtime.
  template <typename Fn> HRESULT guarded(const char *Callback, Fn &&Work);

  std::unique_ptr<Log> L;
  Config Conf;
  ICorProfilerInfo7 *Info = nullptr;
  unsigned InfoVersion = 0;
  /// Whether a module is one the spec may instrument (not the framework unless the spec names
  /// assemblies, never a file the passes use); logs why not.
  bool considered(llvm::StringRef Path);

  std::string FrameworkDir; // System.Private.CoreLib's folder, known from the first module
  std::mutex ModulesLock;
  std::unordered_map<ModuleID, std::shared_ptr<LoadedModule>> Modules;
  struct Counts {
    std::atomic<uint64_t> ModulesSeen{0}, ModulesMatched{0}, MethodsMatched{0};
    std::atomic<uint64_t> Compiled{0}, CompiledMatched{0}, Rewritten{0}, LeftAlone{0};
  } Count;
};

} // namespace weft::prof

#endif
