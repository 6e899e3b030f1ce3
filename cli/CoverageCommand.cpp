//===- cli/CoverageCommand.cpp - weft coverage ----------------------------===//
//
// weft coverage report: joins the maps the coverage pass wrote beside woven assemblies with the
// hits files their runs wrote (each to the map of its module, runs added together) and writes
// Cobertura XML, LCOV, OpenCover XML, coverlet's JSON or a text table, or several of them at
// once; the maps of one assembly built for several target frameworks are merged.
//
//===----------------------------------------------------------------------===//
#include "cli/MapsReadAhead.h"
#include "cli/Tool.h"
#include "coverage/CoverletFormats.h"
#include "coverage/Report.h"
#include "coverage/Threshold.h"
#include "support/AtomicFile.h"
#include "support/Port.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

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
  // The build's path maps (the compiler's -pathmap: LOCAL=MAPPED,...), undone in the report.
  std::vector<std::string> PathMaps;
  bool Summary = false; // --summary: one line saying where the reports are and their figures
  bool Check = false;   // --check: only whether the maps read and measure something
};

/// One entry of a path map: the compiler wrote Mapped where the source's path began with Local.
struct PathMapEntry {
  std::string Local, Mapped;
};

/// The entries of \p Values, each "LOCAL=MAPPED" pairs separated by commas, as the compiler's
/// -pathmap and MSBuild's PathMap give them.
Expected<std::vector<PathMapEntry>> parsePathMaps(ArrayRef<std::string> Values) {
  std::vector<PathMapEntry> Out;
  for (const std::string &Value : Values) {
    SmallVector<StringRef, 4> Pairs;
    StringRef(Value).split(Pairs, ',', -1, /*KeepEmpty=*/false);
    for (StringRef Pair : Pairs) {
      auto [Local, Mapped] = Pair.trim().split('=');
      if (Local.empty() || Mapped.empty())
        return createStringError(inconvertibleErrorCode(),
                                 "--path-map: '" + Pair + "' is not LOCAL=MAPPED");
      Out.push_back({Local.str(), Mapped.str()});
    }
  }
  return Out;
}

/// Names each source of \p Maps by its path here: a document whose path begins with an entry's
/// mapped prefix (a deterministic build's /_/) gets that entry's local one; the first entry that
/// matches is taken, as the compiler takes the first whose local prefix matches.
void undoPathMaps(std::vector<coverage::Map> &Maps, ArrayRef<PathMapEntry> Entries) {
  for (coverage::Map &M : Maps)
    for (std::string &Doc : M.Documents)
      for (const PathMapEntry &E : Entries)
        if (StringRef(Doc).startswith(E.Mapped)) {
          Doc = E.Local + Doc.substr(E.Mapped.size());
          break;
        }
}

/// The report's figures against the thresholds asked for: one error for each figure below its
/// threshold, naming the module (or the statistic) and the figure.
int checkThresholds(ArrayRef<coverage::ModuleFigures> Figures,
                    const std::vector<coverage::Threshold> &Limits, coverage::Statistic Stat) {
  std::vector<std::string> Below = coverage::checkThresholds(Figures, Limits, Stat);
  for (const std::string &Message : Below)
    reportError(Message, CodeThreshold);
  return Below.empty() ? ExitOk : ExitError;
}

/// An error when no map holds a method: the filters left out every type of every assembly.
Error checkSomethingMeasured(ArrayRef<coverage::Map> Maps) {
  if (llvm::any_of(Maps, [](const coverage::Map &M) { return !M.Methods.empty(); }))
    return Error::success();
  std::vector<std::string> Names;
  for (const coverage::Map &M : Maps)
    if (!llvm::is_contained(Names, M.Assembly))
      Names.push_back(M.Assembly);
  return withCode(CodeNothingMeasured,
                  createStringError(inconvertibleErrorCode(),
                                    "nothing was measured: the filters leave out every method of " +
                                        join(Names, ", ") + ", so there is no report to make"));
}

