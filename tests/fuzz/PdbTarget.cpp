//===- tests/fuzz/PdbTarget.cpp - A portable PDB from arbitrary bytes -----===//
//
// What `weft info`, `weft dump --source` and `weft weave` do with a portable PDB: open it as
// metadata, read every table and blob, decode each method's sequence points and documents, and
// rewrite it for a method whose body changed (with its checksum), as weaving does.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/Targets.h"

#include "metadata/Module.h"
#include "metadata/pdb/Read.h"
#include "metadata/pdb/Rewrite.h"
#include "metadata/pdb/SequencePoints.h"

#include <algorithm>

using namespace llvm;

namespace weft::fuzz {

std::string pdbInput(ArrayRef<uint8_t> Bytes) {
  auto M = metadata::Module::create(Bytes, 0);
  if (!M)
    return toString(M.takeError());
  const metadata::Module &Pdb = **M;
  if (!Pdb.pdb())
    return "metadata without a #Pdb stream";
  metadata::pdb::PdbStats Stats;
  if (Error E = metadata::pdb::readPortablePdb(Pdb, Stats))
    return toString(std::move(E));
  // Bounded: a file of a few bytes can claim many rows, each of which reads the same blob.
  uint32_t Methods =
      std::min<uint32_t>(Pdb.rowCount(metadata::TableId::MethodDebugInformation), 4096);
  uint32_t Changed = 0, Length = 0;
  std::string Refused;
  auto Keep = [&](Error E) {
    std::string Text = toString(std::move(E));
    if (Refused.empty())
      Refused = Text;
  };
  for (uint32_t Row = 1; Row <= Methods; ++Row) {
    auto Points = metadata::pdb::methodSequencePoints(Pdb, Row);
    if (!Points) {
      Keep(Points.takeError());
      continue;
    }
    for (const metadata::pdb::SequencePoint &P : *Points) {
      if (!Changed)
        Changed = Row;
      if (Changed == Row)
        Length = std::max(Length, P.ILOffset + 1);
    }
  }
  for (uint32_t Row = 1; Row <= std::min<uint32_t>(Pdb.rowCount(metadata::TableId::Document), 4096);
       ++Row) {
    auto Name = metadata::pdb::documentName(Pdb, Row);
    if (!Name)
      Keep(Name.takeError());
  }
  // Weaving moved the code of the first method with sequence points: two bytes added in front.
  std::map<uint32_t, metadata::pdb::BodyRemap> Remaps;
  if (Changed) {
    metadata::pdb::BodyRemap &R = Remaps[Changed];
    for (uint32_t Offset = 0; Offset <= Length && Offset < 1u << 20; ++Offset)
      R.OffsetMap.push_back({Offset, Offset + 2});
    R.AddedRuns.push_back(0);
  }
  Expected<std::vector<uint8_t>> Out = metadata::pdb::rewritePdb(Pdb, Remaps);
  if (!Out)
    return toString(Out.takeError());
  // What weaving writes must read back, and as completely as what it came from.
  auto Again = metadata::Module::create(*Out, 0);
  if (!Again)
    bug("the rewritten PDB does not open: " + toString(Again.takeError()));
  metadata::pdb::PdbStats Stats2;
  if (Error E = metadata::pdb::readPortablePdb(**Again, Stats2))
    bug("the rewritten PDB does not read: " + toString(std::move(E)));
  Expected<std::vector<uint8_t>> Sum = metadata::pdb::pdbChecksum(*Out, **Again, "SHA256");
  if (!Sum)
    bug("no checksum of the rewritten PDB: " + toString(Sum.takeError()));
  return Refused;
}

} // namespace weft::fuzz
