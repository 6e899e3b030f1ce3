// What tests/profiler/HostSafetyTest.cpp runs under the profiler, one mode per argument:
//
//   unload N SPEC   N times: a collectible AssemblyLoadContext loads this very assembly, runs
//                   Plugin.Run in it, hands objects of its classes to the host's Observe,
//                   unloads and is collected; every tenth iteration the
//                   program rewrites SPEC (the profiler watches it) with other tracepoints. It
//                   prints each iteration's result, and its resident memory at iterations 10
//                   and N.
//   deep            a graph of objects wide and deep (strings with control characters,
//                   non-ASCII text and unpaired surrogates at every level) handed to a method
//                   a tracepoint records 8 levels deep.
//   classes N [again]  N classes never seen before (generic instantiations made at run time),
//                   one object of each handed to a recorded method, while another thread
//                   collects and times each collection; with "again", the first object once
//                   more a second and a half later.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text;
using System.Threading;

namespace HostSafety
{
    public class Widget
    {
        public string Name;
        public int Size;
        public Widget Next;
    }

    public static class Plugin
    {
        /// What one iteration does in its collectible context: objects of its own classes, and
        /// a framework generic over one of them, handed to methods tracepoints may name.
        public static string Run(int i)
        {
            Widget w = new Widget { Name = "w" + i, Size = i * 3, Next = new Widget { Name = "n" + i } };
            List<Widget> all = new List<Widget> { w, w.Next };
            int used = Use(w, i) + Count(all);
            return "iteration " + i + ": " + used;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Use(Widget w, int i) => w.Size + w.Name.Length + (w.Next != null ? 1 : 0) + i % 7;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Count(List<Widget> all) => all.Count;

        /// Objects of the context's classes, for the host to look at.
        public static object Make(int i) =>
            new List<Widget> { new Widget { Name = "m" + i, Size = i, Next = new Widget { Name = "x" } } };
    }

    public class Level
    {
        public string Text;
        public string Control;
        public string Foreign;
        public string Broken;
        public long Number;
        public double Ratio;
        public int[] Numbers;
        public Level First;
        public Level Second;
        public Level Third;
    }

    public class Pair<A, B>
    {
        public A Left;
        public B Right;
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            switch (args.Length > 0 ? args[0] : "")
            {
                case "unload": return Unload(int.Parse(args[1]), args[2]);
                case "deep": return Deep();
                case "classes": return Classes(int.Parse(args[1]), args.Length > 2 && args[2] == "again");
                default:
                    Console.Error.WriteLine("usage: HostSafety unload N SPEC | deep | classes N [again]");
                    return 2;
            }
        }

        // --- unload ---

        static readonly string[] Tracepoints =
        {
            "[]",
            "[{\"name\": \"use\", \"depth\": 2, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": \"Use\"}}, " +
                "{\"name\": \"observe\", \"depth\": 2, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Program\", \"method\": \"Observe\"}}]",
            "[{\"name\": \"observe\", \"depth\": 4, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Program\", \"method\": \"Observe\"}}, " +
                "{\"name\": \"use\", \"depth\": 2, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": \"Use\"}}, " +
                "{\"name\": \"count\", \"depth\": 1, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": \"Count\"}}]",
            "[{\"name\": \"observe\", \"enabled\": false, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Program\", \"method\": \"Observe\"}}, " +
                "{\"name\": \"use\", \"enabled\": false, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": \"Use\"}}, " +
                "{\"name\": \"run\", \"depth\": 3, \"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": \"Run\"}}]",
        };

