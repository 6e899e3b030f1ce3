//===- weaving/CallOperands.h - What a call takes from the stack -*- C++ -*-===//
//
// The types of the values a call instruction takes from the evaluation stack, as types a local
// variable can have: the callee's parameter types with the generic arguments of its declaring
// type and of its instantiation put in for !n and !!n (so they are types of the calling method),
// and, for an instance method, the type of `this` (the declaring type, a managed pointer to it for
// a value type, or to the constrained. type). Passes need them to hold a call's arguments in
// locals, as they must when a tail call moves out of a protected region.
//
// The computation reads signatures through SignatureFacts, which each host fills from its own
// metadata (offline: the editor, which also knows the rows passes added; the assembly resolver for
// whether a referenced type is a value type).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_CALLOPERANDS_H
#define WEFT_WEAVING_CALLOPERANDS_H

#include "il/MethodBody.h"
#include "metadata/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace weft::passes {

struct SignatureFacts {
  /// The logical value of a cell (a token for coded-index columns), as metadata::Editor::get.
  llvm::function_ref<uint32_t(metadata::TableId, uint32_t Row, unsigned Col)> Cell;
  llvm::function_ref<llvm::ArrayRef<uint8_t>(uint32_t BlobOffset)> Blob;
  /// The TypeDef row that declares MethodDef row \p Row (0 for a global method or unknown).
  llvm::function_ref<uint32_t(uint32_t MethodRow)> DeclaringType;
  /// Whether a TypeDef or TypeRef names a value type; nothing when that cannot be known.
  llvm::function_ref<std::optional<bool>(metadata::Token Type)> IsValueType;
};

/// The operand types of \p Call (call, callvirt, calli or newobj), in the order they were pushed
/// (`this` first, but for newobj, which makes it; a calli's function pointer last), without custom
/// modifiers. \p Constrained is the type
/// token of a constrained. prefix before the call, or 0. Fails, saying why, for a vararg call or
/// when a type cannot be known.
llvm::Expected<std::vector<metadata::TypeSig>>
callOperandTypes(const SignatureFacts &Facts, const il::Instr &Call, metadata::Token Constrained);

} // namespace weft::passes

#endif
