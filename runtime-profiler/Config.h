//===- runtime-profiler/Config.h - What the profiler was asked to do -*- C++ -*-===//
//
// The spec the profiler applies, read once at start from WEFT_SPEC (a spec file) or WEFT_PASSES
// (pass uses as `weft weave --pass` takes them, ';' between them), in the environment or in an
// attach request's data, with the plugins the spec names loaded, and checked as `weft weave`
// checks it: an unknown pass or a bad spec is an error, and then nothing is instrumented.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_CONFIG_H
#define WEFT_RUNTIME_PROFILER_CONFIG_H

#include "weaving/plugin/Plugin.h"
#include "weaving/spec/Spec.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace weft::prof {

/// The largest spec file the profiler reads (a watched file may be anything: it is read whole).
inline constexpr uint64_t MaxSpecBytes = 1 << 20;

struct Config {
  /// What instruments: nullptr when neither variable is set (the profiler then only logs).
  std::shared_ptr<const spec::Spec> Spec;
  /// Where it came from, for the log: "spec /path/weft.json", "passes entry-exit;coverage", or
  /// "no spec".
  std::string Source;
  /// The files the passes' options name (probe and replacement assemblies, made absolute):
  /// modules loaded from them are never instrumented, or a probe would call itself.
  std::vector<std::string> PassFiles;
  /// The plugins the spec loaded, in priority order (their passes are in the registry).
  std::vector<plugin::LoadedPlugin> Plugins;

  /// Reads the spec (\p SpecText, read from \p SpecPath) or the pass uses (\p Passes), as the
  /// profiler's settings give them (empty: not set). An error names the variable and what is
  /// wrong.
  static llvm::Expected<Config> from(llvm::StringRef SpecPath, llvm::StringRef SpecText,
                                     llvm::StringRef Passes);
};

} // namespace weft::prof

#endif
