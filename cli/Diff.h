//===- cli/Diff.h - What the parts of weft diff share -----------*- C++ -*-===//
//
// `weft diff` (DiffCommand.cpp) compares two assemblies and writes the result as text, as a
// summary (--stat) or as JSON (DiffJson.cpp, docs/weft-diff.schema.json), or checks it against
// a reviewed baseline (DiffBaseline.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_DIFF_H
#define WEFT_CLI_DIFF_H

#include "iltext/ModuleDiff.h"
#include "weaving/WovenRecord.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace weft::cli {

/// diff's exit codes, those of diff(1): unlike weft's other commands, 1 is no error.
enum DiffExit : int { DiffSame = 0, DiffDifferent = 1, DiffTrouble = 2 };

struct DiffResult {
  std::string PathA, PathB;
  text::ModuleDiff Diff;
  /// The second assembly's record of its weave, when it has one.
  std::optional<passes::WovenRecord> Record;

  /// The passes (with their options) that changed the second module's method of \p C, as its
  /// record says; none without a record or for a removed method.
  std::vector<std::string> passesOf(const text::MethodChange &C) const;
};

/// The result as JSON (docs/weft-diff.schema.json); with \p Stat, without the hunks.
void writeDiffJson(llvm::raw_ostream &OS, const DiffResult &R, bool Stat);

/// Writes the baseline \p File from the result (when it does not exist, or with \p Update), or
/// checks the result against it, saying on standard output what differs. The exit code: the
/// check's (DiffSame, DiffDifferent), or DiffTrouble when the file cannot be read or written.
int runBaseline(const DiffResult &R, llvm::StringRef File, bool Update);

} // namespace weft::cli

#endif