/// One line on standard output: the reports written and their figures, the lines and branch
/// outcomes as the report's root states them and the methods as coverlet counts them,
/// "coverage report: coverage.cobertura.xml (lines 80% 8/10, branches 50% 2/4, methods 100% 3/3)".
void printSummary(ArrayRef<std::string> Paths, ArrayRef<coverage::ModuleResult> Result,
                  ArrayRef<coverage::ModuleFigures> Figures) {
  coverage::ReportTotals T = coverage::reportTotals(Result);
  coverage::Counts Methods;
  for (const coverage::ModuleFigures &F : Figures)
    Methods.add(F.Methods);
  auto Figure = [](StringRef Name, uint64_t Covered, uint64_t Total) {
    return (Name + " " + coverage::percentText(coverage::percent({Covered, Total})) + " " +
            Twine(Covered) + "/" + Twine(Total))
        .str();
  };
  std::vector<std::string> Written;
  for (const std::string &P : Paths)
    Written.push_back(P.empty() ? "standard output" : P);
  out() << "coverage report: " << join(Written, ", ") << " ("
        << Figure("lines", T.LinesCovered, T.Lines) << ", "
        << Figure("branches", T.BranchesCovered, T.Branches) << ", "
        << Figure("methods", Methods.Covered, Methods.Total) << ")\n";
  out().flush();
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
  /// Locks \p Dir and adds the maps (*.coverage.json) and hits files (*.weft-hits) in it and in
  /// the folders under it, in path order, to \p Maps and \p Hits, and the path maps of the
  /// builds whose runs wrote them (*.path-map, a map a line) to \p PathMap.
  Error add(const std::string &Dir, std::vector<std::string> &Maps, std::vector<std::string> &Hits,
            std::vector<PathMapEntry> &PathMap) {
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
    if (Error E = listFiles(Dir, MaxDepth, Found))
      return E;
    llvm::sort(Found);
    for (const std::string &P : Found) {
      if (StringRef(P).endswith(".coverage.json"))
        Maps.push_back(P);
      else if (StringRef(P).endswith(".weft-hits"))
        Hits.push_back(P);
      else if (StringRef(P).endswith(".path-map"))
        if (Error E = addPathMap(P, PathMap))
          return E;
    }
    return Error::success();
  }

private:
  std::vector<int> Locks;
  /// How deep the folders under a data folder are read: the package's targets write
  /// weft-coverage/PROJECT/FRAMEWORK/; links are not followed.
  static constexpr unsigned MaxDepth = 4;

  /// The files in \p Dir and, \p Depth levels down, in the folders under it.
  static Error listFiles(const std::string &Dir, unsigned Depth, std::vector<std::string> &Out) {
    std::error_code EC;
    for (sys::fs::directory_iterator It(Dir, EC, /*follow_symlinks=*/false), End; It != End && !EC;
         It.increment(EC)) {
      ErrorOr<sys::fs::basic_file_status> St = It->status();
      if (!St)
        return createFileError(It->path(), errorCodeToError(St.getError()));
      if (St->type() == sys::fs::file_type::directory_file) {
        if (Depth > 0)
          if (Error E = listFiles(It->path(), Depth - 1, Out))
            return E;
      } else if (St->type() == sys::fs::file_type::regular_file) {
        Out.push_back(It->path());
      }
    }
    if (EC)
      return createFileError(Dir, errorCodeToError(EC));
    return Error::success();
  }

  static Error addPathMap(const std::string &Path, std::vector<PathMapEntry> &PathMap) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return createFileError(Path, errorCodeToError(Buf.getError()));
    SmallVector<StringRef, 2> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    std::vector<std::string> Values;
    for (StringRef L : Lines)
      if (!L.trim().empty())
        Values.push_back(L.trim().str());
    Expected<std::vector<PathMapEntry>> Entries = parsePathMaps(Values);
    if (!Entries)
      return createFileError(Path, Entries.takeError());
    llvm::append_range(PathMap, *Entries);
    return Error::success();
  }
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

/// A report format: its name for --format and the ending coverlet gives its file.
struct FormatInfo {
  StringRef Name;
  coverage::Format Kind;
  StringRef Extension;
};
constexpr FormatInfo Formats[] = {
    {"cobertura", coverage::Format::Cobertura, "cobertura.xml"},
    {"lcov", coverage::Format::Lcov, "info"},
    {"opencover", coverage::Format::OpenCover, "opencover.xml"},
    {"json", coverage::Format::Json, "json"},
    {"text", coverage::Format::Text, "txt"},
};

