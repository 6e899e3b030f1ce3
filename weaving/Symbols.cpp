//===- weaving/Symbols.cpp - The PDB of a woven assembly ------------------===//
#include "weaving/Symbols.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/Deflate.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace weft {

bool hasEmbeddedPdb(const pe::Image &Img) {
  Expected<std::vector<pe::DebugEntry>> Entries = Img.debugEntries();
  if (!Entries) {
    consumeError(Entries.takeError());
    return false;
  }
  for (const pe::DebugEntry &E : *Entries)
    if (E.Embedded)
      return true;
  return false;
}

Expected<std::optional<std::vector<uint8_t>>>
embeddedPdb(const pe::Image &Img, ArrayRef<pe::DebugEntry> Entries) {
  for (const pe::DebugEntry &E : Entries)
    if (E.Embedded) {
      // A deflate stream can grow its input a thousandfold: the PDB of an assembly is bounded
      // by the assembly's size.
      Expected<std::vector<uint8_t>> Bytes =
          inflateRaw(E.Embedded->Compressed, E.Embedded->UncompressedSize,
                     64 * uint64_t(Img.bytes().size()) + (1 << 20), "embedded portable PDB",
                     E.PointerToRawData + 8);
      if (!Bytes)
        return Bytes.takeError();
      return std::optional<std::vector<uint8_t>>(std::move(*Bytes));
    }
  return std::nullopt;
}

std::optional<PdbUpdate> updatePdb(const pe::Image &Img, StringRef AssemblyPath, StringRef PdbPath,
                                   const std::map<uint32_t, metadata::pdb::BodyRemap> &Remaps,
                                   std::string &Warning) {
  std::string Where = ("'" + PdbPath + "'").str();
  auto NotUpdated = [&](const Twine &Why) {
    Warning =
        (Where + ": " + Why + "; the symbols were not updated for the changed method " + "bodies")
            .str();
    return std::nullopt;
  };
  Expected<std::vector<pe::DebugEntry>> Entries = Img.debugEntries();
  if (!Entries)
    return NotUpdated(toString(Entries.takeError()));

  // The PDB's bytes: the file, or the embedded one inflated.
  std::unique_ptr<MemoryBuffer> File;
  std::vector<uint8_t> Inflated;
  ArrayRef<uint8_t> Old;
  bool Embedded = false;
  if (sys::fs::exists(PdbPath)) {
    auto Buf = MemoryBuffer::getFile(PdbPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf)
      return NotUpdated(Buf.getError().message());
    File = std::move(*Buf);
    Old = arrayRefFromStringRef(File->getBuffer());
    if (!metadata::looksLikePortablePdb(Old))
      return NotUpdated("a Windows PDB");
  } else {
    Where = ("'" + AssemblyPath + "' (embedded PDB)").str();
    Expected<std::optional<std::vector<uint8_t>>> Bytes = embeddedPdb(Img, *Entries);
    if (!Bytes)
      return NotUpdated(toString(Bytes.takeError()));
    if (!*Bytes)
      return std::nullopt;
    Inflated = std::move(**Bytes);
    Old = Inflated;
    Embedded = true;
  }
  Expected<std::unique_ptr<metadata::Module>> Pdb = metadata::Module::create(Old, 0);
  if (!Pdb)
    return NotUpdated(toString(Pdb.takeError()));
  if (!(*Pdb)->pdb())
    return NotUpdated("not a portable PDB (no #Pdb stream)");
  const std::array<uint8_t, 20> &Id = (*Pdb)->pdb()->Id;
  bool Named = false;
  // The id is the GUID and the stamp of the CodeView entry.
  uint32_t Stamp =
      uint32_t(Id[16]) | uint32_t(Id[17]) << 8 | uint32_t(Id[18]) << 16 | uint32_t(Id[19]) << 24;
  for (const pe::DebugEntry &E : *Entries)
    if (E.CV && std::equal(E.CV->Guid.begin(), E.CV->Guid.end(), Id.begin()) &&
        E.TimeDateStamp == Stamp)
      Named = true;
  if (!Named)
    return NotUpdated("its id is not the one the assembly's CodeView entry names");
  Expected<std::vector<uint8_t>> Bytes = metadata::pdb::rewritePdb(**Pdb, Remaps);
  if (!Bytes)
    return NotUpdated(toString(Bytes.takeError()));
  PdbUpdate U;
  U.Bytes = std::move(*Bytes);
  U.Embedded = Embedded;
  for (const pe::DebugEntry &E : *Entries) {
    if (!E.Checksum)
      continue;
    Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(U.Bytes, 0);
    if (!M)
      return NotUpdated("the rewritten PDB does not read back: " + toString(M.takeError()));
    Expected<std::vector<uint8_t>> Sum =
        metadata::pdb::pdbChecksum(U.Bytes, **M, E.Checksum->Algorithm);
    if (!Sum)
      return NotUpdated(toString(Sum.takeError()));
    std::vector<uint8_t> Data(E.Checksum->Algorithm.begin(), E.Checksum->Algorithm.end());
    Data.push_back(0);
    Data.insert(Data.end(), Sum->begin(), Sum->end());
    U.DebugData[pe::DebugPdbChecksum] = std::move(Data);
  }
  if (Embedded) {
    // "MPDB", the size inflated, the deflate stream.
    std::vector<uint8_t> Data{'M', 'P', 'D', 'B'};
    for (int I = 0; I < 4; ++I)
      Data.push_back(uint8_t(U.Bytes.size() >> (8 * I)));
    std::vector<uint8_t> Deflated = deflateRaw(U.Bytes);
    Data.insert(Data.end(), Deflated.begin(), Deflated.end());
    U.DebugData[pe::DebugEmbeddedPortablePdb] = std::move(Data);
  }
  return U;
}

std::string separatePdbPath(const pe::Image &Img, StringRef AssemblyPath) {
  SmallString<256> Same(AssemblyPath);
  sys::path::replace_extension(Same, "pdb");
  if (sys::fs::exists(Same))
    return std::string(Same);
  Expected<std::vector<pe::DebugEntry>> Entries = Img.debugEntries();
  if (!Entries) {
    consumeError(Entries.takeError());
    return std::string(Same);
  }
  // An embedded PDB is the assembly's own; a file by the CodeView name may be another build's.
  for (const pe::DebugEntry &E : *Entries)
    if (E.Embedded)
      return std::string(Same);
  for (const pe::DebugEntry &E : *Entries) {
    if (!E.CV || E.CV->Path.empty())
      continue;
    // The compiler's path may be a Windows one.
    StringRef Name = StringRef(E.CV->Path).rsplit('\\').second;
    if (Name.empty())
      Name = E.CV->Path;
    Name = sys::path::filename(Name);
    SmallString<256> Named(sys::path::parent_path(AssemblyPath));
    sys::path::append(Named, Name);
    if (sys::fs::exists(Named))
      return std::string(Named);
  }
  return std::string(Same);
}

} // namespace weft
