//===- metadata/pdb/Read.cpp - Everything in a portable PDB ---------------===//
#include "metadata/pdb/Read.h"

#include "metadata/Signature.h"
#include "metadata/pdb/SequencePoints.h"
#include "support/ByteReader.h"
#include "support/Deflate.h"
#include "support/Error.h"

#include "llvm/ADT/Twine.h"

#include <cstring>

using namespace llvm;

namespace weft::metadata::pdb {

namespace {

struct Guid {
  uint8_t B[16];
};
// The custom debug information kinds of the specification, as the #GUID heap stores them.
constexpr Guid StateMachineHoistedLocalScopes{{0x1E, 0xA6, 0xA9, 0x6D, 0xC7, 0xF8, 0x74, 0x48, 0xBE,
                                               0x62, 0x68, 0xBC, 0x56, 0x30, 0xDF,
                                               0x71}}; // 6DA9A61E-F8C7-4874-BE62-68BC5630DF71
constexpr Guid DynamicLocalVariables{{0xC4, 0x63, 0xC5, 0x83, 0xF3, 0xB4, 0xD5, 0x47, 0xB8, 0x24,
                                      0xBA, 0x54, 0x41, 0x47, 0x7E,
                                      0xA8}}; // 83C563C4-B4F3-47D5-B824-BA5441477EA8
constexpr Guid TupleElementNames{{0x71, 0xDF, 0x9F, 0xED, 0x79, 0x88, 0x47, 0x47, 0x8E, 0xD3, 0xFE,
                                  0x5E, 0xDE, 0x3C, 0xE7,
                                  0x10}}; // ED9FDF71-8879-4747-8ED3-FE5EDE3CE710
constexpr Guid DefaultNamespace{{0xB6, 0xEA, 0xB2, 0x58, 0x9F, 0x20, 0x4E, 0x4E, 0xA2, 0x2C, 0xB2,
                                 0xD0, 0xF9, 0x10, 0xC7,
                                 0x82}}; // 58B2EAB6-209F-4E4E-A22C-B2D0F910C782
constexpr Guid EncLocalSlotMap{{0xA8, 0x52, 0x5F, 0x75, 0xC5, 0x91, 0xBE, 0x45, 0xB4, 0xB8, 0x20,
                                0x95, 0x71, 0xE5, 0x52,
                                0xBD}}; // 755F52A8-91C5-45BE-B4B8-209571E552BD
constexpr Guid EncLambdaAndClosureMap{{0x4C, 0x00, 0x43, 0xA6, 0x40, 0x02, 0x6F, 0x49, 0xA7, 0x83,
                                       0x30, 0xD6, 0x4F, 0x49, 0x79,
                                       0xDE}}; // A643004C-0240-496F-A783-30D64F4979DE
constexpr Guid SourceLink{{0x56, 0x05, 0x11, 0xCC, 0x91, 0xA0, 0x38, 0x4D, 0x9F, 0xEC, 0x25, 0xAB,
                           0x9A, 0x35, 0x1A, 0x6A}}; // CC110556-A091-4D38-9FEC-25AB9A351A6A
constexpr Guid EmbeddedSource{{0x1B, 0x57, 0x8A, 0x0E, 0x26, 0x69, 0x6E, 0x46, 0xB4, 0xAD, 0x8A,
                               0xB0, 0x46, 0x11, 0xF5,
                               0xFE}}; // 0E8A571B-6926-466E-B4AD-8AB04611F5FE
constexpr Guid AsyncMethodSteppingInformation{{0xC5, 0x2A, 0xFD, 0x54, 0x25, 0xE9, 0x1A, 0x40, 0x9C,
                                               0x2A, 0xF9, 0x4F, 0x17, 0x10, 0x72,
                                               0xF8}}; // 54FD2AC5-E925-401A-9C2A-F94F171072F8
constexpr Guid CompilationMetadataReferences{{0x08, 0x47, 0x4D, 0x7E, 0x6E, 0x09, 0x5C, 0x4C, 0xAE,
                                              0xDA, 0xCB, 0x10, 0xBA, 0x6A, 0x74,
                                              0x0D}}; // 7E4D4708-096E-4C5C-AEDA-CB10BA6A740D
constexpr Guid CompilationOptions{{0x05, 0xEC, 0xFE, 0xB5, 0xD0, 0x8C, 0x83, 0x4A, 0x96, 0xDA, 0x46,
                                   0x62, 0x84, 0xBB, 0x4B,
                                   0xD8}}; // B5FEEC05-8CD0-4A83-96DA-466284BB4BD8

bool is(const uint8_t *G, const Guid &K) { return std::memcmp(G, K.B, 16) == 0; }

/// Null-terminated UTF-8 strings to the end of the blob.
void strings(ByteReader &R) {
  while (R.ok() && !R.atEnd())
    R.cstring();
}

/// A blob heap index inside a blob, which must name an existing blob.
void blobIndex(ByteReader &R, const Module &M) {
  size_t At = R.pos();
  uint32_t Index = R.compressed();
  if (R.ok() && Index >= M.streamBytes("#Blob").size())
    R.failAt(At, "blob index past the #Blob heap");
}

void typeDefOrRef(ByteReader &R) {
  size_t At = R.pos();
  uint32_t Coded = R.compressed();
  if (R.ok() && (Coded & 3) == 3)
    R.failAt(At, "TypeDefOrRefOrSpecEncoded with tag 3");
}

Error imports(ArrayRef<uint8_t> Blob, uint64_t Offset, const Module &M, PdbStats &S) {
  ByteReader R(Blob, Offset);
  while (R.ok() && !R.atEnd()) {
    size_t At = R.pos();
    uint32_t Kind = R.compressed();
    switch (Kind) {
    case 1: blobIndex(R, M); break; // namespace
    case 2:
      R.compressed();
      blobIndex(R, M);
      break;                        // assembly, namespace
    case 3: typeDefOrRef(R); break; // type
    case 4:
      blobIndex(R, M);
      blobIndex(R, M);
      break;                        // XML alias, namespace
    case 5: blobIndex(R, M); break; // assembly reference alias
    case 6:
      blobIndex(R, M);
      R.compressed();
      break; // alias, assembly
    case 7:
      blobIndex(R, M);
      blobIndex(R, M);
      break; // alias, namespace
    case 8:  // alias, assembly, namespace
      blobIndex(R, M);
      R.compressed();
      blobIndex(R, M);
      break;
    case 9:
      blobIndex(R, M);
      typeDefOrRef(R);
      break; // alias, type
    default:
      if (R.ok())
        R.failAt(At, "unknown import kind");
    }
    ++S.Imports;
  }
  return R.takeError("imports blob");
}

Error constantSignature(ArrayRef<uint8_t> Blob, uint64_t Offset) {
  ByteReader R(Blob, Offset);
  // Custom modifiers, then the type and its value.
  while (R.ok() && R.has(1) &&
         (R.data()[R.pos()] == uint8_t(ElementType::CModReqd) ||
          R.data()[R.pos()] == uint8_t(ElementType::CModOpt))) {
    R.u8();
    typeDefOrRef(R);
  }
  size_t At = R.pos();
  auto K = ElementType(R.u8());
  if (!R.ok())
    return R.takeError("local constant signature");
  if (unsigned Size = primitiveSize(K)) {
    // A primitive, or an enum: its underlying type's code and value, then the enum type.
    R.skip(Size);
    if (R.ok() && !R.atEnd())
      typeDefOrRef(R);
  } else if (K == ElementType::String) {
    // UTF-16 text to the end, or 0xFF for null.
    if (R.remaining() == 1 && R.data()[R.pos()] == 0xFF)
      R.u8();
    else if (R.remaining() % 2)
      R.failAt(At, "string constant of an odd number of bytes");
    else
      R.skip(R.remaining());
  } else if (K == ElementType::ValueType || K == ElementType::Class) {
    typeDefOrRef(R);
    // An enum's value (1, 2, 4 or 8 bytes), a decimal or DateTime (by their own layout), or
    // nothing for null: the bytes left are the value.
    R.skip(R.remaining());
  } else if (K == ElementType::Object || K == ElementType::I || K == ElementType::U) {
    R.skip(R.remaining());
  } else {
    // A general type (generic instantiations, arrays, ...): its signature, and a null value.
    Expected<TypeSig> T = decodeTypeSpec(Blob.drop_front(At), Offset + At);
    if (!T)
      return T.takeError();
    return Error::success();
  }
  if (R.ok() && !R.atEnd())
    R.fail("bytes after the constant's value");
  return R.takeError("local constant signature");
}

Error customDebugInformation(const uint8_t *Kind, ArrayRef<uint8_t> Blob, uint64_t Offset,
                             PdbStats &S) {
  ByteReader R(Blob, Offset);
  if (is(Kind, StateMachineHoistedLocalScopes) || is(Kind, AsyncMethodSteppingInformation)) {
    bool Async = is(Kind, AsyncMethodSteppingInformation);
    if (Async)
      R.u32();
    while (R.ok() && !R.atEnd()) {
      R.u32();
      R.u32();
      if (Async)
        R.compressed();
    }
  } else if (is(Kind, DynamicLocalVariables) || is(Kind, DefaultNamespace) ||
             is(Kind, SourceLink)) {
    R.skip(R.remaining()); // bits, UTF-8 text, JSON text
    S.SourceLinks += is(Kind, SourceLink);
  } else if (is(Kind, TupleElementNames) || is(Kind, CompilationOptions)) {
    strings(R);
  } else if (is(Kind, CompilationMetadataReferences)) {
    // file name, aliases, flags, time stamp, file size, MVID
    while (R.ok() && !R.atEnd()) {
      R.cstring();
      R.cstring();
      R.u8();
      R.u32();
      R.u32();
      R.skip(16);
    }
  } else if (is(Kind, EncLocalSlotMap) || is(Kind, EncLambdaAndClosureMap)) {
    while (R.ok() && !R.atEnd())
      R.compressed();
  } else if (is(Kind, EmbeddedSource)) {
    int32_t Format = R.i32();
    if (R.ok() && Format > 0) {
      Expected<std::vector<uint8_t>> Text =
          inflateRaw(Blob.drop_front(4), uint32_t(Format), 64 * uint64_t(Blob.size()) + (1 << 20),
                     "embedded source", Offset + 4);
      if (!Text)
        return Text.takeError();
    } else if (R.ok() && Format < 0) {
      R.failAt(0, "embedded source with a negative format");
    }
    R.skip(R.remaining());
    ++S.EmbeddedSources;
  } else {
    ++S.UnknownCustomDebugInformation;
    return Error::success();
  }
  return R.takeError("custom debug information blob");
}

} // namespace

Error readPortablePdb(const Module &M, PdbStats &S) {
  auto Row = [](const char *Table, uint32_t R) {
    return (Twine(Table) + " row " + Twine(R)).str();
  };
  S.Documents = M.rowCount(TableId::Document);
  for (uint32_t R = 1; R <= S.Documents; ++R)
    if (Expected<std::string> Name = documentName(M, R); !Name)
      return addContext(Name.takeError(), Row("Document", R));
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDebugInformation); ++R) {
    Expected<std::vector<SequencePoint>> Points = methodSequencePoints(M, R);
    if (!Points)
      return Points.takeError();
    S.MethodsWithPoints += !Points->empty();
    S.SequencePoints += uint32_t(Points->size());
    for (const SequencePoint &P : *Points)
      S.HiddenPoints += P.isHidden();
  }
  S.Scopes = M.rowCount(TableId::LocalScope);
  S.Variables = M.rowCount(TableId::LocalVariable);
  S.Constants = M.rowCount(TableId::LocalConstant);
  for (uint32_t R = 1; R <= S.Constants; ++R) {
    uint32_t Blob = M.get(TableId::LocalConstant, R, LocalConstantCol::Signature);
    if (Error E = constantSignature(M.getBlob(Blob), M.blobFileOffset(Blob)))
      return addContext(std::move(E), Row("LocalConstant", R));
  }
  S.ImportScopes = M.rowCount(TableId::ImportScope);
  for (uint32_t R = 1; R <= S.ImportScopes; ++R) {
    uint32_t Blob = M.get(TableId::ImportScope, R, ImportScopeCol::Imports);
    if (Error E = imports(M.getBlob(Blob), M.blobFileOffset(Blob), M, S))
      return addContext(std::move(E), Row("ImportScope", R));
  }
  S.StateMachines = M.rowCount(TableId::StateMachineMethod);
  S.CustomDebugInformation = M.rowCount(TableId::CustomDebugInformation);
  for (uint32_t R = 1; R <= S.CustomDebugInformation; ++R) {
    uint32_t Kind = M.get(TableId::CustomDebugInformation, R, CustomDebugInformationCol::Kind);
    const uint8_t *G = Kind ? M.getGuid(Kind) : nullptr;
    if (!G)
      return formatError(Row("CustomDebugInformation", R),
                         M.rowOffset(TableId::CustomDebugInformation, R), "no kind GUID");
    uint32_t Blob = M.get(TableId::CustomDebugInformation, R, CustomDebugInformationCol::Value);
    if (Error E = customDebugInformation(G, M.getBlob(Blob), M.blobFileOffset(Blob), S))
      return addContext(std::move(E), Row("CustomDebugInformation", R));
  }
  return Error::success();
}

} // namespace weft::metadata::pdb
