// Calls the trace pass's tests count: on each of two threads, Work calls Fib(15) (1973 calls, 15
// deep), Outer (Outer calls Middle 10 times, Middle calls Inner twice) and Nap (30 ms asleep).
// With "many N", Main then calls Tiny N times; with "deep N", Fib(N); with "generic", Echo<int> once, Echo<string> twice,
// and Box<int> and Box<string> (each constructed once and asked Get once); with "waves N M", N
// waves of 4 threads that each call Tiny M times (threads that end while others begin, on the
// stacks the ended ones leave); with "idle N", Tiny N times, then, half a second later, how many
// of those calls the trace file (WEFT_TRACE_FILE) holds already.
using System;
using System.IO;
using System.Threading;

sealed class Box<T>
{
    private readonly T _value;
    public Box(T value) { _value = value; }
    public T Get() => _value;
}

static class Program
{
    static readonly int[] Results = new int[2];

    static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);
    static int Inner(int x) => x * 2;
    static int Middle(int x) => Inner(x) + Inner(x + 1);

    static int Outer(int x)
    {
        int s = 0;
        for (int i = 0; i < 10; i++)
            s += Middle(x + i);
        return s;
    }

    static void Nap() => Thread.Sleep(30);
    static int Tiny(int x) => x + 1;
    static T Echo<T>(T x) => x;

    static void Work(object state)
    {
        int k = (int)state;
        int f = Fib(15);
        int s = Outer(k);
        Nap();
        Results[k] = f + s;
    }

    static int Main(string[] args)
    {
        Thread[] threads = { new Thread(Work), new Thread(Work) };
        for (int i = 0; i < threads.Length; i++)
            threads[i].Start(i);
        foreach (Thread t in threads)
            t.Join();
        Console.WriteLine($"results {Results[0]} {Results[1]}");
        if (args.Length == 2 && args[0] == "many")
        {
            long sum = 0;
            int n = int.Parse(args[1]);
            for (int i = 0; i < n; i++)
                sum += Tiny(i);
            Console.WriteLine($"sum {sum}");
        }
        if (args.Length == 2 && args[0] == "deep")
        {
            int n = int.Parse(args[1]);
            Console.WriteLine($"fib {n} = {Fib(n)}");
        }
        if (args.Length == 3 && args[0] == "waves")
        {
            int waves = int.Parse(args[1]), m = int.Parse(args[2]);
            long[] sums = new long[4];
            for (int w = 0; w < waves; w++)
            {
                Thread[] wave = new Thread[4];
                for (int i = 0; i < wave.Length; i++)
                {
                    int slot = i;
                    wave[i] = new Thread(() => { for (int j = 0; j < m; j++) sums[slot] += Tiny(j); });
                    wave[i].Start();
                }
                foreach (Thread t in wave)
                    t.Join();
            }
            Console.WriteLine($"waves {sums[0] + sums[1] + sums[2] + sums[3]}");
        }
        if (args.Length == 2 && args[0] == "idle")
        {
            long sum = 0;
            int n = int.Parse(args[1]);
            for (int i = 0; i < n; i++)
                sum += Tiny(i);
            Thread.Sleep(500);
            string file = Environment.GetEnvironmentVariable("WEFT_TRACE_FILE") ?? "weft-trace.json";
            string text;
            using (var reader = new StreamReader(new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite)))
                text = reader.ReadToEnd();
            int seen = 0;
            for (int at = text.IndexOf("Program::Tiny\""); at >= 0; at = text.IndexOf("Program::Tiny\"", at + 1))
                seen++;
            Console.WriteLine($"idle {sum} seen {seen}");
        }
        if (args.Length == 1 && args[0] == "generic")
        {
            Console.WriteLine($"{Echo(1)} {Echo("a")} {Echo("b")} {new Box<int>(2).Get()} {new Box<string>("c").Get()}");
        }
        return 0;
    }
}
