// The trace pass's runtime. A module woven with `trace` carries these bytes and loads them once per
// process (the first woven module to start does; the others find it through the AppDomain), gets
// the addresses of Enter, Leave, Flush and Register from Function, registers its method names and
// calls Enter and Leave around every woven method.
//
// A module woven in timeline mode calls Enter and Leave. Per thread they keep call counts,
// inclusive time (a recursive method's time counted once, at its outermost call) and exclusive
// time per method from two timestamps a call, a stack of the time spent in callees, and a chunk of
// records (method, start, duration) for the timeline. A full chunk goes to a queue that a
// background thread writes ten times a second as Chrome trace events; when every chunk the buffer
// allows is in use, the record is dropped and counted, and the program never waits.
//
// A module woven in summary mode counts the call and keeps a stack of the methods each thread is
// in, with no timestamp: with code of its own that the JIT inlines into the woven methods, on a
// stack the runtime gives each thread (JoinThread) and counts of its own it registers with it, or,
// where calls are told apart by instantiation, by calling Push and Pop here. A sampling thread reads every
// thread's stack each millisecond and gives the time since its last look to the method on top
// (exclusive) and, once each, to every method on the stack (inclusive).
//
// A chunk is also handed over once it is 100 ms old, so that the writer sees a slow thread's calls.
// When weft's profiler is in the process (`weft run`), the writer also hands each call to it
// (weft_trace_calls, found through CORECLR_PROFILER_PATH), which puts it on the profiler's
// timeline beside collections and tracepoints and sends it to the Weft EventPipe provider.
//
// At process exit (or Flush) the events are finished and the table is written beside them.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;

namespace Weft.Trace
{
    internal sealed class ThreadState
    {
        public long[] Calls = new long[0], Inclusive = new long[0], Exclusive = new long[0];
        public int[] Active = new int[0];
        /// The callee time of each open call's caller, restored when the call returns.
        public long[] Saved = new long[64];
        public int Depth;
        public long Child;
        public long[] Chunk;
        public int Used;
        /// When the chunk got its first call (Stopwatch ticks).
        public long ChunkTime;
        public long Dropped;
        public int Tid;
        /// The ids of the instantiations the thread has run, by their handles.
        public Dictionary<InstanceKey, int> Instances;
        /// Summary mode: how many calls deep the thread is (at 0), then the methods it is in,
        /// innermost last (as many as fit). Never replaced: woven modules keep it.
        public int[] Stack = new int[4096];
        /// Summary mode: the counts woven modules keep for this thread, with their first id.
        public List<KeyValuePair<int, long[]>> ModuleCalls = new List<KeyValuePair<int, long[]>>();
    }

    internal struct InstanceKey : IEquatable<InstanceKey>
    {
        public IntPtr Type, Method;
        public bool Equals(InstanceKey o) { return Type == o.Type && Method == o.Method; }
        public override bool Equals(object o) { return o is InstanceKey k && Equals(k); }
        public override int GetHashCode() { return Type.GetHashCode() * 31 + Method.GetHashCode(); }
    }

    internal sealed class Filled
    {
        public int Tid;
        public long[] Data;
        public int Count;
    }

    public static class Runtime
    {
        private const int ChunkLongs = 3 * 8192;
        private const int ModeTimeline = 0;
        private static readonly object Lock = new object();
        [ThreadStatic] private static ThreadState Current;
        private static ThreadState[] Threads = new ThreadState[8];
        private static int ThreadCount;
        private static string[] Names = new string[0], JsonNames = new string[0];
        private static long[] Thresholds = new long[0];
        private static volatile int Count;
        private static readonly ConcurrentQueue<Filled> Full = new ConcurrentQueue<Filled>();
        private static readonly ConcurrentQueue<long[]> Free = new ConcurrentQueue<long[]>();
        private static int ChunksMade, MaxChunks;
        private static string Path;
        private static long Origin;
        private static double NsPerTick;
        private static StreamWriter Json;
        private static bool AnyEvent;
        private static long Recorded, MaxEvents, HandOver;
        /// weft's profiler's weft_trace_name and weft_trace_calls, when it is in the process.
        private static IntPtr ProfilerName, ProfilerCalls;
        private static volatile bool Closed;
        private static readonly char[] Digits = new char[24];
        private static Thread Sampler;
        private static long[] SampledInclusive = new long[0], SampledExclusive = new long[0];
        private static int[] Seen = new int[0];
        private static int Generation;
        private static readonly Dictionary<InstanceKey, int> AllInstances = new Dictionary<InstanceKey, int>();

