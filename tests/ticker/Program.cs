// Calls Tick(n) every 20 ms, printing "tick n = value", until the file named by its argument
// exists; then prints "done". Its output is the same whether or not a profiler is attached.
using System.Runtime.CompilerServices;

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Tick(int n) => n * n % 97;

    static int Main(string[] args)
    {
        string stop = args[0];
        for (int n = 0; !File.Exists(stop) && n < 3000; n++)
        {
            Console.WriteLine($"tick {n} = {Tick(n)}");
            Console.Out.Flush();
            Thread.Sleep(20);
        }
        Console.WriteLine("done");
        return 0;
    }
}
