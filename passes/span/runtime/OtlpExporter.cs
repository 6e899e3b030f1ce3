// The span pass's exporter. A module woven with `span` carries these bytes and, when the process
// has an OTLP endpoint in its environment (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), loads them once per process (the first woven module to
// start does; the others find it through the AppDomain) and makes an Exporter, which starts the
// pipeline below. Nothing here needs a package: the framework's ActivityListener, HttpClient and
// Utf8JsonWriter, and a protobuf writer of its own.
//
// The pipeline: a listener on the sources named (Weft, and the framework's request sources, so
// that weft's spans have their ASP.NET Core and HttpClient parents in the same trace; with
// WEFT_GC, collections too: GcSpans.cs) puts each
// recorded span that ends into a bounded queue, or drops and counts it when the queue is full;
// nothing else happens on the app's threads. A background thread takes batches off the queue
// (every OTEL_BSP_SCHEDULE_DELAY ms, or as soon as a batch is full), encodes them
// (http/protobuf, http/json or grpc) and posts them, retrying what the backend refuses for now
// with backoff. At process exit what is queued is sent, within a bounded time.
//
// When something else in the process listens to a source (the app's own OpenTelemetry SDK with
// AddSource("Weft")), its spans are left to it: a probe source of the same name, which this
// listener ignores, has listeners only then. So a span is never sent twice.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Threading;

namespace Weft.Otlp
{
    /// What a woven module finds once it has loaded this assembly: made (by reflection), it
    /// starts the pipeline, once per process, from the environment; Format gives the text of an
    /// argument the span pass records (ValueText.cs), through its address.
    public sealed class Exporter
    {
        static int Started;

        public static string Format(object value, int depth)
        {
            try
            {
                return ValueText.Format(value, depth);
            }
            catch (Exception e)
            {
                return "<" + value.GetType().FullName + ": " + e.GetType().Name + ">";
            }
        }

        public Exporter()
        {
            if (Interlocked.Exchange(ref Started, 1) != 0)
                return;
            try
            {
                Settings s = Settings.FromEnvironment(Environment.GetEnvironmentVariable);
                if (s != null)
                    new Pipeline(s).Start();
            }
            catch (Exception e)
            {
                Log.Warn("not started: " + e.Message);
            }
        }
    }

    internal static class Log
    {
        public static bool Debug;

        public static void Warn(string what)
        {
            try { Console.Error.WriteLine("weft: OTLP export: " + what); } catch { }
        }
    }

    internal enum Protocol { HttpProtobuf, HttpJson, Grpc }

    internal enum SamplerKind { AlwaysOn, AlwaysOff, Ratio }

    /// The standard OTEL_* variables, read once.
    internal sealed class Settings
    {
        public Protocol Protocol;
        public Uri Endpoint;
        public List<KeyValuePair<string, string>> Headers = new List<KeyValuePair<string, string>>();
        public int TimeoutMs = 10000, DelayMs = 5000, QueueSize = 2048, BatchSize = 512, ExitMs = 5000;
        public List<KeyValuePair<string, object>> Resource = new List<KeyValuePair<string, object>>();
        public SamplerKind Sampler = SamplerKind.AlwaysOn;
        public bool ParentBased = true;
        public double Ratio = 1.0;
        public HashSet<string> Sources = new HashSet<string>(StringComparer.Ordinal);
        public bool AllSources;
        /// Collections as spans (GcSpans.cs): WEFT_GC set, as `weft run --gc` sets it.
        public bool Gc;

