//===- weaving/InputPdb.h - The input's portable PDB ------------*- C++ -*-===//
//
// Passes that report source lines (coverage, span) read the input's portable PDB: the pass's
// option `pdb` names it (empty: none wanted), else the input's name with .pdb, else the PDB
// embedded in the input (DebugType=embedded). A PDB that was not built with the input is a
// warning, not an error: the pass then works without lines.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_INPUTPDB_H
#define WEFT_WEAVING_INPUTPDB_H

#include "metadata/pdb/SequencePoints.h"
#include "weaving/Pass.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace weft::passes {

struct InputPdb {
  std::unique_ptr<metadata::pdb::PortablePdb> Pdb; // null: none, or not usable
  std::string Path;
};

/// Opens the input's PDB for pass \p PassName; \p Lost says what the pass goes without when the
/// PDB cannot be used ("the coverage map has no source lines"), in the warning. Fails only when
/// the option names a PDB that does not exist.
llvm::Expected<InputPdb> openInputPdb(ModuleContext &MC, const PassOptions &Options,
                                      llvm::StringRef PassName, llvm::StringRef Lost);

} // namespace weft::passes

#endif
