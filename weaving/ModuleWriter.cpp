//===- weaving/ModuleWriter.cpp -------------------------------------------===//
#include "weaving/ModuleWriter.h"

#include "il/BodyReader.h"
#include "metadata/Editor.h"
#include "metadata/TypeLayout.h"
#include "pe/Image.h"
#include "pe/StrongName.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft {

Expected<WrittenModule> writeModule(const pe::Image &In, Editor &E,
                                    const std::map<uint32_t, NewBody> &NewBodies,
                                    const pe::StrongNameKey *Key,
                                    const pe::DebugDataOverrides &DebugData) {
  return writeModule(
      In, E,
      [&](uint32_t Row) -> Expected<std::optional<BodyBytes>> {
        auto It = NewBodies.find(Row);
        if (It == NewBodies.end())
          return std::nullopt;
        return BodyBytes{It->second.Bytes, It->second.Fat};
      },
      Key, DebugData);
}

namespace {

constexpr uint32_t AssemblyFlagPublicKey = 0x0001; // the PublicKey column holds a full key

/// Gives the assembly the public key of \p Key, or checks that it has it already. Returns the
/// hash algorithm its signature uses.
Expected<uint32_t> adoptPublicKey(Editor &E, const pe::StrongNameKey &Key) {
  if (!E.rowCount(TableId::Assembly))
    return plainError("it is a module without an assembly manifest; only assemblies are "
                      "strong-name signed");
  uint32_t Blob = E.get(TableId::Assembly, 1, AssemblyCol::PublicKey);
  ArrayRef<uint8_t> Current = E.getBlob(Blob);
  if (Current.empty()) {
    std::vector<uint8_t> New = Key.publicKeyBlob();
    E.set(TableId::Assembly, 1, AssemblyCol::PublicKey, E.blob(New));
    E.set(TableId::Assembly, 1, AssemblyCol::Flags,
          E.get(TableId::Assembly, 1, AssemblyCol::Flags) | AssemblyFlagPublicKey);
    return pe::CalgSha1;
  }
  Expected<pe::AssemblyPublicKey> Public = pe::parseAssemblyPublicKey(Current);
  if (!Public)
    return addContext(Public.takeError(), "the Assembly row's PublicKey");
  if (!Key.matches(*Public))
    return plainError(Key.name() + " is not the assembly's key: its public key token is " +
                      pe::publicKeyToken(Key.publicKeyBlob()) + ", the assembly's " +
                      pe::publicKeyToken(Current));
  if (Expected<DigestKind> Kind = pe::strongNameDigestKind(Public->HashAlgorithm); !Kind)
    return Kind.takeError();
  return Public->HashAlgorithm;
}

Error afterOriginalBodies(pe::ImageBuilder &B, const WriteOptions &Options) {
  if (!Options.AfterOriginalBodies)
    return Error::success();
  pe::DebugDataOverrides Data = Options.DebugData;
  if (Error Err = Options.AfterOriginalBodies(Data))
    return Err;
  B.setDebugData(std::move(Data));
  return Error::success();
}

} // namespace

Expected<WrittenModule> writeModule(const pe::Image &In, Editor &E, BodyProvider Provide,
                                    const pe::StrongNameKey *Key,
                                    const pe::DebugDataOverrides &DebugData) {
  WriteOptions O;
  O.Key = Key;
  O.DebugData = DebugData;
  return writeModule(In, E, Provide, O);
}