        public static Settings FromEnvironment(Func<string, string> env)
        {
            Log.Debug = string.Equals(env("OTEL_LOG_LEVEL"), "debug", StringComparison.OrdinalIgnoreCase);
            if (string.Equals(env("OTEL_SDK_DISABLED"), "true", StringComparison.OrdinalIgnoreCase))
                return null;
            string exporters = env("OTEL_TRACES_EXPORTER");
            if (exporters != null && Array.IndexOf(exporters.Replace(" ", "").Split(','), "otlp") < 0)
                return null;
            var s = new Settings();
            string protocol = env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? env("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf";
            switch (protocol.Trim())
            {
                case "http/protobuf": s.Protocol = Protocol.HttpProtobuf; break;
                case "http/json": s.Protocol = Protocol.HttpJson; break;
                case "grpc": s.Protocol = Protocol.Grpc; break;
                default: throw new ArgumentException("OTEL_EXPORTER_OTLP_PROTOCOL '" + protocol + "' is none of http/protobuf, http/json, grpc");
            }
            string traces = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), all = env("OTEL_EXPORTER_OTLP_ENDPOINT");
            string grpcPath = "opentelemetry.proto.collector.trace.v1.TraceService/Export";
            if (!string.IsNullOrWhiteSpace(traces))
                s.Endpoint = new Uri(s.Protocol == Protocol.Grpc ? Slash(traces) + grpcPath : traces.Trim());
            else if (!string.IsNullOrWhiteSpace(all))
                s.Endpoint = new Uri(Slash(all) + (s.Protocol == Protocol.Grpc ? grpcPath : "v1/traces"));
            else
                return null;
            if (s.Endpoint.Scheme != "http" && s.Endpoint.Scheme != "https")
                throw new ArgumentException("the endpoint " + s.Endpoint + " is not http or https");
            s.Headers.AddRange(Pairs(env("OTEL_EXPORTER_OTLP_HEADERS")));
            foreach (var h in Pairs(env("OTEL_EXPORTER_OTLP_TRACES_HEADERS")))
            {
                s.Headers.RemoveAll(k => string.Equals(k.Key, h.Key, StringComparison.OrdinalIgnoreCase));
                s.Headers.Add(h);
            }
            s.TimeoutMs = Number(env("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? env("OTEL_EXPORTER_OTLP_TIMEOUT"), s.TimeoutMs);
            s.DelayMs = Number(env("OTEL_BSP_SCHEDULE_DELAY"), s.DelayMs);
            s.QueueSize = Math.Max(1, Number(env("OTEL_BSP_MAX_QUEUE_SIZE"), s.QueueSize));
            s.BatchSize = Math.Max(1, Math.Min(s.QueueSize, Number(env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), s.BatchSize)));
            s.ExitMs = Math.Min(s.ExitMs, Number(env("OTEL_BSP_EXPORT_TIMEOUT"), 30000));
            ReadResource(s, env);
            ReadSampler(s, env("OTEL_TRACES_SAMPLER"), env("OTEL_TRACES_SAMPLER_ARG"));
            string sources = env("WEFT_OTLP_SOURCES") ?? "Weft,Microsoft.AspNetCore,System.Net.Http";
            foreach (string name in sources.Split(','))
                if (name.Trim() == "*")
                    s.AllSources = true;
                else if (name.Trim().Length > 0)
                    s.Sources.Add(name.Trim());
            s.Gc = !string.IsNullOrEmpty(env("WEFT_GC"));
            if (s.Gc)
                s.Sources.Add(GcSpans.SourceName);
            return s;
        }

        static string Slash(string url) => url.Trim().EndsWith("/") ? url.Trim() : url.Trim() + "/";

        static int Number(string text, int otherwise) =>
            int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n >= 0 ? n : otherwise;

        /// "k1=v1,k2=v2", values percent-encoded.
        static IEnumerable<KeyValuePair<string, string>> Pairs(string text)
        {
            if (string.IsNullOrEmpty(text))
                yield break;
            foreach (string item in text.Split(','))
            {
                int eq = item.IndexOf('=');
                if (eq <= 0)
                    continue;
                yield return new KeyValuePair<string, string>(Uri.UnescapeDataString(item.Substring(0, eq).Trim()),
                                                              Uri.UnescapeDataString(item.Substring(eq + 1).Trim()));
            }
        }

        static void ReadResource(Settings s, Func<string, string> env)
        {
            var values = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (var p in Pairs(env("OTEL_RESOURCE_ATTRIBUTES")))
                values[p.Key] = p.Value;
            string service = env("OTEL_SERVICE_NAME");
            if (!string.IsNullOrWhiteSpace(service))
                values["service.name"] = service.Trim();
            if (!values.ContainsKey("service.name"))
                values["service.name"] = "unknown_service:" + Process.GetCurrentProcess().ProcessName;
            foreach (var p in values)
                s.Resource.Add(new KeyValuePair<string, object>(p.Key, p.Value));
            s.Resource.Add(new KeyValuePair<string, object>("telemetry.sdk.name", "weft"));
            s.Resource.Add(new KeyValuePair<string, object>("telemetry.sdk.language", "dotnet"));
            s.Resource.Add(new KeyValuePair<string, object>("telemetry.sdk.version",
                typeof(Exporter).Assembly.GetName().Version.ToString(3)));
        }

        static void ReadSampler(Settings s, string name, string arg)
        {
            switch ((name ?? "parentbased_always_on").Trim())
            {
                case "always_on": s.ParentBased = false; break;
                case "always_off": s.ParentBased = false; s.Sampler = SamplerKind.AlwaysOff; break;
                case "traceidratio": s.ParentBased = false; s.Sampler = SamplerKind.Ratio; break;
                case "parentbased_always_on": break;
                case "parentbased_always_off": s.Sampler = SamplerKind.AlwaysOff; break;
                case "parentbased_traceidratio": s.Sampler = SamplerKind.Ratio; break;
                default: Log.Warn("OTEL_TRACES_SAMPLER '" + name + "' is not known; parentbased_always_on"); break;
            }
            if (s.Sampler == SamplerKind.Ratio &&
                double.TryParse(arg, NumberStyles.Float, CultureInfo.InvariantCulture, out double r) && r >= 0 && r <= 1)
                s.Ratio = r;
        }
    }

