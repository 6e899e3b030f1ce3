//===- weaving/Returns.h - The ways out of a method -------------*- C++ -*-===//
//
// Several passes need a method to leave through one place: single-ret makes that its whole job,
// entry-exit and trace put their exit code there. Every `ret` stores the return value in a new
// local and branches to one epilogue (`leave` when it sits inside a protected region).
//
// A tail call (`tail.` call; ret) is the other way out, and it must stay one: the call must be
// followed by its `ret`, and it may not lie in a protected region, or the runtime refuses the
// method. So a tail call keeps its own `ret`; code that must run when the method leaves goes
// before the call's prefixes (the arguments are on the stack then), and when the caller is about
// to wrap the body in a try block, the tail calls move out of it: their arguments go into locals,
// a `leave` takes control to a stub after the body that loads them and makes the call, still a
// tail call. The method's frame ends at the call: exit code runs before the callee does, and
// nothing of the caller sees the callee's result or exceptions.
//
// Plugins use these helpers as the built-in passes do (docs/plugins.md).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_RETURNS_H
#define WEFT_WEAVING_RETURNS_H

#include "il/MethodBody.h"
#include "weaving/Emit.h"
#include "weaving/Pass.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::passes {

/// Whether each instruction (by position) lies in a try block, a filter or a handler.
std::vector<bool> protectedPositions(const il::MethodBody &B);

/// A tail call: the first of its prefixes, the call, and the `ret` that follows it.
struct TailCall {
  il::Instr *First = nullptr;
  il::Instr *Call = nullptr;
  il::Instr *Ret = nullptr;
};

/// The tail calls of \p B, in order. A `ret` that completes a tail call and is also the target of
/// branches is split first: the branches get a `ret` of their own right after it, an ordinary one.
std::vector<TailCall> tailCalls(il::MethodBody &B);

/// Places code before each tail call of \p B, before its prefixes, with the call's arguments on
/// the stack (\p Emit must leave the stack as it found it). What branched to the call now reaches
/// the code first.
void beforeTailCalls(il::MethodBody &B, llvm::ArrayRef<TailCall> Calls,
                     llvm::function_ref<void(Emitter &)> Emit);

/// Places code before every way out of \p B: each `ret` (with the return value, if any, on the
/// stack) and each tail call (as beforeTailCalls). \p Emit is told which it is.
void beforeEachExit(il::MethodBody &B, llvm::function_ref<void(Emitter &, bool TailCall)> Emit);

struct SingleExit {
  /// The first instruction of the epilogue (`ldloc value; ret` or `ret`); null if the method
  /// returns only through tail calls, or never.
  il::Instr *Epilogue = nullptr;
  /// The local holding the return value, if the method returns one.
  std::optional<uint32_t> ValueLocal;
  /// Where the method's own code ends and what the pass adds after it begins: the epilogue, else
  /// the first tail-call stub, else null (the end of the code). Code that goes between the body
  /// and the exit (handlers) goes before it.
  il::Instr *End = nullptr;
};

/// Where code wrapping a method's body may begin: 0, or just after the base-constructor call in a
/// class's instance constructor (`this` cannot be used before it). Nothing, with the reason in
/// \p WhyNot, when the body cannot be wrapped in a try block (it uses `jmp`, control flow crosses
/// the base-constructor call, a tail call comes before the base-constructor call, ...).
std::optional<size_t> wrapStart(MethodContext &C, std::string &WhyNot);

/// Sends every `ret` of the body, but those of tail calls, to one epilogue placed at the end. With
/// \p Wrap (for code that the caller is about to wrap in a try block) the branches are `leave` and
/// the tail calls move out to stubs placed after the epilogue, each starting with the code
/// \p StubExit emits. Fails, changing nothing, when the arguments of a tail call cannot be held
/// in locals (their types cannot be known).
llvm::Expected<SingleExit> makeSingleExit(MethodContext &C, bool Wrap,
                                          llvm::function_ref<void(Emitter &)> StubExit = {});

/// Makes the method's code from \p TryFirst up to \p HandlerFirst a try block whose handler
/// (\p Kind, catching \p CatchType for a catch) runs from \p HandlerFirst to \p End (what the
/// pass placed between the body and SingleExit::End). The method's own regions that reached the
/// end of the code, or \p End, now stop where the handler begins. Returns the new region's
/// index in B.Regions.
size_t protectBody(il::MethodBody &B, il::Instr *TryFirst, il::Instr *HandlerFirst,
                   il::Instr *End, il::RegionKind Kind, uint32_t CatchType = 0);

} // namespace weft::passes

#endif
