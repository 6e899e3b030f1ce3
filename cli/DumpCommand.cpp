//===- cli/DumpCommand.cpp - weft dump ------------------------------------===//
//
// The assembly as IL text (ilasm syntax), or with --raw the stored structures.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "metadata/Resolver.h"
#include "support/Error.h"
#include "weaver/text/Disassembler.h"
#include "weaver/text/RawDump.h"

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
    std::vector<std::string> Dirs = Opt.RefDirs;
    Dirs.insert(Dirs.begin(), sys::path::parent_path(Opt.File).empty()
                                  ? std::string(".")
                                  : sys::path::parent_path(Opt.File).str());
    if (!Opt.NoFramework)
      for (std::string &D : metadata::AssemblyResolver::sharedFrameworkDirs())
        Dirs.push_back(std::move(D));
    metadata::AssemblyResolver Resolver(Dirs);
    DO.Resolver = &Resolver;
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
  Sub->add_flag("--no-framework", Opt->NoFramework,
                "Do not search the installed shared frameworks for referenced assemblies");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
