//===- metadata/pdb/Rewrite.cpp - A portable PDB for changed bodies -------===//
#include "metadata/pdb/Rewrite.h"

#include "metadata/Editor.h"
#include "metadata/pdb/SequencePoints.h"
#include "support/ByteReader.h"
#include "support/Digest.h"
#include "support/Error.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace weft::metadata::pdb {

namespace {

// Custom debug information kinds that hold IL offsets (Portable PDB specification).
constexpr uint8_t AsyncMethodSteppingInformation[16] = {
    0xC5, 0x2A, 0xFD, 0x54, 0x25, 0xE9, 0x1A, 0x40, 0x9C, 0x2A, 0xF9, 0x4F, 0x17, 0x10, 0x72, 0xF8};
constexpr uint8_t StateMachineHoistedLocalScopes[16] = {
    0x1E, 0xA6, 0xA9, 0x6D, 0xC7, 0xF8, 0x74, 0x48, 0xBE, 0x62, 0x68, 0xBC, 0x56, 0x30, 0xDF, 0x71};

/// Where an original offset went; offsets that are no instruction start (which a valid PDB does
/// not name) go to the next instruction that is.
uint32_t mapOffset(const BodyRemap &R, uint32_t Old) {
  auto It = std::lower_bound(R.OffsetMap.begin(), R.OffsetMap.end(), std::make_pair(Old, 0u));
  if (It == R.OffsetMap.end())
    return R.OffsetMap.empty() ? Old : R.OffsetMap.back().second;
  return It->second;
}

void put32(std::vector<uint8_t> &Out, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    Out.push_back(uint8_t(V >> (8 * I)));
}

/// The async stepping blob with its offsets moved: catch handler offset (0 for none, else the
/// offset plus one), then (yield offset, resume offset, resume method) triples.
Expected<std::vector<uint8_t>> remapAsyncStepping(ArrayRef<uint8_t> Blob, const BodyRemap &R) {
  ByteReader In(Blob, 0);
  std::vector<uint8_t> Out;
  uint32_t Catch = In.u32();
  put32(Out, Catch ? mapOffset(R, Catch - 1) + 1 : 0);
  while (In.ok() && !In.atEnd()) {
    uint32_t Yield = In.u32(), Resume = In.u32(), Method = In.compressed();
    if (!In.ok())
      break;
    put32(Out, mapOffset(R, Yield));
    put32(Out, mapOffset(R, Resume));
    appendCompressed(Out, Method);
  }
  if (Error E = In.takeError("async method stepping information"))
    return std::move(E);
  return std::move(Out);
}

/// Hoisted local scopes: (start offset, length) pairs.
Expected<std::vector<uint8_t>> remapHoistedScopes(ArrayRef<uint8_t> Blob, const BodyRemap &R) {
  ByteReader In(Blob, 0);
  std::vector<uint8_t> Out;
  while (In.ok() && !In.atEnd()) {
    uint32_t Start = In.u32(), Length = In.u32();
    if (!In.ok())
      break;
    if (Start == 0 && Length == 0) { // a scope that does not exist
      put32(Out, 0);
      put32(Out, 0);
      continue;
    }
    uint32_t NewStart = mapOffset(R, Start);
    put32(Out, NewStart);
    put32(Out, mapOffset(R, Start + Length) - NewStart);
  }
  if (Error E = In.takeError("state machine hoisted local scopes"))
    return std::move(E);
  return std::move(Out);
}

} // namespace