    /// The listener, the queue and the thread that empties it.
    internal sealed class Pipeline
    {
        const string ProbeVersion = "weft-probe";
        readonly Settings S;
        readonly Sender Out;
        readonly Queue<Activity> Queue = new Queue<Activity>();
        /// Per source a probe of the same name (read on every span's end: no lock), and Weft's.
        readonly ConcurrentDictionary<string, ActivitySource> Probes =
            new ConcurrentDictionary<string, ActivitySource>(StringComparer.Ordinal);
        readonly ActivitySource WeftProbe = new ActivitySource("Weft", ProbeVersion);
        readonly AutoResetEvent Wake = new AutoResetEvent(false);
        readonly ManualResetEvent Done = new ManualResetEvent(false);
        Thread Worker;
        GcSpans Collections;
        volatile bool Stopping;
        long StopBy;
        long Sent, Dropped, Failed, LeftToOthers;
        string LastProblem;
        /// Set on the worker, and so in the flow of its requests: their HttpClient spans are
        /// not recorded (the first request of a process goes on on a pool thread).
        static readonly AsyncLocal<bool> Exporting = new AsyncLocal<bool>();

        public Pipeline(Settings s)
        {
            S = s;
            Out = new Sender(s);
        }

        public void Start()
        {
            foreach (string name in S.Sources)
                Probes[name] = new ActivitySource(name, ProbeVersion);
            Worker = new Thread(Run) { IsBackground = true, Name = "weft OTLP exporter" };
            using (ExecutionContext.SuppressFlow()) // not the caller's Activity.Current
                Worker.Start();
            AppDomain.CurrentDomain.ProcessExit += (_, __) => Stop();
            AppDomain.CurrentDomain.UnhandledException += (_, __) => Stop();
            AppDomain.CurrentDomain.DomainUnload += (_, __) => Stop();
            var listener = new ActivityListener
            {
                ShouldListenTo = src => src.Version != ProbeVersion && (S.AllSources || S.Sources.Contains(src.Name)),
                Sample = Sample,
                SampleUsingParentId = SampleByParentId,
                ActivityStopped = Ended,
            };
            ActivitySource.AddActivityListener(listener);
            if (S.Gc)
                Collections = new GcSpans(typeof(Exporter).Assembly.GetName().Version.ToString(3));
            if (Log.Debug)
                Log.Warn("sending " + string.Join(",", S.Sources) + " spans to " + S.Endpoint + " (" + S.Protocol + ")");
        }

        ActivitySamplingResult Sample(ref ActivityCreationOptions<ActivityContext> o)
        {
            bool hasParent = o.Parent != default(ActivityContext);
            return Decide(hasParent, hasParent && (o.Parent.TraceFlags & ActivityTraceFlags.Recorded) != 0, o.TraceId);
        }

        /// A parent given by its id: a W3C id ("00-TRACE-SPAN-FLAGS") says whether it is
        /// recorded; another kind of id counts as recorded.
        ActivitySamplingResult SampleByParentId(ref ActivityCreationOptions<string> o)
        {
            string id = o.Parent;
            bool hasParent = !string.IsNullOrEmpty(id);
            bool w3c = hasParent && id.Length == 55 && id[2] == '-' && id[52] == '-';
            bool recorded = !w3c || (Uri.FromHex(id[54]) & 1) == 1;
            return Decide(hasParent, recorded, o.TraceId);
        }

