// The trace pass's runtime. A module woven with `trace` carries these bytes and loads them once per
// process (the first woven module to start does; the others find it through the AppDomain), gets
// the addresses of its functions from Function, registers its method names and runs.
//
// Timeline mode. Woven code writes each call's entry (the method's id) and exit (-1) into its
// thread's buffer with code of its own that the JIT inlines, one thread-static load and a few
// stores a call; the buffer is a ring the runtime gives each thread (JoinThread) and a background
// writer empties. The woven code takes no timestamp: when the room it was given runs out (every
// AnchorEvery records, and at once after each tick of the clock thread, which ticks each
// millisecond), it calls Slow, which reads the clock and writes an anchor (the time) before the
// record. The writer places the records between two anchors evenly between their times, and no
// later than the tick that followed the first, so a time is off by at most the time between two
// anchors, and at most a millisecond: nesting and order are exact, and calls longer than that
// are timed to within it. From the records the writer keeps per-thread counts, inclusive time (a
// recursive method's time counted once, at its outermost call) and exclusive time per method,
// and writes Chrome trace events. When the ring is full the thread's records go to a scratch
// area that the thread counts (per method) and forgets: those calls are dropped and counted, and
// when the ring has room again a resync record tells the writer which calls ended and which began
// meanwhile. The program never waits.
//
// Summary mode counts the call and keeps a stack of the methods each thread is in, with no
// timestamp: with code of its own that the JIT inlines into the woven methods, on a stack the
// runtime gives each thread (JoinThread, in the thread's record, which woven code finds through
// the stack map: see StackMap) and counts of its own it registers with it, or, where
// calls are told apart by instantiation, by calling Push and Pop here. A sampling thread reads
// every thread's stack each millisecond and gives the time since its last look to the method on
// top (exclusive) and, once each, to every method on the stack (inclusive).
//
// When weft's profiler is in the process (`weft run`), the writer also hands each call to it
// (weft_trace_calls, found through CORECLR_PROFILER_PATH), which puts it on the profiler's
// timeline beside collections and tracepoints and sends it to the Weft EventPipe provider.
//
// At process exit (or Flush) the events are finished and the table is written beside them.
using System;
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
        public int Index, Tid;
        public Thread Thread;
        /// Calls counted here (Push, summary mode told apart by instantiation).
        public long[] Calls = new long[0];
        /// The ids of the instantiations the thread has run, by their handles.
        public Dictionary<InstanceKey, int> Instances;
        /// Summary mode: the counts woven modules keep for this thread (from index 1 on), with
        /// their first id.
        public List<KeyValuePair<int, long[]>> ModuleCalls = new List<KeyValuePair<int, long[]>>();
        /// Summary mode: the thread's record (Runtime's stack map), pinned and never replaced:
        /// woven modules keep addresses in it. It ends with the thread's stack: how many calls
        /// deep the thread is (at 0), then the methods it is in, innermost last (as many as
        /// fit). Retired once the thread has ended.
        public long[] Record;
        public unsafe int* Stack;
        public bool Retired;

        /// Timeline mode: the thread's buffer (Runtime's layout), never replaced, and its address.
        public int[] Buffer;
        public IntPtr Address;
        /// The thread's side while the ring is full: the calls dropped per method, the calls
        /// begun meanwhile that are still open, and how many of the calls open before ended.
        public long[] Dropped = new long[8]; // by id + Runtime.DroppedAt (before: the exits)
        public long DroppedTotal;
        /// The calls begun in the gap, at GapBase + depth; the depth is counted from the gap's
        /// start (below 0: calls open before it ended) and GapMin is the least it has been.
        public int[] GapOpen = new int[64];
        public int GapBase, GapDepth, GapMin;
        /// 1 while the thread is in Slow; 2 once the process's end has read its scratch area.
        public int Busy;

        /// The writer's side: where it reads, the calls open (method, start, callee time; a
        /// begun-while-dropped call is not counted again), and the counts and times per method.
        public int ReadAt;
        /// The writer read the stretch after the thread's last anchor before the thread closed
        /// it (the thread went idle): ReadAt is where the thread's next anchor goes, IdleTime
        /// when what was read ends, IdleCommitted where the thread had committed then.
        public bool Idle;
        public long IdleTime;
        public int IdleCommitted;
        public int[] OpenId = new int[64];
        public long[] OpenStart = new long[64], OpenChild = new long[64];
        public bool[] OpenDropped = new bool[64];
        public int Depth;
        public long[] Ended = new long[0], Inclusive = new long[0], Exclusive = new long[0];
        public int[] Active = new int[0];
        /// The time between two records in the thread's last whole stretch between anchors.
        public double Pace;
        /// Calls for the timeline, (method, start, duration), written out when full.
        public long[] Out = new long[3 * 4096];
        public int OutUsed;
    }

    internal struct InstanceKey : IEquatable<InstanceKey>
    {
        public IntPtr Type, Method;
        public bool Equals(InstanceKey o) { return Type == o.Type && Method == o.Method; }
        public override bool Equals(object o) { return o is InstanceKey k && Equals(k); }
        public override int GetHashCode() { return Type.GetHashCode() * 31 + Method.GetHashCode(); }
    }

    public static class Runtime
    {
        private const int ModeTimeline = 0;
        // A timeline buffer: a header, the ring the writer reads, and the scratch area a thread
        // writes to while the ring is full.
        private const int HeadAt = 0, LimitAt = 1, CommittedAt = 2, TailAt = 3, DroppingAt = 4,
                          OwnerAt = 5, HeaderInts = 16;
        // Records: a method's id (its entry), and these.
        private const int ExitRecord = -1, AnchorRecord = -2, ResyncRecord = -3, WrapRecord = -4;
        private const int AnchorInts = 4, ScratchInts = 8192;
        /// The most records between two readings of the clock.
        private const int AnchorEvery = 512;
        /// Room always kept in the ring: a gap's anchor fits in it.
        private const int Spare = 8;
        /// Where the counts of dropped calls begin (by id) in ThreadState.Dropped.
        internal const int DroppedAt = 8;
        /// The most records of a thread one drain reads.
        private const int ReadBudget = 1 << 16;
        private static readonly object Lock = new object();
        [ThreadStatic] private static ThreadState Current;
        private static ThreadState[] Threads = new ThreadState[8];
        private static int ThreadCount;
        private static string[] Names = new string[0], JsonNames = new string[0];
        private static long[] Thresholds = new long[0];
        private static volatile int Count;
        private static int RingEnd;
        private static string Path;
        private static long Origin;
        private static double NsPerTick;
        private static StreamWriter Json;
        private static bool AnyEvent, Capped;
        private static long Recorded, MaxEvents;
        /// weft's profiler's weft_trace_name and weft_trace_calls, when it is in the process.
        private static IntPtr ProfilerName, ProfilerCalls;
        private static volatile bool Closed;
        private static readonly char[] Digits = new char[24];
        private static Thread Sampler, Writer;
        private static long[] SampledInclusive = new long[0], SampledExclusive = new long[0];
        private static int[] Seen = new int[0];
        private static int Generation;
        private static readonly Dictionary<InstanceKey, int> AllInstances = new Dictionary<InstanceKey, int>();
        /// The clock's ticks (each millisecond) and when each of the last 1,024 was.
        private static int Epoch;
        private static readonly long[] TickTimes = new long[1024];

        // The stack map (summary mode). Woven code finds its thread's blocks without a
        // thread-static load: from the address of one of its locals, the map's entry for that
        // 64 KiB of address space (modulo MapEntries) holds the address of a thread's record,
        // which is the thread's if the address is within the record's range [low, high) (a range
        // of stack pages the thread was seen on: only the thread extends it, it only grows, and
        // its two ends are read separately, so a range read is always within the thread's
        // stack). The record then holds, at each module's slot, the address of the module's
        // block for the thread. Where the map has no record for the thread (the first call on a
        // page, or an entry another thread's record holds), the woven code takes the
        // thread-static path and Claim extends the range and takes the entry if it is free.
        // An ended thread's record is retired (its range emptied) before its stack can serve
        // another thread for long: the sampler does that within a millisecond or so.
        private const int MapShift = 16, MapEntries = 4096, RecordSlots = 128, RecordHeader = 2,
                          StackAt = RecordHeader + RecordSlots, StackInts = 4096;
        private static long[] Map;
        /// The record of no thread: every entry's until claimed.
        private static readonly long[] NoThread = GC.AllocateArray<long>(RecordHeader, pinned: true);
        private static readonly Dictionary<int, int> SlotOf = new Dictionary<int, int>();

        /// The addresses woven modules call through.
        public static unsafe IntPtr Function(int which)
        {
            switch (which)
            {
                case 0: return (IntPtr)(delegate*<IntPtr, int, void>)&Slow;
                case 2: return (IntPtr)(delegate*<void>)&Flush;
                case 3: return (IntPtr)(delegate*<string, string, int, long, int, long, int>)&Register;
                case 4: return (IntPtr)(delegate*<int, long>)&Push;
                case 5: return (IntPtr)(delegate*<int, long, void>)&Pop;
                case 6: return (IntPtr)(delegate*<int, RuntimeTypeHandle, RuntimeMethodHandle, int>)&Instance;
                case 7: return (IntPtr)(delegate*<int, int, IntPtr>)&JoinThread;
                case 8: return (IntPtr)(delegate*<int, IntPtr>)&JoinTimeline;
                case 9: return (IntPtr)(delegate*<int, int*, IntPtr>)&StackMap;
                case 10: return (IntPtr)(delegate*<IntPtr, int, void>)&Claim;
                default: return IntPtr.Zero;
            }
        }

        /// A module's methods (names separated by '\n') get the ids from the one returned on.
        /// The first module's settings choose the files and the buffers' size; each module's mode
        /// and threshold hold for its own methods.
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
                    if (mode == ModeTimeline && Writer == null && !Closed)
                        StartTimeline();
                    if (mode != ModeTimeline && Sampler == null)
                        Sampler = Background(SampleLoop, "weft trace sampler");
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
            ThreadState s = Current ?? Arrive();
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
            MaxEvents = maxEvents > 0 ? maxEvents : long.MaxValue;
            Path = Environment.GetEnvironmentVariable("WEFT_TRACE_FILE") ?? file;
            Origin = Stopwatch.GetTimestamp();
            NsPerTick = 1e9 / Stopwatch.Frequency;
            // Each thread's ring takes a sixteenth of the buffer size (at least 64 KiB).
            long ints = Math.Max(1, bufferMb) * (1L << 20) / 16 / 4;
            RingEnd = HeaderInts + (int)Math.Min(Math.Max(ints, 16384), 1 << 26);
            AppDomain.CurrentDomain.ProcessExit += OnExit;
        }

        /// The timeline's file (if it can be made), its writer and the clock.
        private static void StartTimeline()
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
                Json = null; // no timeline; the table is still written at exit
            }
            Writer = Background(WriteLoop, "weft trace writer");
            Background(ClockLoop, "weft trace clock");
        }

        private static Thread Background(ThreadStart loop, string name)
        {
            Thread t = new Thread(loop);
            t.IsBackground = true;
            t.Name = name;
            t.Start();
            return t;
        }

        /// The calling thread's state, made and listed on its first call.
        private static ThreadState Arrive()
        {
            lock (Lock)
            {
                ThreadState s = Current;
                if (s != null)
                    return s;
                s = new ThreadState();
                s.Tid = ThreadId();
                s.Thread = Thread.CurrentThread;
                if (ThreadCount == Threads.Length)
                    Array.Resize(ref Threads, ThreadCount * 2);
                s.Index = ThreadCount;
                Threads[ThreadCount++] = s;
                Current = s;
                return s;
            }
        }

        /// Summary mode's entry when calls are told apart by instantiation: the call counted and
        /// the method pushed on the thread's stack.
        private static unsafe long Push(int id)
        {
            ThreadState s = Current;
            if (s == null || id >= s.Calls.Length)
                s = MoreCalls(id);
            s.Calls[id]++;
            int* stack = s.Stack;
            int d = stack[0] + 1;
            if (d < StackInts)
                stack[d] = id;
            stack[0] = d;
            return 1;
        }

        private static ThreadState MoreCalls(int id)
        {
            ThreadState s = WithRecord(Current ?? Arrive());
            lock (Lock)
                Array.Resize(ref s.Calls, Math.Max(Count, id + 1));
            return s;
        }

        /// \p s, with its record (on the thread's first summary-mode call).
        private static unsafe ThreadState WithRecord(ThreadState s)
        {
            if (s.Record != null)
                return s;
            long[] record = GC.AllocateArray<long>(StackAt + StackInts / 2, pinned: true);
            record[0] = -1; // the range: none yet
            fixed (long* at = record)
                s.Stack = (int*)(at + StackAt);
            Volatile.Write(ref s.Record, record);
            return s;
        }

        /// A woven module's first call on this thread in summary mode: the address of a block for
        /// its counts of the thread's calls (pinned, summed into the table): the address of the
        /// thread's stack, then a count for each of its \p count methods (ids from \p first on).
        private static unsafe IntPtr JoinThread(int first, int count)
        {
            ThreadState s = WithRecord(Current ?? Arrive());
            long[] block = GC.AllocateArray<long>(1 + count, pinned: true);
            block[0] = (long)s.Stack;
            fixed (long* at = block)
            {
                lock (Lock)
                {
                    s.ModuleCalls.Add(new KeyValuePair<int, long[]>(first, block));
                    if (SlotOf.TryGetValue(first, out int m))
                        Volatile.Write(ref s.Record[m], (long)at);
                }
                return (IntPtr)at;
            }
        }

        /// A summary-mode module's slot in the threads' records (the byte offset of its block's
        /// address there, in \p slot) and the stack map's address; none (0) once RecordSlots
        /// modules have one, or with WEFT_TRACE_MAP=0, and the module takes the thread-static
        /// path.
        private static unsafe IntPtr StackMap(int first, int* slot)
        {
            lock (Lock)
            {
                if (SlotOf.Count == RecordSlots || Environment.GetEnvironmentVariable("WEFT_TRACE_MAP") == "0")
                    return IntPtr.Zero;
                if (Map == null)
                {
                    fixed (long* none = NoThread)
                    {
                        none[0] = -1; // low: above every address
                        long[] map = GC.AllocateArray<long>(MapEntries, pinned: true);
                        Array.Fill(map, (long)none);
                        Map = map;
                    }
                }
                int m = RecordHeader + SlotOf.Count;
                SlotOf[first] = m;
                *slot = m * sizeof(long);
                fixed (long* at = Map)
                    return (IntPtr)at;
            }
        }

        /// Woven code's slow path in summary mode, where \p sp (the address of a local) found no
        /// record of the thread in the map: the thread's record takes in the page and, if the
        /// map's entry is free (no thread's, or an ended thread's), the entry. (The module calls
        /// it as it calls Slow in timeline mode, with its slot, which is not needed here.)
        private static unsafe void Claim(IntPtr sp, int slot)
        {
            ThreadState s = Current;
            long[] record = s?.Record;
            if (record == null || s.Retired || Map == null)
                return;
            ulong page = (ulong)sp & ~0xFFFUL;
            fixed (long* r = record)
            fixed (long* map = Map)
            {
                if ((ulong)r[0] > page)
                    Volatile.Write(ref r[0], (long)page);
                if ((ulong)r[1] < page + 0x1000)
                    Volatile.Write(ref r[1], (long)(page + 0x1000));
                long* entry = map + (((ulong)sp >> MapShift) & (MapEntries - 1));
                long* held = (long*)Volatile.Read(ref *entry);
                if (held != r && Volatile.Read(ref held[1]) == 0)
                    Volatile.Write(ref *entry, (long)r);
            }
        }

        /// An ended thread's record holds no address from now on: its stack may become
        /// another thread's.
        private static unsafe void Retire(ThreadState s)
        {
            s.Retired = true;
            Volatile.Write(ref s.Record[1], 0);
            Volatile.Write(ref s.Record[0], -1);
        }

        /// A woven module's first call on this thread in timeline mode: the address of the
        /// thread's buffer (pinned, and kept while the thread lives).
        private static unsafe IntPtr JoinTimeline(int first)
        {
            ThreadState s = Current ?? Arrive();
            lock (Lock)
            {
                if (s.Buffer == null)
                {
                    int[] a = GC.AllocateArray<int>(RingEnd + ScratchInts, pinned: true);
                    a[HeadAt] = a[CommittedAt] = a[TailAt] = s.ReadAt = HeaderInts;
                    a[LimitAt] = 0; // the first record goes through Slow, which anchors it
                    a[OwnerAt] = s.Index;
                    s.Buffer = a;
                    fixed (int* at = a)
                        s.Address = (IntPtr)at;
                }
                return s.Address;
            }
        }

        private static unsafe void Pop(int id, long entered)
        {
            ThreadState s = Current;
            if (entered != 0 && s != null && s.Stack != null && s.Stack[0] > 0)
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
        private static unsafe void Sample(long ticks)
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
                if (Volatile.Read(ref s.Record) == null)
                    continue;
                if (!s.Retired && !s.Thread.IsAlive)
                    Retire(s);
                int* stack = s.Stack;
                int top = Math.Min(stack[0], StackInts - 1);
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

        // --- timeline mode: the woven thread's side ---

        /// Woven code's slow path: the room it was given is used up (or the clock ticked), and
        /// \p v is the record it was writing. Reads the clock and writes an anchor and \p v, or,
        /// while the ring is full, \p v goes to the scratch area.
        private static unsafe void Slow(IntPtr p, int v)
        {
            ThreadState s = Threads[((int*)p)[OwnerAt]];
            int[] a = s.Buffer;
            if (a == null)
                return;
            if (Interlocked.CompareExchange(ref s.Busy, 1, 0) != 0)
            {
                PutScratch(a, v); // the process is ending, and its last reading has the thread's
                return;
            }
            SlowOwned(s, a, v);
            Volatile.Write(ref s.Busy, 0);
        }

        private static void SlowOwned(ThreadState s, int[] a, int v)
        {
            if (Closed)
            {
                // The timeline is written: records go nowhere from now on.
                PutScratch(a, v);
                return;
            }
            long now = Stopwatch.GetTimestamp();
            if (a[DroppingAt] != 0)
            {
                CountScratch(s, a);
                if (!Resume(s, a, v, now))
                    PutScratch(a, v);
                return;
            }
            int h = a[HeadAt];
            int room = Room(a, ref h, AnchorInts + 1 + Spare);
            if (room >= AnchorInts + 1 + Spare)
            {
                Continue(a, h, room, v, now);
                return;
            }
            // The ring is full: the gap's start is anchored in the room always kept.
            if (room >= AnchorInts)
                h = PutAnchor(a, h, now);
            Volatile.Write(ref a[CommittedAt], h);
            s.GapBase = s.GapOpen.Length / 2;
            s.GapDepth = s.GapMin = 0;
            a[DroppingAt] = 1;
            PutScratch(a, v);
        }

        /// The free room in the ring from \p h on, in one piece: when too little is left before
        /// the ring's end and enough at its start, a wrap record sends the reader (and \p h) there.
        private static int Room(int[] a, ref int h, int need)
        {
            int tail = Volatile.Read(ref a[TailAt]);
            if (h < tail)
                return tail - 1 - h;
            int toEnd = RingEnd - h - 1; // the last slot is kept for a wrap record
            if (toEnd >= need)
                return toEnd;
            int fromStart = tail - 1 - HeaderInts;
            if (fromStart < need)
                return Math.Max(0, toEnd);
            a[h] = WrapRecord;
            h = HeaderInts;
            return fromStart;
        }

        /// Writes an anchor and \p v at \p h, publishes them and gives the thread room up to the
        /// next anchor.
        private static void Continue(int[] a, int h, int room, int v, long now)
        {
            int start = h + AnchorInts + 1;
            // The room first, then the tick read: a tick after that read zeroes the new room.
            a[LimitAt] = start + Math.Max(0, Math.Min(AnchorEvery, room - (AnchorInts + 1) - Spare));
            h = PutAnchor(a, h, now);
            a[h] = v;
            a[HeadAt] = start;
            Volatile.Write(ref a[CommittedAt], start);
        }

        private static int PutAnchor(int[] a, int h, long now)
        {
            a[h] = AnchorRecord;
            a[h + 1] = (int)now;
            a[h + 2] = (int)(now >> 32);
            a[h + 3] = Volatile.Read(ref Epoch);
            return h + AnchorInts;
        }

        private static void PutScratch(int[] a, int v)
        {
            a[RingEnd] = v;
            a[HeadAt] = RingEnd + 1;
            a[LimitAt] = a.Length;
        }

        /// Counts the records in the scratch area as dropped calls, following which of the calls
        /// open before the gap end and which begun in it are still open.
        private static unsafe void CountScratch(ThreadState s, int[] a)
        {
            int n = Math.Min(a[HeadAt], a.Length) - RingEnd;
            a[HeadAt] = RingEnd;
            if (n <= 0)
                return;
            RoomForGap(s, n);
            if (s.Dropped.Length < Count + DroppedAt)
                MoreDropped(s, Count - 1);
            long[] dropped = s.Dropped;
            int depth = s.GapDepth, least = s.GapMin, begun = 0, slots = dropped.Length;
            List<int> late = null;
            fixed (int* records = &a[RingEnd])
            fixed (int* open = &s.GapOpen[s.GapBase])
            fixed (long* counts = dropped)
            {
                for (int i = 0; i < n; ++i)
                {
                    int v = records[i];
                    if (v >= 0)
                    {
                        if (v + DroppedAt < slots)
                            counts[v + DroppedAt]++;
                        else
                            (late ?? (late = new List<int>())).Add(v); // an id made since Count was read
                        open[depth++] = v;
                        ++begun;
                    }
                    else if (--depth < least)
                    {
                        least = depth;
                    }
                }
            }
            s.GapDepth = depth;
            s.GapMin = least;
            s.DroppedTotal += begun;
            if (late != null)
                foreach (int v in late)
                    MoreDropped(s, v)[v + DroppedAt]++;
        }

        /// Makes room in GapOpen for the depth to move \p n either way, keeping the calls begun in
        /// the gap that are still open.
        private static void RoomForGap(ThreadState s, int n)
        {
            int at = s.GapBase + s.GapDepth;
            if (at - n >= 0 && at + n < s.GapOpen.Length)
                return;
            int live = s.GapDepth - s.GapMin;
            int[] more = new int[Math.Max(s.GapOpen.Length, 2 * (live + 2 * n) + 64)];
            int top = more.Length / 2;
            Array.Copy(s.GapOpen, s.GapBase + s.GapMin, more, top - live, live);
            s.GapOpen = more;
            s.GapBase = top - s.GapDepth;
        }

        private static long[] MoreDropped(ThreadState s, int id)
        {
            if (id + DroppedAt < s.Dropped.Length)
                return s.Dropped;
            long[] more = new long[Math.Max(Count, id + 1) + DroppedAt];
            Array.Copy(s.Dropped, more, s.Dropped.Length);
            s.Dropped = more;
            return more;
        }

        /// Ends the gap if the ring has room: a resync record (how many calls open before the gap
        /// ended in it, and the calls begun in it still open), an anchor and \p v.
        private static bool Resume(ThreadState s, int[] a, int v, long now)
        {
            int h = a[CommittedAt];
            int k = s.GapDepth - s.GapMin, record = 3 + k;
            int room = Room(a, ref h, record + AnchorInts + 1 + Spare);
            if (room < record + AnchorInts + 1 + Spare)
                return false;
            a[h] = ResyncRecord;
            a[h + 1] = -s.GapMin;
            a[h + 2] = k;
            Array.Copy(s.GapOpen, s.GapBase + s.GapMin, a, h + 3, k);
            a[DroppingAt] = 0;
            Continue(a, h + record, room - record, v, now);
            return true;
        }

        private static void ClockLoop()
        {
            while (!Closed)
            {
                Thread.Sleep(1);
                int e = Epoch + 1;
                TickTimes[e & (TickTimes.Length - 1)] = Stopwatch.GetTimestamp();
                Volatile.Write(ref Epoch, e);
                // Every thread's next record anchors itself.
                ThreadState[] threads = Threads;
                int n = Math.Min(Volatile.Read(ref ThreadCount), threads.Length);
                for (int t = 0; t < n; ++t)
                {
                    int[] a = threads[t] != null ? threads[t].Buffer : null;
                    if (a != null)
                        a[LimitAt] = 0;
                }
            }
        }

        // --- timeline mode: the writer's side ---

        /// The writer takes at most about a tenth of a core: a drain reads at most ReadBudget
        /// records of each thread, and the writer rests nine times as long as it worked (4 ms at
        /// least). A program that makes records faster than that fills its rings, and the calls
        /// that find them full are dropped (and counted) rather than the program slowed.
        private static void WriteLoop()
        {
            int rest = 4;
            while (!Closed)
            {
                Thread.Sleep(rest);
                long began = Stopwatch.GetTimestamp();
                lock (Lock)
                {
                    if (!Closed)
                        Drain(ReadBudget);
                }
                long worked = (Stopwatch.GetTimestamp() - began) * 1000 / Stopwatch.Frequency;
                rest = (int)Math.Min(1000, Math.Max(4, worked * 9));
            }
        }

        /// Reads what every thread has published (at most \p budget records of each), writes the
        /// calls that ended and gives the room back (under Lock). A thread that has ended is read to its last record and let go.
        private static void Drain(int budget)
        {
            for (int t = 0; t < ThreadCount; ++t)
            {
                ThreadState s = Threads[t];
                int[] a = s.Buffer;
                if (a == null)
                    continue;
                bool gone = !s.Thread.IsAlive;
                Read(s, a, gone ? int.MaxValue : budget, gone);
                Emit(s);
                Volatile.Write(ref a[TailAt], s.ReadAt);
                if (gone)
                    s.Buffer = null;
            }
            if (Json == null)
                return;
            try
            {
                Json.Flush();
            }
            catch (Exception)
            {
                Json = null; // a full disk ends the timeline, not the program
            }
        }

        /// Reads the records of \p a from the writer's place on, as far as the thread has published
        /// them (with \p last, as far as it has written them: it has ended, or the process is).
        private static void Read(ThreadState s, int[] a, int budget, bool last)
        {
            int c = Volatile.Read(ref a[CommittedAt]);
            if (s.Idle && !AfterIdle(s, a, c, last))
                return;
            int t = s.ReadAt;
            int read = 0;
            bool open = false; // t is the last anchor, its stretch not closed yet
            while (t != c && read < budget)
            {
                int r = a[t];
                if (r == WrapRecord)
                {
                    t = HeaderInts;
                    continue;
                }
                if (r == ResyncRecord)
                {
                    int k = a[t + 2];
                    Resync(s, a, t + 3, a[t + 1], k, AnchorTime(a, t + 3 + k));
                    t += 3 + k;
                    continue;
                }
                if (r != AnchorRecord)
                {
                    t = c; // not a record the runtime writes: skipped
                    break;
                }
                int e = t + AnchorInts;
                while (e != c && a[e] >= ExitRecord)
                    ++e;
                if (e == c)
                {
                    open = true; // the next anchor is not written yet
                    break;
                }
                int next = a[e] == WrapRecord ? HeaderInts : e;
                if (a[next] == ResyncRecord)
                    next += 3 + a[next + 2];
                Place(s, a, t, e, AnchorTime(a, next));
                read += e - t;
                t = e;
            }
            s.ReadAt = t;
            if (!last && open && a[DroppingAt] == 0 && Volatile.Read(ref Epoch) - a[t + 3] >= 2)
                ReadIdle(s, a, t, c);
            else if (last && t != c && a[t] == AnchorRecord && a[DroppingAt] == 0)
            {
                // The records after the last anchor, to the clock's last tick at most.
                int head = Math.Min(Volatile.Read(ref a[HeadAt]), RingEnd);
                if (head >= t + AnchorInts)
                    Place(s, a, t, head, Stopwatch.GetTimestamp());
            }
            else if (last && a[DroppingAt] != 0 && Interlocked.CompareExchange(ref s.Busy, 2, 0) == 0)
            {
                // The calls open before the last gap that ended in it end with it. (Busy, left
                // at 2, keeps the thread, if it still runs, out of its scratch area's counts; had
                // it been in Slow, its last dropped calls would go uncounted.)
                CountScratch(s, a);
                long now = Stopwatch.GetTimestamp();
                for (int i = 0; i < -s.GapMin; ++i)
                    Close(s, now);
                s.GapDepth = s.GapMin = 0;
            }
        }

        /// The records after the last anchor of a thread that has made none since the clock
        /// ticked twice (its next record anchors first): it went idle, and what it did last goes
        /// on the timeline now rather than with its next call.
        private static void ReadIdle(ThreadState s, int[] a, int t, int c)
        {
            int head = Math.Min(Volatile.Read(ref a[HeadAt]), RingEnd);
            if (head <= t + AnchorInts)
                return;
            for (int i = c; i < head; ++i)
                if (a[i] < ExitRecord)
                    return; // it anchored meanwhile: not idle
            s.IdleTime = Place(s, a, t, head, Stopwatch.GetTimestamp());
            s.IdleCommitted = c;
            s.ReadAt = head;
            s.Idle = true;
        }

        /// After ReadIdle: the records the thread wrote from ReadAt on before its next anchor
        /// (made as the clock ticked, or all of them at the end), at the time what was read
        /// ended. Whether reading goes on from an anchor (the thread has committed one since).
        private static bool AfterIdle(ThreadState s, int[] a, int c, bool last)
        {
            bool anchored = c != s.IdleCommitted;
            int t = s.ReadAt, end = t;
            if (anchored)
                while (end != c && end < RingEnd && a[end] >= ExitRecord)
                    ++end;
            else
                end = Math.Min(Volatile.Read(ref a[HeadAt]), RingEnd);
            if (end > t)
                PlaceRecords(s, a, t, end - t, s.IdleTime, 0);
            s.ReadAt = Math.Max(t, end);
            s.Idle = !anchored;
            return anchored;
        }

        private static long AnchorTime(int[] a, int at)
        {
            return (uint)a[at + 1] | ((long)a[at + 2] << 32);
        }

        /// The records after the anchor at \p at up to \p end, placed between its time and \p next
        /// (the next anchor's), and no later than the clock tick after it. A stretch cut short by
        /// the clock or a full ring (fewer than AnchorEvery records) is placed at the pace of the
        /// thread's last whole stretch, if that is faster: the thread more likely waited after its
        /// last record than between them. Returns when the stretch, so placed, ends.
        private static long Place(ThreadState s, int[] a, int at, int end, long next)
        {
            long start = AnchorTime(a, at);
            int tick = a[at + 3] + 1;
            int now = Volatile.Read(ref Epoch);
            if (now - tick >= 0 && now - tick < TickTimes.Length)
                next = Math.Min(next, TickTimes[tick & (TickTimes.Length - 1)]);
            long span = Math.Max(0, next - start);
            int first = at + AnchorInts, n = end - first;
            if (n <= 0)
                return start;
            if (n >= AnchorEvery)
                s.Pace = (double)span / n;
            else if (s.Pace > 0 && s.Pace * n < span)
                span = (long)(s.Pace * n);
            PlaceRecords(s, a, first, n, start, (double)span / n);
            return start + span;
        }

        /// The \p n records from \p first on, the i-th at \p start + i * \p step.
        private static void PlaceRecords(ThreadState s, int[] a, int first, int n, long start, double step)
        {
            // In locals: the loop runs for every record the writer reads.
            if (s.Depth + n > s.OpenId.Length)
                MoreOpen(s, s.Depth + n);
            if (s.Active.Length < Count)
                MoreIds(s, Count - 1);
            int[] openId = s.OpenId, active = s.Active;
            long[] openStart = s.OpenStart, openChild = s.OpenChild, ended = s.Ended;
            long[] inclusive = s.Inclusive, exclusive = s.Exclusive, thresholds = Thresholds;
            bool[] openDropped = s.OpenDropped;
            int depth = s.Depth;
            for (int i = 0; i < n; ++i)
            {
                long ts = start + (long)(i * step);
                int v = a[first + i];
                if (v >= 0)
                {
                    if ((uint)v >= (uint)active.Length)
                        continue;
                    openId[depth] = v;
                    openStart[depth] = ts;
                    openChild[depth] = 0;
                    openDropped[depth] = false;
                    ++depth;
                    active[v]++;
                    continue;
                }
                if (depth == 0)
                    continue; // a call begun before the thread's tracing did
                int d = --depth;
                int id = openId[d];
                long took = ts - openStart[d];
                exclusive[id] += took - openChild[d];
                if (--active[id] == 0)
                    inclusive[id] += took;
                if (d > 0)
                    openChild[d - 1] += took;
                if (openDropped[d])
                    continue;
                ended[id]++;
                if (took >= thresholds[id] && !Capped)
                    Record(s, id, openStart[d], took);
            }
            s.Depth = depth;
        }

        private static void MoreOpen(ThreadState s, int need)
        {
            int n = Math.Max(need, s.OpenId.Length * 2);
            Array.Resize(ref s.OpenId, n);
            Array.Resize(ref s.OpenStart, n);
            Array.Resize(ref s.OpenChild, n);
            Array.Resize(ref s.OpenDropped, n);
        }

        /// A call for the timeline.
        private static void Record(ThreadState s, int id, long start, long took)
        {
            if (s.OutUsed == s.Out.Length)
                Emit(s);
            s.Out[s.OutUsed] = id;
            s.Out[s.OutUsed + 1] = start;
            s.Out[s.OutUsed + 2] = took;
            s.OutUsed += 3;
        }

        /// A gap ended at \p when: \p ended of the calls open before it ended, and the \p k calls at
        /// \p at began and are still open (they were counted as dropped).
        private static void Resync(ThreadState s, int[] a, int at, int ended, int k, long when)
        {
            for (int i = 0; i < ended; ++i)
                Close(s, when);
            for (int i = 0; i < k; ++i)
                Open(s, a[at + i], when, true);
        }

        private static void Open(ThreadState s, int id, long ts, bool dropped)
        {
            if (id >= s.Active.Length)
                MoreIds(s, id);
            int d = s.Depth;
            if (d == s.OpenId.Length)
                MoreOpen(s, d + 1);
            s.OpenId[d] = id;
            s.OpenStart[d] = ts;
            s.OpenChild[d] = 0;
            s.OpenDropped[d] = dropped;
            s.Depth = d + 1;
            s.Active[id]++;
        }

        /// Ends the innermost open call at \p ts (Place does the same for the records it reads).
        private static void Close(ThreadState s, long ts)
        {
            if (s.Depth == 0)
                return;
            int d = --s.Depth;
            int id = s.OpenId[d];
            long took = ts - s.OpenStart[d];
            s.Exclusive[id] += took - s.OpenChild[d];
            if (--s.Active[id] == 0)
                s.Inclusive[id] += took;
            if (d > 0)
                s.OpenChild[d - 1] += took;
            if (s.OpenDropped[d])
                return;
            s.Ended[id]++;
            if (took >= Thresholds[id] && !Capped)
                Record(s, id, s.OpenStart[d], took);
        }

        private static void MoreIds(ThreadState s, int id)
        {
            int n = Math.Max(Count, id + 1);
            Array.Resize(ref s.Active, n);
            Array.Resize(ref s.Ended, n);
            Array.Resize(ref s.Inclusive, n);
            Array.Resize(ref s.Exclusive, n);
        }

        /// Writes the thread's ended calls to the timeline and hands them to the profiler.
        private static void Emit(ThreadState s)
        {
            int n = s.OutUsed;
            s.OutUsed = 0;
            if (n == 0)
                return;
            if (Json != null)
            {
                try
                {
                    n = WriteEvents(s.Tid, s.Out, n);
                }
                catch (Exception)
                {
                    Json = null;
                }
            }
            if (ProfilerCalls != IntPtr.Zero)
                TellProfiler(s.Tid, s.Out, n);
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
                    Capped = true;
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
                        Drain(int.MaxValue);
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
                if (s.Buffer != null)
                {
                    Read(s, s.Buffer, int.MaxValue, true);
                    Emit(s);
                }
                foreach (long[] counts in new[] { s.Calls, s.Ended })
                    foreach (long c in counts)
                        calls += c;
                foreach (KeyValuePair<int, long[]> m in s.ModuleCalls)
                    for (int k = 1; k < m.Value.Length; ++k)
                        calls += m.Value[k];
                calls += s.DroppedTotal;
                dropped += s.DroppedTotal;
            }
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
            Add(inclusive, SampledInclusive);
            Add(exclusive, SampledExclusive);
            for (int t = 0; t < ThreadCount; ++t)
            {
                ThreadState s = Threads[t];
                Add(calls, s.Calls);
                Add(calls, s.Ended);
                for (int i = 0; i + DroppedAt < s.Dropped.Length && i < n; ++i)
                    calls[i] += s.Dropped[i + DroppedAt];
                Add(inclusive, s.Inclusive);
                Add(exclusive, s.Exclusive);
                foreach (KeyValuePair<int, long[]> m in s.ModuleCalls)
                    for (int k = 1; k < m.Value.Length && m.Key + k - 1 < n; ++k)
                        calls[m.Key + k - 1] += m.Value[k];
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

        private static void Add(long[] to, long[] from)
        {
            for (int i = 0; i < to.Length && i < from.Length; ++i)
                to[i] += from[i];
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
