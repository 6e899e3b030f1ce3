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
#include "weaver/coverage/Threshold.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> Maps;
  std::vector<std::string> Hits;
  std::vector<std::string> Data; // folders of maps and hits files
  std::string Format = "cobertura";
  std::string Output;
  // coverlet's Threshold, ThresholdType and ThresholdStat.
  std::string Threshold, ThresholdType = "line,branch,method", ThresholdStat = "minimum";
  std::string MessageFormat = "plain";
};

/// The report's figures against the thresholds asked for: one error for each figure below its
/// threshold, naming the module (or the statistic) and the figure.
int checkThresholds(const std::vector<coverage::Map> &Maps,
                    const std::vector<coverage::Threshold> &Limits, coverage::Statistic Stat) {
  std::vector<std::string> Below =
      coverage::checkThresholds(coverage::moduleFigures(Maps), Limits, Stat);
  for (const std::string &Message : Below)
    reportError(Message, CodeThreshold);
  return Below.empty() ? ExitOk : ExitError;
}

/// The folders of --data, locked while the report is made of what they hold: test projects that
/// share a folder each make the report when their tests end, and the one that comes last then
/// reads every project's hits (none reads the folder while another writes the report).
class DataFolders {
public:
  ~DataFolders() {
    for (int FD : Locks) {
      sys::fs::unlockFile(FD);
      sys::Process::SafelyCloseFileDescriptor(FD);
    }
  }
  /// Locks \p Dir and adds its maps (*.coverage.json) and hits files (*.weft-hits), in name
  /// order, to \p Maps and \p Hits.
  Error add(const std::string &Dir, std::vector<std::string> &Maps,
            std::vector<std::string> &Hits) {
    if (!sys::fs::is_directory(Dir))
      return createFileError(Dir,
                             createStringError(inconvertibleErrorCode(), "--data: no such folder"));
    SmallString<256> LockPath(Dir);
    sys::path::append(LockPath, ".weft-report.lock");
    int FD;
    if (std::error_code EC =
            sys::fs::openFileForReadWrite(LockPath, FD, sys::fs::CD_OpenAlways, sys::fs::OF_None))
      return createFileError(LockPath, errorCodeToError(EC));
    Locks.push_back(FD);
    if (std::error_code EC = sys::fs::tryLockFile(FD, std::chrono::minutes(2)))
      return createFileError(LockPath,
                             createStringError(EC, "cannot lock it: %s", EC.message().c_str()));
    std::vector<std::string> Found;
    std::error_code EC;
    for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
      Found.push_back(It->path());
    if (EC)
      return createFileError(Dir, errorCodeToError(EC));
    llvm::sort(Found);
    for (const std::string &P : Found) {
      if (StringRef(P).endswith(".coverage.json"))
        Maps.push_back(P);
      else if (StringRef(P).endswith(".weft-hits"))
        Hits.push_back(P);
    }
    return Error::success();
  }

private:
  std::vector<int> Locks;
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
  MessageFormat MF;
  if (parseMessageFormat(A.MessageFormat, MF))
    setMessageFormat(MF);
  std::vector<coverage::Threshold> Limits;
  coverage::Statistic Stat = coverage::Statistic::Minimum;
  if (!A.Threshold.empty()) {
    Expected<std::vector<coverage::Threshold>> L =
        coverage::parseThresholds(A.Threshold, A.ThresholdType);
    Expected<coverage::Statistic> S = coverage::parseStatistic(A.ThresholdStat);
    if (!L || !S) {
      reportError(withCode(CodeUsage, joinErrors(L ? Error::success() : L.takeError(),
                                                 S ? Error::success() : S.takeError())));
      return ExitUsage;
    }
    Limits = std::move(*L);
    Stat = *S;
  }
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
  // The folders are locked in one order, so that two reports never wait for each other.
  std::vector<std::string> MapPaths = A.Maps, HitsPaths = A.Hits, Data;
  for (const std::string &Dir : A.Data) {
    SmallString<256> Real;
    Data.push_back(sys::fs::real_path(Dir, Real) ? Dir : std::string(Real));
  }
  llvm::sort(Data);
  Data.erase(std::unique(Data.begin(), Data.end()), Data.end());
  DataFolders Folders;
  for (const std::string &Dir : Data)
    if (Error E = Folders.add(Dir, MapPaths, HitsPaths))
      return reportError(std::move(E));
  if (MapPaths.empty()) {
    reportError("no coverage map: give --map, or --data with a folder that holds one", CodeUsage);
    return ExitUsage;
  }
  std::vector<coverage::Map> Maps;
  for (const std::string &Path : MapPaths) {
    Expected<coverage::Map> M = readFileAs(Path, coverage::readMap);
    if (!M)
      return reportError(M.takeError());
    Maps.push_back(std::move(*M));
  }
  for (const std::string &Path : HitsPaths) {
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
  // A module the filters left out whole has no method: it is in no report (as in coverlet's).
  llvm::erase_if(Maps, [](const coverage::Map &M) { return M.Methods.empty(); });
  std::string Out;
  raw_string_ostream OS(Out);
  coverage::writeReport(Maps, O, OS);
  if (A.Output.empty() || A.Output == "-") {
    outs() << OS.str();
    outs().flush();
  } else if (Error E = writeFileAtomically(A.Output, arrayRefFromStringRef(OS.str()))) {
    return reportError(std::move(E));
  }
  // As coverlet: the report is written, then the thresholds fail the run.
  return checkThresholds(Maps, Limits, Stat);
}

} // namespace

Runner addCoverageCommand(CLI::App &App) {
  CLI::App *Sub =
      App.add_subcommand("coverage", "Work with what the coverage pass and woven programs wrote");
  Sub->require_subcommand(1);
  auto A = std::make_shared<ReportArgs>();
  CLI::App *Report = Sub->add_subcommand(
      "report", "Join a coverage map and hits files into Cobertura XML, LCOV or a text table");
  Report->add_option("--map", A->Maps,
                     "A map the coverage pass wrote (OUT.coverage.json); repeatable: several "
                     "assemblies, or one built for several target frameworks");
  Report->add_option("--hits", A->Hits,
                     "A hits file the woven program wrote (repeatable: the counts add up)");
  Report->add_option("--data", A->Data,
                     "A folder whose maps (*.coverage.json) and hits files (*.weft-hits) are all "
                     "read, locked while the report is made (repeatable; the package's targets "
                     "use it to merge test projects and earlier runs)");
  Report->add_option("--format", A->Format, "cobertura (default), lcov or text");
  Report->add_option("-o,--output", A->Output, "Where to write the report (default: stdout)");
  Report->add_option("--threshold", A->Threshold,
                     "Fail (exit 1, one error per figure) when coverage is below this percentage: "
                     "one number, or one per --threshold-type (\"80,70,90\"); the report is "
                     "still written");
  Report->add_option("--threshold-type", A->ThresholdType,
                     "What --threshold applies to: line, branch and method, comma-separated "
                     "(default: all three)");
  Report->add_option("--threshold-stat", A->ThresholdStat,
                     "minimum (default: every module), total (all modules counted together) or "
                     "average (the mean of the modules' percentages)");
  Report
      ->add_option("--message-format", A->MessageFormat,
                   "How errors are printed: plain (default) or msbuild (\"weft: error "
                   "WEFT0008: ...\" for a threshold not met)")
      ->check(CLI::IsMember({"plain", "msbuild"}));
  return [A] { return report(*A); };
}

} // namespace weft::cli
