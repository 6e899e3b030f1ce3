//===- cli/WeaveCommand.cpp - weft weave ----------------------------------===//
//
// Reads an assembly, applies the passes that --pass or --spec select (none: the round trip) and
// writes it anew, with any side files the passes make next to it.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "metadata/Editor.h"
#include "metadata/Resolver.h"
#include "metadata/pdb/Read.h"
#include "metadata/pdb/Rewrite.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/StrongName.h"
#include "support/Deflate.h"
#include "weaver/ModuleWriter.h"
#include "weaver/ReadAll.h"
#include "weaver/Symbols.h"
#include "weaver/passes/Pass.h"
#include "weaver/passes/Weaver.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

struct WeaveOptions {
  std::string File;
  std::string Output;
  std::string KeyFile;
  std::string SpecFile;
  std::vector<std::string> Passes;
  unsigned Threads = 0;
  bool InPlace = false;
  bool VerifyEach = false;
  bool Force = false;
  bool Verbose = false;
};

/// `name` or `name:k=v,k=v`.
Expected<spec::PassUse> parsePassOption(StringRef Text) {
  spec::PassUse U;
  auto [Name, Rest] = Text.split(':');
  U.Pass = Name.trim().str();
  U.Rule = "--pass " + Text.str();
  if (U.Pass.empty())
    return createStringError(inconvertibleErrorCode(), "--pass '" + Text + "': no pass name");
  SmallVector<StringRef, 4> Items;
  if (!Rest.empty())
    Rest.split(Items, ',');
  for (StringRef Item : Items) {
    auto [K, V] = Item.split('=');
    if (K.trim().empty() || !Item.contains('='))
      return createStringError(inconvertibleErrorCode(), "--pass '" + Text + "': option '" + Item +
                                                             "' is not of the form key=value");
    U.Options.emplace_back(K.trim().str(), V.trim().str());
  }
  return U;
}

