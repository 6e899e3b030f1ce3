//===- cli/CoverageCommand.cpp - weft coverage ----------------------------===//
//
// weft coverage report: joins the maps the coverage pass wrote beside woven assemblies with the
// hits files their runs wrote (each to the map of its module, runs added together) and writes
// Cobertura XML, LCOV or a text table; the maps of one assembly built for several target
// frameworks are merged.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "weaver/coverage/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> Maps;
  std::vector<std::string> Hits;
  std::string Format = "cobertura";
  std::string Output;
};

/// The file at \p Path read by \p Parse (readMap, readHits); errors name the file.
template <typename T>
Expected<T> readFileAs(const std::string &Path, Expected<T> (*Parse)(StringRef)) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createFileError(Path, errorCodeToError(Buf.getError()));
  Expected<T> Value = Parse((*Buf)->getBuffer());
  if (!Value)
    return createFileError(Path, Value.takeError());
  return Value;
}

int report(const ReportArgs &A) {
  coverage::ReportOptions O;
  if (A.Format == "cobertura")
    O.Kind = coverage::Format::Cobertura;
  else if (A.Format == "lcov")
    O.Kind = coverage::Format::Lcov;
  else if (A.Format == "text")
    O.Kind = coverage::Format::Text;
  else {
    reportError("--format must be cobertura, lcov or text, not '" + A.Format + "'");
    return ExitUsage;
  }
  O.Version = "weft " WEFT_VERSION;
  std::vector<coverage::Map> Maps;
  for (const std::string &Path : A.Maps) {
    Expected<coverage::Map> M = readFileAs(Path, coverage::readMap);
    if (!M)
      return reportError(M.takeError());
    Maps.push_back(std::move(*M));
  }
  for (const std::string &Path : A.Hits) {
    Expected<coverage::Hits> H = readFileAs(Path, coverage::readHits);
    if (!H)
      return reportError(H.takeError());
    // Each hits file to the map of its module; with one map, addHits says what does not match.
    auto It = llvm::find_if(Maps, [&](const coverage::Map &M) { return M.Mvid == H->Mvid; });
    if (It == Maps.end() && Maps.size() > 1)
      return reportError(createFileError(
          Path, createStringError(inconvertibleErrorCode(),
                                  "module " + H->Mvid + " (" + H->Assembly +
                                      ") is none of the maps' modules: woven again since?")));
    coverage::Map &M = It != Maps.end() ? *It : Maps.front();
    if (Error E = coverage::addHits(M, *H))
      return reportError(createFileError(Path, std::move(E)));
    // The report is as of the latest run.
    sys::fs::file_status St;
    if (!sys::fs::status(Path, St))
      O.Timestamp = std::max<int64_t>(O.Timestamp, sys::toTimeT(St.getLastModificationTime()));
  }
  std::string Out;
  raw_string_ostream OS(Out);
  coverage::writeReport(Maps, O, OS);
  if (A.Output.empty() || A.Output == "-") {
    outs() << OS.str();
    return ExitOk;
  }
  if (Error E = writeFileAtomically(A.Output, arrayRefFromStringRef(OS.str())))
    return reportError(std::move(E));
  return ExitOk;
}

} // namespace

Runner addCoverageCommand(CLI::App &App) {
  CLI::App *Sub =
      App.add_subcommand("coverage", "Work with what the coverage pass and woven programs wrote");
  Sub->require_subcommand(1);
  auto A = std::make_shared<ReportArgs>();
  CLI::App *Report = Sub->add_subcommand(
      "report", "Join a coverage map and hits files into Cobertura XML, LCOV or a text table");
  Report
      ->add_option("--map", A->Maps,
                   "A map the coverage pass wrote (OUT.coverage.json); repeatable: several "
                   "assemblies, or one built for several target frameworks")
      ->required();
  Report
      ->add_option("--hits", A->Hits,
                   "A hits file the woven program wrote (repeatable: the counts add up)")
      ->required();
  Report->add_option("--format", A->Format, "cobertura (default), lcov or text");
  Report->add_option("-o,--output", A->Output, "Where to write the report (default: stdout)");
  return [A] { return report(*A); };
}

} // namespace weft::cli