        /// The sampler of OTEL_TRACES_SAMPLER: the parent's decision where it is parent-based
        /// and there is a parent, else always on, always off or the trace id's ratio.
        ActivitySamplingResult Decide(bool hasParent, bool parentRecorded, ActivityTraceId traceId)
        {
            if (Exporting.Value)
                return ActivitySamplingResult.None;
            bool record;
            if (S.ParentBased && hasParent)
                record = parentRecorded;
            else if (S.Sampler == SamplerKind.AlwaysOn)
                record = true;
            else if (S.Sampler == SamplerKind.AlwaysOff)
                record = false;
            else
                record = RatioKeeps(traceId, S.Ratio);
            return record ? ActivitySamplingResult.AllDataAndRecorded : ActivitySamplingResult.PropagationData;
        }

        /// The ratio sampler's decision: the trace id's first 8 bytes as a number below the bound.
        static bool RatioKeeps(ActivityTraceId id, double ratio)
        {
            Span<byte> bytes = stackalloc byte[16];
            id.CopyTo(bytes);
            long n = 0;
            for (int i = 0; i < 8; i++)
                n = (n << 8) | bytes[i];
            return Math.Abs(n == long.MinValue ? long.MaxValue : n) < (long)(ratio * long.MaxValue);
        }

        void Ended(Activity a)
        {
            try
            {
                // Not sampled: no listener asked for the data (a child of a recorded parent
                // has the parent's Recorded flag whatever the samplers said).
                if (!a.IsAllDataRequested || !a.Recorded)
                    return;
                if (TakenByOthers(a.Source.Name))
                {
                    Interlocked.Increment(ref LeftToOthers);
                    return;
                }
                bool full;
                lock (Queue)
                {
                    if (Stopping && Done.WaitOne(0))
                        full = true;
                    else if (Queue.Count >= S.QueueSize)
                        full = true;
                    else
                    {
                        full = false;
                        Queue.Enqueue(a);
                        if (Queue.Count == S.BatchSize)
                            Wake.Set();
                    }
                }
                if (full)
                    Interlocked.Increment(ref Dropped);
            }
            catch
            {
            }
        }

        /// Whether another listener takes the source's spans, or Weft's: an app with an
        /// OpenTelemetry SDK of its own that exports Weft's spans decides what it exports.
        bool TakenByOthers(string source) =>
            WeftProbe.HasListeners() ||
            Probes.GetOrAdd(source, name => new ActivitySource(name, ProbeVersion)).HasListeners();

        List<Activity> Take()
        {
            lock (Queue)
            {
                var batch = new List<Activity>(Math.Min(Queue.Count, S.BatchSize));
                while (batch.Count < S.BatchSize && Queue.Count > 0)
                    batch.Add(Queue.Dequeue());
                return batch;
            }
        }

        void Run()
        {
            Exporting.Value = true;
            try
            {
                while (true)
                {
                    Wake.WaitOne(S.DelayMs);
                    List<Activity> batch;
                    while ((batch = Take()).Count > 0)
                        Export(batch);
                    if (Stopping)
                        break;
                }
            }
            catch (Exception e)
            {
                LastProblem = e.Message;
            }
            finally
            {
                Done.Set();
            }
        }

        void Export(List<Activity> batch)
        {
            byte[] body;
            try
            {
                body = S.Protocol == Protocol.HttpJson ? Payload.Json(batch, S.Resource) : Payload.Protobuf(batch, S.Resource);
            }
            catch (Exception e)
            {
                Interlocked.Add(ref Failed, batch.Count);
                LastProblem = "encoding: " + e.Message;
                return;
            }
            for (int attempt = 0; ; attempt++)
            {
                Sender.Outcome o = Out.Post(body);
                if (o.Ok)
                {
                    Interlocked.Add(ref Sent, batch.Count);
                    return;
                }
                LastProblem = o.Problem;
                int backoff = Math.Min(30000, (1000 << attempt) / 2 + new Random().Next(500));
                if (o.RetryAfterMs > 0)
                    backoff = Math.Min(30000, o.RetryAfterMs);
                // At exit, only what fits in the time the exit gives.
                if (!o.Retry || attempt >= 5 || (Stopping && Environment.TickCount64 + backoff > StopBy))
                {
                    Interlocked.Add(ref Failed, batch.Count);
                    return;
                }
                Wake.WaitOne(backoff); // a stop cuts the wait short
            }
        }

        void Stop()
        {
            try
            {
                Flush();
            }
            catch
            {
            }
        }

