//===- metadata/pdb/Read.h - Everything in a portable PDB -------*- C++ -*-===//
//
// Decodes every blob a portable PDB's tables hold (Portable PDB specification v1.0): document
// names, sequence points, local constant signatures, import scopes, and the custom debug
// information weft knows (state machine scopes, async stepping, dynamic locals, tuple names,
// default namespace, edit-and-continue maps, source link, embedded source, compilation options
// and references). Unknown kinds are counted and left as bytes. The first malformed item is the
// error, naming the table, the row and the file offset.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_PDB_READ_H
#define WEFT_METADATA_PDB_READ_H

#include "metadata/Module.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace weft::metadata::pdb {

struct PdbStats {
  uint32_t Documents = 0, MethodsWithPoints = 0, SequencePoints = 0, HiddenPoints = 0;
  uint32_t Scopes = 0, Variables = 0, Constants = 0, ImportScopes = 0, Imports = 0;
  uint32_t StateMachines = 0, CustomDebugInformation = 0, UnknownCustomDebugInformation = 0;
  uint32_t EmbeddedSources = 0, SourceLinks = 0;
};

/// Reads everything in \p Pdb (a module with a #Pdb stream); \p Stats counts what was read.
llvm::Error readPortablePdb(const Module &Pdb, PdbStats &Stats);

} // namespace weft::metadata::pdb

#endif
