//===- weaving/Symbols.h - The PDB of a woven assembly ----------*- C++ -*-===//
//
// Finding an assembly's portable PDB (next to it, embedded in it, or by the name its CodeView entry
// gives) and rewriting it for the bodies weaving changed, with the debug directory entries that
// change with it. `weft weave` and the weave benchmark share this.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_SYMBOLS_H
#define WEFT_WEAVING_SYMBOLS_H

#include "metadata/pdb/Rewrite.h"
#include "pe/Image.h"
#include "pe/Writer.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weft::pe {
class Image;
}

namespace weft {

bool hasEmbeddedPdb(const pe::Image &Img);

/// The portable PDB embedded in \p Img's debug directory (\p Entries), inflated; none when it
/// embeds none. Errors name the entry's offset.
llvm::Expected<std::optional<std::vector<uint8_t>>>
embeddedPdb(const pe::Image &Img, llvm::ArrayRef<pe::DebugEntry> Entries);

/// Where the separate PDB of an assembly is: next to it with its name and `.pdb`, or else (if it
/// embeds no PDB) next to it with the file name its CodeView entry gives (the path the compiler
/// wrote it to). The first of these if neither exists.
std::string separatePdbPath(const pe::Image &Img, llvm::StringRef AssemblyPath);

struct PdbUpdate {
  std::vector<uint8_t> Bytes; // the PDB file to write, when it is a separate one
  bool Embedded = false;
  pe::DebugDataOverrides DebugData;
};

/// The portable PDB of an assembly rewritten for woven bodies: the file \p PdbPath if it exists,
/// else the PDB embedded in the debug directory; with the debug entries that change with it (the
/// embedded PDB itself, the PDB checksum). Nothing when there is no PDB weft can update (a
/// missing or Windows PDB, one of another build, a damaged one), with the reason in \p Warning
/// unless there is simply no PDB: none of these is an error.
std::optional<PdbUpdate> updatePdb(const pe::Image &Img, llvm::StringRef AssemblyPath,
                                   llvm::StringRef PdbPath,
                                   const std::map<uint32_t, metadata::pdb::BodyRemap> &Remaps,
                                   std::string &Warning);

} // namespace weft

#endif
