//===- weaver/passes/InputPdb.cpp - The input's portable PDB --------------===//
#include "weaver/passes/InputPdb.h"

#include "pe/Image.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

Expected<InputPdb> openInputPdb(ModuleContext &MC, const PassOptions &Options, StringRef PassName,
                                StringRef Lost) {
  bool Explicit = Options.has("pdb");
  std::string Path;
  if (Explicit) {
    if (Options.get("pdb").empty())
      return InputPdb{}; // pdb= : no lines wanted
    Path = Options.path("pdb");
    if (!sys::fs::exists(Path))
      return Options.error("the PDB '" + Path + "' does not exist");
  } else {
    if (MC.inputPath().empty())
      return InputPdb{};
    SmallString<256> P(MC.inputPath());
    sys::path::replace_extension(P, "pdb");
    if (!sys::fs::exists(P))
      return InputPdb{};
    Path = std::string(P);
  }
  auto Unusable = [&](const Twine &Why) -> Expected<InputPdb> {
    MC.warn(PassName + ": " + Why + "; " + Lost);
    return InputPdb{};
  };
  Expected<std::unique_ptr<pdb::PortablePdb>> P = pdb::PortablePdb::open(Path);
  if (!P)
    return Unusable(toString(P.takeError()));
  // The assembly's CodeView entry names the PDB it was built with.
  if (!MC.inputPath().empty()) {
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(MC.inputPath());
    if (!Img)
      return Unusable(toString(Img.takeError()));
    Expected<std::vector<pe::DebugEntry>> Entries = (*Img)->debugEntries();
    if (!Entries)
      return Unusable(toString(Entries.takeError()));
    for (const pe::DebugEntry &D : *Entries) {
      if (!D.isPortableCodeView() || !D.CV)
        continue;
      const std::array<uint8_t, 20> &Id = (*P)->id();
      uint32_t Stamp = llvm::support::endian::read32le(Id.data() + 16);
      if (!std::equal(D.CV->Guid.begin(), D.CV->Guid.end(), Id.begin()) || Stamp != D.TimeDateStamp)
        return Unusable("'" + Path +
                        "' was not built with this assembly (its id differs from "
                        "the assembly's CodeView debug entry)");
    }
  }
  // Methods a weaver appended after the PDB was made (weft's own weave adds some) have no
  // debug information; a PDB with more methods than the module is another module's.
  uint32_t Rows = (*P)->methodCount();
  if (Rows > MC.module().rowCount(TableId::MethodDef))
    return Unusable("'" + Path + "' has debug information for " + Twine(Rows) +
                    " methods, the module has " + Twine(MC.module().rowCount(TableId::MethodDef)));
  return InputPdb{std::move(*P), Path};
}

} // namespace weft::passes
