//===- runtime-profiler/LttngSinkWindows.cpp ------------------------------===//
//
// LTTng exists on Linux only: on Windows the timeline goes to its file and EventPipe.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Log.h"
#include "runtime-profiler/LttngSink.h"

namespace weft::prof {

std::unique_ptr<EventSink> openLttngSink(Log &L) {
  L.line("lttng: no LTTng events (LTTng exists on Linux only)");
  return nullptr;
}

} // namespace weft::prof
