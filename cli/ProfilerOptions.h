//===- cli/ProfilerOptions.h - What run and attach share --------*- C++ -*-===//
//
// `weft run` starts a program with the profiler loaded; `weft attach` loads it into a running one
// (cli/AttachCommand.cpp). Both take the same options and check them the same way.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_PROFILEROPTIONS_H
#define WEFT_CLI_PROFILEROPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace weft::cli {

struct RunOptions {
  std::string SpecFile;
  std::vector<std::string> Passes;
  std::string LogFile;
  std::string OutputDir;
  std::string Gc;     // garbage collections on the timeline, at this level
  bool Lttng = false; // timeline records also as LTTng-UST events
  bool Verbose = false;
  std::vector<std::string> Processes; // run: the processes of the tree to instrument
  std::vector<std::string> Command;
  std::string Otlp;      // run: the OTLP endpoint the span pass's exporter sends to
  int Pid = 0;           // attach
  unsigned Timeout = 10; // attach: seconds the runtime may take to load the profiler
};

/// \p Path made absolute, without "." and "..".
std::string absolute(llvm::StringRef Path);

/// The profiler library: beside this executable, or in ../lib from it.
llvm::Expected<std::string> findProfiler();

/// Checks the spec and the passes before the command starts, as `weave` would; the --pass
/// values, ';' between them, go to \p PassList.
llvm::Error checkPasses(const RunOptions &O, std::string &PassList);

/// What `run` and `attach` both take: what to instrument and where the profiler writes.
void addProfilerOptions(CLI::App &Sub, RunOptions &O, bool Attach);

} // namespace weft::cli

#endif