/// The formats of a comma-separated list, each once, in the list's order.
Expected<std::vector<const FormatInfo *>> parseFormats(StringRef List) {
  std::vector<const FormatInfo *> Out;
  SmallVector<StringRef, 4> Names;
  List.split(Names, ',');
  for (StringRef Name : Names) {
    Name = Name.trim();
    const FormatInfo *F =
        llvm::find_if(Formats, [&](const FormatInfo &I) { return I.Name == Name; });
    if (F == std::end(Formats))
      return createStringError(inconvertibleErrorCode(),
                               "--format takes cobertura, lcov, opencover, json or text (several "
                               "separated by commas), not '" +
                                   Name + "'");
    if (!llvm::is_contained(Out, F))
      Out.push_back(F);
  }
  return Out;
}

/// Where each format's report goes ("" for standard output), following coverlet's CoverletOutput:
/// a directory (-o ending in '/', or an existing directory) gets coverlet's file names
/// (coverage.cobertura.xml, coverage.info, coverage.opencover.xml, coverage.json, coverage.txt);
/// with one format any other -o is the file, none or '-' standard output; with several, -o is a
/// prefix without an extension to which each format's ending is added (-o out/run: out/run.info,
/// ...).
Expected<std::vector<std::string>> outputPaths(StringRef Output, ArrayRef<const FormatInfo *> Fs) {
  std::vector<std::string> Out;
  bool Directory = Output.endswith("/") || (!Output.empty() && sys::fs::is_directory(Output));
  for (const FormatInfo *F : Fs) {
    if (Directory) {
      SmallString<256> P(Output);
      sys::path::append(P, "coverage." + F->Extension);
      Out.push_back(std::string(P));
    } else if (Fs.size() == 1) {
      Out.push_back(Output == "-" ? "" : Output.str());
    } else if (Output.empty() || Output == "-") {
      return createStringError(inconvertibleErrorCode(),
                               "several formats need -o DIRECTORY/ or -o PREFIX (one file each)");
    } else if (sys::path::has_extension(sys::path::filename(Output))) {
      return createStringError(
          inconvertibleErrorCode(),
          "with several formats, -o is a directory (ending in '/') or a prefix without an "
          "extension, not '" +
              Output + "' (each format adds its own: PREFIX.cobertura.xml, PREFIX.info, ...)");
    } else {
      Out.push_back((Output + "." + F->Extension).str());
    }
  }
  return Out;
}