Expected<std::vector<uint8_t>>
rewritePdb(const Module &Pdb, const std::map<uint32_t, BodyRemap> &Bodies, PdbRewriteStats *Stats) {
  Editor E(Pdb);
  PdbRewriteStats Local;
  PdbRewriteStats &S = Stats ? *Stats : Local;
  uint32_t Methods = Pdb.rowCount(TableId::MethodDebugInformation);
  for (const auto &[Row, R] : Bodies) {
    if (Row > Methods || R.OffsetMap.empty())
      continue;
    uint32_t Blob =
        Pdb.get(TableId::MethodDebugInformation, Row, MethodDebugInformationCol::SequencePoints);
    if (!Blob)
      continue;
    uint32_t Document =
        Pdb.get(TableId::MethodDebugInformation, Row, MethodDebugInformationCol::Document);
    Expected<std::vector<SequencePoint>> Points = methodSequencePoints(Pdb, Row);
    if (!Points)
      return Points.takeError();
    // The original points at their new offsets, and a hidden one where added code starts.
    std::vector<SequencePoint> Moved;
    for (SequencePoint P : *Points) {
      P.ILOffset = mapOffset(R, P.ILOffset);
      Moved.push_back(P);
    }
    S.SequencePoints += uint32_t(Moved.size());
    // The document a hidden point belongs to: that of the point before it.
    uint32_t FirstDocument = Moved.empty() ? (Document ? Document : 1) : Moved.front().Document;
    std::vector<SequencePoint> All;
    size_t K = 0;
    for (uint32_t Run : R.AddedRuns) {
      while (K < Moved.size() && Moved[K].ILOffset < Run)
        All.push_back(Moved[K++]);
      if (K < Moved.size() && Moved[K].ILOffset == Run)
        continue;
      SequencePoint H;
      H.ILOffset = Run;
      H.Document = All.empty() ? FirstDocument : All.back().Document;
      H.StartLine = H.EndLine = HiddenLine;
      All.push_back(H);
      ++S.HiddenAdded;
    }
    All.insert(All.end(), Moved.begin() + K, Moved.end());
    // Points that landed on one offset (an original point whose code was removed): the last wins.
    std::vector<SequencePoint> Unique;
    for (const SequencePoint &P : All) {
      if (!Unique.empty() && Unique.back().ILOffset == P.ILOffset)
        Unique.back() = P;
      else
        Unique.push_back(P);
    }
    E.set(TableId::MethodDebugInformation, Row, MethodDebugInformationCol::SequencePoints,
          E.newBlob(encodeSequencePoints(Unique, R.LocalSignature, Document)));
    ++S.Methods;
  }

  // Local scopes: [start, start + length) moved, the whole body staying the whole body.
  for (uint32_t Row = 1; Row <= Pdb.rowCount(TableId::LocalScope); ++Row) {
    auto It = Bodies.find(Pdb.get(TableId::LocalScope, Row, LocalScopeCol::Method));
    if (It == Bodies.end() || It->second.OffsetMap.empty())
      continue;
    const BodyRemap &R = It->second;
    uint32_t Start = Pdb.get(TableId::LocalScope, Row, LocalScopeCol::StartOffset);
    uint32_t Length = Pdb.get(TableId::LocalScope, Row, LocalScopeCol::Length);
    uint32_t NewStart = Start == 0 ? 0 : mapOffset(R, Start);
    uint32_t NewEnd = mapOffset(R, Start + Length);
    E.set(TableId::LocalScope, Row, LocalScopeCol::StartOffset, NewStart);
    E.set(TableId::LocalScope, Row, LocalScopeCol::Length, NewEnd - NewStart);
  }

  // Custom debug information of methods that holds IL offsets.
  for (uint32_t Row = 1; Row <= Pdb.rowCount(TableId::CustomDebugInformation); ++Row) {
    Token Parent =
        Pdb.getToken(TableId::CustomDebugInformation, Row, CustomDebugInformationCol::Parent);
    if (tokenTable(Parent) != TableId::MethodDef)
      continue;
    auto It = Bodies.find(tokenRow(Parent));
    if (It == Bodies.end() || It->second.OffsetMap.empty())
      continue;
    uint32_t Kind = Pdb.get(TableId::CustomDebugInformation, Row, CustomDebugInformationCol::Kind);
    const uint8_t *Guid = Kind ? Pdb.getGuid(Kind) : nullptr;
    if (!Guid)
      continue;
    ArrayRef<uint8_t> Value = Pdb.getBlob(
        Pdb.get(TableId::CustomDebugInformation, Row, CustomDebugInformationCol::Value));
    bool Async = std::memcmp(Guid, AsyncMethodSteppingInformation, 16) == 0;
    if (!Async && std::memcmp(Guid, StateMachineHoistedLocalScopes, 16) != 0)
      continue;
    // Made once: an Expected overwritten or dropped before it was checked is a bug (LLVM's checks,
    // on in the fuzz build, abort on it).
    Expected<std::vector<uint8_t>> New = Async ? remapAsyncStepping(Value, It->second)
                                               : remapHoistedScopes(Value, It->second);
    if (!New)
      return addContext(New.takeError(), "CustomDebugInformation row " + Twine(Row));
    E.set(TableId::CustomDebugInformation, Row, CustomDebugInformationCol::Value, E.newBlob(*New));
  }
  return E.serialize();
}

Expected<std::vector<uint8_t>> pdbChecksum(ArrayRef<uint8_t> PdbFile, const Module &Pdb,
                                           StringRef Algorithm) {
  DigestKind Kind;
  if (Algorithm == "SHA256")
    Kind = DigestKind::SHA256;
  else if (Algorithm == "SHA1")
    Kind = DigestKind::SHA1;
  else
    return plainError("PDB checksum algorithm '" + Algorithm + "' is not supported");
  // The id is the first 20 bytes of the #Pdb stream.
  for (const StreamHeader &S : Pdb.streams())
    if (S.Name == "#Pdb" && S.Size >= 20 && uint64_t(S.Offset) + 20 <= PdbFile.size()) {
      static const uint8_t Zeros[20] = {};
      return digest(Kind, {PdbFile.take_front(S.Offset), ArrayRef<uint8_t>(Zeros, 20),
                           PdbFile.drop_front(S.Offset + 20)});
    }
  return plainError("the PDB has no #Pdb stream with an id");
}

} // namespace weft::metadata::pdb
