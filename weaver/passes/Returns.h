//===- weaver/passes/Returns.h - One way out of a method --------*- C++ -*-===//
//
// Several passes need a method to leave through one place: single-ret makes that its whole job,
// entry-exit and trace put their exit code there. Every `ret` stores the return value in a new
// local and branches to one epilogue (`leave` when it sits inside a protected region).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVER_PASSES_RETURNS_H
#define WEFT_WEAVER_PASSES_RETURNS_H

#include "weaver/il/MethodBody.h"
#include "weaver/passes/Pass.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::passes {

/// Whether each instruction (by position) lies in a try block, a filter or a handler.
std::vector<bool> protectedPositions(const il::MethodBody &B);

struct SingleExit {
  /// The first instruction of the epilogue (`ldloc value; ret` or `ret`).
  il::Instr *Epilogue = nullptr;
  /// The local holding the return value, if the method returns one.
  std::optional<uint32_t> ValueLocal;
};

/// Where code wrapping a method's body may begin: 0, or just after the base-constructor call in a
/// class's instance constructor (`this` cannot be used before it). Nothing, with the reason in
/// \p WhyNot, when the body cannot be wrapped in a try block (it uses `jmp`, control flow crosses
/// the base-constructor call, ...).
std::optional<size_t> wrapStart(MethodContext &C, std::string &WhyNot);

/// Sends every `ret` of the body to one epilogue placed at the end; with \p AlwaysLeave the
/// branches are `leave` (for code that the caller is about to wrap in a try block). Returns no
/// epilogue if the body has no `ret`.
SingleExit makeSingleExit(MethodContext &C, bool AlwaysLeave);

} // namespace weft::passes

#endif
