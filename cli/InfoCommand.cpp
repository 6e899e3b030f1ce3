//===- cli/InfoCommand.cpp - weft info ------------------------------------===//
//
// Headers, flags, the runtime version, debug entries and the row count of every table of an
// assembly, as text or JSON.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"
#include "il/BodyReader.h"
#include "metadata/Schema.h"
#include "pe/StrongName.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::cli {

namespace {

struct InfoOptions {
  std::string File;
  bool Json = false;
  bool Bodies = false;
};

std::string hex32(uint32_t V) { return "0x" + hexstr(V, false, 8); }

std::string guidText(ArrayRef<uint8_t> G) {
  // Mixed-endian, as Windows prints GUIDs.
  auto B = [&](unsigned I) { return hexstr(G[I], true, 2); };
  return B(3) + B(2) + B(1) + B(0) + "-" + B(5) + B(4) + "-" + B(7) + B(6) + "-" + B(8) + B(9) +
         "-" + B(10) + B(11) + B(12) + B(13) + B(14) + B(15);
}

struct BodyInfo {
  uint32_t Token;
  uint32_t CodeSize;
};

json::Object tableCounts(const Module &M) {
  json::Object T;
  for (unsigned I = 0; I < MaxTables; ++I)
    if (M.hasTable(TableId(I)))
      T[tableName(I)] = int64_t(M.rowCount(TableId(I)));
  return T;
}

void printTables(raw_ostream &OS, const Module &M) {
  OS << "tables:\n";
  for (unsigned I = 0; I < MaxTables; ++I)
    if (M.hasTable(TableId(I)))
      OS << "  " << left_justify(tableName(I), 24) << format_decimal(M.rowCount(TableId(I)), 8)
         << '\n';
}

// A standalone portable PDB: its id, entry point and tables.
int runPdb(const InfoOptions &Opt, const Module &M) {
  const PdbStream *P = M.pdb() ? &*M.pdb() : nullptr;
  if (Opt.Json) {
    json::Object Root;
    Root["file"] = Opt.File;
    Root["format"] = "portable PDB";
    Root["metadata_version"] = M.versionString();
    if (P) {
      Root["pdb_id"] = toHex(P->Id, /*LowerCase=*/true);
      Root["entry_point"] = hex32(P->EntryPoint);
    }
    Root["tables"] = tableCounts(M);
    out() << formatv("{0:2}", json::Value(std::move(Root))) << '\n';
    return ExitOk;
  }
  raw_ostream &OS = out();
  OS << left_justify("file:", 19) << Opt.File << '\n';
  OS << left_justify("format:", 19) << "portable PDB, metadata " << M.versionString() << '\n';
  if (P) {
    OS << left_justify("PDB id:", 19) << toHex(P->Id, true) << '\n';
    OS << left_justify("entry point:", 19) << (P->EntryPoint ? hex32(P->EntryPoint) : "none")
       << '\n';
  }
  printTables(OS, M);
  return ExitOk;
}

int run(const InfoOptions &Opt) {
  Expected<Input> In = openInput(Opt.File, /*AllowNative=*/true, /*AllowPdb=*/true);
  if (!In)
    return reportError(In.takeError());
  if (In->isPdb())
    return runPdb(Opt, *In->Module);
  const pe::Image &Img = *In->Image;
  const Module *M = In->Module.get();

  // Method bodies: how many, and how much IL.
  std::vector<BodyInfo> Bodies;
  uint64_t ILBytes = 0;
  if (M)
    for (uint32_t R = 1; R <= M->rowCount(TableId::MethodDef); ++R) {
      Expected<std::optional<il::RawMethodBody>> B = il::readMethodDefBody(Img, *M, R);
      if (!B)
        return reportError(createFileError(Opt.File, B.takeError()));
      if (!*B)
        continue;
      Bodies.push_back({makeToken(TableId::MethodDef, R), uint32_t((*B)->Code.size())});
      ILBytes += (*B)->Code.size();
    }
  Expected<std::vector<pe::DebugEntry>> Debug = Img.debugEntries();
  if (!Debug)
    return reportError(createFileError(Opt.File, Debug.takeError()));
  std::optional<pe::ReadyToRunHeader> R2R;
  if (Img.isReadyToRun()) {
    Expected<pe::ReadyToRunHeader> H = Img.readyToRunHeader();
    if (!H)
      return reportError(createFileError(Opt.File, H.takeError()));
    R2R = *H;
  }
  const auto &Cli = Img.cli();
  const pe::OptionalHeader &O = Img.optional();
  pe::StrongNameCheck StrongName;
  if (M && M->rowCount(TableId::Assembly))
    StrongName =
        pe::checkStrongName(Img, M->getBlob(M->get(TableId::Assembly, 1, AssemblyCol::PublicKey)));
  static const char *const StrongNameWords[] = {"unsigned", "valid", "invalid", "unchecked"};

  if (Opt.Json) {
    json::Object Root;
    Root["file"] = Opt.File;
    Root["format"] = Img.isPE32Plus() ? "PE32+" : "PE32";
    Root["machine"] = pe::machineName(Img.coff().Machine);
    Root["machine_code"] = int64_t(Img.coff().Machine);
    Root["characteristics"] = int64_t(Img.coff().Characteristics);
    Root["subsystem"] = int64_t(O.Subsystem);
    Root["sections"] = int64_t(Img.sections().size());
    Root["managed"] = bool(Cli);
    if (Cli) {
      json::Object C;
      C["runtime_version"] =
          std::to_string(Cli->MajorRuntimeVersion) + "." + std::to_string(Cli->MinorRuntimeVersion);
      C["flags"] = int64_t(Cli->Flags);
      C["il_only"] = bool(Cli->Flags & pe::CliILOnly);
      C["32bit_required"] = bool(Cli->Flags & pe::Cli32BitRequired);
      C["32bit_preferred"] = bool(Cli->Flags & pe::Cli32BitPreferred);
      C["strong_name_signed"] = bool(Cli->Flags & pe::CliStrongNameSigned);
      C["strong_name_signature"] = StrongNameWords[int(StrongName.State)];
      C["native_entry_point"] = bool(Cli->Flags & pe::CliNativeEntryPoint);
      C["entry_point"] = hex32(Cli->EntryPoint);
      Root["cli"] = std::move(C);
      Root["mixed_mode"] = Img.isMixedMode();
    }
    if (R2R) {
      json::Object RO;
      RO["version"] = std::to_string(R2R->MajorVersion) + "." + std::to_string(R2R->MinorVersion);
      RO["flags"] = int64_t(R2R->Flags);
      RO["flag_names"] = pe::readyToRunFlagNames(R2R->Flags);
      Root["ready_to_run"] = std::move(RO);
    } else {
      Root["ready_to_run"] = false;
    }
    json::Array D;
    for (const pe::DebugEntry &E : *Debug) {
      json::Object DO;
      DO["type"] = pe::debugTypeName(E.Type);
      DO["type_code"] = int64_t(E.Type);
      DO["version"] = std::to_string(E.MajorVersion) + "." + std::to_string(E.MinorVersion);
      if (E.CV) {
        DO["guid"] = guidText(E.CV->Guid);
        DO["age"] = int64_t(E.CV->Age);
        DO["path"] = E.CV->Path;
        DO["portable"] = E.isPortableCodeView();
      }
      if (E.Embedded)
        DO["uncompressed_size"] = int64_t(E.Embedded->UncompressedSize);
      if (E.Checksum) {
        DO["algorithm"] = E.Checksum->Algorithm;
        DO["checksum"] = toHex(E.Checksum->Checksum, /*LowerCase=*/true);
      }
      D.push_back(std::move(DO));
    }
    Root["debug"] = std::move(D);
    if (M) {
      Root["metadata_version"] = M->versionString();
      json::Array S;
      for (const StreamHeader &H : M->streams())
        S.push_back(json::Object{{"name", H.Name}, {"size", int64_t(H.Size)}});
      Root["streams"] = std::move(S);
      Root["tables"] = tableCounts(*M);
      Root["methods_with_body"] = int64_t(Bodies.size());
      Root["il_bytes"] = int64_t(ILBytes);
      if (Opt.Bodies) {
        json::Array B;
        for (const BodyInfo &BI : Bodies)
          B.push_back(
              json::Object{{"token", hex32(BI.Token)}, {"code_size", int64_t(BI.CodeSize)}});
        Root["method_bodies"] = std::move(B);
      }
    }
    out() << formatv("{0:2}", json::Value(std::move(Root))) << '\n';
    return ExitOk;
  }

  raw_ostream &OS = out();
  auto Line = [&](StringRef Key) -> raw_ostream & { return OS << left_justify(Key, 19); };
  Line("file:") << Opt.File << '\n';
  Line("format:") << (Img.isPE32Plus() ? "PE32+" : "PE32") << ", machine "
                  << pe::machineName(Img.coff().Machine) << " ("
                  << format_hex(Img.coff().Machine, 6) << "), " << Img.sections().size()
                  << " sections\n";
  Line("characteristics:") << format_hex(Img.coff().Characteristics, 6)
                           << ((Img.coff().Characteristics & 0x2000) ? " (DLL)" : " (EXE)") << '\n';
  Line("subsystem:") << pe::subsystemName(O.Subsystem) << " (" << O.Subsystem << ")\n";
  if (!Cli) {
    Line("managed:") << "no (no CLI header)\n";
    return ExitOk;
  }
  Line("CLI header:") << "runtime " << Cli->MajorRuntimeVersion << '.' << Cli->MinorRuntimeVersion
                      << '\n';
  std::string FlagWords;
  auto Flag = [&](bool On, StringRef W) {
    if (On)
      FlagWords += (FlagWords.empty() ? "" : ", ") + W.str();
  };
  Flag(Cli->Flags & pe::CliILOnly, "IL-only");
  Flag(Cli->Flags & pe::Cli32BitRequired, "32-bit required");
  Flag(Cli->Flags & pe::Cli32BitPreferred, "32-bit preferred");
  Flag(Cli->Flags & pe::CliStrongNameSigned, "strong-name signed");
  Flag(Cli->Flags & pe::CliNativeEntryPoint, "native entry point");
  Flag(Cli->Flags & pe::CliTrackDebugData, "track debug data");
  Line("flags:") << hex32(Cli->Flags) << (FlagWords.empty() ? "" : " (" + FlagWords + ")") << '\n';
  Line("entry point:") << (Cli->EntryPoint ? hex32(Cli->EntryPoint) : "none") << '\n';
  Line("runtime version:") << M->versionString() << '\n';
  Line("strong name:");
  if (Cli->Flags & pe::CliStrongNameSigned)
    OS << "signed, signature " << StrongNameWords[int(StrongName.State)]
       << (StrongName.Why.empty() ? "" : ": " + StrongName.Why) << '\n';
  else
    OS << (Cli->StrongNameSignature.Size ? "slot present, not signed" : "no") << '\n';
  Line("ReadyToRun:");
  if (R2R)
    OS << "yes, version " << R2R->MajorVersion << '.' << R2R->MinorVersion
       << (R2R->Flags ? ", " + pe::readyToRunFlagNames(R2R->Flags) : std::string()) << '\n';
  else
    OS << "no\n";
  Line("mixed-mode:") << (Img.isMixedMode() ? "yes (native code beside IL)" : "no") << '\n';
  if (Debug->empty())
    Line("debug:") << "none\n";
  for (size_t I = 0; I < Debug->size(); ++I) {
    const pe::DebugEntry &E = (*Debug)[I];
    Line(I == 0 ? "debug:" : "") << pe::debugTypeName(E.Type);
    if (E.CV)
      OS << (E.isPortableCodeView() ? " (portable PDB)" : "") << " {" << guidText(E.CV->Guid)
         << "} age " << E.CV->Age << " '" << E.CV->Path << "'";
    if (E.Embedded)
      OS << ", " << E.Embedded->UncompressedSize << " bytes uncompressed";
    if (E.Checksum)
      OS << ' ' << E.Checksum->Algorithm << ':' << toHex(E.Checksum->Checksum, true);
    OS << '\n';
  }
  Line("streams:");
  for (size_t I = 0; I < M->streams().size(); ++I)
    OS << (I ? ", " : "") << M->streams()[I].Name << " (" << M->streams()[I].Size << ")";
  OS << '\n';
  printTables(OS, *M);
  Line("methods with body:") << Bodies.size() << '\n';
  Line("IL bytes:") << ILBytes << '\n';
  if (Opt.Bodies)
    for (const BodyInfo &BI : Bodies)
      OS << "  " << hex32(BI.Token) << ' ' << BI.CodeSize << '\n';
  return ExitOk;
}

} // namespace

Runner addInfoCommand(CLI::App &App) {
  auto Opt = std::make_shared<InfoOptions>();
  CLI::App *Sub = App.add_subcommand("info", "Show headers, flags and table sizes of an assembly");
  Sub->add_option("file", Opt->File, "The assembly")->required();
  Sub->add_flag("--json", Opt->Json, "Print JSON");
  Sub->add_flag("--bodies", Opt->Bodies, "Also list every method body's token and code size");
  return [Opt] { return run(*Opt); };
}

} // namespace weft::cli
