// The LTTng-UST tracepoint provider "weft" (runtime-profiler/LttngSink.h): a tracepoint call's
// enter and leave, and a garbage collection. Read as LTTng-UST's macros require: several times,
// by the code that defines the probes.
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER weft

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "runtime-profiler/lttng/WeftTracepoints.h"

#if !defined(WEFT_RUNTIME_PROFILER_LTTNG_WEFTTRACEPOINTS_H) ||                                   \
    defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define WEFT_RUNTIME_PROFILER_LTTNG_WEFTTRACEPOINTS_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
    weft, tracepoint_enter,
    LTTNG_UST_TP_ARGS(const char *, method, const char *, tracepoints, const char *, arguments,
                      unsigned int, thread),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(method, method)
                            lttng_ust_field_string(tracepoints, tracepoints)
                                lttng_ust_field_string(arguments, arguments)
                                    lttng_ust_field_integer(unsigned int, thread, thread)))

LTTNG_UST_TRACEPOINT_EVENT(
    weft, tracepoint_leave,
    LTTNG_UST_TP_ARGS(const char *, method, const char *, result, unsigned int, thread),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(method, method)
                            lttng_ust_field_string(result, result)
                                lttng_ust_field_integer(unsigned int, thread, thread)))

LTTNG_UST_TRACEPOINT_EVENT(
    weft, collection,
    LTTNG_UST_TP_ARGS(unsigned int, generation, const char *, reason, double, microseconds,
                      unsigned long, heap_before, unsigned long, heap_after, unsigned int,
                      thread),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(unsigned int, generation, generation)
                            lttng_ust_field_string(reason, reason)
                                lttng_ust_field_float(double, microseconds, microseconds)
                                    lttng_ust_field_integer(unsigned long, heap_before, heap_before)
                                        lttng_ust_field_integer(unsigned long, heap_after,
                                                                heap_after)
                                            lttng_ust_field_integer(unsigned int, thread,
                                                                    thread)))

#endif

#include <lttng/tracepoint-event.h>
