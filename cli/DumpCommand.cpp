//===- cli/DumpCommand.cpp - weft dump ------------------------------------===//
//
// The assembly as IL text (ilasm syntax), or with --raw the stored structures.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "iltext/Disassembler.h"
#include "iltext/RawDump.h"
#include "metadata/Resolver.h"
#include "metadata/pdb/SequencePoints.h"
#include "support/Deflate.h"
#include "support/Error.h"
#include "weaving/Symbols.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

struct DumpOptions {
  std::string File;
  std::string Output;
  bool Raw = false;
  std::vector<std::string> Types, Methods, RefDirs;
  bool NoFramework = false;
  bool Source = false;
  std::string PdbPath;
};

Error addFilters(const DumpOptions &Opt, text::DisassemblerOptions &DO) {
  auto Add = [](const std::vector<std::string> &Patterns, StringRef Flag,
                std::vector<GlobPattern> &Into) -> Error {
    for (const std::string &P : Patterns) {
      Expected<GlobPattern> G = GlobPattern::create(P);
      if (!G)
        return plainError("bad " + Flag + " pattern '" + P + "': " + toString(G.takeError()));
      Into.push_back(std::move(*G));
    }
    return Error::success();
  };
  if (Error E = Add(Opt.Types, "--type", DO.Types))
    return E;
  return Add(Opt.Methods, "--method", DO.Methods);
}

/// The portable PDB --source shows, kept alive while the text is written.
struct SourcePdb {
  std::unique_ptr<metadata::pdb::PortablePdb> File;
  std::vector<uint8_t> Inflated;
  std::unique_ptr<metadata::Module> Embedded;
};

// The image's embedded portable PDB, inflated into \p Pdb.
Error openEmbeddedPdb(const DumpOptions &Opt, const Input &In, StringRef NotFound, SourcePdb &Pdb) {
  Expected<std::vector<pe::DebugEntry>> Entries = In.Image->debugEntries();
  if (!Entries)
    return createFileError(Opt.File, Entries.takeError());
  for (const pe::DebugEntry &E : *Entries)
    if (E.Embedded) {
      Expected<std::vector<uint8_t>> Bytes =
          inflateRaw(E.Embedded->Compressed, E.Embedded->UncompressedSize,
                     64 * uint64_t(In.Image->bytes().size()) + (1 << 20), "embedded portable PDB",
                     E.PointerToRawData + 8);
      if (!Bytes)
        return createFileError(Opt.File, Bytes.takeError());
      Pdb.Inflated = std::move(*Bytes);
    }
  if (Pdb.Inflated.empty())
    return plainError("'" + Opt.File + "' has no PDB: no '" + NotFound +
                      "' and no embedded portable PDB");
  Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(Pdb.Inflated, 0);
  if (!M)
    return createFileError(Opt.File + " (embedded PDB)", M.takeError());
  Pdb.Embedded = std::move(*M);
  return Error::success();
}

// --source: the portable PDB given, the one next to the input, or the one embedded in it.
Error openSourcePdb(const DumpOptions &Opt, const Input &In, SourcePdb &Pdb,
                    text::DisassemblerOptions &DO) {
  if (!Opt.Source && Opt.PdbPath.empty())
    return Error::success();
  SmallString<256> Path(Opt.PdbPath);
  if (Path.empty())
    Path = separatePdbPath(*In.Image, Opt.File);
  if (Opt.PdbPath.empty() && !sys::fs::exists(Path)) {
    if (Error E = openEmbeddedPdb(Opt, In, Path, Pdb))
      return E;
    DO.Pdb = Pdb.Embedded.get();
    return Error::success();
  }
  Expected<std::unique_ptr<metadata::pdb::PortablePdb>> P = metadata::pdb::PortablePdb::open(Path);
  if (!P)
    return P.takeError();
  Pdb.File = std::move(*P);
  DO.Pdb = &Pdb.File->module();
  return Error::success();
}

// ILAsm reads an embedded resource from the file of its name beside the text, as ildasm leaves it:
// with -o, each one is written there (names that are no plain file name are left out, as the
// text says).
Error writeResourcesBeside(const DumpOptions &Opt, const Input &In) {
  const metadata::Module &M = *In.Module;
  for (uint32_t Row = 1; Row <= M.rowCount(metadata::TableId::ManifestResource); ++Row) {
    if (metadata::tokenRow(M.getToken(metadata::TableId::ManifestResource, Row,
                                      metadata::ManifestResourceCol::Implementation)))
      continue;
    StringRef Name = M.getString(
        M.get(metadata::TableId::ManifestResource, Row, metadata::ManifestResourceCol::Name));
    if (!text::resourceFileNameIsPlain(Name))
      continue;
    SmallString<256> Path(sys::path::parent_path(Opt.Output));
    sys::path::append(Path, Name);
    if (sys::fs::equivalent(Path, Opt.Output))
      return plainError("the resource '" + Name + "' would overwrite the text '" + Opt.Output +
                        "'");
    Expected<ArrayRef<uint8_t>> Bytes = text::embeddedResource(*In.Image, M, Row);
    if (!Bytes)
      return createFileError(Opt.File, Bytes.takeError());
    if (Error E = writeFileAtomically(Path, *Bytes))
      return E;
  }
  return Error::success();
}

