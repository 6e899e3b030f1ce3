//===- cli/WeaveCommand.cpp - weft weave ----------------------------------===//
//
// Reads assemblies, applies the passes that --pass or --spec select (none: the round trip) and
// writes each anew, with any side files the passes make next to it.
//
// Several inputs (files, or folders standing for the assemblies directly in them): those more
// than 1/threads the size of the largest are woven first, one after another, each with its
// methods on every thread; the smaller ones then side by side, one input per thread, so that the
// steps done once per file (reading, serializing, checksums) use every core too, while the inputs
// in memory at once are never larger together than the largest. Each input's messages are
// printed whole, in input order, whatever order the inputs were woven in. What does not depend on
// the file is made once per run: the spec, the strong-name key, the resolvers of referenced
// assemblies and the probe and replacement assemblies the passes open.
//
//===----------------------------------------------------------------------===//
#include "cli/MapsReadAhead.h"
#include "cli/Tool.h"
#include "cli/WeaveCache.h"
#include "il/ReadAll.h"
#include "metadata/AssemblyCache.h"
#include "metadata/Editor.h"
#include "metadata/Resolver.h"
#include "pe/StrongName.h"
#include "support/Allocator.h"
#include "support/RegularFile.h"
#include "support/WorkerTeam.h"
#include "weaving/ModuleWriter.h"
#include "weaving/Pass.h"
#include "weaving/Symbols.h"
#include "weaving/Weaver.h"
#include "weaving/WovenRecord.h"
#include "weaving/plugin/Plugin.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;

