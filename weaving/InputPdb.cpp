//===- weaving/InputPdb.cpp - The input's portable PDB --------------------===//
#include "weaving/InputPdb.h"

#include "pe/Image.h"
#include "weaving/Symbols.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

/// The PDB embedded in the input's debug directory, when there is no PDB file beside it
/// (DebugType=embedded); null when it embeds none.
Expected<std::unique_ptr<pdb::PortablePdb>> embeddedInputPdb(StringRef InputPath,
                                                             std::string &Name) {
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(InputPath);
  if (!Img)
    return Img.takeError();
  Expected<std::vector<pe::DebugEntry>> Entries = (*Img)->debugEntries();
  if (!Entries)
    return Entries.takeError();
  Expected<std::optional<std::vector<uint8_t>>> Bytes = embeddedPdb(**Img, *Entries);
  if (!Bytes)
    return Bytes.takeError();
  if (!*Bytes)
    return nullptr;
  Name = (InputPath + " (embedded PDB)").str();
  return pdb::PortablePdb::fromBuffer(
      MemoryBuffer::getMemBufferCopy(toStringRef(ArrayRef<uint8_t>(**Bytes)), Name), Name);
}

/// Why \p P cannot be the input's PDB: its id is not the one the assembly's CodeView entry
/// names, or it describes more methods than the module has (methods a weaver appended after it
/// was made, weft's own weave among them, have none: that is no reason). Empty when it can.
std::string mismatch(ModuleContext &MC, const pdb::PortablePdb &P, StringRef Name) {
  if (!MC.inputPath().empty()) {
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(MC.inputPath());
    if (!Img)
      return toString(Img.takeError());
    Expected<std::vector<pe::DebugEntry>> Entries = (*Img)->debugEntries();
    if (!Entries)
      return toString(Entries.takeError());
    for (const pe::DebugEntry &D : *Entries) {
      if (!D.isPortableCodeView() || !D.CV)
        continue;
      const std::array<uint8_t, 20> &Id = P.id();
      uint32_t Stamp = llvm::support::endian::read32le(Id.data() + 16);
      if (!std::equal(D.CV->Guid.begin(), D.CV->Guid.end(), Id.begin()) || Stamp != D.TimeDateStamp)
        return ("'" + Name +
                "' was not built with this assembly (its id differs from the assembly's CodeView "
                "debug entry)")
            .str();
    }
  }
  uint32_t Rows = P.methodCount(), Methods = MC.module().rowCount(TableId::MethodDef);
  if (Rows > Methods)
    return ("'" + Name + "' has debug information for " + Twine(Rows) +
            " methods, the module has " + Twine(Methods))
        .str();
  return "";
}

} // namespace

Expected<InputPdb> openInputPdb(ModuleContext &MC, const PassOptions &Options, StringRef PassName,
                                StringRef Lost) {
  // The PDB found (null for none), checked against the input; \p Path names it.
  auto Checked = [&](Expected<std::unique_ptr<pdb::PortablePdb>> P,
                     const std::string &Path) -> Expected<InputPdb> {
    std::string Why = !P ? toString(P.takeError()) : *P ? mismatch(MC, **P, Path) : "";
    if (!Why.empty()) {
      MC.warn(PassName + ": " + Why + "; " + Lost);
      return InputPdb{};
    }
    return *P ? InputPdb{std::move(*P), Path} : InputPdb{};
  };
  if (Options.has("pdb")) {
    if (Options.get("pdb").empty())
      return InputPdb{}; // pdb= : no lines wanted
    std::string Path = Options.path("pdb");
    if (!sys::fs::exists(Path))
      return Options.error("the PDB '" + Path + "' does not exist");
    return Checked(pdb::PortablePdb::open(Path), Path);
  }
  if (MC.inputPath().empty())
    return InputPdb{};
  SmallString<256> Beside(MC.inputPath());
  sys::path::replace_extension(Beside, "pdb");
  if (sys::fs::exists(Beside))
    return Checked(pdb::PortablePdb::open(Beside), std::string(Beside));
  std::string Name;
  Expected<std::unique_ptr<pdb::PortablePdb>> Embedded = embeddedInputPdb(MC.inputPath(), Name);
  return Checked(std::move(Embedded), Name);
}

} // namespace weft::passes