        void Flush()
        {
            if (Stopping)
                return;
            StopBy = Environment.TickCount64 + S.ExitMs;
            Stopping = true;
            Wake.Set();
            Done.WaitOne(S.ExitMs);
            long dropped = Interlocked.Read(ref Dropped), failed = Interlocked.Read(ref Failed);
            int queued;
            lock (Queue)
                queued = Queue.Count;
            if (dropped + failed + queued > 0 || Log.Debug)
                Log.Warn(Interlocked.Read(ref Sent) + " spans sent to " + S.Endpoint + ", " + dropped +
                         " dropped (queue full), " + (failed + queued) + " not delivered" +
                         (LastProblem != null ? " (" + LastProblem + ")" : "") + ", " +
                         Interlocked.Read(ref LeftToOthers) + " left to the app's own exporter");
        }
    }

    /// Posts an encoded batch and says whether to try again.
    internal sealed class Sender
    {
        internal struct Outcome
        {
            public bool Ok, Retry;
            public int RetryAfterMs;
            public string Problem;
        }

        readonly Settings S;
        readonly HttpClient Client;

        public Sender(Settings s)
        {
            S = s;
            Client = new HttpClient(new SocketsHttpHandler { AllowAutoRedirect = false, UseProxy = false })
            {
                Timeout = TimeSpan.FromMilliseconds(Math.Max(1, s.TimeoutMs)),
            };
        }

        public Outcome Post(byte[] body)
        {
            try
            {
                using (HttpRequestMessage request = Request(body))
                using (HttpResponseMessage response = Client.SendAsync(request).GetAwaiter().GetResult())
                    return S.Protocol == Protocol.Grpc ? GrpcOutcome(response) : HttpOutcome(response);
            }
            catch (Exception e) when (e is HttpRequestException || e is OperationCanceledException || e is IOException)
            {
                return new Outcome { Retry = true, Problem = e.GetBaseException().Message };
            }
        }

        HttpRequestMessage Request(byte[] body)
        {
            var request = new HttpRequestMessage(HttpMethod.Post, S.Endpoint);
            ByteArrayContent content;
            if (S.Protocol == Protocol.Grpc)
            {
                // A gRPC message: uncompressed, its length big-endian, then the protobuf.
                var framed = new byte[body.Length + 5];
                framed[1] = (byte)(body.Length >> 24);
                framed[2] = (byte)(body.Length >> 16);
                framed[3] = (byte)(body.Length >> 8);
                framed[4] = (byte)body.Length;
                Buffer.BlockCopy(body, 0, framed, 5, body.Length);
                content = new ByteArrayContent(framed);
                content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
                request.Version = HttpVersion.Version20;
                request.VersionPolicy = HttpVersionPolicy.RequestVersionExact;
                request.Headers.TryAddWithoutValidation("te", "trailers");
            }
            else
            {
                content = new ByteArrayContent(body);
                content.Headers.ContentType = new MediaTypeHeaderValue(
                    S.Protocol == Protocol.HttpJson ? "application/json" : "application/x-protobuf");
            }
            request.Content = content;
            foreach (var h in S.Headers)
                request.Headers.TryAddWithoutValidation(h.Key, h.Value);
            return request;
        }

        static Outcome HttpOutcome(HttpResponseMessage response)
        {
            int code = (int)response.StatusCode;
            if (code >= 200 && code < 300)
                return new Outcome { Ok = true };
            var o = new Outcome
            {
                Retry = code == 429 || code == 502 || code == 503 || code == 504,
                Problem = "HTTP " + code + " " + response.ReasonPhrase,
            };
            TimeSpan? after = response.Headers.RetryAfter?.Delta;
            if (after.HasValue)
                o.RetryAfterMs = (int)Math.Min(int.MaxValue, after.Value.TotalMilliseconds);
            return o;
        }

        static Outcome GrpcOutcome(HttpResponseMessage response)
        {
            if (response.StatusCode != HttpStatusCode.OK)
                return HttpOutcome(response);
            response.Content.ReadAsByteArrayAsync().GetAwaiter().GetResult(); // the trailers follow the body
            string status = Header(response.TrailingHeaders, "grpc-status") ?? Header(response.Headers, "grpc-status");
            if (status == "0")
                return new Outcome { Ok = true };
            // UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, DEADLINE_EXCEEDED, CANCELLED may pass.
            return new Outcome
            {
                Retry = status == "14" || status == "8" || status == "10" || status == "4" || status == "1",
                Problem = "gRPC status " + (status ?? "missing") + " " +
                          (Header(response.TrailingHeaders, "grpc-message") ?? Header(response.Headers, "grpc-message") ?? ""),
            };
        }

        static string Header(HttpHeaders headers, string name) =>
            headers.TryGetValues(name, out IEnumerable<string> v) ? string.Join(",", v) : null;
    }