        static int Unload(int iterations, string spec)
        {
            string rules = File.ReadAllText(spec);
            int at = rules.IndexOf("\"tracepoints\"", StringComparison.Ordinal);
            rules = rules.Substring(0, at);
            string self = typeof(Program).Assembly.Location;
            int notUnloaded = 0;
            for (int i = 1; i <= iterations; ++i)
            {
                if (i % 10 == 1)
                {
                    // Replaced whole, as an editor saves it; the profiler reads it within 200 ms.
                    File.WriteAllText(spec + ".new", rules + "\"tracepoints\": " + Tracepoints[(i / 10) % Tracepoints.Length] + "}");
                    File.Move(spec + ".new", spec, true);
                    Thread.Sleep(400);
                }
                WeakReference context = RunOnce(self, i);
                for (int k = 0; context.IsAlive && k < 50; ++k)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }
                if (context.IsAlive)
                    ++notUnloaded;
                if (i == 10 || i == iterations)
                    Console.Error.WriteLine("rss at " + i + ": " + Resident());
            }
            Console.WriteLine("not unloaded: " + notUnloaded);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static WeakReference RunOnce(string path, int i)
        {
            var context = new AssemblyLoadContext("plugin " + i, isCollectible: true);
            Assembly loaded = context.LoadFromAssemblyPath(path);
            MethodInfo run = loaded.GetType("HostSafety.Plugin").GetMethod("Run");
            Console.WriteLine((string)run.Invoke(null, new object[] { i }));
            // The host looks at the context's objects: a framework generic over one of its
            // classes, an array of them, and the class itself.
            Observe(loaded.GetType("HostSafety.Plugin").GetMethod("Make").Invoke(null, new object[] { i }), i);
            context.Unload();
            return new WeakReference(context);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Observe(object made, int i) => made.GetHashCode() == i ? 1 : 0;

        /// Resident memory in kB (VmRSS).
        static long Resident()
        {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                    return long.Parse(line.Substring(6).Trim().Split(' ')[0]);
            return -1;
        }

        // --- deep ---

        static int Deep()
        {
            Level root = Build(9, 0);
            long total = 0;
            for (int i = 0; i < 3; ++i)
                total += Inspect(root, i);
            Console.WriteLine("inspected " + total);
            return 0;
        }

        static Level Build(int depth, int seed)
        {
            if (depth == 0)
                return null;
            var text = new StringBuilder();
            for (int i = 0; i < 300; ++i)
                text.Append((char)('a' + (seed + i) % 26));
            return new Level
            {
                Text = text.ToString(),
                Control = "tab\there\nnew line \u0001\u001f \"quoted\" back\\slash " + seed,
                Foreign = "ünïcödé 日本語 😀 " + new string('é', 200),
                Broken = "lone \ud800 high, lone \udc00 low, end \ud83d",
                Number = long.MinValue + seed,
                Ratio = seed == 0 ? double.NaN : 1.0 / seed,
                Numbers = new int[seed % 5],
                First = Build(depth - 1, seed * 3 + 1),
                Second = Build(depth - 1, seed * 3 + 2),
                Third = Build(depth - 1, seed * 3 + 3),
            };
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Inspect(Level root, int round) => root.Text.Length + root.Number % 1000 + round;

        // --- classes ---

        static int Classes(int count, bool again)
        {
            // The profiler's thread applies the tracepoints as the program starts.
            Thread.Sleep(500);
            Type[] basics = { typeof(int), typeof(long), typeof(string), typeof(double), typeof(byte), typeof(char),
                              typeof(bool), typeof(short), typeof(float), typeof(decimal), typeof(Guid), typeof(DateTime),
                              typeof(uint), typeof(ulong), typeof(sbyte), typeof(ushort), typeof(Widget), typeof(Level) };
            var types = new List<Type>();
            foreach (Type a in basics)
                foreach (Type b in basics)
                    types.Add(typeof(Pair<,>).MakeGenericType(a, b));
            for (int i = 0; types.Count < count; ++i)
                types.Add(typeof(Pair<,>).MakeGenericType(types[i], basics[i % basics.Length]));
            var objects = new List<object>();
            foreach (Type t in types.GetRange(0, count))
                objects.Add(Activator.CreateInstance(t));

            // Another thread collects all along, timing each collection.
            bool done = false;
            var pauses = new List<double>();
            var collector = new Thread(() =>
            {
                var watch = new Stopwatch();
                while (!Volatile.Read(ref done))
                {
                    watch.Restart();
                    GC.Collect(0);
                    pauses.Add(watch.Elapsed.TotalMilliseconds);
                    Thread.Sleep(1);
                }
            });
            collector.Start();
            var all = Stopwatch.StartNew();
            long taken = 0;
            foreach (object o in objects)
                taken += Take(o);
            double took = all.Elapsed.TotalMilliseconds;
            Volatile.Write(ref done, true);
            collector.Join();
            pauses.Sort();
            Console.WriteLine("taken " + taken);
            if (again)
            {
                Thread.Sleep(1500);
                Console.WriteLine("again " + Take(objects[0]));
            }
            Console.Error.WriteLine(string.Format(System.Globalization.CultureInfo.InvariantCulture,
                "classes: {0} in {1:F1} ms; collections: {2}, longest {3:F3} ms, median {4:F3} ms",
                count, took, pauses.Count, pauses.Count > 0 ? pauses[pauses.Count - 1] : 0,
                pauses.Count > 0 ? pauses[pauses.Count / 2] : 0));
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Take(object o) => o.GetType().GetGenericArguments().Length;
    }
}
