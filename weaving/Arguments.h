//===- weaving/Arguments.h - A method's values as objects -------*- C++ -*-===//
//
// Passes that hand a method's arguments or return value to code of their own (entry-exit's
// probes, the runtime profiler's tracepoints) load each as an object: boxed when it is a value
// type or a generic parameter, read through a reference parameter, null when it cannot be boxed
// (by-ref-like values, pointers) or means nothing yet (out parameters at entry). Each null is
// reported as a note.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_ARGUMENTS_H
#define WEFT_WEAVING_ARGUMENTS_H

#include "metadata/Signature.h"
#include "weaving/Emit.h"
#include "weaving/Pass.h"

#include <cstdint>

namespace weft::passes {

/// Whether a value of \p T is an object reference (classes, strings, arrays).
bool isReferenceType(const metadata::TypeSig &T);

/// Boxes the value of type \p T on the stack unless it is a reference already.
void boxIfValue(MethodContext &C, Emitter &E, const metadata::TypeSig &T);

/// Pushes parameter \p I (0 for the first after `this`) as an object.
void loadArgumentAsObject(MethodContext &C, Emitter &E, uint32_t I);

} // namespace weft::passes

#endif
