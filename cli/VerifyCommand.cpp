//===- cli/VerifyCommand.cpp - weft verify --------------------------------===//
//
// Reads an assembly completely and checks every method body and the sorted tables; prints each
// problem with the method, the IL offset and what is wrong.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "il/ReadAll.h"
#include "il/Verifier.h"
#include "metadata/Resolver.h"
#include "pe/StrongName.h"
#include "support/Format.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

struct VerifyOptions {
  std::string File;
  unsigned MaxErrors = 100;
};

int run(const VerifyOptions &Opt) {
  Expected<Input> In = openInput(Opt.File);
  if (!In)
    return reportError(In.takeError());
  metadata::AssemblyResolver Resolver(metadata::AssemblyResolver::searchDirsFor(Opt.File));
  ReadStats Stats;
  ReadOptions RO;
  RO.Resolver = &Resolver;
  if (Error E = readEverything(*In->Image, *In->Module, Stats, RO))
    return reportError(createFileError(Opt.File, std::move(E)));
  analysis::VerifyResult R = analysis::verifyModule(*In->Image, *In->Module);
  // The strong-name signature: a mismatch is a problem, except in a ReadyToRun image, whose
  // native code is compiled in after signing (the runtime does not check strong names).
  const metadata::Module &M = *In->Module;
  pe::StrongNameCheck SN;
  if (M.rowCount(metadata::TableId::Assembly))
    SN = pe::checkStrongName(*In->Image, M.getBlob(M.get(metadata::TableId::Assembly, 1,
                                                         metadata::AssemblyCol::PublicKey)));
  if (SN.State == pe::StrongNameState::Invalid && !In->Image->isReadyToRun())
    R.Problems.push_back({0, 0xFFFFFFFF, "strong-name signature", SN.Why});
  unsigned Shown = 0;
  for (const analysis::Diagnostic &D : R.Problems) {
    if (Shown++ == Opt.MaxErrors) {
      reportError("'" + Opt.File + "': " + Twine(R.Problems.size() - Opt.MaxErrors) +
                  " more problems not shown (--max-errors)");
      break;
    }
    std::string Where = D.Where;
    if (D.Method)
      Where += " (" + hex(D.Method, 8) + ")";
    if (D.ILOffset != 0xFFFFFFFF)
      Where += " at IL_" + hexstr(D.ILOffset, true, 4);
    reportError("'" + Opt.File + "': " + Where + ": " + D.What);
  }
  if (!R.Problems.empty()) {
    err() << R.Problems.size() << " problem" << (R.Problems.size() == 1 ? "" : "s") << " in "
          << R.MethodsWithProblems << " of " << R.MethodsChecked << " methods\n";
    return ExitError;
  }
  out() << Opt.File << ": " << R.MethodsChecked << " method bodies verified, " << Stats.Instructions
        << " instructions"
        << (SN.State == pe::StrongNameState::Valid ? ", strong-name signature valid" : "")
        << "; no problems\n";
  return ExitOk;
}

} // namespace

Runner addVerifyCommand(CLI::App &App) {
  auto Opt = std::make_shared<VerifyOptions>();
  CLI::App *Sub = App.add_subcommand(
      "verify", "Check every method body (stack, branches, exception clauses, tokens, locals) and "
                "the metadata of an assembly");
  Sub->add_option("file", Opt->File, "The assembly")->required();
  Sub->add_option("--max-errors", Opt->MaxErrors, "Show at most this many problems (default 100)");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
