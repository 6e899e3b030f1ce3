//===- cli/WeaveCommand.cpp - weft weave ----------------------------------===//
//
// Reads an assembly, applies the selected passes (none yet: the round trip) and writes it anew.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "metadata/Editor.h"
#include "pe/StrongName.h"
#include "weaver/ModuleWriter.h"
#include "weaver/ReadAll.h"

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
  bool InPlace = false;
};

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
  Expected<WrittenModule> W =
      writeModule(*In->Image, Editor, std::map<uint32_t, NewBody>{}, Key ? &*Key : nullptr);
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

  // A separate portable PDB next to the input still describes the output when no method body
  // changed (IL offsets and the PDB id are the same): it goes next to the output.
  SmallString<256> InPdb(Opt.File), OutPdb(Output);
  sys::path::replace_extension(InPdb, "pdb");
  sys::path::replace_extension(OutPdb, "pdb");
  if (InPdb != OutPdb && sys::fs::exists(InPdb)) {
    if (W->BodiesWritten) {
      reportWarning("'" + InPdb + "': the symbols were not updated for the changed method bodies");
    } else {
      auto Pdb = MemoryBuffer::getFile(InPdb, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!Pdb)
        return reportError(createFileError(InPdb, errorCodeToError(Pdb.getError())));
      if (Error E = writeFileAtomically(OutPdb, arrayRefFromStringRef((*Pdb)->getBuffer())))
        return reportError(std::move(E));
    }
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
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