// The IL text of the input into \p OS; the error is the first problem met, after everything
// that could be written was.
Error disassembleInput(const DumpOptions &Opt, const Input &In, raw_ostream &OS) {
  text::DisassemblerOptions DO;
  if (Error E = addFilters(Opt, DO))
    return E;
  metadata::AssemblyResolver Resolver(
      metadata::AssemblyResolver::searchDirsFor(Opt.File, Opt.RefDirs, !Opt.NoFramework));
  DO.Resolver = &Resolver;
  SourcePdb Pdb;
  if (Error E = openSourcePdb(Opt, In, Pdb, DO))
    return E;
  if (Error E = text::disassemble(OS, *In.Image, *In.Module, DO))
    return createFileError(Opt.File, std::move(E));
  return Error::success();
}

bool toStandardOutput(const DumpOptions &Opt) { return Opt.Output.empty() || Opt.Output == "-"; }

int run(const DumpOptions &Opt) {
  std::string Text;
  raw_string_ostream OS(Text);
  Error Problem = Error::success();
  std::optional<Input> In;
  if (Opt.Raw) {
    auto Buf = MemoryBuffer::getFile(Opt.File, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf)
      return reportError(createFileError(Opt.File, errorCodeToError(Buf.getError())));
    if (Error E = text::rawDump(OS, arrayRefFromStringRef((*Buf)->getBuffer())))
      Problem = joinErrors(std::move(Problem), createFileError(Opt.File, std::move(E)));
  } else {
    Expected<Input> Opened = openInput(Opt.File);
    if (!Opened)
      return reportError(Opened.takeError());
    In.emplace(std::move(*Opened));
    Problem = joinErrors(std::move(Problem), disassembleInput(Opt, *In, OS));
  }
  OS.flush();
  if (Problem) {
    // Whatever could be shown is shown; the exit code and message say the file has a problem.
    if (toStandardOutput(Opt))
      out() << Text;
    return reportError(std::move(Problem));
  }
  if (toStandardOutput(Opt)) {
    out() << Text;
    return ExitOk;
  }
  // The resources go beside a file, never beside a device or FIFO (into /dev, say).
  bool Beside = isRegularOutput(Opt.Output);
  if (Error E = writeFileAtomically(Opt.Output, arrayRefFromStringRef(Text)))
    return reportError(std::move(E));
  if (In && Beside)
    if (Error E = writeResourcesBeside(Opt, *In))
      return reportError(std::move(E));
  return ExitOk;
}

} // namespace

Runner addDumpCommand(CLI::App &App) {
  auto Opt = std::make_shared<DumpOptions>();
  CLI::App *Sub = App.add_subcommand("dump", "Disassemble an assembly to IL text (ilasm syntax)");
  Sub->add_option("file", Opt->File, "The assembly")->required();
  Sub->add_option("-o,--output", Opt->Output,
                  "Write to this file instead of standard output (and the embedded resources "
                  "beside it, where ilasm looks for them)");
  Sub->add_flag("--raw", Opt->Raw,
                "Show the stored structures (headers, streams, table rows, method headers) with "
                "offsets and sizes; works on files the full reader refuses");
  auto OnePerFlag = [](CLI::Option *O) {
    O->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  OnePerFlag(Sub->add_option("--type", Opt->Types,
                             "Only types whose full name matches this glob (repeatable)"));
  OnePerFlag(
      Sub->add_option("--method", Opt->Methods,
                      "Only methods whose name or Type::Name matches this glob (repeatable)"));
  OnePerFlag(Sub->add_option("--ref-dir", Opt->RefDirs,
                             "Also look for referenced assemblies here (repeatable); the input's "
                             "folder and the installed shared frameworks are always searched"));
  Sub->add_flag("--source", Opt->Source,
                "Show the sequence points of the portable PDB next to the input as .line "
                "directives before the instructions they start at");
  Sub->add_option("--pdb", Opt->PdbPath, "The portable PDB for --source (implies it)");
  Sub->add_flag("--no-framework", Opt->NoFramework,
                "Do not search the installed shared frameworks for referenced assemblies");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
