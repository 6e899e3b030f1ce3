//===- weaving/Weaver.h - Running passes over a module ----------*- C++ -*-===//
//
// The offline driver: makes the passes a spec selects, runs them over the module's methods (in
// parallel, with the same result whatever the thread count), re-encodes the bodies they changed
// and leaves the metadata edits in the editor, ready for writeModule.
//
// Methods go through in batches of consecutive rows. For each pass: runOnMethod on every method of
// the batch at once; then, serially and in row order, the provisional tokens each method asked for
// become real rows, new locals become a new local signature, and finishMethod runs; with
// --verify-each every changed body is verified then. After the last pass the batch is encoded.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_WEAVER_H
#define WEFT_WEAVING_WEAVER_H

#include "il/BodyReader.h"
#include "il/Encoder.h"
#include "metadata/pdb/Rewrite.h"
#include "support/AtomicFile.h"
#include "weaving/ModuleWriter.h"
#include "weaving/spec/Spec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weft {
class WorkerTeam;
}
namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Editor;
class AssemblyResolver;
class AssemblyCache;
} // namespace weft::metadata

namespace weft::passes {

class Pass;

/// Where a woven assembly says so: a type `<weft>.Woven`, which holds the record of the weave
/// (passes/WovenRecord.h) when the weave was asked to keep one.
constexpr const char *MarkerNamespace = "<weft>";
constexpr const char *MarkerName = "Woven";

/// Whether the module carries weft's marker.
bool isWoven(const metadata::Module &M);

struct WeaveOptions {
  /// Threads for the method phases; 0 for one per core.
  unsigned Threads = 0;
  /// The threads to use (Threads is then ignored), for a run that weaves many modules; may be null.
  WorkerTeam *Team = nullptr;
  /// Verify every body a pass changed, naming the pass and the method.
  bool VerifyEach = false;
  /// Weave an assembly that carries the marker.
  bool Force = false;
  /// Keep, for every changed method, where its instructions went (WeaveOutcome::Remaps), for
  /// rewriting its PDB.
  bool KeepRemaps = true;
  /// Finds referenced assemblies (for by-ref-like types); may be null.
  metadata::AssemblyResolver *Resolver = nullptr;
  /// The file the module was read from (ModuleContext::inputPath); may be empty.
  std::string InputPath;
  /// Time every runOnMethod (WeaveOutcome::MethodMicros), for benchmarks.
  bool MethodTimes = false;
  /// Record in the marker where the module came from and what each pass changed
  /// (passes/WovenRecord.h), with this as the input's path (`weft weave` gives it relative to
  /// the output's folder). Unset, no record is kept: a running module (the profiler) takes no
  /// constants.
  std::optional<std::string> RecordInputAs;
  /// Serves ModuleContext::openAssembly (probe and replacement assemblies), so that a run weaving
  /// many modules opens each once; may be null (each module opens its own).
  metadata::AssemblyCache *Assemblies = nullptr;
  /// Weaving inside this running process (ModuleContext::processId); 0 offline.
  uint32_t ProcessId = 0;
};

/// Where a weave's time went, in seconds of wall time.
struct WeaveTimes {
  double Begin = 0;  // making the passes, beginModule
  /// Reading bodies and signatures into the instruction graph, each method going through the
  /// first pass as soon as it is read.
  double DecodeAndFirstPass = 0;
  double LaterPasses = 0; // the passes after the first, on every thread
  double PassSeconds = 0; // the time of every runOnMethod, added up over the threads
  double Serial = 0; // provisional tokens made real, new local signatures, finishMethod
  double Encode = 0; // encoding the changed bodies
  double End = 0;    // endModule, the marker type
};

struct WeaveOutcome {
  std::map<uint32_t, NewBody> Bodies;
  /// For each changed method: where its instructions went (for its PDB records).
  std::map<uint32_t, metadata::pdb::BodyRemap> Remaps;
  /// (suffix, contents): files to write next to the output.
  std::vector<std::pair<std::string, std::string>> SideFiles;
  /// (suffix, temporary file): the same, for those too large to hold in memory.
  std::vector<std::pair<std::string, ScratchFile>> SideFilesOnDisk;
  std::vector<std::string> Warnings;
  /// "pass: method: reason" for every method a pass left alone, in row order.
  std::vector<std::string> Skipped;
  /// "pass: method: note" for what a pass did differently in a method (a parameter it could not
  /// pass to a probe, ...).
  std::vector<std::string> Notes;
  /// For each pass of the selection (in its order), the MethodDef rows it changed, ascending.
  std::vector<std::vector<uint32_t>> RowsChanged;
  uint32_t MethodsChanged = 0;
  uint32_t BranchesLengthened = 0;
  WeaveTimes Times;
  /// With WeaveOptions::MethodTimes: for each pass (in the selection's order), the microseconds
  /// each of its runOnMethod calls took.
  std::vector<std::vector<float>> MethodMicros;
};

/// One module's weave, made as the writer asks for the bodies (writeModule's BodyProvider and
/// AfterOriginalBodies), so that only one batch of woven bodies is held at a time:
///   start    checks the module, makes the passes, runs beginModule;
///   body     the new body of a row, weaving the batches up to it; rows are asked in order, and
///            the bytes stay valid until the next call;
///   finish   weaves what is left, runs endModule, adds the marker; after it, body gives the
///            bodies of the methods the passes added.
class ModuleWeave {
public:
  static llvm::Expected<std::unique_ptr<ModuleWeave>>
  start(const pe::Image &Img, metadata::Editor &E, const spec::Selection &Sel,
        const WeaveOptions &Options);
  ~ModuleWeave();
  llvm::Expected<std::optional<BodyBytes>> body(uint32_t Row);
  llvm::Error finish();
  /// What the weave did; its Bodies are those of the methods the passes added.
  WeaveOutcome &outcome();
  /// The passes on one method whose body \p Raw comes from elsewhere (a runtime about to compile
  /// it), outside the writer's order and on the calling thread: its new body, with the IL offset
  /// map, or nothing when no pass changed it (a pass that skips it is in outcome().Skipped).
  /// Callers serialize the calls of one module. The passes numbered in \p Also (from addPass)
  /// run after the selected ones, whatever the selection says of the row.
  llvm::Expected<std::optional<il::EncodedBody>>
  weaveMethod(uint32_t Row, const il::RawMethodBody &Raw, llvm::ArrayRef<size_t> Also = {});
  /// A pass outside the selection (the runtime profiler's tracepoints), begun on the module now
  /// (its beginModule runs here); only weaveMethod applies it, where asked. Its number.
  llvm::Expected<size_t> addPass(std::unique_ptr<Pass> P, std::string Name);

private:
  struct Impl;
  explicit ModuleWeave(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

/// Writes the side files of \p Woven next to the output \p OutputPath (OUT + suffix), each
/// atomically; the temporary ones are moved there.
llvm::Error writeSideFiles(WeaveOutcome &Woven, llvm::StringRef OutputPath);

/// Runs the passes \p Sel chose on the module of \p Img, editing \p E, and keeps every new body
/// in the outcome (ModuleWeave without the streaming).
llvm::Expected<WeaveOutcome> weave(const pe::Image &Img, metadata::Editor &E,
                                   const spec::Selection &Sel, const WeaveOptions &Options);

} // namespace weft::passes

#endif
