// Each 20 ms, calls Tick(n), Describe(...) with arguments of several kinds (which calls
// Paint(color)) and Check(n), which throws for every n ending in 9, and prints "tick n = value
// description check", collecting the garbage every 25 ticks, until the file named by its
// argument exists; then prints "done". Its output is the same whether or not a profiler is
// attached.
using System.Globalization;
using System.Runtime.CompilerServices;

enum Color { Red, Green, Blue }

sealed class Order
{
    public int Id;
    public string Customer;
    public Order(int id, string customer) { Id = id; Customer = customer; }
}

static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Tick(int n) => n * n % 97;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Describe(int n, string label, Color color, double ratio, Order order) =>
        label + "/" + Paint(color) + "/" + ratio.ToString(CultureInfo.InvariantCulture) + "/" + order.Customer;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Paint(Color color) => color.ToString();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Check(int n)
    {
        if (n % 10 == 9)
            throw new InvalidOperationException("nine " + n);
        return n;
    }

    static int Main(string[] args)
    {
        string stop = args[0];
        for (int n = 0; !File.Exists(stop) && n < 3000; n++)
        {
            string description = Describe(n, "L" + n, (Color)(n % 3), n / 4.0, new Order(n, "c" + n));
            string check;
            try { check = Check(n).ToString(CultureInfo.InvariantCulture); }
            catch (InvalidOperationException e) { check = e.Message; }
            Console.WriteLine($"tick {n} = {Tick(n)} {description} {check}");
            if (n % 25 == 24)
                GC.Collect();
            Console.Out.Flush();
            Thread.Sleep(20);
        }
        Console.WriteLine("done");
        return 0;
    }
}