Expected<WrittenModule> writeModule(const pe::Image &In, Editor &E, BodyProvider Provide,
                                    const WriteOptions &Options) {
  const pe::StrongNameKey *Key = Options.Key;
  uint32_t HashAlgorithm = 0;
  if (Key) {
    Expected<uint32_t> H = adoptPublicKey(E, *Key);
    if (!H)
      return H.takeError();
    HashAlgorithm = *H;
  }
  Expected<std::unique_ptr<pe::ImageBuilder>> BuilderOr =
      pe::ImageBuilder::create(In, Options.DebugData);
  if (!BuilderOr)
    return BuilderOr.takeError();
  pe::ImageBuilder &B = **BuilderOr;
  const Module &M = E.original();
  WrittenModule Out;

  // Method bodies, in method order; bodies that several methods shared stay shared. The
  // module's own methods first, then the hook (which may add methods), then the added ones.
  DenseMap<uint32_t, uint32_t> Placed; // original RVA -> new RVA
  uint64_t Copied = 0;
  uint32_t OriginalMethods = M.rowCount(TableId::MethodDef);
  auto Place = [&](uint32_t Row) -> Error {
    Expected<std::optional<BodyBytes>> New = Provide(Row);
    if (!New)
      return New.takeError();
    if (*New) {
      E.set(TableId::MethodDef, Row, MethodDefCol::RVA,
            B.addMethodBody((*New)->Bytes, (*New)->Fat));
      ++Out.BodiesWritten;
      return Error::success();
    }
    uint32_t RVA = E.get(TableId::MethodDef, Row, MethodDefCol::RVA);
    if (!RVA)
      return Error::success();
    if (Row > OriginalMethods)
      return plainError("method row " + Twine(Row) + " was added with an RVA but no body");
    if (E.get(TableId::MethodDef, Row, MethodDefCol::ImplFlags) & 3)
      return formatError("method body", M.rowOffset(TableId::MethodDef, Row),
                         "method " + hex(makeToken(TableId::MethodDef, Row), 8) +
                             " has native code, which weft does not carry over");
    auto It = Placed.find(RVA);
    if (It == Placed.end()) {
      Expected<std::optional<il::RawMethodBody>> Raw = il::readMethodDefBody(In, M, Row);
      if (!Raw)
        return Raw.takeError();
      ArrayRef<uint8_t> Bytes = In.bytes().slice((*Raw)->FileOffset, (*Raw)->TotalSize);
      Copied += Bytes.size();
      if (Copied > il::methodCodeBudget(In.bytes().size()))
        return formatError("method body", (*Raw)->FileOffset,
                           "the method bodies add up to more than 8 times the file: they "
                           "overlap beyond reason");
      It = Placed.try_emplace(RVA, B.addMethodBody(Bytes, (*Raw)->Fat)).first;
      ++Out.BodiesCopied;
    }
    if (It->second != RVA)
      E.set(TableId::MethodDef, Row, MethodDefCol::RVA, It->second);
    return Error::success();
  };
  uint32_t Row = 1;
  for (; Row <= OriginalMethods && Row <= E.rowCount(TableId::MethodDef); ++Row)
    if (Error Err = Place(Row))
      return std::move(Err);
  if (Error Err = afterOriginalBodies(B, Options))
    return std::move(Err);
  for (; Row <= E.rowCount(TableId::MethodDef); ++Row)
    if (Error Err = Place(Row))
      return std::move(Err);

  // Field data, shared where it was shared.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> PlacedData; // (RVA, size) -> new RVA
  constexpr uint64_t FieldDataSlack = uint64_t(16) << 20;
  uint64_t DataBytes = 0;
  for (uint32_t Row = 1; Row <= E.rowCount(TableId::FieldRVA); ++Row) {
    uint32_t Field = E.get(TableId::FieldRVA, Row, FieldRVACol::Field);
    uint32_t RVA = E.get(TableId::FieldRVA, Row, FieldRVACol::RVA);
    if (Field > M.rowCount(TableId::Field))
      return plainError("field data for a field added by an edit is not supported yet");
    Expected<uint32_t> Size = fieldDataSize(M, Field);
    if (!Size)
      return Size.takeError();
    auto Key = std::make_pair(RVA, *Size);
    auto It = PlacedData.find(Key);
    if (It == PlacedData.end()) {
      // Data is part of the file, or zeros a section adds beyond its file data.
      DataBytes += *Size;
      if (DataBytes > In.bytes().size() + FieldDataSlack)
        return formatError(
            "field data",
            Row <= M.rowCount(TableId::FieldRVA) ? M.rowOffset(TableId::FieldRVA, Row) : 0,
            "the fields' data adds up to " + Twine(DataBytes) +
                " bytes, more than the file holds and 16 MiB of zeros besides");
      Expected<std::vector<uint8_t>> Data = In.readMapped(RVA, *Size, "field data");
      if (!Data)
        return Data.takeError();
      It = PlacedData.emplace(Key, B.addFieldData(*Data)).first;
    }
    if (It->second != RVA)
      E.set(TableId::FieldRVA, Row, FieldRVACol::RVA, It->second);
  }

  Expected<std::vector<uint8_t>> File =
      B.finish([&](std::vector<uint8_t> &Section) { return E.serializeInto(Section); },
               Key ? Key->signatureSize() : 0);
  if (!File)
    return File.takeError();
  Out.Bytes = std::move(*File);
  Out.Report = B.report();
  Out.Slot = B.signatureSlot();
  if (Key)
    if (Error Err = pe::signImage(Out.Bytes, Out.Slot, *Key, HashAlgorithm))
      return std::move(Err);
  return std::move(Out);
}

} // namespace weft