        /// The addresses woven modules call through.
        public static unsafe IntPtr Function(int which)
        {
            switch (which)
            {
                case 0: return (IntPtr)(delegate*<int, long>)&Enter;
                case 1: return (IntPtr)(delegate*<int, long, void>)&Leave;
                case 2: return (IntPtr)(delegate*<void>)&Flush;
                case 3: return (IntPtr)(delegate*<string, string, int, long, int, long, int>)&Register;
                case 4: return (IntPtr)(delegate*<int, long>)&Push;
                case 5: return (IntPtr)(delegate*<int, long, void>)&Pop;
                case 6: return (IntPtr)(delegate*<int, RuntimeTypeHandle, RuntimeMethodHandle, int>)&Instance;
                case 7: return (IntPtr)(delegate*<int, long[], int[]>)&JoinThread;
                default: return IntPtr.Zero;
            }
        }

        /// A module's methods (names separated by '\n') get the ids from the one returned on.
        /// The first module's settings choose the files; each module's mode and threshold hold
        /// for its own methods.
        private static int Register(string names, string file, int mode, long thresholdUs, int bufferMb,
                                    long maxEvents)
        {
            lock (Lock)
            {
                int first = Count;
                try
                {
                    string[] added = names.Length == 0 ? new string[0] : names.Split('\n');
                    long threshold = mode == ModeTimeline
                        ? (long)(thresholdUs * (Stopwatch.Frequency / 1e6)) : long.MaxValue;
                    if (Path == null)
                        Start(file, bufferMb, maxEvents);
                    Append(added, threshold);
                    if (mode == ModeTimeline && Json == null && !Closed)
                        OpenTimeline();
                    if (mode != ModeTimeline && Sampler == null)
                        StartSampler();
                }
                catch (Exception)
                {
                    // Tracing what it can; the program runs as it would.
                }
                return first;
            }
        }

        /// Gives \p added the next ids (under Lock).
        private static unsafe void Append(string[] added, long threshold)
        {
            int first = Count;
            string[] allNames = new string[first + added.Length];
            string[] jsonNames = new string[allNames.Length];
            long[] thresholds = new long[allNames.Length];
            Array.Copy(Names, allNames, first);
            Array.Copy(JsonNames, jsonNames, first);
            Array.Copy(Thresholds, thresholds, first);
            for (int i = 0; i < added.Length; ++i)
            {
                allNames[first + i] = added[i];
                jsonNames[first + i] = Escaped(added[i]);
                thresholds[first + i] = threshold;
            }
            Names = allNames;
            JsonNames = jsonNames;
            Thresholds = thresholds;
            Count = allNames.Length;
            if (ProfilerName != IntPtr.Zero)
                for (int i = 0; i < added.Length; ++i)
                    fixed (char* name = added[i])
                        ((delegate* unmanaged<int, char*, int, void>)ProfilerName)(first + i, name, added[i].Length);
        }

        /// weft's profiler, if it is the one the runtime loaded.
        private static void FindProfiler()
        {
            try
            {
                string path = Environment.GetEnvironmentVariable("CORECLR_PROFILER_PATH");
                IntPtr library, name, calls;
                if (path != null && NativeLibrary.TryLoad(path, out library) &&
                    NativeLibrary.TryGetExport(library, "weft_trace_name", out name) &&
                    NativeLibrary.TryGetExport(library, "weft_trace_calls", out calls))
                {
                    ProfilerName = name;
                    ProfilerCalls = calls;
                }
            }
            catch (Exception)
            {
                // No profiler to tell: the calls go to the file alone.
            }
        }

