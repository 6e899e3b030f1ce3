//===- cli/DiffCommand.cpp - weft diff ------------------------------------===//
//
// Compares two assemblies, or with --woven a woven assembly and the one it was woven from: a
// unified diff of each method's IL text, methods matched by type, name and signature, and the
// metadata added, removed or changed around them. Exits as diff(1) does: 0 when the same, 1
// when different, 2 on trouble.
//
//===----------------------------------------------------------------------===//
#include "cli/Diff.h"
#include "cli/Tool.h"
#include "metadata/Resolver.h"
#include "pe/Sha256.h"
#include "support/Error.h"
#include "support/WorkerTeam.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace weft::cli {

std::vector<std::string> DiffResult::passesOf(const text::MethodChange &C) const {
  if (!Record || !C.RowB)
    return {};
  return Record->passesOf(C.RowB);
}

namespace {

struct DiffOptions {
  std::vector<std::string> Files;
  std::string Woven;
  std::vector<std::string> Methods;
  unsigned Context = 3;
  bool Stat = false;
  bool Json = false;
  std::string Baseline;
  bool UpdateBaseline = false;
};

int trouble(Error E) {
  reportError(std::move(E));
  return DiffTrouble;
}

std::optional<std::string> usageError(const DiffOptions &Opt) {
  if (!Opt.Woven.empty() && !Opt.Files.empty())
    return std::string("--woven names the woven assembly; it takes no other file");
  if (Opt.Woven.empty() && Opt.Files.size() != 2)
    return std::string("diff compares two assemblies (A.dll B.dll), or one woven assembly and "
                       "the one it was woven from (--woven OUT.dll)");
  if (Opt.UpdateBaseline && Opt.Baseline.empty())
    return std::string("--update-baseline needs --baseline FILE");
  if (!Opt.Baseline.empty() && (Opt.Json || Opt.Stat))
    return std::string("--baseline prints the baseline's differences: it excludes --json and "
                       "--stat");
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// --woven: the input the marker names, as it was
//===----------------------------------------------------------------------===//

/// The path of the input \p Record names, seen from the folder of the woven file.
std::string recordedInput(StringRef WovenPath, const passes::WovenRecord &Record) {
  if (sys::path::is_absolute(Record.Input))
    return Record.Input;
  SmallString<256> P(sys::path::parent_path(WovenPath));
  sys::path::append(P, Record.Input);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// The assembly the woven assembly \p Woven was woven from, opened and checked against the
/// record's hash.
Expected<Input> openOriginal(const std::string &WovenPath, const metadata::Module &Woven,
                             std::optional<passes::WovenRecord> &Record) {
  Expected<std::optional<passes::WovenRecord>> R = passes::readWovenRecord(Woven);
  if (!R)
    return createFileError(WovenPath, R.takeError());
  if (!*R)
    return createFileError(WovenPath, plainError("not woven by weft: it has no type <weft>.Woven"));
  Record = std::move(**R);
  std::string Path = recordedInput(WovenPath, *Record);
  if (sys::fs::equivalent(Path, WovenPath))
    return createFileError(WovenPath, plainError("was woven in place: the file it was woven "
                                                 "from is gone"));
  if (!sys::fs::exists(Path))
    return createFileError(Path, plainError("the file '" + WovenPath + "' was woven from is gone"));
  Expected<std::string> Hash = pe::fileSha256Hex(Path);
  if (!Hash)
    return Hash.takeError();
  if (*Hash != Record->InputSha256)
    return createFileError(Path, plainError("the file was changed since '" + WovenPath +
                                            "' was woven from it (SHA-256 " + *Hash +
                                            ", recorded " + Record->InputSha256 + ")"));
  return openInput(Path);
}

//===----------------------------------------------------------------------===//
// Text and --stat
//===----------------------------------------------------------------------===//

void writeMetadataChange(raw_ostream &OS, const text::MetadataChange &C) {
  OS << text::itemKindText(C.Kind) << ' ' << text::changeKindName(C.Change) << ": " << C.Name;
  if (C.Change == text::ChangeKind::Changed)
    OS << "  (" << C.Before << " -> " << C.After << ')';
  else if (const std::string &D = C.Change == text::ChangeKind::Added ? C.After : C.Before;
           !D.empty())
    OS << "  (" << D << ')';
  OS << '\n';
}

void writeMethodHeader(raw_ostream &OS, const DiffResult &R, const text::MethodChange &C) {
  OS << "method " << text::changeKindName(C.Kind) << ": " << C.Name;
  std::vector<std::string> Passes = R.passesOf(C);
  if (!Passes.empty())
    OS << "  [" << join(Passes, ", ") << ']';
  OS << '\n';
}

void writeText(raw_ostream &OS, const DiffResult &R) {
  if (R.Diff.same())
    return;
  OS << "--- " << R.PathA << "\n+++ " << R.PathB << '\n';
  for (const text::MetadataChange &C : R.Diff.Metadata)
    writeMetadataChange(OS, C);
  for (const text::MethodChange &C : R.Diff.Methods) {
    writeMethodHeader(OS, R, C);
    for (const text::TextHunk &H : C.Hunks) {
      OS << "@@ -" << H.AStart << ',' << H.ALines << " +" << H.BStart << ',' << H.BLines << " @@\n";
      for (const std::string &L : H.Lines)
        OS << L << '\n';
    }
  }
}

/// "3 types added, 1 field removed": the metadata changes counted by kind and change.
std::string metadataCounts(ArrayRef<text::MetadataChange> Changes) {
  std::map<std::pair<text::ItemKind, text::ChangeKind>, unsigned> Counts;
  for (const text::MetadataChange &C : Changes)
    ++Counts[{C.Kind, C.Change}];
  std::string S;
  for (auto &[Key, N] : Counts) {
    if (!S.empty())
      S += ", ";
    StringRef Kind = text::itemKindText(Key.first);
    std::string Plural = Kind.str();
    if (N != 1)
      Plural = Kind.endswith("y") ? Kind.drop_back().str() + "ies" : Kind.str() + "s";
    S += std::to_string(N) + " " + Plural + " " + text::changeKindName(Key.second).str();
  }
  return S;
}

// As `git diff --stat`: a line a method, its changed lines and a bar of +s and -s, then totals.
void writeStat(raw_ostream &OS, const DiffResult &R) {
  const std::vector<text::MethodChange> &Methods = R.Diff.Methods;
  size_t Width = 0;
  uint32_t Most = 0, Added = 0, Removed = 0, Lines[3] = {0, 0, 0};
  for (const text::MethodChange &C : Methods) {
    Width = std::max(Width, std::min<size_t>(C.Name.size(), 80));
    Most = std::max(Most, C.LinesAdded + C.LinesRemoved);
  }
  for (const text::MethodChange &C : Methods) {
    uint32_t N = C.LinesAdded + C.LinesRemoved;
    // A bar of at most 40 columns, scaled to the method with the most lines changed.
    uint32_t Plus = Most > 40 ? (C.LinesAdded * 40 + Most - 1) / Most : C.LinesAdded;
    uint32_t Minus = Most > 40 ? (C.LinesRemoved * 40 + Most - 1) / Most : C.LinesRemoved;
    OS << ' ' << left_justify(C.Name, Width) << " | " << right_justify(std::to_string(N), 5) << ' '
       << std::string(Plus, '+') << std::string(Minus, '-');
    if (C.Kind != text::ChangeKind::Changed)
      OS << " (" << text::changeKindName(C.Kind) << ')';
    OS << '\n';
    Added += C.LinesAdded;
    Removed += C.LinesRemoved;
    ++Lines[unsigned(C.Kind)];
  }
  OS << ' ' << Methods.size() << (Methods.size() == 1 ? " method" : " methods") << " differ ("
     << Lines[unsigned(text::ChangeKind::Changed)] << " changed, "
     << Lines[unsigned(text::ChangeKind::Added)] << " added, "
     << Lines[unsigned(text::ChangeKind::Removed)] << " removed) of " << R.Diff.MethodsCompared
     << ", " << Added << " insertions(+), " << Removed << " deletions(-)\n";
  if (!R.Diff.Metadata.empty())
    OS << " metadata: " << metadataCounts(R.Diff.Metadata) << '\n';
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

Expected<text::ModuleDiff> compare(const DiffOptions &Opt, const Input &A, const Input &B,
                                   bool HashTexts) {
  text::DiffOptions DO;
  for (const std::string &P : Opt.Methods) {
    Expected<GlobPattern> G = GlobPattern::create(P);
    if (!G)
      return plainError("bad --method pattern '" + P + "': " + toString(G.takeError()));
    DO.Methods.push_back(std::move(*G));
  }
  DO.Context = Opt.Context;
  DO.HashTexts = HashTexts;
  metadata::AssemblyResolver Frameworks(metadata::AssemblyResolver::sharedFrameworkDirs());
  metadata::AssemblyResolver RA(metadata::AssemblyResolver::searchDirsFor(A.Path, {}, false),
                                &Frameworks);
  metadata::AssemblyResolver RB(metadata::AssemblyResolver::searchDirsFor(B.Path, {}, false),
                                &Frameworks);
  DO.ResolverA = &RA;
  DO.ResolverB = &RB;
  WorkerTeam Team(hardware_concurrency().compute_thread_count());
  DO.Team = &Team;
  return text::diffModules({*A.Image, *A.Module, A.Path}, {*B.Image, *B.Module, B.Path}, DO);
}

/// The second assembly's record of its weave, if it has a readable one.
std::optional<passes::WovenRecord> recordOf(const metadata::Module &M) {
  Expected<std::optional<passes::WovenRecord>> R = passes::readWovenRecord(M);
  if (!R) {
    consumeError(R.takeError());
    return std::nullopt;
  }
  return std::move(*R);
}

int run(const DiffOptions &Opt) {
  if (std::optional<std::string> Usage = usageError(Opt)) {
    reportError(*Usage);
    return DiffTrouble;
  }
  DiffResult R;
  R.PathB = Opt.Woven.empty() ? Opt.Files[1] : Opt.Woven;
  Expected<Input> B = openInput(R.PathB);
  if (!B)
    return trouble(B.takeError());
  if (Opt.Woven.empty())
    R.Record = recordOf(*B->Module);
  Expected<Input> A =
      Opt.Woven.empty() ? openInput(Opt.Files[0]) : openOriginal(R.PathB, *B->Module, R.Record);
  if (!A)
    return trouble(A.takeError());
  R.PathA = A->Path;
  Expected<text::ModuleDiff> D = compare(Opt, *A, *B, !Opt.Baseline.empty());
  if (!D)
    return trouble(D.takeError());
  R.Diff = std::move(*D);
  if (!Opt.Baseline.empty())
    return runBaseline(R, Opt.Baseline, Opt.UpdateBaseline);
  if (Opt.Json)
    writeDiffJson(out(), R, Opt.Stat);
  else if (Opt.Stat)
    writeStat(out(), R);
  else
    writeText(out(), R);
  return R.Diff.same() ? DiffSame : DiffDifferent;
}

} // namespace

Runner addDiffCommand(CLI::App &App) {
  auto Opt = std::make_shared<DiffOptions>();
  CLI::App *Sub = App.add_subcommand(
      "diff", "Compare two assemblies: each method's IL and the metadata (exit 0 same, 1 "
              "different, 2 trouble)");
  Sub->add_option("files", Opt->Files, "The two assemblies, A.dll B.dll");
  Sub->add_option("--woven", Opt->Woven,
                  "Compare this woven assembly with the one it was woven from (its marker "
                  "records where that is and its hash)")
      ->type_name("OUT.dll");
  Sub->add_flag("--stat", Opt->Stat,
                "A summary: each method's lines added and removed, and the metadata changes "
                "counted");
  Sub->add_flag("--json", Opt->Json, "Machine-readable output (docs/weft-diff.schema.json)");
  Sub->add_option("--method", Opt->Methods,
                  "Only methods whose name or Type::Name matches this glob (repeatable); the "
                  "metadata is then not compared")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Sub->add_option("-U,--unified", Opt->Context, "Unchanged lines around each change (default 3)");
  Sub->add_option("--baseline", Opt->Baseline,
                  "Check what changed against this reviewed baseline (JSON), or write it when "
                  "it does not exist; exit 1 when the check finds differences")
      ->type_name("FILE");
  Sub->add_flag("--update-baseline", Opt->UpdateBaseline,
                "Write the --baseline file anew from this comparison");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