/// A scratch file holding what \p Write writes, to become the output \p Path; errors name it.
Expected<ScratchFile> writeScratch(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  int FD = -1;
  SmallString<128> Scratch;
  if (std::error_code EC = sys::fs::createTemporaryFile("weft-report", "tmp", FD, Scratch))
    return createFileError(Path, EC);
  ScratchFile File{std::string(Scratch)};
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS.SetBufferSize(64 << 10);
  Write(OS);
  OS.close();
  if (OS.has_error()) {
    std::error_code EC = OS.error();
    OS.clear_error();
    return createFileError(Path, EC);
  }
  return std::move(File);
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
  Expected<std::vector<const FormatInfo *>> Fs = parseFormats(A.Format);
  if (!Fs) {
    reportError(withCode(CodeUsage, Fs.takeError()));
    return ExitUsage;
  }
  Expected<std::vector<std::string>> Paths = outputPaths(A.Output, *Fs);
  if (!Paths) {
    reportError(withCode(CodeUsage, Paths.takeError()));
    return ExitUsage;
  }
  coverage::ReportOptions O;
  O.Version = "weft " WEFT_VERSION;
  // The folders are locked in one order, so that two reports never wait for each other.
  std::vector<std::string> MapPaths = A.Maps, HitsPaths = A.Hits, Data;
  // The maps given first, then those of the --data folders.
  Expected<std::vector<PathMapEntry>> PathMap = parsePathMaps(A.PathMaps);
  if (!PathMap) {
    reportError(withCode(CodeUsage, PathMap.takeError()));
    return ExitUsage;
  }
  for (const std::string &Dir : A.Data) {
    SmallString<256> Real;
    Data.push_back(sys::fs::real_path(Dir, Real) ? Dir : std::string(Real));
  }
  llvm::sort(Data);
  Data.erase(std::unique(Data.begin(), Data.end()), Data.end());
  DataFolders Folders;
  for (const std::string &Dir : Data)
    if (Error E = Folders.add(Dir, MapPaths, HitsPaths, *PathMap))
      return reportError(std::move(E));
  if (MapPaths.empty()) {
    reportError("no coverage map: give --map, or --data with a folder that holds one", CodeUsage);
    return ExitUsage;
  }
  // The maps read side by side (a test run's are one per assembly under test, and reading JSON
  // is most of a report's time); every map that does not read is reported.
  // A map's text, the map, coverlet's result and the reports take tens of megabytes, each page
  // touched once or twice: most of the time went to the first touches of 4 KiB pages.
  port::preferLargeHeapPages();
  // The largest map is read here: a thread's own heap grows a few pages at a time, and a large
  // map's read on one took a third longer (a test run's are mostly one library's and its
  // helpers'). The others on threads only when they are large enough to gain from it.
  std::vector<Optional<Expected<coverage::Map>>> Read(MapPaths.size());
  std::vector<uint64_t> Sizes(MapPaths.size());
  for (size_t I = 0; I < MapPaths.size(); ++I)
    if (sys::fs::file_size(MapPaths[I], Sizes[I]))
      Sizes[I] = 0;
  size_t Largest = std::max_element(Sizes.begin(), Sizes.end()) - Sizes.begin();
  // In another program's process the weave may have read them while the tests ran.
  auto ReadMap = [&](size_t I) {
    if (std::optional<coverage::Map> M = takeMapReadAhead(MapPaths[I]))
      Read[I].emplace(std::move(*M));
    else
      Read[I].emplace(readFileAs(MapPaths[I], coverage::readMap));
  };
  constexpr uint64_t WorthAThread = uint64_t(4) << 20;
  if (std::accumulate(Sizes.begin(), Sizes.end(), uint64_t(0)) - Sizes[Largest] < WorthAThread) {
    for (size_t I = 0; I < MapPaths.size(); ++I)
      ReadMap(I);
  } else {
    ThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < MapPaths.size(); ++I)
      if (I != Largest)
        Pool.async([&, I] { ReadMap(I); });
    ReadMap(Largest);
    Pool.wait();
  }
  std::vector<coverage::Map> Maps;
  Error Failed = Error::success();
  for (Optional<Expected<coverage::Map>> &M : Read) {
    if (!*M)
      Failed = joinErrors(std::move(Failed), M->takeError());
    else
      Maps.push_back(std::move(**M));
  }
  if (Failed)
    return reportError(std::move(Failed));
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
  // With none left there is nothing to report, which is no report of 0 %.
  if (Error E = checkSomethingMeasured(Maps))
    return reportError(std::move(E));
  if (A.Check)
    return ExitOk;
  llvm::erase_if(Maps, [](const coverage::Map &M) { return M.Methods.empty(); });
  undoPathMaps(Maps, *PathMap);
  // coverlet's result, which every report but the text table, the figures and the thresholds are
  // made from: made once, and only if something needs it.
  bool Figured = A.Summary || !Limits.empty();
  std::vector<coverage::ModuleResult> Result;
  auto NotText = [](const FormatInfo *F) { return F->Kind != coverage::Format::Text; };
  if (Figured || llvm::any_of(*Fs, NotText))
    Result = coverage::coverletResult(Maps);
  // Every report made before any is put in place: a failure leaves none. Each is written as it
  // is made to a scratch file (a report can be many times its map), or held for standard output.
  std::vector<ScratchFile> Files;
  std::string ToStdout;
  for (size_t I = 0; I < Fs->size(); ++I) {
    O.Kind = (*Fs)[I]->Kind;
    if ((*Paths)[I].empty()) {
      raw_string_ostream OS(ToStdout);
      coverage::writeReport(Maps, Result, O, OS);
      Files.emplace_back();
      continue;
    }
    Expected<ScratchFile> File = writeScratch(
        (*Paths)[I], [&](raw_ostream &OS) { coverage::writeReport(Maps, Result, O, OS); });
    if (!File)
      return reportError(withCode(CodeOutput, File.takeError()));
    Files.push_back(std::move(*File));
  }
  for (size_t I = 0; I < Files.size(); ++I) {
    const std::string &Path = (*Paths)[I];
    if (Path.empty()) {
      out() << ToStdout;
      out().flush();
      continue;
    }
    StringRef Parent = sys::path::parent_path(Path);
    if (!Parent.empty())
      if (std::error_code EC = sys::fs::create_directories(Parent))
        return reportError(withCode(CodeOutput, createFileError(Parent, EC)));
    if (Error E = Files[I].keepAs(Path))
      return reportError(withCode(CodeOutput, std::move(E)));
  }
  if (!Figured)
    return ExitOk;
  std::vector<coverage::ModuleFigures> Figures = coverage::moduleFigures(Maps, Result);
  if (A.Summary)
    printSummary(*Paths, Result, Figures);
  // As coverlet: the reports are written, then the thresholds fail the run.
  return checkThresholds(Figures, Limits, Stat);
}

} // namespace