        [DllImport("libc.so.6", EntryPoint = "gettid")]
        private static extern int GetTid();

        /// The operating system's id of the calling thread (the profiler's timeline and perf
        /// know threads by it), else the managed one.
        private static int ThreadId()
        {
            try
            {
                return GetTid();
            }
            catch (Exception)
            {
                return Environment.CurrentManagedThreadId;
            }
        }

        /// The id of the instantiation of generic method \p id that \p type and \p method name
        /// (the woven code loads them with ldtoken in its own generic context).
        private static int Instance(int id, RuntimeTypeHandle type, RuntimeMethodHandle method)
        {
            ThreadState s = Current;
            if (s == null || id >= s.Calls.Length)
                s = Prepare(id);
            InstanceKey key = new InstanceKey { Type = type.Value, Method = method.Value };
            if (s.Instances == null)
                s.Instances = new Dictionary<InstanceKey, int>();
            int found;
            if (s.Instances.TryGetValue(key, out found))
                return found;
            lock (Lock)
            {
                if (!AllInstances.TryGetValue(key, out found))
                {
                    found = Count;
                    Append(new[] { InstanceName(type, method, Names[id]) }, Thresholds[id]);
                    AllInstances.Add(key, found);
                }
            }
            s.Instances.Add(key, found);
            return found;
        }

        private static string InstanceName(RuntimeTypeHandle type, RuntimeMethodHandle method, string fallback)
        {
            try
            {
                MethodBase m = MethodBase.GetMethodFromHandle(method, type);
                StringBuilder b = new StringBuilder();
                AppendType(b, Type.GetTypeFromHandle(type));
                b.Append("::").Append(m.Name);
                if (m.IsGenericMethod)
                    AppendArguments(b, m.GetGenericArguments());
                return b.ToString();
            }
            catch (Exception)
            {
                return fallback;
            }
        }

        private static void AppendType(StringBuilder b, Type t)
        {
            Type definition = t.IsGenericType ? t.GetGenericTypeDefinition() : t;
            b.Append((definition.FullName ?? definition.Name).Replace('+', '/'));
            if (t.IsGenericType)
                AppendArguments(b, t.GetGenericArguments());
        }

        private static void AppendArguments(StringBuilder b, Type[] arguments)
        {
            b.Append('<');
            for (int i = 0; i < arguments.Length; ++i)
            {
                if (i > 0)
                    b.Append(',');
                AppendType(b, arguments[i]);
            }
            b.Append('>');
        }

        private static void Start(string file, int bufferMb, long maxEvents)
        {
            FindProfiler();
            HandOver = Stopwatch.Frequency / 10;
            MaxEvents = maxEvents > 0 ? maxEvents : long.MaxValue;
            Path = Environment.GetEnvironmentVariable("WEFT_TRACE_FILE") ?? file;
            Origin = Stopwatch.GetTimestamp();
            NsPerTick = 1e9 / Stopwatch.Frequency;
            long bytes = Math.Max(1, bufferMb) * 1024L * 1024L;
            MaxChunks = (int)Math.Max(2, bytes / (ChunkLongs * 8L));
            AppDomain.CurrentDomain.ProcessExit += OnExit;
        }

        private static void OpenTimeline()
        {
            try
            {
                Json = new StreamWriter(new FileStream(Path, FileMode.Create, FileAccess.Write,
                                                       FileShare.Read), new UTF8Encoding(false), 1 << 16);
                Json.Write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
                Json.Flush();
            }
            catch (Exception)
            {
                Json = null; // no timeline; the table is still tried at exit
                return;
            }
            Thread writer = new Thread(WriteLoop);
            writer.IsBackground = true;
            writer.Name = "weft trace writer";
            writer.Start();
        }

        private static void StartSampler()
        {
            Sampler = new Thread(SampleLoop);
            Sampler.IsBackground = true;
            Sampler.Name = "weft trace sampler";
            Sampler.Start();
        }

        /// Summary mode's entry: the call counted and the method pushed on the thread's stack.
        private static long Push(int id)
        {
            ThreadState s = Current;
            if (s == null || id >= s.Calls.Length)
                s = Prepare(id);
            s.Calls[id]++;
            int[] stack = s.Stack;
            int d = stack[0] + 1;
            if (d < stack.Length)
                stack[d] = id;
            stack[0] = d;
            return 1;
        }

