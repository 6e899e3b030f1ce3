//===- metadata/pdb/Rewrite.h - A portable PDB for changed bodies -*- C++ -*-===//
//
// When method bodies change, the IL offsets their PDB records name move. Given, for every changed
// method, where each original instruction went and where code was added, this rewrites a portable
// PDB to match: sequence points moved to the new offsets, a hidden sequence point at the start of
// each run of added code (debuggers step over it and stack traces show no line for it), local
// scopes and async stepping information moved, and each sequence point blob naming the method's
// new local signature. Rows and heap entries of everything else stay where they were, and the
// PDB id is kept, so the assembly's CodeView entry still names the PDB.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_PDB_REWRITE_H
#define WEFT_METADATA_PDB_REWRITE_H

#include "metadata/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace weft::metadata::pdb {

/// How one method body changed.
struct BodyRemap {
  /// (original offset, new offset) of every original instruction, and the original end of the
  /// code mapped to the new end; sorted by original offset.
  std::vector<std::pair<uint32_t, uint32_t>> OffsetMap;
  /// The new offsets at which runs of added instructions start.
  std::vector<uint32_t> AddedRuns;
  /// The method's StandAloneSig row for its locals now (0 for none).
  uint32_t LocalSignature = 0;
};

struct PdbRewriteStats {
  uint32_t Methods = 0;        // methods whose records were moved
  uint32_t SequencePoints = 0; // original sequence points kept
  uint32_t HiddenAdded = 0;
};

/// The rewritten PDB file. \p Bodies is keyed by MethodDef row.
llvm::Expected<std::vector<uint8_t>> rewritePdb(const Module &Pdb,
                                                const std::map<uint32_t, BodyRemap> &Bodies,
                                                PdbRewriteStats *Stats = nullptr);

/// The checksum a PdbChecksum debug entry holds for \p PdbFile: the hash named by \p Algorithm
/// ("SHA256", "SHA1") of the file with its 20-byte PDB id (in the #Pdb stream) zeroed.
llvm::Expected<std::vector<uint8_t>> pdbChecksum(llvm::ArrayRef<uint8_t> PdbFile, const Module &Pdb,
                                                 llvm::StringRef Algorithm);

} // namespace weft::metadata::pdb

#endif