namespace weft::cli {

namespace {

struct WeaveOptions {
  std::vector<std::string> Inputs;
  std::string Output;
  std::string OutDir;
  std::string KeyFile;
  std::string SpecFile;
  std::vector<std::string> Passes;
  std::string CacheDir;     // --cache-dir, else WEFT_CACHE_DIR
  bool CacheShared = false; // --cache-shared, else WEFT_CACHE_SHARED
  std::string RemoteCache;       // --remote-cache URL, else WEFT_REMOTE_CACHE
  bool RemoteReadOnly = false;   // --remote-cache-read-only, else WEFT_REMOTE_CACHE_READ_ONLY
  double RemoteTimeout = 0;      // --remote-cache-timeout SECONDS, else WEFT_REMOTE_CACHE_TIMEOUT
  bool PrintCacheKey = false;    // --print-cache-key: each input's key, and nothing woven
  std::string DepsFile;
  std::string MessageFormat = "plain";
  unsigned Threads = 0;
  bool InPlace = false;
  bool Unsigned = false; // --unsigned: a strong-name signed input written unsigned, on purpose
  bool VerifyEach = false;
  bool Force = false;
  bool Verbose = false;
  bool Quiet = false;
  bool FailFast = false;
  bool RequireWoven = false; // --require-woven: ExitNothingWoven when no pass changed a method
  std::string KeepOriginals; // --keep-originals DIR: what --in-place replaces, kept there
  std::string SideFilesDir;  // --side-files-dir DIR: the passes' side files there
};

/// The resolvers of referenced assemblies for a run. An input's references are looked up in its
/// own folder, then in the shared frameworks, exactly as when it is woven alone; the frameworks'
/// resolver is shared by every input and one resolver is kept per input folder, so that each
/// referenced assembly is opened once a run.
class RunResolvers {
public:
  RunResolvers() : Frameworks(metadata::AssemblyResolver::sharedFrameworkDirs()) {}
  metadata::AssemblyResolver &forInput(StringRef Path) {
    std::vector<std::string> Dirs =
        metadata::AssemblyResolver::searchDirsFor(Path, {}, /*Frameworks=*/false);
    std::lock_guard<std::mutex> G(Lock);
    std::unique_ptr<metadata::AssemblyResolver> &R = ByFolder[Dirs.front()];
    if (!R)
      R = std::make_unique<metadata::AssemblyResolver>(std::move(Dirs), &Frameworks);
    return *R;
  }

private:
  metadata::AssemblyResolver Frameworks;
  std::mutex Lock; // inputs woven side by side ask at once
  std::map<std::string, std::unique_ptr<metadata::AssemblyResolver>> ByFolder;
};

/// What every file of a run shares, made once and alive for the whole run.
struct WeaveRun {
  explicit WeaveRun(const WeaveOptions &Opt)
      : Opt(Opt),
        Team(Opt.Threads ? Opt.Threads : llvm::hardware_concurrency().compute_thread_count()) {}
  const WeaveOptions &Opt;
  /// The threads of the whole run: reading bodies and the method phases of an input woven alone,
  /// or inputs side by side.
  WorkerTeam Team;
  std::optional<spec::Spec> Spec;
  std::optional<pe::StrongNameKey> Key;
  RunResolvers Resolvers;
  metadata::AssemblyCache Assemblies;
  std::optional<WeaveCache> Cache;
  /// What the cache key of every input starts with: weft's build, the spec or passes, the key.
  CacheKey RunKey;
  /// The files the run read besides the inputs and what the passes opened (for --deps).
  std::vector<std::string> Dependencies;
  /// Whether a pass changed a method of any input.
  bool Changed = false;
  /// The coverage maps written, read ahead when a report may follow in this process.
  std::vector<std::string> MapsWritten;
};

/// One assembly to weave and where it goes.
struct Job {
  std::string Input, Output;
};

/// What weaving one input has to say: warnings, --verbose lines and its failure, kept until the
/// input's turn to be printed comes.
struct JobLog {
  struct Line {
    bool Warning;
    std::string Text;
  };
  std::vector<Line> Lines;
  std::optional<std::string> Failure;
  DiagnosticCode FailureCode = CodeOther;
  /// The files written: the output, its PDB, the side files.
  std::vector<std::string> Written;
  /// The files an output taken from the cache was woven with (probe assemblies, ...).
  std::vector<std::string> Dependencies;
  /// Whether a pass changed a method (an output taken from the cache counts as changed).
  bool Changed = false;
  void warn(const Twine &Message) { Lines.push_back({true, Message.str()}); }
  void say(const Twine &Message) { Lines.push_back({false, Message.str()}); }
};

/// Starts weaving the module \p Editor holds with the passes of the spec: its bodies are woven
/// as the writer asks for them (passes::ModuleWeave).
Expected<std::unique_ptr<passes::ModuleWeave>> startWeave(const Job &J, const pe::Image &Img,
                                                          metadata::Editor &Editor,
                                                          const spec::Selection &Sel, WeaveRun &Run,
                                                          WorkerTeam *Team) {
  const WeaveOptions &Opt = Run.Opt;
  passes::WeaveOptions WO;
  WO.Team = Team;
  WO.Threads = 1; // without a team: this thread alone
  WO.VerifyEach = Opt.VerifyEach;
  WO.Force = Opt.Force;
  WO.Resolver = &Run.Resolvers.forInput(J.Input);
  WO.Assemblies = &Run.Assemblies;
  WO.KeepRemaps = sys::fs::exists(separatePdbPath(Img, J.Input)) || hasEmbeddedPdb(Img);
  WO.InputPath = J.Input;
  StringRef OutDir = sys::path::parent_path(J.Output);
  WO.RecordInputAs = passes::pathFrom(OutDir.empty() ? "." : OutDir, J.Input);
  Expected<std::unique_ptr<passes::ModuleWeave>> W =
      passes::ModuleWeave::start(Img, Editor, Sel, WO);
  if (!W)
    return createFileError(J.Input, W.takeError());
  return W;
}

/// What a finished weave says: its warnings, and with --verbose what each pass left alone.
void reportWeave(const Job &J, const passes::WeaveOutcome &Woven, const WeaveRun &Run,
                 JobLog &Log) {
  for (const std::string &W : Woven.Warnings)
    Log.warn("'" + J.Input + "': " + W);
  if (!Run.Opt.Verbose)
    return;
  for (const std::string &S : Woven.Skipped)
    Log.say("weft: skipped " + S);
  for (const std::string &N : Woven.Notes)
    Log.say("weft: note: " + N);
  Log.say("weft: " + Twine(Woven.MethodsChanged) + " methods changed, " +
          Twine(Woven.Skipped.size()) + " left alone by a pass, " +
          Twine(Woven.BranchesLengthened) + " short branches made long");
}

/// What the passes' side files of \p J are named after: its output, or with --side-files-dir
/// DIR the output's name in DIR.
std::string sideFilesBase(const Job &J, const WeaveOptions &Opt) {
  if (Opt.SideFilesDir.empty())
    return J.Output;
  SmallString<256> Base(Opt.SideFilesDir);
  sys::path::append(Base, sys::path::filename(J.Output));
  return std::string(Base);
}

/// With --keep-originals DIR, keeps the file \p Path is about to replace as DIR/NAME (a hard link
/// to it, else a copy), in place of one kept before: an in-place weave's originals, which a test
/// run puts back. Nothing to keep when there is no such file.
Error keepOriginal(StringRef Path, const WeaveOptions &Opt) {
  if (Opt.KeepOriginals.empty() || !sys::fs::exists(Path))
    return Error::success();
  SmallString<256> Kept(Opt.KeepOriginals);
  sys::path::append(Kept, sys::path::filename(Path));
  if (std::error_code EC = sys::fs::remove(Kept))
    return createFileError(Kept, errorCodeToError(EC));
  if (!sys::fs::create_hard_link(Path, Kept))
    return Error::success();
  if (std::error_code EC = sys::fs::copy_file(Path, Kept))
    return createFileError(Kept, errorCodeToError(EC));
  return Error::success();
}

/// Writes the PDB beside the output: rewritten (unless embedded) when bodies changed, else copied
/// as it is when it has a name of its own there (IL offsets and the PDB id are the same). True if
/// a file was written.
Expected<bool> writePdb(const std::optional<PdbUpdate> &Pdb, bool BodiesChanged, StringRef InPdb,
                        StringRef OutPdb) {
  if (Pdb && !Pdb->Embedded) {
    if (Error E = writeFileAtomically(OutPdb, Pdb->Bytes))
      return std::move(E);
    return true;
  }
  if (InPdb != OutPdb && sys::fs::exists(InPdb) && !BodiesChanged) {
    auto Copy = MemoryBuffer::getFile(InPdb, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Copy)
      return createFileError(InPdb, errorCodeToError(Copy.getError()));
    if (Error E = writeFileAtomically(OutPdb, arrayRefFromStringRef((*Copy)->getBuffer())))
      return std::move(E);
    return true;
  }
  return false;
}

/// Where the PDB \p InPdb of the input goes: a PDB named after the assembly is named after the
/// output; one the CodeView entry names keeps its name, next to the output.
std::string outputPdbPath(const Job &J, StringRef InPdb) {
  SmallString<256> OutPdb(J.Output);
  if (sys::path::filename(InPdb) == (sys::path::stem(J.Input) + ".pdb").str()) {
    sys::path::replace_extension(OutPdb, "pdb");
  } else {
    OutPdb = sys::path::parent_path(J.Output);
    sys::path::append(OutPdb, sys::path::filename(InPdb));
  }
  return std::string(OutPdb);
}

/// Says what the written output is not (ReadyToRun code, signatures left out): a strong-name
/// signature left out only when it was not asked for with --unsigned.
void warnAboutOutput(const Job &J, const pe::BuildReport &Report, bool Unsigned, JobLog &Log) {
  if (Report.WasReadyToRun)
    Log.warn("'" + J.Input +
             "' is a ReadyToRun image: written as IL only (the runtime compiles it when it runs)");
  if (Report.StrongNameRemoved && !Unsigned)
    Log.warn("'" + J.Input +
             "' is strong-name signed: the output is not signed (give --key to sign it)");
  if (Report.AuthenticodeRemoved)
    Log.warn("'" + J.Input +
             "' has an Authenticode signature, which does not apply to the output and was left "
             "out");
}

/// Says what is not written beside an output that is not a regular file.
void warnNothingBeside(const Job &J, const passes::WeaveOutcome *Woven, bool HasPdb, JobLog &Log) {
  std::vector<std::string> Left;
  if (HasPdb)
    Left.push_back("its PDB");
  if (Woven) {
    for (const auto &Side : Woven->SideFiles)
      Left.push_back("'" + J.Output + Side.first + "'");
    for (const auto &Side : Woven->SideFilesOnDisk)
      Left.push_back("'" + J.Output + Side.first + "'");
  }
  if (!Left.empty())
    Log.warn("'" + J.Output + "' is not a regular file: nothing is written beside it (" +
             join(Left, ", ") + " left out)");
}

/// Weaves one assembly: reads it whole, applies the passes, writes the output, its PDB and the
/// side files the passes made. Nothing of the file outlives the call. An input that does not read
/// or weave leaves no output: every file is written atomically, once the whole input is woven.
/// \p Team (or this thread alone, without one) reads and weaves the methods.
Error weaveFile(const Job &J, WeaveRun &Run, WorkerTeam *Team, JobLog &Log) {
  Expected<Input> In = openInput(J.Input);
  if (!In)
    return withCode(CodeInput, In.takeError());
  std::optional<spec::Selection> Sel;
  if (Run.Spec) {
    Expected<spec::Selection> S = spec::select(*Run.Spec, *In->Module);
    if (!S)
      return withCode(CodeWeave, createFileError(J.Input, S.takeError()));
    Sel = std::move(*S);
    // A weave that changes nothing says so; the usual cause is a rule naming nothing of the
    // input (a type given with its namespace, say).
    if (Sel->Uses.empty())
      Log.say("weft: note: '" + J.Input +
              "': no method matches a rule of the spec, so nothing in it is woven");
  }
  // The whole input is read first: a file that does not read fully is not rewritten. The bodies
  // the weave decodes are checked as it decodes them, not decoded twice.
  ReadStats Stats;
  ReadOptions RO;
  RO.CustomAttributes = false; // their blobs are copied, not re-encoded
  RO.Team = Team;
  auto DecodedByWeave = [&](uint32_t Row) {
    return Sel && Row <= Sel->methodCount() && !Sel->passesOf(Row).empty();
  };
  RO.DecodedLater = DecodedByWeave;
  if (Error E = readEverything(*In->Image, *In->Module, Stats, RO))
    return withCode(CodeInput, createFileError(J.Input, std::move(E)));

  metadata::Editor Editor(*In->Module);
  std::unique_ptr<passes::ModuleWeave> Weave;
  if (Sel) {
    Expected<std::unique_ptr<passes::ModuleWeave>> W =
        startWeave(J, *In->Image, Editor, *Sel, Run, Team);
    if (!W)
      return withCode(CodeWeave, W.takeError());
    Weave = std::move(*W);
  }
  // The bodies are woven while the writer lays them out, a batch at a time; once the module's
  // own bodies are placed the weave finishes and the PDB is rewritten, whose checksum goes in
  // the debug directory.
  std::string InPdb = separatePdbPath(*In->Image, J.Input);
  std::string OutPdb = outputPdbPath(J, InPdb);
  std::optional<PdbUpdate> Pdb;
  const passes::WeaveOutcome *Woven = nullptr;
  WriteOptions Write;
  Write.Key = Run.Key ? &*Run.Key : nullptr;
  Write.AfterOriginalBodies = [&](pe::DebugDataOverrides &Data) -> Error {
    if (!Weave)
      return Error::success();
    if (Error E = Weave->finish())
      return E;
    // A large input, woven alone on the team: its batches' memory goes back before its
    // metadata and image are made (support/Allocator.h). Small ones woven side by side would
    // fault the same pages in again, one after another.
    if (Team)
      releaseFreeMemory();
    Woven = &Weave->outcome();
    Log.Changed = Woven->MethodsChanged > 0;
    reportWeave(J, *Woven, Run, Log);
    if (Woven->Remaps.empty())
      return Error::success();
    std::string Warning;
    Pdb = updatePdb(*In->Image, J.Input, InPdb, Woven->Remaps, Warning);
    if (!Warning.empty())
      Log.warn(Warning);
    if (Pdb)
      for (const auto &[Type, Bytes] : Pdb->DebugData)
        Data[Type] = Bytes;
    return Error::success();
  };
  Expected<WrittenModule> W = writeModule(
      *In->Image, Editor,
      [&](uint32_t Row) -> Expected<std::optional<BodyBytes>> {
        if (!Weave)
          return std::nullopt;
        return Weave->body(Row);
      },
      Write);
  if (!W)
    return withCode(CodeWeave, createFileError(J.Input, W.takeError()));
  warnAboutOutput(J, W->Report, Run.Opt.Unsigned, Log);
  // A device, FIFO or socket takes the assembly alone: nothing goes beside it (into /dev, say).
  bool Beside = isRegularOutput(J.Output);
  if (Error E = keepOriginal(J.Output, Run.Opt))
    return withCode(CodeOutput, std::move(E));
  if (Error E = writeFileAtomically(J.Output, W->Bytes))
    return withCode(CodeOutput, std::move(E));
  Log.Written.push_back(J.Output);
  if (!Beside) {
    warnNothingBeside(J, Woven, Pdb || sys::fs::exists(InPdb), Log);
    return Error::success();
  }
  if (Woven) {
    std::string Base = sideFilesBase(J, Run.Opt);
    for (const auto &Side : Weave->outcome().SideFiles)
      Log.Written.push_back(Base + Side.first);
    for (const auto &Side : Weave->outcome().SideFilesOnDisk)
      Log.Written.push_back(Base + Side.first);
    if (Error E = passes::writeSideFiles(Weave->outcome(), Base))
      return withCode(CodeOutput, std::move(E));
  }
  if (Pdb && !Pdb->Embedded)
    if (Error E = keepOriginal(OutPdb, Run.Opt))
      return withCode(CodeOutput, std::move(E));
  Expected<bool> PdbWritten = writePdb(Pdb, Woven && !Woven->Remaps.empty(), InPdb, OutPdb);
  if (!PdbWritten)
    return withCode(CodeOutput, PdbWritten.takeError());
  if (*PdbWritten)
    Log.Written.push_back(OutPdb);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The weaving cache (cli/WeaveCache.h).
//===----------------------------------------------------------------------===//

/// The role of the written file \p Path in the cache: its name after the output's stem ("~.pdb",
/// "~.dll.coverage.json"), or its own file name ("=Name.pdb", a PDB the CodeView entry names).
std::string roleOf(const Job &J, StringRef Path) {
  SmallString<256> Stem(J.Output);
  sys::path::replace_extension(Stem, "");
  if (Path.startswith(Stem))
    return "~" + Path.drop_front(Stem.size()).str();
  return "=" + sys::path::filename(Path).str();
}

/// The path of the role \p Role of \p J's outputs; nullopt for a role a weave of \p J does not
/// write: the output, its PDB (named after the output, or as the input's CodeView entry names
/// it) and the output's side files (named after the whole output's name).
std::optional<std::string> pathOfRole(const Job &J, StringRef Role) {
  std::string Output = roleOf(J, J.Output);
  bool Known =
      Role == Output || Role == "~.pdb" || (Role.startswith(Output + ".") && !Role.contains('/'));
  if (!Known) {
    // A PDB of a name of its own: the one a weave of this input writes.
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(J.Input);
    if (!Img) {
      consumeError(Img.takeError());
      return std::nullopt;
    }
    Known = Role == roleOf(J, outputPdbPath(J, separatePdbPath(**Img, J.Input)));
  }
  if (!Known)
    return std::nullopt;
  SmallString<256> Path(J.Output);
  if (Role.consume_front("~")) {
    sys::path::replace_extension(Path, "");
    return (Path + Role).str();
  }
  Role.consume_front("=");
  sys::path::remove_filename(Path);
  sys::path::append(Path, Role);
  return std::string(Path);
}

/// The folder of \p J's output, absolute.
std::string outputFolderOf(const Job &J) {
  SmallString<256> OutDir(J.Output);
  sys::fs::make_absolute(OutDir);
  sys::path::remove_dots(OutDir, /*remove_dot_dot=*/true);
  sys::path::remove_filename(OutDir);
  return std::string(OutDir);
}

/// The key of \p J: the run's, then the output's name, the input's path from the output's
/// folder (the marker records it), the input's bytes and its separate PDB's. No absolute path:
/// the same work in another checkout has the same key.
Expected<std::string> cacheKeyOf(const Job &J, const WeaveRun &Run) {
  CacheKey K = Run.RunKey;
  K.addText("output-name", sys::path::filename(J.Output));
  K.addText("input-from-output", passes::pathFrom(outputFolderOf(J), J.Input));
  if (Error E = K.addFile("input-bytes", J.Input))
    return std::move(E);
  SmallString<256> Pdb(J.Input);
  sys::path::replace_extension(Pdb, "pdb");
  if (Error E = K.addFile("input-pdb", Pdb))
    return std::move(E);
  return K.hex();
}

/// The weaving cache's folder and server, as the options and the environment name them.
Error openCaches(WeaveRun &Run) {
  const WeaveOptions &Opt = Run.Opt;
  std::unique_ptr<CacheStore> Local, Remote;
  std::string CacheDir = cacheDirFrom(Opt.CacheDir);
  if (!CacheDir.empty()) {
    Expected<std::unique_ptr<CacheStore>> S =
        CacheStore::local(CacheDir, cacheSharedFrom(Opt.CacheShared));
    if (!S)
      return S.takeError();
    Local = std::move(*S);
  }
  std::string Url = remoteCacheFrom(Opt.RemoteCache);
  if (!Url.empty()) {
    double Seconds = Opt.RemoteTimeout;
    if (Seconds <= 0)
      if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_REMOTE_CACHE_TIMEOUT"))
        if (!to_float(*Env, Seconds) || Seconds <= 0)
          return plainError("WEFT_REMOTE_CACHE_TIMEOUT is '" + *Env +
                            "': a number of seconds above 0 was expected");
    if (Seconds <= 0)
      Seconds = 30;
    auto Timeout = std::chrono::milliseconds(int64_t(Seconds * 1000));
    Expected<std::unique_ptr<CacheStore>> S =
        CacheStore::remote(Url, remoteReadOnlyFrom(Opt.RemoteReadOnly), Timeout);
#ifdef _WIN32
    if (!S) { // not there yet on Windows: the build goes on without it
      reportWarning(toString(S.takeError()));
      S = std::unique_ptr<CacheStore>();
    }
#endif
    if (!S)
      return S.takeError();
    Remote = std::move(*S);
  }
  if (Local || Remote)
    Run.Cache.emplace(std::move(Local), std::move(Remote));
  return Error::success();
}

/// What stands for the input's path in the warnings an entry keeps.
constexpr StringLiteral InputMark = "\x01input\x01";

/// \p Text with every \p From replaced by \p To.
std::string replaceAll(StringRef Text, StringRef From, StringRef To) {
  std::string Out;
  for (size_t At; !From.empty() && (At = Text.find(From)) != StringRef::npos;
       Text = Text.drop_front(At + From.size()))
    Out += (Text.take_front(At) + To).str();
  return Out + Text.str();
}

/// Whether \p J's output goes through the cache: not a device's; not what --keep-originals
/// keeps (what weaving replaces), not with --side-files-dir (the cache keeps side files beside
/// their output).
bool cacheable(const Job &J, const WeaveRun &Run) {
  return Run.Cache && isRegularOutput(J.Output) && Run.Opt.KeepOriginals.empty() &&
         Run.Opt.SideFilesDir.empty();
}

/// Takes \p J's output from the cache if it holds it (true), its key in \p Key either way.
Expected<bool> restoreCached(const Job &J, WeaveRun &Run, JobLog &Log, std::string &Key) {
  Expected<std::string> K = cacheKeyOf(J, Run);
  if (!K)
    return K.takeError();
  Key = std::move(*K);
  auto OutputFor = [&](StringRef Role) { return pathOfRole(J, Role); };
  auto Warn = [&](const std::string &W) { Log.warn(W); };
  std::string From;
  std::vector<std::string> Said;
  if (!Run.Cache->restore(Key, outputFolderOf(J), OutputFor, Log.Dependencies, From, Said, Warn))
    return false;
  // The weave's own warnings, as it gave them (its input named as this run names it).
  for (const std::string &W : Said)
    Log.warn(replaceAll(W, InputMark, J.Input));
  Log.Changed = true; // the cache keeps what it was woven with, not what changed
  if (!Run.Opt.Quiet || Run.Opt.Verbose)
    Log.say("weft: '" + J.Input + "': taken from the " + From);
  return true;
}

/// Weaves \p J, or takes its output from the cache when there is one with this key (unless
/// \p Key says it was looked up already: a miss); a woven output goes into the cache. The
/// cache's own troubles are warnings: the weave goes on.
Error weaveCached(const Job &J, WeaveRun &Run, WorkerTeam *Team, JobLog &Log,
                  std::optional<std::string> Key) {
  if (!cacheable(J, Run))
    return weaveFile(J, Run, Team, Log);
  if (!Key) {
    Key.emplace();
    Expected<bool> Hit = restoreCached(J, Run, Log, *Key);
    if (!Hit)
      return Hit.takeError();
    if (*Hit)
      return Error::success();
  }
  std::string OutputFolder = outputFolderOf(J);
  auto Warn = [&](const std::string &W) { Log.warn(W); };
  size_t Before = Log.Lines.size();
  if (Error E = weaveFile(J, Run, Team, Log))
    return E;
  std::vector<std::string> Said; // kept with the entry, the input's path marked
  for (size_t I = Before; I < Log.Lines.size(); ++I)
    if (Log.Lines[I].Warning)
      Said.push_back(replaceAll(Log.Lines[I].Text, J.Input, InputMark));
  std::vector<CachedFile> Files;
  for (const std::string &W : Log.Written)
    Files.push_back({roleOf(J, W), W});
  Run.Cache->store(*Key, OutputFolder, Files, Run.Assemblies.paths(), Said, Warn);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The run: inputs, progress, failures.
//===----------------------------------------------------------------------===//

/// One line on standard error, rewritten in place while a run goes: the files done of all, the
/// file being woven and the rate so far. Off unless standard error is a terminal.
class Progress {
public:
  Progress(bool On, size_t Total) : On(On), Total(Total), Start(Clock::now()) {}
  ~Progress() { clear(); }

  void start(StringRef File) {
    Current = sys::path::filename(File).str();
    draw();
  }
  void finish(uint64_t Bytes) {
    ++Done;
    BytesDone += Bytes;
  }
  /// Prints through \p Print with the line taken away, then shows it again.
  void interrupt(function_ref<void()> Print) {
    bool Shown = Width != 0;
    clear();
    Print();
    if (Shown)
      draw();
  }
  void clear() {
    if (Width)
      err() << '\r' << std::string(Width, ' ') << '\r';
    Width = 0;
  }

private:
  using Clock = std::chrono::steady_clock;

  void draw() {
    if (!On)
      return;
    std::string Line;
    raw_string_ostream OS(Line);
    OS << "weft: " << Done << "/" << Total << " " << Current;
    double Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
    if (Done && Seconds > 0)
      OS << format("  %.1f files/s, %.1f MiB/s", Done / Seconds,
                   BytesDone / (1024.0 * 1024.0) / Seconds);
    OS.flush();
    unsigned Columns = sys::Process::StandardErrColumns();
    size_t Max = (Columns ? Columns : 80) - 1;
    if (Line.size() > Max)
      Line.resize(Max);
    size_t Old = Width;
    Width = Line.size();
    if (Old > Width)
      Line.append(Old - Width, ' ');
    err() << '\r' << Line;
  }

  bool On;
  size_t Total, Done = 0;
  uint64_t BytesDone = 0;
  Clock::time_point Start;
  std::string Current;
  size_t Width = 0; // of the line on the screen; 0 when none is shown
};

bool isExecutableName(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext.equals_insensitive(".dll") || Ext.equals_insensitive(".exe");
}

/// Whether a file listed in a folder is to be woven: a PE image with a CLI header, or one that
/// starts like a PE image but does not read (a damaged assembly is reported, not passed over).
/// Native images and files that are no PE image at all are left alone.
bool isAssemblyToWeave(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return true; // weaveFile names the problem
  if (!pe::looksLikePE(arrayRefFromStringRef((*Buf)->getBuffer())))
    return false;
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(std::move(*Buf));
  if (!Img) {
    consumeError(Img.takeError());
    return true;
  }
  return (*Img)->isManaged();
}

/// The assemblies directly in the folder \p Dir, by name.
Expected<std::vector<std::string>> assembliesIn(StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (isExecutableName(It->path()) && sys::fs::is_regular_file(It->path()) &&
        isAssemblyToWeave(It->path()))
      Files.push_back(It->path());
  if (EC)
    return createFileError(Dir, errorCodeToError(EC));
  llvm::sort(Files);
  return Files;
}

/// The usage errors of the output options, before anything is read.
std::optional<std::string> outputUsageError(const WeaveOptions &Opt,
                                            ArrayRef<std::string> Folders) {
  if (!Opt.OutDir.empty() && (!Opt.Output.empty() || Opt.InPlace))
    return std::string("--out-dir excludes -o and --in-place");
  if (!Opt.Output.empty() && Opt.InPlace)
    return std::string("-o and --in-place exclude each other");
  if (Opt.Output == "-")
    return std::string("-o -: an assembly is not written to standard output (it has a PDB and "
                       "side files beside it); name a file");
  if (Opt.Output.empty() && Opt.OutDir.empty() && !Opt.InPlace)
    return std::string("weave needs -o OUTPUT, --out-dir DIR or --in-place (to replace the "
                       "input)");
  if (!Opt.Output.empty() && Opt.Inputs.size() > 1)
    return "-o names the output of one input; give --out-dir DIR for " +
           std::to_string(Opt.Inputs.size()) + " inputs";
  if (!Opt.Output.empty() && !Folders.empty())
    return "-o names the output of one input; give --out-dir DIR for the folder '" +
           Folders.front() + "'";
  if (!Opt.SpecFile.empty() && !Opt.Passes.empty())
    return std::string("--spec and --pass exclude each other (name the passes in the spec)");
  if (!Opt.KeyFile.empty() && Opt.Unsigned)
    return std::string("--key and --unsigned exclude each other");
  if (!Opt.KeepOriginals.empty() && !Opt.InPlace)
    return std::string("--keep-originals keeps what --in-place replaces: give --in-place");
  return std::nullopt;
}

/// The jobs of the run: each input file, and the assemblies of each input folder, with their
/// outputs. Folders that cannot be listed are reported and counted in \p Failed.
std::vector<Job> planJobs(const WeaveOptions &Opt, unsigned &Failed) {
  std::vector<Job> Jobs;
  auto Add = [&](const std::string &In) {
    std::string Out = Opt.InPlace ? In : Opt.Output;
    if (!Opt.OutDir.empty()) {
      SmallString<256> P(Opt.OutDir);
      sys::path::append(P, sys::path::filename(In));
      Out = std::string(P);
    }
    Jobs.push_back({In, Out});
  };
  for (const std::string &In : Opt.Inputs) {
    if (!sys::fs::is_directory(In)) {
      Add(In);
      continue;
    }
    Expected<std::vector<std::string>> Files = assembliesIn(In);
    if (!Files) {
      reportError(Files.takeError());
      ++Failed;
      continue;
    }
    if (Files->empty())
      reportWarning("'" + In + "' holds no .NET assembly (*.dll, *.exe)");
    for (const std::string &F : *Files)
      Add(F);
  }
  return Jobs;
}

/// Two jobs that would write the same output.
std::optional<std::string> sameOutputError(ArrayRef<Job> Jobs) {
  StringMap<const Job *> ByOutput;
  for (const Job &J : Jobs) {
    SmallString<256> Key(J.Output);
    sys::fs::make_absolute(Key);
    sys::path::remove_dots(Key, /*remove_dot_dot=*/true);
    auto [It, New] = ByOutput.try_emplace(Key, &J);
    if (!New)
      return "two inputs named '" + sys::path::filename(J.Input).str() + "' ('" +
             It->second->Input + "' and '" + J.Input + "') would both be written to '" + J.Output +
             "'";
  }
  return std::nullopt;
}

/// What every output of the run depends on besides its input: weft's build, the spec or the
/// passes, the plugins loaded (by --load or by the spec), the strong-name key, --force. Also the
/// files of --deps.
Error keyTheRun(WeaveRun &Run) {
  const WeaveOptions &Opt = Run.Opt;
  CacheKey &K = Run.RunKey;
  K.addText("weft", weftBuildIdentity());
  K.addText("force", Opt.Force ? "1" : "0");
  for (const std::string &P : Opt.Passes)
    K.addText("pass", P);
  std::vector<std::string> Files;
  if (!Opt.SpecFile.empty())
    Files.push_back(Opt.SpecFile);
  for (const plugin::LoadedPlugin &P : plugin::loadedPlugins())
    Files.push_back(P.Path);
  if (!Opt.KeyFile.empty())
    Files.push_back(Opt.KeyFile);
  for (const std::string &F : Files) {
    Run.Dependencies.push_back(F);
    if (Run.Cache || Opt.PrintCacheKey) // hashed only for a cache (a plugin may be large)
      if (Error E = K.addFile("file", F))
        return E;
  }
  return Error::success();
}

/// Writes --deps: every file the run read, one absolute path a line (the inputs, their separate
/// PDBs, the spec and its plugins, the key, the assemblies the passes opened).
Error writeDependencies(ArrayRef<Job> Jobs, WeaveRun &Run) {
  std::vector<std::string> All = Run.Dependencies;
  for (const Job &J : Jobs) {
    All.push_back(J.Input);
    SmallString<256> Pdb(J.Input);
    sys::path::replace_extension(Pdb, "pdb");
    if (sys::fs::exists(Pdb))
      All.push_back(std::string(Pdb));
  }
  for (const std::string &P : Run.Assemblies.paths())
    All.push_back(P);
  std::string Text;
  std::set<std::string> Seen;
  for (const std::string &P : All) {
    SmallString<256> Abs(P);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    if (Seen.insert(std::string(Abs)).second)
      Text += std::string(Abs) + "\n";
  }
  return writeFileAtomically(Run.Opt.DepsFile, arrayRefFromStringRef(Text));
}

/// The strong-name key, the spec and the passes, once for the run.
Error prepareRun(WeaveRun &Run) {
  const WeaveOptions &Opt = Run.Opt;
  // A FIFO or a device would block the run or never end: refused before anything is read.
  for (const std::string *F : {&Opt.KeyFile, &Opt.SpecFile})
    if (!F->empty() && sys::fs::exists(*F))
      if (Error E = requireRegularFile(*F))
        return withCode(F == &Opt.SpecFile ? CodeSpec : CodeOther, std::move(E));
  if (!Opt.KeyFile.empty()) {
    auto Blob = MemoryBuffer::getFile(Opt.KeyFile, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
    if (!Blob)
      return createFileError(Opt.KeyFile, errorCodeToError(Blob.getError()));
    Expected<pe::StrongNameKey> K =
        pe::StrongNameKey::parse(arrayRefFromStringRef((*Blob)->getBuffer()));
    if (!K)
      return createFileError(Opt.KeyFile, K.takeError());
    Run.Key = std::move(*K);
    Run.Key->setName("'" + Opt.KeyFile + "'");
  }
  // The spec before any input: a bad one is reported before an input is read.
  if (!Opt.SpecFile.empty()) {
    Expected<spec::Spec> S = spec::Spec::load(Opt.SpecFile);
    if (!S)
      return withCode(CodeSpec, S.takeError());
    Expected<std::vector<plugin::LoadedPlugin>> L =
        plugin::loadPlugins(Opt.SpecFile, S->pluginPaths());
    if (!L)
      return L.takeError();
    warnOfPlugins(*L);
    Run.Spec = std::move(*S);
  } else if (!Opt.Passes.empty()) {
    std::vector<spec::PassUse> Uses;
    for (const std::string &P : Opt.Passes) {
      Expected<spec::PassUse> U = spec::parsePassUse(P);
      if (!U)
        return U.takeError();
      Uses.push_back(std::move(*U));
    }
    Run.Spec = spec::Spec::forPasses(std::move(Uses));
  }
  if (Error E = keyTheRun(Run))
    return E;
  if (Run.Spec)
    for (const spec::PassUse *U : Run.Spec->passUses())
      if (!passes::PassRegistry::global().find(U->Pass))
        return withCode(CodeSpec,
                        createStringError(inconvertibleErrorCode(),
                                          Twine(Opt.SpecFile.empty() ? "" : Opt.SpecFile + ": ") +
                                              U->Rule + ": unknown pass '" + U->Pass +
                                              "' (known passes: " +
                                              passes::PassRegistry::global().names() + ")"));
  return Error::success();
}

uint64_t fileSize(StringRef Path) {
  uint64_t Size = 0;
  if (sys::fs::file_size(Path, Size))
    return 0;
  return Size;
}

/// Weaves the jobs (see the top of the file for the order and the threads), showing a progress
/// line on a terminal and a summary at the end of a run of several; returns how many failed.
unsigned weaveAll(ArrayRef<Job> Jobs, WeaveRun &Run) {
  const WeaveOptions &Opt = Run.Opt;
  Progress Bar(!Opt.Quiet && sys::Process::StandardErrIsDisplayed(), Jobs.size());
  std::vector<uint64_t> Sizes; // taken before --in-place replaces an input
  for (const Job &J : Jobs)
    Sizes.push_back(fileSize(J.Input));
  uint64_t Largest = Sizes.empty() ? 0 : *std::max_element(Sizes.begin(), Sizes.end());
  // With --fail-fast one input at a time, so that nothing after the failing one is written.
  bool SideBySide = Run.Team.size() > 1 && Jobs.size() > 1 && !Opt.FailFast;
  // A small input is woven on one thread: the team's handing out and waiting for its methods
  // costs more than they take (7 assemblies of 15 to 40 KB: twice the CPU time, no less wall).
  constexpr uint64_t TeamWorthy = 256 * 1024;
  auto Alone = [&](size_t I) {
    return !SideBySide || (Sizes[I] >= TeamWorthy && Sizes[I] * Run.Team.size() > Largest);
  };
  auto TeamFor = [&](size_t I) { return Sizes[I] >= TeamWorthy ? &Run.Team : nullptr; };

  std::mutex Lock; // the counts, the logs, the progress line and standard error
  std::vector<JobLog> Logs(Jobs.size());
  std::vector<bool> Done(Jobs.size(), false);
  size_t Printed = 0;
  unsigned Woven = 0, Tried = 0;
  auto PrintDone = [&] {
    for (; Printed < Jobs.size() && Done[Printed]; ++Printed) {
      JobLog Log = std::move(Logs[Printed]);
      for (const JobLog::Line &L : Log.Lines)
        Bar.interrupt([&] { L.Warning ? reportWarning(L.Text) : void(err() << L.Text << '\n'); });
      if (Log.Failure)
        Bar.interrupt([&] { reportError(*Log.Failure, Log.FailureCode); });
    }
  };
  auto Start = [&](const Job &J) {
    std::lock_guard<std::mutex> G(Lock);
    Bar.start(J.Input);
    ++Tried;
  };
  auto Finish = [&](size_t I, JobLog Log) {
    std::lock_guard<std::mutex> G(Lock);
    for (std::string &D : Log.Dependencies)
      Run.Dependencies.push_back(std::move(D));
    for (const std::string &W : Log.Written)
      if (StringRef(W).endswith(".coverage.json"))
        Run.MapsWritten.push_back(W);
    Woven += !Log.Failure;
    Run.Changed |= Log.Changed;
    Logs[I] = std::move(Log);
    Done[I] = true;
    Bar.finish(Sizes[I]);
    PrintDone();
  };
  // With a cache, every input looked up there first, side by side (hashing and copying files
  // is no work for the team's threads to share); the misses are woven after. Not with
  // --fail-fast: nothing after a failing input is written.
  std::vector<std::optional<std::string>> Keys(Jobs.size());
  std::vector<char> Restored(Jobs.size(), false);
  if (Run.Cache && !Opt.FailFast) {
    std::atomic<size_t> Next{0};
    Run.Team.forEachMember([&](unsigned) {
      for (size_t I; (I = Next.fetch_add(1)) < Jobs.size();) {
        JobLog Log;
        std::string Key;
        Expected<bool> Hit = cacheable(Jobs[I], Run) ? restoreCached(Jobs[I], Run, Log, Key)
                                                     : Expected<bool>(false);
        if (!Hit) { // the weave says what is wrong with the input
          consumeError(Hit.takeError());
          continue;
        }
        Keys[I] = std::move(Key);
        if (*Hit) {
          Restored[I] = true;
          Start(Jobs[I]);
          Finish(I, std::move(Log));
        } else {
          Logs[I] = std::move(Log); // a warning of the lookup's, said with the weave's lines
        }
      }
    });
  }
  auto Weave = [&](size_t I, WorkerTeam *Team) {
    const Job &J = Jobs[I];
    JobLog Log = std::move(Logs[I]);
    Start(J);
    if (Opt.Verbose && Jobs.size() > 1)
      Log.say("weft: weaving '" + J.Input + "' into '" + J.Output + "'");
    if (Error E = weaveCached(J, Run, Team, Log, Keys[I]))
      std::tie(Log.FailureCode, Log.Failure) = takeCoded(std::move(E));
    Finish(I, std::move(Log));
  };
  // The inputs woven alone first, while no helper's arena holds memory, then the others.
  std::vector<size_t> Others;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    if (Restored[I])
      continue;
    if (!Alone(I)) {
      Others.push_back(I);
      continue;
    }
    Weave(I, TeamFor(I));
    if (Opt.FailFast && Woven < Tried)
      break;
  }
  std::atomic<size_t> Next{0};
  Run.Team.forEachMember([&](unsigned) {
    for (size_t K; (K = Next.fetch_add(1)) < Others.size();)
      Weave(Others[K], nullptr);
  });
  Bar.clear();
  if (Jobs.size() > 1 && !Opt.Quiet) {
    err() << "weft: woven " << Woven << " of " << Jobs.size() << " assemblies";
    if (Run.Cache) {
      WeaveCache::Counts C = Run.Cache->counts();
      err() << " (" << C.Local << " from the weaving cache, " << C.Remote
            << " from the remote cache)";
    }
    err() << ", " << (Tried - Woven) << " failed";
    if (Tried < Jobs.size())
      err() << " (--fail-fast: stopped at the first failure)";
    err() << "\n";
  }
  return Tried - Woven;
}

/// --print-cache-key: the key of each input's output, as sha256sum prints a digest ("KEY  INPUT"),
/// and nothing woven: two runners that should share entries print the same keys.
int printCacheKeys(ArrayRef<Job> Jobs, const WeaveRun &Run) {
  int Exit = ExitOk;
  for (const Job &J : Jobs) {
    Expected<std::string> Key = cacheKeyOf(J, Run);
    if (!Key) {
      reportError(Key.takeError());
      Exit = ExitError;
      continue;
    }
    out() << *Key << "  " << J.Input << "\n";
  }
  return Exit;
}

int run(const WeaveOptions &Opt) {
  MessageFormat Format;
  if (parseMessageFormat(Opt.MessageFormat, Format))
    setMessageFormat(Format);
  std::vector<std::string> Folders;
  for (const std::string &In : Opt.Inputs)
    if (sys::fs::is_directory(In))
      Folders.push_back(In);
  if (std::optional<std::string> Usage = outputUsageError(Opt, Folders)) {
    reportError(*Usage, CodeUsage);
    return ExitUsage;
  }
  unsigned Failed = 0;
  std::vector<Job> Jobs = planJobs(Opt, Failed);
  if (std::optional<std::string> Usage = sameOutputError(Jobs)) {
    reportError(*Usage, CodeUsage);
    return ExitUsage;
  }
  if (Failed && Opt.FailFast)
    return ExitError;
  WeaveRun Run(Opt);
  if (Error E = openCaches(Run))
    return reportError(std::move(E));
  if (Error E = prepareRun(Run))
    return reportError(std::move(E));
  if (Opt.PrintCacheKey)
    return printCacheKeys(Jobs, Run);
  for (const std::string &Dir : {Opt.OutDir, Opt.KeepOriginals, Opt.SideFilesDir})
    if (!Dir.empty() && !Jobs.empty())
      if (std::error_code EC = sys::fs::create_directories(Dir))
        return reportError(createFileError(Dir, errorCodeToError(EC)));

  Failed += weaveAll(Jobs, Run);
  if (!Failed && !Opt.DepsFile.empty())
    if (Error E = writeDependencies(Jobs, Run))
      return reportError(std::move(E));
  if (Failed)
    return ExitError;
  if (Opt.RequireWoven && !Run.Changed) {
    std::vector<std::string> Names;
    for (const Job &J : Jobs)
      Names.push_back(std::string(sys::path::filename(J.Input)));
    err() << "weft: note: nothing was woven: no pass changed a method of " << join(Names, ", ")
          << " (--require-woven: exit code " << ExitNothingWoven << ")\n";
    return ExitNothingWoven;
  }
  // In another program's process the report may come next, after tests that take a while.
  if (!inOwnProcess())
    readMapsAhead(std::move(Run.MapsWritten));
  return ExitOk;
}

} // namespace

Runner addWeaveCommand(CLI::App &App) {
  auto Opt = std::make_shared<WeaveOptions>();
  CLI::App *Sub = App.add_subcommand(
      "weave", "Rewrite assemblies with instrumentation passes (with none: a faithful round trip)");
  Sub->add_option("inputs", Opt->Inputs,
                  "The assemblies, and folders standing for the .NET assemblies in them")
      ->required();
  Sub->add_option("-o,--output", Opt->Output, "Where to write the result (one input)");
  Sub->add_option("--out-dir", Opt->OutDir,
                  "Write each result to this folder under its input's file name");
  Sub->add_flag("--in-place", Opt->InPlace, "Replace each input (atomically)");
  Sub->add_option("--key", Opt->KeyFile,
                  "Strong-name sign the output with this key pair (.snk); an assembly that has "
                  "a public key must have this key's");
  Sub->add_flag("--unsigned", Opt->Unsigned,
                "Write a strong-name signed input's output unsigned without a warning (the .NET "
                "runtime does not check strong names: for copies a test run measures)");
  Sub->add_option("--pass", Opt->Passes,
                  "Apply a pass to every method with a body: NAME or NAME:key=value,... "
                  "(repeatable; `weft passes` lists them)")
      ->expected(1)
      ->allow_extra_args(false) // one value a flag: the inputs after it are inputs
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Sub->add_option("--spec", Opt->SpecFile,
                  "An instrumentation spec (JSON, docs/spec.md) choosing passes per method");
  Sub->add_flag("--verify-each", Opt->VerifyEach,
                "Verify every method after every pass, naming the pass that broke one");
  Sub->add_option("--threads", Opt->Threads, "Threads for the passes (default: one per core)");
  Sub->add_flag("--force", Opt->Force, "Weave an assembly that weft has already woven");
  Sub->add_flag("-v,--verbose", Opt->Verbose,
                "Say which methods each pass left alone and why, and what it changed");
  Sub->add_flag("-q,--quiet", Opt->Quiet,
                "No progress line and no summary (warnings and errors are still printed)");
  Sub->add_option("--cache-dir", Opt->CacheDir,
                  "Keep woven outputs in this folder, keyed by what they were woven from, and "
                  "take them from there when nothing changed (default: $WEFT_CACHE_DIR)");
  Sub->add_flag("--cache-shared", Opt->CacheShared,
                "The cache folder is shared with other users on purpose: use it although they "
                "can write to it (its entries are still checked; default: $WEFT_CACHE_SHARED=1)");
  Sub->add_option("--remote-cache", Opt->RemoteCache,
                  "Also keep and take woven outputs on a build cache server speaking Bazel's "
                  "HTTP protocol (http:// or https://; default: $WEFT_REMOTE_CACHE; credentials "
                  "from the environment only: docs/cache.md)");
  Sub->add_flag("--remote-cache-read-only", Opt->RemoteReadOnly,
                "Take from the remote cache, never write to it (builds of untrusted changes; "
                "default: $WEFT_REMOTE_CACHE_READ_ONLY=1)");
  Sub->add_option("--remote-cache-timeout", Opt->RemoteTimeout,
                  "Seconds one request to the remote cache may take (default: "
                  "$WEFT_REMOTE_CACHE_TIMEOUT, else 30)");
  Sub->add_flag("--print-cache-key", Opt->PrintCacheKey,
                 "Print the cache key of each input's output (\"KEY  INPUT\") and weave nothing "
                 "(what differs between two runners that should share entries: docs/cache.md)");
  Sub->add_option("--deps", Opt->DepsFile,
                  "Write the files the run read to this file, one path a line (for build "
                  "systems)");
  Sub->add_option("--message-format", Opt->MessageFormat,
                  "How errors and warnings are printed: plain (default) or msbuild (MSBuild's "
                  "\"FILE(LINE,COL): error WEFT0001: ...\", for build systems)")
      ->check(CLI::IsMember({"plain", "msbuild"}));
  Sub->add_flag("--fail-fast", Opt->FailFast,
                "Stop at the first input that fails (by default the others are still woven)");
  Sub->add_option("--keep-originals", Opt->KeepOriginals,
                  "With --in-place: keep each file it replaces (assembly, PDB) in this folder, "
                  "as a hard link where it can (a test run's originals, put back after it)");
  Sub->add_option("--side-files-dir", Opt->SideFilesDir,
                  "Write the passes' side files (coverage's map, ...) to this folder, each named "
                  "after its output's file name, rather than beside the outputs");
  Sub->add_flag("--require-woven", Opt->RequireWoven,
                "Exit with code 3 when no pass changed a method of any input (the outputs are "
                "written all the same): a coverage filter that leaves out everything, say");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
