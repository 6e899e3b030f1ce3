//===- weaving/WovenRecord.cpp - What a woven module says of its weave ----===//
#include "weaving/WovenRecord.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "support/Error.h"
#include "weaving/Weaver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

constexpr const char *FieldNames[] = {"Input", "InputSha256", "Passes"};
constexpr uint8_t ElementString = 0x0E;
// public static literal, with a default value.
constexpr uint16_t RecordFieldFlags = 0x0006 | 0x0010 | 0x0040 | 0x8000;

std::string rowRanges(ArrayRef<uint32_t> Rows) {
  std::string S;
  for (size_t I = 0; I < Rows.size();) {
    size_t J = I;
    while (J + 1 < Rows.size() && Rows[J + 1] == Rows[J] + 1)
      ++J;
    if (!S.empty())
      S += ',';
    S += std::to_string(Rows[I]);
    if (J > I)
      S += "-" + std::to_string(Rows[J]);
    I = J + 1;
  }
  return S;
}

std::string passesText(const WovenRecord &R) {
  std::string S;
  for (const WovenRecord::PassRecord &P : R.Passes) {
    if (!S.empty())
      S += '\n';
    S += P.Pass + "\t" + rowRanges(P.Rows);
  }
  return S;
}

std::vector<uint8_t> utf16Bytes(StringRef Utf8) {
  SmallVector<UTF16, 128> Units;
  if (!convertUTF8ToUTF16String(Utf8, Units))
    Units.clear();
  if (!Units.empty() && Units.back() == 0)
    Units.pop_back(); // a terminator some versions of LLVM add
  std::vector<uint8_t> Bytes;
  for (UTF16 U : Units) {
    Bytes.push_back(uint8_t(U));
    Bytes.push_back(uint8_t(U >> 8));
  }
  return Bytes;
}

Expected<std::vector<uint32_t>> parseRanges(StringRef Text) {
  std::vector<uint32_t> Rows;
  SmallVector<StringRef, 16> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Part : Parts) {
    auto [First, Last] = Part.split('-');
    uint32_t A = 0, B = 0;
    if (First.getAsInteger(10, A) || (Last.empty() ? (B = A, false) : Last.getAsInteger(10, B)) ||
        B < A || B - A > (1u << 24) || (!Rows.empty() && A <= Rows.back()))
      return plainError("'" + Part + "' is not an ascending row or range of rows");
    for (uint32_t Row = A; Row <= B; ++Row)
      Rows.push_back(Row);
  }
  return Rows;
}

Expected<std::vector<WovenRecord::PassRecord>> parsePasses(StringRef Text) {
  std::vector<WovenRecord::PassRecord> Passes;
  SmallVector<StringRef, 8> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef Line : Lines) {
    auto [Pass, Ranges] = Line.rsplit('\t');
    if (Pass.empty() || Pass.size() == Line.size())
      return plainError("the line '" + Line + "' is not a pass, a tab and its methods' rows");
    Expected<std::vector<uint32_t>> Rows = parseRanges(Ranges);
    if (!Rows)
      return Rows.takeError();
    Passes.push_back({Pass.str(), std::move(*Rows)});
  }
  return Passes;
}

/// The string constant of field \p Name of type \p TypeRow: 0 if there is no such field, else
/// the Constant row.
uint32_t fieldConstant(const Module &M, uint32_t TypeRow, StringRef Name) {
  for (uint32_t I : M.typeFields(TypeRow)) {
    uint32_t Field = M.field(I);
    if (M.getString(M.get(TableId::Field, Field, FieldCol::Name)) == Name)
      return M.constant(makeToken(TableId::Field, Field));
  }
  return 0;
}

Expected<std::string> constantString(const Module &M, uint32_t C) {
  uint64_t At = M.rowOffset(TableId::Constant, C);
  if (M.get(TableId::Constant, C, ConstantCol::Type) != ElementString)
    return formatError("constant of the weft marker", At, "not a string");
  ArrayRef<uint8_t> Bytes = M.getBlob(M.get(TableId::Constant, C, ConstantCol::Value));
  std::string Utf8;
  if (Bytes.size() % 2 ||
      !convertUTF16ToUTF8String(ArrayRef<char>((const char *)Bytes.data(), Bytes.size()), Utf8))
    return formatError("constant of the weft marker", At, "not a UTF-16 string");
  return Utf8;
}

} // namespace