        /// A woven module's first call on this thread in summary mode: its counts (by its own
        /// method numbers, from \p first on) are summed into the table, and it gets the thread's
        /// stack.
        private static int[] JoinThread(int first, long[] calls)
        {
            ThreadState s = Current ?? Prepare(first);
            lock (Lock)
                s.ModuleCalls.Add(new KeyValuePair<int, long[]>(first, calls));
            return s.Stack;
        }

        private static void Pop(int id, long entered)
        {
            ThreadState s = Current;
            if (entered != 0 && s != null && s.Stack[0] > 0)
                s.Stack[0]--;
        }

        private static void SampleLoop()
        {
            long last = Stopwatch.GetTimestamp();
            while (!Closed)
            {
                Thread.Sleep(1);
                long now = Stopwatch.GetTimestamp();
                Sample(now - last);
                last = now;
            }
        }

        /// Gives \p ticks to what every thread's stack holds now (read without a lock: a thread
        /// that moves meanwhile makes one sample land a call away).
        private static void Sample(long ticks)
        {
            int n = Count;
            if (SampledInclusive.Length < n)
            {
                Array.Resize(ref SampledInclusive, n);
                Array.Resize(ref SampledExclusive, n);
                Array.Resize(ref Seen, n);
            }
            ThreadState[] threads = Threads;
            int count = Math.Min(ThreadCount, threads.Length);
            for (int t = 0; t < count; ++t)
            {
                ThreadState s = threads[t];
                if (s == null)
                    continue;
                int[] stack = s.Stack;
                int top = Math.Min(stack[0], stack.Length - 1);
                if (top <= 0)
                    continue;
                ++Generation;
                for (int i = 1; i <= top; ++i)
                {
                    int id = stack[i];
                    if ((uint)id >= (uint)n)
                        continue;
                    if (Seen[id] != Generation)
                    {
                        Seen[id] = Generation;
                        SampledInclusive[id] += ticks;
                    }
                    if (i == top)
                        SampledExclusive[id] += ticks;
                }
            }
        }

        private static long Enter(int id)
        {
            ThreadState s = Current;
            if (s == null || id >= s.Calls.Length)
                s = Prepare(id);
            int d = s.Depth;
            if (d == s.Saved.Length)
                Array.Resize(ref s.Saved, d * 2);
            s.Saved[d] = s.Child;
            s.Depth = d + 1;
            s.Child = 0;
            s.Active[id]++;
            return Stopwatch.GetTimestamp();
        }

        private static void Leave(int id, long start)
        {
            long now = Stopwatch.GetTimestamp();
            ThreadState s = Current;
            // A call entered before the module's tracing started has no start.
            if (start == 0 || s == null || s.Depth == 0)
                return;
            long took = now - start;
            s.Calls[id]++;
            s.Exclusive[id] += took - s.Child;
            if (--s.Active[id] == 0)
                s.Inclusive[id] += took;
            int d = s.Depth - 1;
            s.Depth = d;
            s.Child = s.Saved[d] + took;
            if (took >= Thresholds[id])
                Record(s, id, start, took);
        }

        private static ThreadState Prepare(int id)
        {
            ThreadState s = Current;
            lock (Lock)
            {
                if (s == null)
                {
                    s = new ThreadState();
                    s.Tid = ThreadId();
                    if (ThreadCount == Threads.Length)
                        Array.Resize(ref Threads, ThreadCount * 2);
                    Threads[ThreadCount++] = s;
                    Current = s;
                }
                int n = Math.Max(Count, id + 1);
                Array.Resize(ref s.Calls, n);
                Array.Resize(ref s.Inclusive, n);
                Array.Resize(ref s.Exclusive, n);
                Array.Resize(ref s.Active, n);
            }
            return s;
        }