int run(const WeaveOptions &Opt) {
  if (Opt.Output.empty() && !Opt.InPlace) {
    reportError("weave needs -o OUTPUT (or --in-place to replace the input)");
    return ExitUsage;
  }
  if (!Opt.Output.empty() && Opt.InPlace) {
    reportError("-o and --in-place exclude each other");
    return ExitUsage;
  }
  std::string Output = Opt.InPlace ? Opt.File : Opt.Output;
  std::optional<pe::StrongNameKey> Key;
  if (!Opt.KeyFile.empty()) {
    auto Blob = MemoryBuffer::getFile(Opt.KeyFile, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
    if (!Blob)
      return reportError(createFileError(Opt.KeyFile, errorCodeToError(Blob.getError())));
    Expected<pe::StrongNameKey> K =
        pe::StrongNameKey::parse(arrayRefFromStringRef((*Blob)->getBuffer()));
    if (!K)
      return reportError(createFileError(Opt.KeyFile, K.takeError()));
    Key = std::move(*K);
    Key->setName("'" + Opt.KeyFile + "'");
  }
  // The spec first: a bad one is reported before the input is read.
  std::optional<spec::Spec> Spec;
  if (!Opt.SpecFile.empty() && !Opt.Passes.empty()) {
    reportError("--spec and --pass exclude each other (name the passes in the spec)");
    return ExitUsage;
  }
  if (!Opt.SpecFile.empty()) {
    Expected<spec::Spec> S = spec::Spec::load(Opt.SpecFile);
    if (!S)
      return reportError(S.takeError());
    Spec = std::move(*S);
  } else if (!Opt.Passes.empty()) {
    std::vector<spec::PassUse> Uses;
    for (const std::string &P : Opt.Passes) {
      Expected<spec::PassUse> U = parsePassOption(P);
      if (!U)
        return reportError(U.takeError());
      Uses.push_back(std::move(*U));
    }
    Spec = spec::Spec::forPasses(std::move(Uses));
  }
  if (Spec)
    for (const spec::PassUse *U : Spec->passUses())
      if (!passes::PassRegistry::global().find(U->Pass))
        return reportError(Twine(Opt.SpecFile.empty() ? "" : Opt.SpecFile + ": ") + U->Rule +
                           ": unknown pass '" + U->Pass +
                           "' (known passes: " + passes::PassRegistry::global().names() + ")");

  Expected<Input> In = openInput(Opt.File);
  if (!In)
    return reportError(In.takeError());
  // The whole input is read first: a file that does not read fully is not rewritten.
  ReadStats Stats;
  ReadOptions RO;
  RO.CustomAttributes = false; // their blobs are copied, not re-encoded
  if (Error E = readEverything(*In->Image, *In->Module, Stats, RO))
    return reportError(createFileError(Opt.File, std::move(E)));

  metadata::Editor Editor(*In->Module);
  passes::WeaveOutcome Woven;
  if (Spec) {
    Expected<spec::Selection> Sel = spec::select(*Spec, *In->Module);
    if (!Sel)
      return reportError(
          createFileError(Opt.SpecFile.empty() ? Opt.File : Opt.SpecFile, Sel.takeError()));
    metadata::AssemblyResolver Resolver(metadata::AssemblyResolver::searchDirsFor(Opt.File));
    passes::WeaveOptions WO;
    WO.Threads = Opt.Threads;
    WO.VerifyEach = Opt.VerifyEach;
    WO.Force = Opt.Force;
    WO.Resolver = &Resolver;
    WO.KeepRemaps =
        sys::fs::exists(separatePdbPath(*In->Image, Opt.File)) || hasEmbeddedPdb(*In->Image);
    WO.InputPath = Opt.File;
    Expected<passes::WeaveOutcome> Out = passes::weave(*In->Image, Editor, *Sel, WO);
    if (!Out)
      return reportError(createFileError(Opt.File, Out.takeError()));
    Woven = std::move(*Out);
    for (const std::string &W : Woven.Warnings)
      reportWarning("'" + Opt.File + "': " + W);
    if (Opt.Verbose) {
      for (const std::string &S : Woven.Skipped)
        errs() << "weft: skipped " << S << "\n";
      for (const std::string &N : Woven.Notes)
        errs() << "weft: note: " << N << "\n";
      errs() << "weft: " << Woven.MethodsChanged << " methods changed, " << Woven.Skipped.size()
             << " left alone by a pass, " << Woven.BranchesLengthened
             << " short branches made long\n";
    }
  }
  // A separate portable PDB next to the input goes next to the output: rewritten when method
  // bodies changed, copied as it is when none did (IL offsets and the PDB id are the same).
  SmallString<256> InPdb(separatePdbPath(*In->Image, Opt.File)), OutPdb(Output);
  // A PDB named after the assembly is named after the output; one the CodeView entry names keeps
  // its name, next to the output.
  if (sys::path::filename(InPdb) == (sys::path::stem(Opt.File) + ".pdb").str()) {
    sys::path::replace_extension(OutPdb, "pdb");
  } else {
    OutPdb = sys::path::parent_path(Output);
    sys::path::append(OutPdb, sys::path::filename(InPdb));
  }
  std::optional<PdbUpdate> Pdb;
  if (!Woven.Remaps.empty()) {
    std::string Warning;
    Pdb = updatePdb(*In->Image, Opt.File, InPdb, Woven.Remaps, Warning);
    if (!Warning.empty())
      reportWarning(Warning);
  }
  Expected<WrittenModule> W = writeModule(*In->Image, Editor, Woven.Bodies, Key ? &*Key : nullptr,
                                          Pdb ? Pdb->DebugData : pe::DebugDataOverrides{});
  if (!W)
    return reportError(createFileError(Opt.File, W.takeError()));
  if (W->Report.WasReadyToRun)
    reportWarning("'" + Opt.File +
                  "' is a ReadyToRun image: written as IL only (the runtime "
                  "compiles it when it runs)");
  if (W->Report.StrongNameRemoved)
    reportWarning("'" + Opt.File +
                  "' is strong-name signed: the output is not signed (give "
                  "--key to sign it)");
  if (W->Report.AuthenticodeRemoved)
    reportWarning("'" + Opt.File +
                  "' has an Authenticode signature, which does not apply to the "
                  "output and was left out");
  if (Error E = writeFileAtomically(Output, W->Bytes))
    return reportError(std::move(E));
  for (const auto &[Suffix, Contents] : Woven.SideFiles)
    if (Error E = writeFileAtomically(Output + Suffix, arrayRefFromStringRef(Contents)))
      return reportError(std::move(E));

  if (Pdb && !Pdb->Embedded) {
    if (Error E = writeFileAtomically(OutPdb, Pdb->Bytes))
      return reportError(std::move(E));
  } else if (InPdb != OutPdb && sys::fs::exists(InPdb) && Woven.Remaps.empty()) {
    auto Copy = MemoryBuffer::getFile(InPdb, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Copy)
      return reportError(createFileError(InPdb, errorCodeToError(Copy.getError())));
    if (Error E = writeFileAtomically(OutPdb, arrayRefFromStringRef((*Copy)->getBuffer())))
      return reportError(std::move(E));
  }
  return ExitOk;
}

} // namespace

Runner addWeaveCommand(CLI::App &App) {
  auto Opt = std::make_shared<WeaveOptions>();
  CLI::App *Sub = App.add_subcommand(
      "weave",
      "Rewrite an assembly with instrumentation passes (with none: a faithful round trip)");
  Sub->add_option("file", Opt->File, "The assembly")->required();
  Sub->add_option("-o,--output", Opt->Output, "Where to write the result");
  Sub->add_flag("--in-place", Opt->InPlace, "Replace the input (atomically)");
  Sub->add_option("--key", Opt->KeyFile,
                  "Strong-name sign the output with this key pair (.snk); an assembly that has "
                  "a public key must have this key's");
  Sub->add_option("--pass", Opt->Passes,
                  "Apply a pass to every method with a body: NAME or NAME:key=value,... "
                  "(repeatable; `weft passes` lists them)");
  Sub->add_option("--spec", Opt->SpecFile,
                  "An instrumentation spec (JSON, docs/spec.md) choosing passes per method");
  Sub->add_flag("--verify-each", Opt->VerifyEach,
                "Verify every method after every pass, naming the pass that broke one");
  Sub->add_option("--threads", Opt->Threads, "Threads for the passes (default: one per core)");
  Sub->add_flag("--force", Opt->Force, "Weave an assembly that weft has already woven");
  Sub->add_flag("-v,--verbose", Opt->Verbose,
                "Say which methods each pass left alone and why, and what it changed");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