std::vector<std::string> WovenRecord::passesOf(uint32_t Row) const {
  std::vector<std::string> Names;
  for (const PassRecord &P : Passes)
    if (std::binary_search(P.Rows.begin(), P.Rows.end(), Row))
      Names.push_back(P.Pass);
  return Names;
}

Expected<std::optional<WovenRecord>> readWovenRecord(const Module &M) {
  uint32_t Marker = M.findTypeDef(MarkerNamespace, MarkerName);
  if (!Marker)
    return std::nullopt;
  std::string Values[3];
  for (size_t I = 0; I < 3; ++I) {
    uint32_t C = fieldConstant(M, Marker, FieldNames[I]);
    if (!C)
      return plainError(Twine("the weft marker ") + MarkerNamespace + "." + MarkerName +
                        " has no record of the weave (no field " + FieldNames[I] +
                        "): an older weft wove it");
    Expected<std::string> S = constantString(M, C);
    if (!S)
      return S.takeError();
    Values[I] = std::move(*S);
  }
  WovenRecord R;
  R.Input = std::move(Values[0]);
  R.InputSha256 = std::move(Values[1]);
  Expected<std::vector<WovenRecord::PassRecord>> Passes = parsePasses(Values[2]);
  if (!Passes)
    return plainError("the weft marker's Passes: " + toString(Passes.takeError()));
  R.Passes = std::move(*Passes);
  return R;
}

Error writeWovenRecord(Editor &E, uint32_t MarkerRow, const WovenRecord &R) {
  std::string Values[3] = {R.Input, R.InputSha256, passesText(R)};
  const Module &M = E.original();
  if (MarkerRow <= M.rowCount(TableId::TypeDef)) {
    // The marker of an earlier weave: its values are replaced.
    for (size_t I = 0; I < 3; ++I) {
      uint32_t C = fieldConstant(M, MarkerRow, FieldNames[I]);
      if (!C)
        return plainError(Twine("the weft marker of the earlier weave has no field ") +
                          FieldNames[I] + " to record this weave in");
      E.set(TableId::Constant, C, ConstantCol::Value, E.blob(utf16Bytes(Values[I])));
    }
    return Error::success();
  }
  static const uint8_t StringFieldSig[] = {0x06, ElementString};
  for (size_t I = 0; I < 3; ++I) {
    Expected<Token> F = E.addField(makeToken(TableId::TypeDef, MarkerRow), RecordFieldFlags,
                                   FieldNames[I], StringFieldSig);
    if (!F)
      return F.takeError();
    E.addRow(TableId::Constant, {ElementString, 0, *F, E.blob(utf16Bytes(Values[I]))});
  }
  return Error::success();
}

std::string pathFrom(StringRef Dir, StringRef Path) {
  SmallString<256> From(Dir), To(Path);
  sys::fs::make_absolute(From);
  sys::fs::make_absolute(To);
  sys::path::remove_dots(From, /*remove_dot_dot=*/true);
  sys::path::remove_dots(To, /*remove_dot_dot=*/true);
  SmallVector<StringRef, 16> F(sys::path::begin(From), sys::path::end(From)),
      T(sys::path::begin(To), sys::path::end(To));
  size_t Common = 0;
  while (Common < F.size() && Common < T.size() && F[Common] == T[Common])
    ++Common;
  if (Common == 0) // no shared root (another drive)
    return sys::path::convert_to_slash(To);
  std::string Rel;
  for (size_t I = Common; I < F.size(); ++I)
    Rel += "../";
  for (size_t I = Common; I < T.size(); ++I)
    Rel += T[I].str() + (I + 1 < T.size() ? "/" : "");
  return Rel;
}

} // namespace weft::passes
