//===- runtime-profiler/LttngSink.h - Timeline records as LTTng-UST events -*- C++ -*-===//
//
// Where LTTng-UST is installed, the build makes libweft_lttng.so beside the profiler: the
// tracepoint provider "weft" (runtime-profiler/lttng/WeftTracepoints.h) with the events
// weft:tracepoint_enter, weft:tracepoint_leave and weft:collection. The profiler opens it when
// its timeline starts (never linking LTTng itself, so a machine without it loses only this
// sink) and hands it what it hands the EventPipe provider; an LTTng session records them with
// `lttng enable-event --userspace 'weft:*'`.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_LTTNGSINK_H
#define WEFT_RUNTIME_PROFILER_LTTNGSINK_H

#include "runtime-profiler/EventSink.h"

#include <memory>

namespace weft::prof {

class Log;

/// The LTTng sink, or null (logged) when libweft_lttng.so is not beside the profiler or does not
/// load (LTTng-UST not installed).
std::unique_ptr<EventSink> openLttngSink(Log &L);

} // namespace weft::prof

#endif
