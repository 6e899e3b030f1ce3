//===- cli/DumpCommand.cpp - weft dump ------------------------------------===//
//
// The assembly as IL text (ilasm syntax), or with --raw the stored structures.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "metadata/Resolver.h"
#include "metadata/pdb/SequencePoints.h"
#include "support/Deflate.h"
#include "support/Error.h"
#include "weaver/Symbols.h"
#include "weaver/text/Disassembler.h"
#include "weaver/text/RawDump.h"

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

int run(const DumpOptions &Opt) {
  std::string Text;
  raw_string_ostream OS(Text);
  Error Problem = Error::success();
  if (Opt.Raw) {
    auto Buf = MemoryBuffer::getFile(Opt.File, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf)
      return reportError(createFileError(Opt.File, errorCodeToError(Buf.getError())));
    Problem = text::rawDump(OS, arrayRefFromStringRef((*Buf)->getBuffer()));
  } else {
    Expected<Input> In = openInput(Opt.File);
    if (!In)
      return reportError(In.takeError());
    text::DisassemblerOptions DO;
    for (const std::string &P : Opt.Types) {
      Expected<GlobPattern> G = GlobPattern::create(P);
      if (!G)
        return reportError(
            createStringError(inconvertibleErrorCode(),
                              "bad --type pattern '" + P + "': " + toString(G.takeError())));
      DO.Types.push_back(std::move(*G));
    }
    for (const std::string &P : Opt.Methods) {
      Expected<GlobPattern> G = GlobPattern::create(P);
      if (!G)
        return reportError(
            createStringError(inconvertibleErrorCode(),
                              "bad --method pattern '" + P + "': " + toString(G.takeError())));
      DO.Methods.push_back(std::move(*G));
    }
    metadata::AssemblyResolver Resolver(
        metadata::AssemblyResolver::searchDirsFor(Opt.File, Opt.RefDirs, !Opt.NoFramework));
    DO.Resolver = &Resolver;
    // --source: the portable PDB given, the one next to the input, or the one embedded in it.
    std::unique_ptr<metadata::pdb::PortablePdb> Pdb;
    std::vector<uint8_t> Inflated;
    std::unique_ptr<metadata::Module> EmbeddedPdb;
    if (Opt.Source || !Opt.PdbPath.empty()) {
      SmallString<256> Path(Opt.PdbPath);
      if (Path.empty())
        Path = separatePdbPath(*In->Image, Opt.File);
      if (Opt.PdbPath.empty() && !sys::fs::exists(Path)) {
        Expected<std::vector<pe::DebugEntry>> Entries = In->Image->debugEntries();
        if (!Entries)
          return reportError(createFileError(Opt.File, Entries.takeError()));
        for (const pe::DebugEntry &E : *Entries)
          if (E.Embedded) {
            Expected<std::vector<uint8_t>> Bytes =
                inflateRaw(E.Embedded->Compressed, E.Embedded->UncompressedSize,
                           64 * uint64_t(In->Image->bytes().size()) + (1 << 20),
                           "embedded portable PDB", E.PointerToRawData + 8);
            if (!Bytes)
              return reportError(createFileError(Opt.File, Bytes.takeError()));
            Inflated = std::move(*Bytes);
          }
        if (Inflated.empty())
          return reportError("'" + Opt.File + "' has no PDB: no '" + Path +
                             "' and no embedded portable PDB");
        Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(Inflated, 0);
        if (!M)
          return reportError(createFileError(Opt.File + " (embedded PDB)", M.takeError()));
        EmbeddedPdb = std::move(*M);
        DO.Pdb = EmbeddedPdb.get();
      } else {
        Expected<std::unique_ptr<metadata::pdb::PortablePdb>> P =
            metadata::pdb::PortablePdb::open(Path);
        if (!P)
          return reportError(P.takeError());
        Pdb = std::move(*P);
        DO.Pdb = &Pdb->module();
      }
    }
    Problem = text::disassemble(OS, *In->Image, *In->Module, DO);
  }
  OS.flush();
  if (Problem) {
    // Whatever could be shown is shown; the exit code and message say the file has a problem.
    if (Opt.Output.empty() || Opt.Output == "-")
      outs() << Text;
    return reportError(createFileError(Opt.File, std::move(Problem)));
  }
  if (Opt.Output.empty() || Opt.Output == "-") {
    outs() << Text;
    return ExitOk;
  }
  if (Error E = writeFileAtomically(Opt.Output, arrayRefFromStringRef(Text)))
    return reportError(std::move(E));
  return ExitOk;
}

} // namespace

Runner addDumpCommand(CLI::App &App) {
  auto Opt = std::make_shared<DumpOptions>();
  CLI::App *Sub = App.add_subcommand("dump", "Disassemble an assembly to IL text (ilasm syntax)");
  Sub->add_option("file", Opt->File, "The assembly")->required();
  Sub->add_option("-o,--output", Opt->Output, "Write to this file instead of standard output");
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
