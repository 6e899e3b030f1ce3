// What the C# example passes are tried on: methods marked [Time] (MethodTimer), synchronous and
// async, called once or twice, on eight threads while collections run; a method left by an
// exception; one not marked. Public methods given null for parameters that may or may not be
// null (NullGuard). A library's async method awaiting twice under a SynchronizationContext
// (ConfigureAwait). With `loop STOP`, a program to attach to.
using System.Diagnostics.CodeAnalysis;

namespace Sample;

/// <summary>Public methods with reference parameters, for NullGuard.</summary>
public static class Guarded
{
    public static int Length(string text) => text.Length;
    public static int MaybeLength(string? text) => text?.Length ?? -1;
    public static string Join(string a, object b, int n) => a + b.ToString() + n;
    public static string Allowed([AllowNull] string text) => text ?? "none";
    public static int Count<T>(IEnumerable<T> items) => items.Count();

    public sealed class Box(string value)
    {
        public string Value { get; } = value;
    }
}

[AttributeUsage(AttributeTargets.Method)]
sealed class TimeAttribute : Attribute;

/// <summary>A context that counts what is posted to it and runs it on the thread pool, as
/// itself.</summary>
sealed class CountingContext : SynchronizationContext
{
    public int Posts;

    public override void Post(SendOrPostCallback callback, object? state)
    {
        Interlocked.Increment(ref Posts);
        ThreadPool.QueueUserWorkItem(_ =>
        {
            SetSynchronizationContext(this);
            callback(state);
        });
    }
}

/// <summary>A library's async method, for ConfigureAwait.</summary>
public static class Library
{
    public static async Task<bool> TwoAwaitsAsync(SynchronizationContext expected)
    {
        await Task.Delay(10);
        bool first = SynchronizationContext.Current == expected;
        await Task.Delay(10);
        return first && SynchronizationContext.Current == expected;
    }
}

static class Program
{
    static int Main(string[] args)
    {
        if (args.Length == 2 && args[0] == "loop")
            return Loop(args[1]);
        Console.WriteLine("fib " + Fib(25));
        Console.WriteLine("sum " + SumAsync(3).GetAwaiter().GetResult());
        Sleep(20);
        Sleep(30);
        try
        {
            Throws();
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine("caught " + e.Message);
        }
        Console.WriteLine("untimed " + Untimed());
        // NullGuard: what each public method does with null.
        foreach (var (name, call) in new (string, Action)[]
                 {
                     ("Length", () => Guarded.Length(null!)),
                     ("MaybeLength", () => Console.WriteLine("maybe " + Guarded.MaybeLength(null))),
                     ("Join", () => Guarded.Join("a", null!, 1)),
                     ("Allowed", () => Console.WriteLine("allowed " + Guarded.Allowed(null!))),
                     ("Box", () => _ = new Guarded.Box(null!)),
                     ("Count", () => Guarded.Count<string>(null!)),
                 })
        {
            try
            {
                call();
                Console.WriteLine(name + " returned");
            }
            catch (ArgumentNullException e)
            {
                Console.WriteLine(name + ": ArgumentNullException " + e.ParamName);
            }
            catch (Exception e)
            {
                Console.WriteLine(name + ": " + e.GetType().Name);
            }
        }
        // ConfigureAwait: where a library's awaits come back.
        var context = new CountingContext();
        SynchronizationContext.SetSynchronizationContext(context);
        bool onContext = Library.TwoAwaitsAsync(context).GetAwaiter().GetResult();
        SynchronizationContext.SetSynchronizationContext(null);
        Console.WriteLine("context posts " + context.Posts + ", continuations on the context " + onContext);
        // Threads compiling and running timed methods while collections come and go (at run
        // time, the plugin weaves on the threads that compile).
        long total = 0;
        Parallel.For(0, 8, i => Interlocked.Add(ref total, Allocate(i)));
        Console.WriteLine("allocated " + total);
        return 0;
    }

    /// <summary>For `weft attach`: a tick every 50 ms (a timed method's result) while two threads
    /// allocate and collect, until the file <paramref name="stop"/> exists (at most a minute).</summary>
    static int Loop(string stop)
    {
        bool done = false;
        var workers = Enumerable.Range(0, 2).Select(i => new Thread(() =>
        {
            while (!Volatile.Read(ref done))
                Allocate(i);
        })).ToList();
        workers.ForEach(t => t.Start());
        for (int n = 0; n < 1200 && !File.Exists(stop); ++n)
        {
            Console.WriteLine("tick " + Fib(n % 40));
            Thread.Sleep(50);
        }
        Volatile.Write(ref done, true);
        workers.ForEach(t => t.Join());
        Console.WriteLine("done");
        return 0;
    }

    [Time]
    static long Allocate(int seed)
    {
        long sum = 0;
        for (int round = 0; round < 50; ++round)
        {
            byte[] block = new byte[64 * 1024 + seed];
            sum += block.Length;
            if (round % 10 == 0)
                GC.Collect();
        }
        return sum;
    }

    [Time]
    static long Fib(int n)
    {
        long a = 0, b = 1;
        for (int i = 0; i < n; ++i)
            (a, b) = (b, a + b);
        return a;
    }

    [Time]
    static async Task<int> SumAsync(int n)
    {
        int sum = 0;
        for (int i = 1; i <= n; ++i)
        {
            await Task.Delay(5);
            sum += i;
        }
        return sum;
    }

    [Time]
    static void Sleep(int milliseconds) => Thread.Sleep(milliseconds);

    [Time]
    static void Throws() => throw new InvalidOperationException("on purpose");

    static int Untimed() => 42;
}
