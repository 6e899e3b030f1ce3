//===- weaving/WovenRecord.h - What a woven module says of its weave -*- C++ -*-===//
//
// `weft weave` records in the marker type `<weft>.Woven` where the module came from and what was
// done to it, as three string constants (public static literal fields), which `weft dump` shows
// and `weft diff --woven` reads:
//
//   Input        the input's path, relative to the output's folder (absolute where no relative
//                path leads there), with '/' between its parts;
//   InputSha256  the SHA-256 of the input file, in lower-case hex;
//   Passes       one line for each pass of the weave, in the spec's order: the pass and its
//                options as the spec gives them (`entry-exit:probe=P.dll`), a tab, and the
//                MethodDef rows it changed, as ascending ranges (`3-7,12`).
//
// The same input, path and spec give the same record, so the output stays deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_WOVENRECORD_H
#define WEFT_WEAVING_WOVENRECORD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::metadata {
class Editor;
class Module;
} // namespace weft::metadata

namespace weft::passes {

struct WovenRecord {
  std::string Input;
  std::string InputSha256;
  struct PassRecord {
    std::string Pass;           // the name and options: `name` or `name:k=v,k=v`
    std::vector<uint32_t> Rows; // the MethodDef rows it changed, ascending
  };
  std::vector<PassRecord> Passes;

  /// The passes that changed MethodDef row \p Row, in the weave's order.
  std::vector<std::string> passesOf(uint32_t Row) const;
};

/// The record of a woven module: none when it has no marker; an error when its marker has no
/// record (an earlier weft wove it, or a weave outside `weft weave`) or a malformed one.
llvm::Expected<std::optional<WovenRecord>> readWovenRecord(const metadata::Module &M);

/// Gives the marker type \p Marker the record's fields. A marker added by this edit (the last
/// type) gets new fields; one the module had gets its fields' values replaced, and if it has
/// none, the result is an error.
llvm::Error writeWovenRecord(metadata::Editor &E, uint32_t MarkerRow, const WovenRecord &R);

/// \p Path as seen from the folder \p Dir: relative where it can be, '/' between the parts.
/// Both are made absolute (from the current folder) first.
std::string pathFrom(llvm::StringRef Dir, llvm::StringRef Path);

} // namespace weft::passes

#endif
