//===- il/StackDepth.h - Evaluation stack depths ----------------*- C++ -*-===//
//
// The depth of the evaluation stack before every instruction, found by following control flow
// from the entry and from every handler: what the encoder needs for max-stack, and what the
// verifier checks (the same depth on every path into an instruction, never below zero).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_STACKDEPTH_H
#define WEFT_IL_STACKDEPTH_H

#include "il/CallShapes.h"
#include "il/MethodBody.h"

#include <string>
#include <vector>

namespace weft::analysis {

struct StackProblem {
  uint32_t Index; // of the instruction in the body's order
  std::string What;
};

struct StackInfo {
  uint32_t MaxStack = 0;
  /// The depth before each instruction (by position in the order); -1 where unreachable.
  std::vector<int32_t> DepthIn;
  std::vector<StackProblem> Problems;
  /// The instructions left to visit (kept here so that a StackInfo reused for many bodies
  /// allocates once).
  std::vector<uint32_t> Work;
};

/// \p ReturnsValue says whether `ret` takes a value (the method's return type is not void).
StackInfo analyzeStack(const il::MethodBody &Body, const il::CallShapeSource &Shapes,
                       bool ReturnsValue);
/// The same into \p Out, whose storage is reused. \p Stamp, if not 0, is the body's numbering
/// (MethodBody::number) made by the caller since its order last changed.
void analyzeStack(const il::MethodBody &Body, const il::CallShapeSource &Shapes, bool ReturnsValue,
                  StackInfo &Out, uint32_t Stamp = 0);

/// How many values \p I takes from and leaves on the stack; false if its token names no method.
bool stackEffect(const il::Instr &I, const il::CallShapeSource &Shapes, bool ReturnsValue, int &Pop,
                 int &Push);

} // namespace weft::analysis

#endif