Runner addCoverageCommand(CLI::App &App) {
  CLI::App *Sub =
      App.add_subcommand("coverage", "Work with what the coverage pass and woven programs wrote");
  Sub->require_subcommand(1);
  auto A = std::make_shared<ReportArgs>();
  CLI::App *Report = Sub->add_subcommand(
      "report", "Join coverage maps and hits files into Cobertura, LCOV, OpenCover, coverlet's "
                "JSON or a text table");
  Report->add_option("--map", A->Maps,
                     "A map the coverage pass wrote (OUT.coverage.json); repeatable: several "
                     "assemblies, or one built for several target frameworks");
  Report->add_option("--hits", A->Hits,
                     "A hits file the woven program wrote (repeatable: the counts add up)");
  Report->add_option("--data", A->Data,
                     "A folder whose maps (*.coverage.json) and hits files (*.weft-hits), in it "
                     "and in the folders under it, are all read, locked while the report is made, "
                     "with the path maps of *.path-map files (repeatable; the package's targets "
                     "use it to merge test projects and earlier runs)");
  Report->add_option("--format", A->Format,
                     "cobertura (default), lcov, opencover, json (coverlet's) or text; several "
                     "separated by commas");
  CLI::Option *Output = Report->add_option(
      "-o,--output", A->Output,
      "Where to write the report (default: stdout); a directory ending in '/' gets "
      "coverage.cobertura.xml, coverage.info, coverage.opencover.xml, coverage.json; with several "
      "formats, else a prefix: PREFIX.info, ...");
  CLI::Option *Threshold = Report->add_option(
      "--threshold", A->Threshold,
      "Fail (exit 1, one error per figure) when coverage is below this percentage: one number, or "
      "one per --threshold-type (\"80,70,90\"); the report is still written");
  Report->add_option("--threshold-type", A->ThresholdType,
                     "What --threshold applies to: line, branch and method, comma-separated "
                     "(default: all three)");
  Report->add_option("--threshold-stat", A->ThresholdStat,
                     "minimum (default: every module), total (all modules counted together) or "
                     "average (the mean of the modules' percentages)");
  Report->add_option("--path-map", A->PathMaps,
                     "The build's path map, LOCAL=MAPPED pairs separated by commas as the "
                     "compiler's -pathmap takes them (repeatable): a source the PDB names "
                     "MAPPED... (a deterministic build's /_/...) is named LOCAL... in the report");
  CLI::Option *Summary =
      Report->add_flag("--summary", A->Summary,
                       "Print one line saying where the reports went, with the line, branch and "
                       "method figures of all modules together");
  Report
      ->add_flag("--check", A->Check,
                 "Write no report: only read the maps and hits and check that they measure "
                 "something (WEFT0012 when the filters leave out every method)")
      ->excludes(Output, Summary, Threshold);
  Report
      ->add_option("--message-format", A->MessageFormat,
                   "How errors are printed: plain (default) or msbuild (\"weft: error "
                   "WEFT0008: ...\" for a threshold not met)")
      ->check(CLI::IsMember({"plain", "msbuild"}));
  return [A] { return report(*A); };
}

} // namespace weft::cli
