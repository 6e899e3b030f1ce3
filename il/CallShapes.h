//===- il/CallShapes.h - What a call takes and leaves -----------*- C++ -*-===//
//
// The stack effect of call, callvirt, newobj, calli and ret depends on a signature. Stack analysis
// asks a CallShapeSource; the one over a read module decodes signatures, and the metadata editor
// (which also knows the references it added) provides another.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_CALLSHAPES_H
#define WEFT_IL_CALLSHAPES_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace weft::metadata {
class Module;
class Editor;
} // namespace weft::metadata

namespace weft::il {

struct CallShape {
  uint32_t Params = 0;  // not counting `this`
  bool HasThis = false; // an instance signature (and not explicit-this)
  bool ReturnsValue = false;
};

class CallShapeSource {
public:
  virtual ~CallShapeSource() = default;
  /// The shape of the method a MethodDef, MemberRef or MethodSpec token names, or of the
  /// stand-alone signature a calli names; nullopt if the token names nothing of the kind.
  virtual std::optional<CallShape> shapeOf(uint32_t Token) const = 0;
};

/// Shapes from the signatures of a module (remembered once decoded).
class ModuleCallShapes : public CallShapeSource {
public:
  explicit ModuleCallShapes(const metadata::Module &M) : M(M) {}
  std::optional<CallShape> shapeOf(uint32_t Token) const override;
  /// The shape of a method defined in the module.
  std::optional<CallShape> methodDef(uint32_t Row) const;

private:
  const metadata::Module &M;
  mutable std::shared_mutex Lock; // lookups share it; filling the cache takes it alone
  mutable std::unordered_map<uint32_t, std::optional<CallShape>> Cache;
};

/// Shapes from the rows of an editor: the module's own and those added by edits.
class EditorCallShapes : public CallShapeSource {
public:
  explicit EditorCallShapes(const metadata::Editor &E) : E(E) {}
  std::optional<CallShape> shapeOf(uint32_t Token) const override;
  /// Runs Do(I) for every I below Count, in any order, perhaps on several threads.
  using ParallelFor = llvm::function_ref<void(size_t Count, llvm::function_ref<void(size_t)> Do)>;
  /// Works out the shape of every MethodDef, MemberRef and MethodSpec row there is now, so that
  /// threads asking for them share no lock (rows added later are looked up as before); with
  /// \p ForEach, in chunks on its threads.
  void prepare(ParallelFor ForEach = nullptr);

private:
  std::optional<CallShape> compute(uint32_t Token) const;
  /// By table (MethodDef, MemberRef, MethodSpec) and row - 1; read-only once prepared.
  std::vector<std::optional<CallShape>> Prepared[3];
  const metadata::Editor &E;
  mutable std::shared_mutex Lock; // lookups share it; filling the cache takes it alone
  mutable std::unordered_map<uint32_t, std::optional<CallShape>> Cache;
};

} // namespace weft::il

#endif