    /// ExportTraceServiceRequest, in protobuf and in OTLP's JSON, from a batch of ended Activities.
    internal static class Payload
    {
        static readonly long EpochTicks = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;

        static ulong Nanos(DateTime utc) => (ulong)(utc.Ticks - EpochTicks) * 100UL;

        /// The batch's spans by their source (name and version), in the order they came.
        static List<KeyValuePair<ActivitySource, List<Activity>>> ByScope(List<Activity> batch)
        {
            var scopes = new List<KeyValuePair<ActivitySource, List<Activity>>>();
            foreach (Activity a in batch)
            {
                int i = scopes.FindIndex(s => s.Key.Name == a.Source.Name && s.Key.Version == a.Source.Version);
                if (i < 0)
                {
                    scopes.Add(new KeyValuePair<ActivitySource, List<Activity>>(a.Source, new List<Activity>()));
                    i = scopes.Count - 1;
                }
                scopes[i].Value.Add(a);
            }
            return scopes;
        }

        public static byte[] Protobuf(List<Activity> batch, List<KeyValuePair<string, object>> resource)
        {
            var w = new ProtoWriter();
            int resourceSpans = w.Begin(1);
            int res = w.Begin(1);
            foreach (var kv in resource)
                w.KeyValue(1, kv.Key, kv.Value);
            w.End(res);
            foreach (var scope in ByScope(batch))
            {
                int scopeSpans = w.Begin(2);
                int sc = w.Begin(1);
                w.String(1, scope.Key.Name);
                if (!string.IsNullOrEmpty(scope.Key.Version))
                    w.String(2, scope.Key.Version);
                w.End(sc);
                foreach (Activity a in scope.Value)
                    SpanMessage(w, a);
                w.End(scopeSpans);
            }
            w.End(resourceSpans);
            return w.ToArray();
        }

        static void SpanMessage(ProtoWriter w, Activity a)
        {
            int span = w.Begin(2);
            Span<byte> id = stackalloc byte[16];
            a.TraceId.CopyTo(id);
            w.Bytes(1, id);
            a.SpanId.CopyTo(id.Slice(0, 8));
            w.Bytes(2, id.Slice(0, 8));
            if (!string.IsNullOrEmpty(a.TraceStateString))
                w.String(3, a.TraceStateString);
            if (a.ParentSpanId != default(ActivitySpanId))
            {
                a.ParentSpanId.CopyTo(id.Slice(0, 8));
                w.Bytes(4, id.Slice(0, 8));
            }
            w.String(5, a.DisplayName);
            w.Varint(6, (ulong)a.Kind + 1);
            w.Fixed64(7, Nanos(a.StartTimeUtc));
            w.Fixed64(8, Nanos(a.StartTimeUtc + a.Duration));
            foreach (var t in a.TagObjects)
                if (t.Value != null)
                    w.KeyValue(9, t.Key, t.Value);
            foreach (ActivityEvent e in a.Events)
            {
                int ev = w.Begin(11);
                w.Fixed64(1, Nanos(e.Timestamp.UtcDateTime));
                w.String(2, e.Name);
                foreach (var t in e.Tags)
                    if (t.Value != null)
                        w.KeyValue(3, t.Key, t.Value);
                w.End(ev);
            }
            foreach (ActivityLink l in a.Links)
            {
                int link = w.Begin(13);
                l.Context.TraceId.CopyTo(id);
                w.Bytes(1, id);
                l.Context.SpanId.CopyTo(id.Slice(0, 8));
                w.Bytes(2, id.Slice(0, 8));
                w.End(link);
            }
            if (a.Status != ActivityStatusCode.Unset)
            {
                int status = w.Begin(15);
                if (!string.IsNullOrEmpty(a.StatusDescription))
                    w.String(2, a.StatusDescription);
                w.Varint(3, (ulong)a.Status);
                w.End(status);
            }
            w.Fixed32(16, Flags(a));
            w.End(span);
        }

        /// W3C trace flags, with whether the parent is known and remote (bits 8 and 9).
        static uint Flags(Activity a) => (uint)a.ActivityTraceFlags | 0x100u | (a.HasRemoteParent ? 0x200u : 0u);