        private static void Record(ThreadState s, int id, long start, long took)
        {
            long[] c = s.Chunk;
            int u = s.Used;
            long end = start + took;
            if (c == null || u == c.Length || end - s.ChunkTime > HandOver)
            {
                c = NextChunk(s);
                if (c == null)
                {
                    s.Dropped++;
                    return;
                }
                u = 0;
                s.ChunkTime = end;
            }
            c[u] = id;
            c[u + 1] = start;
            c[u + 2] = took;
            s.Used = u + 3;
        }

        /// Hands the thread's chunk (full, or old) to the writer and takes an empty one, or none
        /// if the buffer is all in use (or the timeline is closed).
        private static long[] NextChunk(ThreadState s)
        {
            if (Json == null || Closed)
                return null;
            if (s.Chunk != null)
            {
                if (s.Used > 0)
                    Full.Enqueue(new Filled { Tid = s.Tid, Data = s.Chunk, Count = s.Used });
                else
                    Free.Enqueue(s.Chunk);
                s.Chunk = null;
            }
            long[] c;
            if (!Free.TryDequeue(out c))
            {
                if (Interlocked.Increment(ref ChunksMade) > MaxChunks)
                {
                    Interlocked.Decrement(ref ChunksMade);
                    return null;
                }
                c = new long[ChunkLongs];
            }
            s.Chunk = c;
            s.Used = 0;
            return c;
        }

        private static void WriteLoop()
        {
            while (!Closed)
            {
                Thread.Sleep(100);
                lock (Lock)
                {
                    if (!Closed)
                        Drain();
                }
            }
        }

        /// Writes every full chunk (under Lock).
        private static void Drain()
        {
            if (Json == null)
                return;
            try
            {
                Filled f;
                while (Full.TryDequeue(out f))
                {
                    int written = WriteEvents(f.Tid, f.Data, f.Count);
                    if (ProfilerCalls != IntPtr.Zero)
                        TellProfiler(f.Tid, f.Data, written);
                    Free.Enqueue(f.Data);
                }
                Json.Flush();
            }
            catch (Exception)
            {
                Json = null; // a full disk ends the timeline, not the program
            }
        }

        /// Hands \p count longs of calls to the profiler, times in nanoseconds of the monotonic
        /// clock (the profiler's timeline's clock).
        private static unsafe void TellProfiler(int tid, long[] data, int count)
        {
            if (NsPerTick != 1.0)
                for (int i = 0; i + 2 < count; i += 3)
                {
                    data[i + 1] = (long)(data[i + 1] * NsPerTick);
                    data[i + 2] = (long)(data[i + 2] * NsPerTick);
                }
            fixed (long* calls = data)
                ((delegate* unmanaged<int, long*, int, void>)ProfilerCalls)(tid, calls, count);
        }

        /// Writes the calls of a chunk; returns how many of its longs it took (all but those past
        /// the timeline's limit).
        private static int WriteEvents(int tid, long[] data, int count)
        {
            string head = "{\"ph\":\"X\",\"pid\":" + Environment.ProcessId + ",\"tid\":" + tid + ",\"ts\":";
            string[] names = JsonNames;
            for (int i = 0; i + 2 < count; i += 3)
            {
                int id = (int)data[i];
                if (id < 0 || id >= names.Length)
                    continue;
                if (Recorded == MaxEvents)
                {
                    // The timeline is as long as it may be: no more calls are recorded.
                    long[] never = new long[Thresholds.Length];
                    for (int k = 0; k < never.Length; ++k)
                        never[k] = long.MaxValue;
                    Thresholds = never;
                    return i;
                }
                Json.Write(AnyEvent ? ",\n" : "\n");
                AnyEvent = true;
                Json.Write(head);
                WriteMicros(Math.Max(0, data[i + 1] - Origin));
                Json.Write(",\"dur\":");
                WriteMicros(data[i + 2]);
                Json.Write(",\"name\":\"");
                Json.Write(names[id]);
                Json.Write("\"}");
                ++Recorded;
            }
            return count;
        }

