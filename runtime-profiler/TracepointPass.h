//===- runtime-profiler/TracepointPass.h - Tracepoints' IL ----*- C++ -*-===//
//
// The pass the runtime profiler applies, through ReJIT, to the methods tracepoints name
// (docs/profiler.md). Each method gets a slot of the recorder (runtime-profiler/Recorder.h); its
// woven code reads the slot's flag and, only when it is set, calls the recorder:
//
//   if (*flag) { enter(slot); value(slot, i, (object)arg_i) for each parameter }
//   .try { body; every ret: stloc v; leave EXIT }
//   catch System.Exception { stloc e; if (*flag) { leave(slot); value(slot, Thrown, e) } rethrow }
//   EXIT: if (*flag) { leave(slot); value(slot, ReturnValue, (object)v) } ldloc v; ret
//
// The calls are `calli` to the recorder's addresses, unmanaged and without a GC transition;
// each object goes through a pinned local, so its address holds during the call.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_TRACEPOINTPASS_H
#define WEFT_RUNTIME_PROFILER_TRACEPOINTPASS_H

#include "weaving/Pass.h"

#include <functional>
#include <memory>
#include <optional>

namespace weft::prof {

class Recorder;

/// The slot for the method \p C is about to weave, or nothing (the reason is logged by the
/// callee) when it can have none.
using SlotFor = std::function<std::optional<uint32_t>(passes::MethodContext &C)>;

std::unique_ptr<passes::Pass> makeTracepointPass(const Recorder &R, SlotFor Slots);

} // namespace weft::prof

#endif