        public static byte[] Json(List<Activity> batch, List<KeyValuePair<string, object>> resource)
        {
            var stream = new MemoryStream();
            using (var j = new Utf8JsonWriter(stream))
            {
                j.WriteStartObject();
                j.WriteStartArray("resourceSpans");
                j.WriteStartObject();
                j.WriteStartObject("resource");
                Attributes(j, "attributes", resource);
                j.WriteEndObject();
                j.WriteStartArray("scopeSpans");
                foreach (var scope in ByScope(batch))
                {
                    j.WriteStartObject();
                    j.WriteStartObject("scope");
                    j.WriteString("name", scope.Key.Name);
                    if (!string.IsNullOrEmpty(scope.Key.Version))
                        j.WriteString("version", scope.Key.Version);
                    j.WriteEndObject();
                    j.WriteStartArray("spans");
                    foreach (Activity a in scope.Value)
                        SpanObject(j, a);
                    j.WriteEndArray();
                    j.WriteEndObject();
                }
                j.WriteEndArray();
                j.WriteEndObject();
                j.WriteEndArray();
                j.WriteEndObject();
            }
            return stream.ToArray();
        }

        static void SpanObject(Utf8JsonWriter j, Activity a)
        {
            j.WriteStartObject();
            j.WriteString("traceId", a.TraceId.ToHexString());
            j.WriteString("spanId", a.SpanId.ToHexString());
            if (!string.IsNullOrEmpty(a.TraceStateString))
                j.WriteString("traceState", a.TraceStateString);
            if (a.ParentSpanId != default(ActivitySpanId))
                j.WriteString("parentSpanId", a.ParentSpanId.ToHexString());
            j.WriteNumber("flags", Flags(a));
            j.WriteString("name", a.DisplayName);
            j.WriteNumber("kind", (int)a.Kind + 1);
            j.WriteString("startTimeUnixNano", Nanos(a.StartTimeUtc).ToString(CultureInfo.InvariantCulture));
            j.WriteString("endTimeUnixNano", Nanos(a.StartTimeUtc + a.Duration).ToString(CultureInfo.InvariantCulture));
            Attributes(j, "attributes", a.TagObjects);
            j.WriteStartArray("events");
            foreach (ActivityEvent e in a.Events)
            {
                j.WriteStartObject();
                j.WriteString("timeUnixNano", Nanos(e.Timestamp.UtcDateTime).ToString(CultureInfo.InvariantCulture));
                j.WriteString("name", e.Name);
                Attributes(j, "attributes", e.Tags);
                j.WriteEndObject();
            }
            j.WriteEndArray();
            j.WriteStartArray("links");
            foreach (ActivityLink l in a.Links)
            {
                j.WriteStartObject();
                j.WriteString("traceId", l.Context.TraceId.ToHexString());
                j.WriteString("spanId", l.Context.SpanId.ToHexString());
                j.WriteEndObject();
            }
            j.WriteEndArray();
            j.WriteStartObject("status");
            if (a.Status != ActivityStatusCode.Unset)
                j.WriteNumber("code", (int)a.Status);
            if (!string.IsNullOrEmpty(a.StatusDescription))
                j.WriteString("message", a.StatusDescription);
            j.WriteEndObject();
            j.WriteEndObject();
        }

        static void Attributes(Utf8JsonWriter j, string name, IEnumerable<KeyValuePair<string, object>> values)
        {
            j.WriteStartArray(name);
            foreach (var kv in values)
            {
                if (kv.Value == null)
                    continue;
                j.WriteStartObject();
                j.WriteString("key", kv.Key);
                j.WritePropertyName("value");
                AnyValue(j, kv.Value);
                j.WriteEndObject();
            }
            j.WriteEndArray();
        }

        static void AnyValue(Utf8JsonWriter j, object v)
        {
            j.WriteStartObject();
            switch (AnyValues.KindOf(v))
            {
                case AnyValues.Kind.Bool: j.WriteBoolean("boolValue", (bool)v); break;
                case AnyValues.Kind.Int: j.WriteString("intValue", AnyValues.Int(v).ToString(CultureInfo.InvariantCulture)); break;
                case AnyValues.Kind.Double: j.WriteNumber("doubleValue", AnyValues.Double(v)); break;
                case AnyValues.Kind.Array:
                    j.WriteStartObject("arrayValue");
                    j.WriteStartArray("values");
                    foreach (object item in (Array)v)
                        if (item != null)
                            AnyValue(j, item);
                    j.WriteEndArray();
                    j.WriteEndObject();
                    break;
                default: j.WriteString("stringValue", AnyValues.Text(v)); break;
            }
            j.WriteEndObject();
        }
    }

    /// How an attribute's value is sent: OTLP's AnyValue kinds.
    internal static class AnyValues
    {
        public enum Kind { String, Bool, Int, Double, Array }

