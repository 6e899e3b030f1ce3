// Garbage collections as spans, when the exporter runs and WEFT_GC is set (as `weft run --gc`
// sets it for the profiler's timeline): the runtime's own GC events (GCStart, GCEnd, keyword GC,
// informational), heard in the process by an EventListener, each collection a span of the
// ActivitySource "Weft.Runtime" named "GC", from its start to its end, with its number,
// generation, reason and type, and the thread that started it (`thread.id`, the OS's id).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Tracing;

namespace Weft.Otlp
{
    internal sealed class GcSpans : EventListener
    {
        public const string SourceName = "Weft.Runtime";
        const EventKeywords GcKeyword = (EventKeywords)0x1;
        const int GcStart = 1, GcEnd = 2;

        static readonly string[] Reasons =
        {
            "AllocSmall", "Induced", "LowMemory", "Empty", "AllocLarge", "OutOfSpaceSOH", "OutOfSpaceLOH",
            "InducedNotForced", "Internal", "InducedLowMemory", "InducedCompacting", "LowMemoryHost",
            "PMFullGC", "LowMemoryHostBlocking",
        };
        static readonly string[] Types = { "NonConcurrentGC", "BackgroundGC", "ForegroundGC" };

        readonly ActivitySource Source;
        readonly Dictionary<uint, Started> Open = new Dictionary<uint, Started>();
        EventSource Runtime;

        struct Started
        {
            public DateTime At;
            public long Thread;
            public uint Depth, Reason, Type;
        }

        public GcSpans(string version)
        {
            Source = new ActivitySource(SourceName, version);
            // The runtime's source may have been created before this listener: it is offered
            // to OnEventSourceCreated either way, once the base constructor has run.
            if (Runtime != null)
                EnableEvents(Runtime, EventLevel.Informational, GcKeyword);
        }

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name != "Microsoft-Windows-DotNETRuntime")
                return;
            Runtime = source;
            if (Source != null) // not during the base constructor
                EnableEvents(source, EventLevel.Informational, GcKeyword);
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            try
            {
                if (e.EventId == GcStart)
                    lock (Open)
                        Open[Number(e, "Count")] = new Started
                        {
                            At = e.TimeStamp.ToUniversalTime(),
                            Thread = e.OSThreadId,
                            Depth = Number(e, "Depth"),
                            Reason = Number(e, "Reason"),
                            Type = Number(e, "Type"),
                        };
                else if (e.EventId == GcEnd)
                    Ended(Number(e, "Count"), e.TimeStamp.ToUniversalTime());
            }
            catch
            {
            }
        }

        void Ended(uint count, DateTime end)
        {
            Started s;
            lock (Open)
            {
                if (!Open.TryGetValue(count, out s))
                    return;
                Open.Remove(count);
            }
            var tags = new ActivityTagsCollection
            {
                { "gc.number", (long)count },
                { "gc.generation", (long)s.Depth },
                { "gc.reason", s.Reason < Reasons.Length ? Reasons[s.Reason] : s.Reason.ToString() },
                { "gc.type", s.Type < Types.Length ? Types[s.Type] : s.Type.ToString() },
                { "thread.id", s.Thread },
            };
            Activity.Current = null; // a collection is a trace of its own
            using (Activity a = Source.StartActivity("GC", ActivityKind.Internal, default(ActivityContext), tags,
                                                     null, new DateTimeOffset(s.At)))
                a?.SetEndTime(end);
        }

        static uint Number(EventWrittenEventArgs e, string name)
        {
            int i = e.PayloadNames == null ? -1 : e.PayloadNames.IndexOf(name);
            return i < 0 || e.Payload[i] == null ? 0 : Convert.ToUInt32(e.Payload[i]);
        }
    }
}
