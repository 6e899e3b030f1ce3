//===- runtime-profiler/lttng/Provider.cpp - libweft_lttng.so -------------===//
//
// The provider's probes and the three functions the profiler finds with dlsym (LttngSink.h).
// Built only where LTTng-UST is installed; the profiler itself never links LTTng.
//
//===----------------------------------------------------------------------===//
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "runtime-profiler/lttng/WeftTracepoints.h"

extern "C" {
__attribute__((visibility("default"))) void weft_lttng_enter(const char *Method,
                                                             const char *Tracepoints,
                                                             const char *Arguments,
                                                             unsigned Thread) {
  lttng_ust_tracepoint(weft, tracepoint_enter, Method, Tracepoints, Arguments, Thread);
}
__attribute__((visibility("default"))) void weft_lttng_leave(const char *Method,
                                                             const char *Result,
                                                             unsigned Thread) {
  lttng_ust_tracepoint(weft, tracepoint_leave, Method, Result, Thread);
}
__attribute__((visibility("default"))) void
weft_lttng_collection(unsigned Generation, const char *Reason, double Micros,
                      unsigned long Before, unsigned long After, unsigned Thread) {
  lttng_ust_tracepoint(weft, collection, Generation, Reason, Micros, Before, After, Thread);
}
}