        /// Stopwatch ticks as microseconds with three decimals.
        private static void WriteMicros(long ticks)
        {
            long ns = (long)(ticks * NsPerTick);
            int at = Digits.Length;
            for (int i = 0; i < 3; ++i)
            {
                Digits[--at] = (char)('0' + ns % 10);
                ns /= 10;
            }
            Digits[--at] = '.';
            do
            {
                Digits[--at] = (char)('0' + ns % 10);
                ns /= 10;
            } while (ns != 0);
            Json.Write(Digits, at, Digits.Length - at);
        }

        private static void OnExit(object sender, EventArgs e)
        {
            Finish(true);
        }

        /// Writes what the timeline holds so far and the table; the timeline stays open.
        public static void Flush()
        {
            Finish(false);
        }

        private static void Finish(bool last)
        {
            lock (Lock)
            {
                if (Closed)
                    return;
                try
                {
                    if (last)
                        CloseTimeline();
                    else
                        Drain();
                    WriteTable();
                }
                catch (Exception)
                {
                    // A trace that cannot be written does not change how the program ends.
                }
            }
        }

        private static void CloseTimeline()
        {
            Closed = true;
            long calls = 0, dropped = 0;
            for (int t = 0; t < ThreadCount; ++t)
            {
                ThreadState s = Threads[t];
                foreach (long c in s.Calls)
                    calls += c;
                foreach (KeyValuePair<int, long[]> m in s.ModuleCalls)
                    foreach (long c in m.Value)
                        calls += c;
                dropped += s.Dropped;
                long[] chunk = s.Chunk;
                if (chunk != null)
                    Full.Enqueue(new Filled { Tid = s.Tid, Data = chunk, Count = Math.Min(s.Used, chunk.Length) });
            }
            Drain();
            if (Json == null)
                return;
            Json.Write("\n],\"otherData\":{\"calls\":" + calls + ",\"recorded\":" + Recorded +
                       ",\"dropped\":" + dropped + ",\"limit\":" + (MaxEvents == long.MaxValue ? 0 : MaxEvents) +
                       "}}\n");
            Json.Dispose();
            Json = null;
        }

        /// calls, inclusive and exclusive microseconds and the name of every method that ran,
        /// in the order the modules registered them.
        private static void WriteTable()
        {
            int n = Count;
            long[] calls = new long[n], inclusive = new long[n], exclusive = new long[n];
            // The sampler's times (summary mode's methods), read where the sampler writes them.
            long[] sampledInclusive = SampledInclusive, sampledExclusive = SampledExclusive;
            for (int i = 0; i < n && i < sampledInclusive.Length && i < sampledExclusive.Length; ++i)
            {
                inclusive[i] = sampledInclusive[i];
                exclusive[i] = sampledExclusive[i];
            }
            for (int t = 0; t < ThreadCount; ++t)
            {
                ThreadState s = Threads[t];
                long[] c = s.Calls, inc = s.Inclusive, exc = s.Exclusive;
                for (int i = 0; i < n && i < c.Length && i < inc.Length && i < exc.Length; ++i)
                {
                    calls[i] += c[i];
                    inclusive[i] += inc[i];
                    exclusive[i] += exc[i];
                }
                foreach (KeyValuePair<int, long[]> m in s.ModuleCalls)
                    for (int k = 0; k < m.Value.Length && m.Key + k < n; ++k)
                        calls[m.Key + k] += m.Value[k];
            }
            StringBuilder table = new StringBuilder("calls\tinclusive_us\texclusive_us\tmethod\n");
            for (int i = 0; i < n; ++i)
            {
                if (calls[i] == 0)
                    continue;
                table.Append(calls[i]).Append('\t')
                    .Append((long)(inclusive[i] * NsPerTick / 1000)).Append('\t')
                    .Append((long)(exclusive[i] * NsPerTick / 1000)).Append('\t')
                    .Append(Names[i]).Append('\n');
            }
            File.WriteAllText(Path + ".txt", table.ToString());
        }

        private static string Escaped(string name)
        {
            StringBuilder b = new StringBuilder(name.Length);
            foreach (char c in name)
            {
                if (c == '"' || c == '\\')
                    b.Append('\\');
                if (c >= ' ')
                    b.Append(c);
            }
            return b.ToString();
        }
    }
}
