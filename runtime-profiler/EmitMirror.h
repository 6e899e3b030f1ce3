//===- runtime-profiler/EmitMirror.h - Editor additions into the runtime -*- C++ -*-===//
//
// The passes add references, signatures and strings through weft's Editor, as offline. At run
// time an EmitMirror watches that editor and makes each addition in the runtime's own metadata
// of the module (IMetaDataEmit), where it must get the token the editor gave: rows are appended
// to both in the same order, so the tokens agree while weft is the module's only writer. An
// addition the runtime refuses, or one that comes out under another token, is an error the
// caller takes (the method is then left as it was).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_EMITMIRROR_H
#define WEFT_RUNTIME_PROFILER_EMITMIRROR_H

#include "metadata/Editor.h"
#include "runtime-profiler/MetaData.h"

#include <optional>
#include <unordered_map>
#include <vector>
#include <utility>
#include <string>

namespace weft::prof {

class EmitMirror final : public metadata::EditObserver {
public:
  EmitMirror(IMetaDataEmit2 *Emit, IMetaDataAssemblyEmit *AssemblyEmit)
      : Emit(Emit), AssemblyEmit(AssemblyEmit) {}

  void rowAdded(const metadata::Editor &E, metadata::TableId T, uint32_t Row) override;
  void userStringAdded(const metadata::Editor &E, metadata::Token T,
                       llvm::StringRef Utf8) override;

  /// The runtime finds an equal user string where the editor appends one, so their offsets part:
  /// the runtime's token for an ldstr token the editor gave (the same one if they agree).
  metadata::Token userString(metadata::Token EditorToken) const {
    auto It = UserStrings.find(EditorToken);
    return It == UserStrings.end() ? EditorToken : It->second;
  }
  /// Puts the runtime's user-string tokens into the ldstr instructions of an encoded body
  /// (header, code, sections); false if the body does not decode.
  bool remapUserStrings(std::vector<uint8_t> &Body) const;

  /// Whether types, fields or methods were added since the last call: the runtime sees them
  /// once the profiler applies the metadata (ICorProfilerInfo7::ApplyMetaData).
  bool takeDefinitions() { return std::exchange(Definitions, false); }

  /// What went wrong since the last call, if anything (the first problem).
  std::optional<std::string> takeProblem() {
    std::optional<std::string> P = std::move(Problem);
    Problem.reset();
    return P;
  }

private:
  /// Checks what an emit call gave (\p Got by reference: it is read after the call that fills it,
  /// whatever order the arguments are evaluated in).
  void made(metadata::Token Expected, HRESULT Hr, const uint32_t &Got, const char *What);

  IMetaDataEmit2 *Emit;
  static metadata::Token lastType(const metadata::Editor &E);

  IMetaDataAssemblyEmit *AssemblyEmit;
  std::optional<std::string> Problem;
  bool Definitions = false;
  std::unordered_map<metadata::Token, metadata::Token> UserStrings; // where they differ
};

} // namespace weft::prof

#endif
