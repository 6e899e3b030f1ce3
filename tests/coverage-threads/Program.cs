using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

// CoverageThreads CALLS: two rounds of eight threads, started together, each calling Hammer.Step
// CALLS times; the threads of a round have ended before the next starts. Woven with coverage,
// after the first round the program writes its hits through <weft>.Coverage::Flush and moves the
// file to FILE.round1 (FILE: WEFT_COVERAGE_FILE with {assembly} replaced); at exit the hits file
// holds both rounds. Every count must be exact: 8 * CALLS calls of Step a round.
public static class Hammer
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Step(long acc, int i)
    {
        if ((i & 1) == 0)
            acc += i;
        else
            acc ^= i;
        return acc;
    }
}

public static class Program
{
    const int Threads = 8;

    static long Round(int calls)
    {
        long total = 0;
        var start = new Barrier(Threads);
        var threads = new Thread[Threads];
        for (int t = 0; t < Threads; t++)
        {
            threads[t] = new Thread(() =>
            {
                start.SignalAndWait();
                long acc = 0;
                for (int i = 0; i < calls; i++)
                    acc = Hammer.Step(acc, i);
                Interlocked.Add(ref total, acc);
            });
            threads[t].Start();
        }
        foreach (Thread t in threads)
            t.Join();
        return total;
    }

    static int Main(string[] args)
    {
        int calls = args.Length > 0 ? int.Parse(args[0]) : 1000000;
        long first = Round(calls);
        Type coverage = Type.GetType("<weft>.Coverage, CoverageThreads");
        string file = Environment.GetEnvironmentVariable("WEFT_COVERAGE_FILE");
        if (coverage != null && !string.IsNullOrEmpty(file))
        {
            file = file.Replace("{assembly}", "CoverageThreads");
            coverage.GetMethod("Flush").Invoke(null, null);
            File.Move(file, file + ".round1", true);
        }
        long second = Round(calls);
        Console.WriteLine(first == second ? "rounds agree" : "rounds differ");
        return first == second ? 0 : 1;
    }
}