        public static Kind KindOf(object v)
        {
            switch (v)
            {
                case bool _: return Kind.Bool;
                case sbyte _: case byte _: case short _: case ushort _: case int _: case uint _: case long _: return Kind.Int;
                case float _: case double _: return Kind.Double;
                case string _: return Kind.String;
                case Array a when a.Rank == 1 && !(v is byte[]): return Kind.Array;
                default: return Kind.String;
            }
        }

        public static long Int(object v) => Convert.ToInt64(v, CultureInfo.InvariantCulture);

        public static double Double(object v) => Convert.ToDouble(v, CultureInfo.InvariantCulture);

        public static string Text(object v)
        {
            try
            {
                return Convert.ToString(v, CultureInfo.InvariantCulture) ?? "";
            }
            catch (Exception e)
            {
                return "<" + v.GetType().FullName + ": " + e.GetType().Name + ">";
            }
        }
    }

    /// Protocol buffers' wire format, written front to back: a nested message's length is made
    /// room for (5 bytes, the most a 32-bit length takes) and written, and the room closed up,
    /// when it ends.
    internal sealed class ProtoWriter
    {
        byte[] Buf = new byte[4096];
        int Len;

        void Room(int n)
        {
            if (Len + n > Buf.Length)
                Array.Resize(ref Buf, Math.Max(Buf.Length * 2, Len + n));
        }

        void Raw(ulong v)
        {
            Room(10);
            while (v >= 0x80)
            {
                Buf[Len++] = (byte)(v | 0x80);
                v >>= 7;
            }
            Buf[Len++] = (byte)v;
        }

        void Tag(int field, int wire) => Raw((ulong)((field << 3) | wire));

        public void Varint(int field, ulong v)
        {
            Tag(field, 0);
            Raw(v);
        }

        public void Fixed64(int field, ulong v)
        {
            Tag(field, 1);
            Room(8);
            for (int i = 0; i < 8; i++)
                Buf[Len++] = (byte)(v >> (8 * i));
        }

        public void Fixed32(int field, uint v)
        {
            Tag(field, 5);
            Room(4);
            for (int i = 0; i < 4; i++)
                Buf[Len++] = (byte)(v >> (8 * i));
        }

        public void Double(int field, double v) => Fixed64(field, (ulong)BitConverter.DoubleToInt64Bits(v));

        public void Bytes(int field, ReadOnlySpan<byte> b)
        {
            Tag(field, 2);
            Raw((ulong)b.Length);
            Room(b.Length);
            b.CopyTo(new Span<byte>(Buf, Len, b.Length));
            Len += b.Length;
        }

        public void String(int field, string s)
        {
            Tag(field, 2);
            int n = Encoding.UTF8.GetByteCount(s);
            Raw((ulong)n);
            Room(n);
            Len += Encoding.UTF8.GetBytes(s, 0, s.Length, Buf, Len);
        }

        /// Starts a nested message; End gets what this returns.
        public int Begin(int field)
        {
            Tag(field, 2);
            Room(5);
            Len += 5;
            return Len;
        }

        public void End(int start)
        {
            int n = Len - start;
            int width = 1;
            for (uint v = (uint)n; v >= 0x80; v >>= 7)
                width++;
            int at = start - 5;
            uint u = (uint)n;
            for (int i = 0; i < width; i++, u >>= 7)
                Buf[at + i] = (byte)(i + 1 < width ? (u | 0x80) : u);
            Buffer.BlockCopy(Buf, start, Buf, at + width, n);
            Len = at + width + n;
        }

        /// A KeyValue (key 1, AnyValue 2) as field \p field.
        public void KeyValue(int field, string key, object value)
        {
            int kv = Begin(field);
            String(1, key);
            AnyValue(2, value);
            End(kv);
        }

        void AnyValue(int field, object v)
        {
            int any = Begin(field);
            switch (AnyValues.KindOf(v))
            {
                case AnyValues.Kind.Bool: Varint(2, (bool)v ? 1UL : 0UL); break;
                case AnyValues.Kind.Int: Varint(3, (ulong)AnyValues.Int(v)); break;
                case AnyValues.Kind.Double: Double(4, AnyValues.Double(v)); break;
                case AnyValues.Kind.Array:
                    int array = Begin(5);
                    foreach (object item in (Array)v)
                        if (item != null)
                            AnyValue(1, item);
                    End(array);
                    break;
                default: String(1, AnyValues.Text(v)); break;
            }
            End(any);
        }

        public byte[] ToArray()
        {
            var a = new byte[Len];
            Buffer.BlockCopy(Buf, 0, a, 0, Len);
            return a;
        }
    }
}
