// SpanBench MODE CALLS: MODE "quiet" (nobody listens) times Hot.Work; "listen" (a listener
// records every span, as an SDK with AddSource would) times Hot.Work, Hot.ByHand and
// Hot.ByHandAttributes. Prints
// "NAME ns" lines, the best of five rounds of CALLS calls each.
using System.Diagnostics;
using System.Runtime.CompilerServices;

public static class Hot
{
    public static readonly ActivitySource Source = new ActivitySource("Weft");

    // What the script weaves with `span` (a spec naming Hot.Work): a small method of real work.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Work(int x)
    {
        int s = x;
        for (int i = 0; i < 32; i++)
            s = s * 31 + (s >> 7) + i;
        return s;
    }

    // The same span with the attributes the pass sets (code.function.name, code.file.path,
    // code.line.number), written by hand.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ByHandAttributes(int x)
    {
        using Activity a = Source.StartActivity("Hot.ByHandAttributes");
        if (a != null)
        {
            a.SetTag("code.function.name", "Hot.ByHandAttributes");
            a.SetTag("code.file.path", "/src/bench/span/Program.cs");
            a.SetTag("code.line.number", 40);
        }
        int s = x;
        for (int i = 0; i < 32; i++)
            s = s * 31 + (s >> 7) + i;
        return s;
    }

    // The same work in a span written by hand: the floor a woven span is held to.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ByHand(int x)
    {
        using Activity a = Source.StartActivity("Hot.ByHand");
        int s = x;
        for (int i = 0; i < 32; i++)
            s = s * 31 + (s >> 7) + i;
        return s;
    }
}

public static class Program
{
    static double Time(Func<int, int> f, int calls)
    {
        double best = double.MaxValue;
        for (int round = 0; round < 5; round++)
        {
            var sw = Stopwatch.StartNew();
            int acc = 0;
            for (int i = 0; i < calls; i++)
                acc += f(i);
            best = Math.Min(best, sw.Elapsed.TotalNanoseconds / calls);
            if (acc == 42) Console.Write("");
        }
        return best;
    }

    public static int Main(string[] args)
    {
        int calls = int.Parse(args[1]);
        long stopped = 0;
        if (args[0] == "listen")
            ActivitySource.AddActivityListener(new ActivityListener
            {
                ShouldListenTo = s => s.Name == "Weft",
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = _ => stopped++,
            });
        Console.WriteLine($"Work {Time(Hot.Work, calls):F1}");
        if (args[0] == "listen")
        {
            Console.WriteLine($"ByHand {Time(Hot.ByHand, calls):F1}");
            Console.WriteLine($"ByHandAttributes {Time(Hot.ByHandAttributes, calls):F1}");
        }
        return 0;
    }
}
