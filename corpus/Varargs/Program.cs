// __arglist varargs methods read with ArgIterator: static and instance methods,
// fixed parameters before the variable part, arguments of many types (read through
// TypedReference), empty argument lists, by-ref arguments, and forwarding.
// Compared with `params`, which is ordinary array passing.
//
// CoreCLR implements the vararg calling convention only on Windows: on Linux the JIT
// refuses any method that contains a vararg call site (InvalidProgramException,
// "Vararg calling convention not supported."). The vararg IL (arglist, vararg call
// sites with a sentinel, ArgIterator) is still in the assembly for the toolchain to
// read and rewrite; at run time each scenario reports that refusal, and the `params`
// scenario runs normally. expected.txt is the Linux output.
using System.Runtime.CompilerServices;
using System.Text;

namespace Weft.Corpus.Varargs;

public sealed class Formatter
{
    private readonly string _separator;
    public int Calls;
    public Formatter(string separator) { _separator = separator; }

    // Instance varargs method.
    public string Join(string head, __arglist)
    {
        Calls++;
        var it = new ArgIterator(__arglist);
        var sb = new StringBuilder(head);
        while (it.GetRemainingCount() > 0)
        {
            TypedReference tr = it.GetNextArg();
            sb.Append(_separator).Append(Program.Render(tr));
        }
        return sb.ToString();
    }
}

public static class Program
{
    public static string Render(TypedReference tr)
    {
        Type t = __reftype(tr);
        if (t == typeof(int)) return "i:" + __refvalue(tr, int);
        if (t == typeof(long)) return "l:" + __refvalue(tr, long);
        if (t == typeof(short)) return "s:" + __refvalue(tr, short);
        if (t == typeof(byte)) return "b:" + __refvalue(tr, byte);
        if (t == typeof(bool)) return "z:" + __refvalue(tr, bool);
        if (t == typeof(char)) return "c:" + __refvalue(tr, char);
        if (t == typeof(double)) return "d:" + __refvalue(tr, double);
        if (t == typeof(float)) return "f:" + __refvalue(tr, float);
        if (t == typeof(decimal)) return "m:" + __refvalue(tr, decimal);
        if (t == typeof(string)) return "str:" + (__refvalue(tr, string) ?? "null");
        if (t == typeof(DateTime)) return "date:" + __refvalue(tr, DateTime).ToString("yyyy-MM-dd");
        if (t == typeof(int[])) return "arr:" + string.Join("|", __refvalue(tr, int[]));
        if (t == typeof(object)) return "obj:" + (__refvalue(tr, object) ?? "null");
        return "other:" + t.Name + "=" + TypedReference.ToObject(tr);
    }

    static int Count(__arglist)
    {
        return new ArgIterator(__arglist).GetRemainingCount();
    }

    static long SumInts(int first, __arglist)
    {
        long total = first;
        var it = new ArgIterator(__arglist);
        while (it.GetRemainingCount() > 0)
        {
            TypedReference tr = it.GetNextArg();
            Type t = __reftype(tr);
            if (t == typeof(int)) total += __refvalue(tr, int);
            else if (t == typeof(long)) total += __refvalue(tr, long);
            else if (t == typeof(short)) total += __refvalue(tr, short);
            else if (t == typeof(byte)) total += __refvalue(tr, byte);
            else throw new ArgumentException("unsupported " + t.Name);
        }
        return total;
    }

    static string Describe(string label, __arglist)
    {
        var it = new ArgIterator(__arglist);
        var parts = new List<string>();
        int n = it.GetRemainingCount();
        for (int i = 0; i < n; i++) parts.Add(Render(it.GetNextArg()));
        return label + "(" + n + ")[" + string.Join(", ", parts) + "]";
    }

    // Writes through by-ref arguments passed in the variable part.
    static void IncrementAll(int by, __arglist)
    {
        var it = new ArgIterator(__arglist);
        while (it.GetRemainingCount() > 0)
        {
            TypedReference tr = it.GetNextArg();
            if (__reftype(tr) == typeof(int)) __refvalue(tr, int) += by;
        }
    }

    // Reads argument types without consuming values via GetNextArgType.
    static string Signature(__arglist)
    {
        var it = new ArgIterator(__arglist);
        var names = new List<string>();
        while (it.GetRemainingCount() > 0)
        {
            names.Add(Type.GetTypeFromHandle(it.GetNextArgType()).Name);
            it.GetNextArg();
        }
        return string.Join(",", names);
    }

    static string Params(string label, params object[] args) =>
        label + "{" + string.Join(",", args.Select(a => a?.ToString() ?? "null")) + "}";

    // Each scenario lives in its own method: on this platform the JIT rejects a method
    // as soon as it contains a vararg call site, so a failure is confined to the
    // scenario and reported by Run.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Counts()
    {
        Console.WriteLine("Count()=" + Count(__arglist()));
        Console.WriteLine("Count(1)=" + Count(__arglist(1)));
        Console.WriteLine("Count(1,\"a\",2.5)=" + Count(__arglist(1, "a", 2.5)));
        Console.WriteLine("Count(8 args)=" + Count(__arglist(1, 2, 3, 4, 5, 6, 7, 8)));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Sums()
    {
        Console.WriteLine("SumInts(1)=" + SumInts(1, __arglist()));
        Console.WriteLine("SumInts(1,2,3)=" + SumInts(1, __arglist(2, 3)));
        Console.WriteLine("SumInts(mixed)=" + SumInts(10, __arglist(20L, (short)-5, (byte)255, 1_000_000_000, 3_000_000_000L)));
        try { SumInts(0, __arglist("oops")); }
        catch (ArgumentException e) { Console.WriteLine("rejected: " + e.Message); }
        long big = 0;
        for (int i = 0; i < 100; i++) big += SumInts(i, __arglist(i * 2, (long)i * i));
        Console.WriteLine("loop total=" + big);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ManyTypes()
    {
        Console.WriteLine(Describe("empty", __arglist()));
        Console.WriteLine(Describe("ints", __arglist(1, 2L, (short)3, (byte)4)));
        Console.WriteLine(Describe("floats", __arglist(1.5, 2.25f, 3.125m)));
        Console.WriteLine(Describe("misc", __arglist(true, 'x', "text", (string)null, new DateTime(2024, 2, 29))));
        Console.WriteLine(Describe("refs", __arglist(new[] { 7, 8, 9 }, (object)"boxed-string", (object)null)));
        Console.WriteLine(Describe("structs", __arglist(new KeyValuePair<string, int>("k", 1), Guid.Empty, TimeSpan.FromMinutes(90))));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ByRef()
    {
        int a = 1, b = 10, c = 100;
        IncrementAll(5, __arglist(ref a, ref b, ref c));
        Console.WriteLine($"a={a} b={b} c={c}");
        IncrementAll(-1, __arglist(ref b));
        Console.WriteLine($"b={b}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Signatures()
    {
        Console.WriteLine(Signature(__arglist(1, "s", 2.0, 'c', 3L, new object())));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Instance()
    {
        var f = new Formatter(" | ");
        Console.WriteLine(f.Join("head", __arglist()));
        Console.WriteLine(f.Join("head", __arglist(1)));
        Console.WriteLine(f.Join("head", __arglist(1, "two", 3.0)));
        Console.WriteLine("calls=" + f.Calls);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ParamsComparison()
    {
        Console.WriteLine(Params("p"));
        Console.WriteLine(Params("p", 1, "two", null, 4.5));
        Console.WriteLine(Params("p", new object[] { "array", "passed" }));
    }

    // The rendering helper used by the vararg methods also runs here, fed with
    // TypedReferences made by __makeref instead of ArgIterator.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RenderDirect()
    {
        int i = 42; long l = -7L; short sh = 300; byte by = 200; bool z = true; char ch = 'q';
        double d = 0.125; float f = 1.75f; decimal m = 19.99m; string s = "hi"; string ns = null;
        DateTime date = new DateTime(2000, 1, 2); int[] arr = { 3, 1, 2 }; object o = 5; TimeSpan ts = TimeSpan.FromSeconds(75);
        var parts = new List<string>
        {
            Render(__makeref(i)), Render(__makeref(l)), Render(__makeref(sh)), Render(__makeref(by)),
            Render(__makeref(z)), Render(__makeref(ch)), Render(__makeref(d)), Render(__makeref(f)),
            Render(__makeref(m)), Render(__makeref(s)), Render(__makeref(ns)), Render(__makeref(date)),
            Render(__makeref(arr)), Render(__makeref(o)), Render(__makeref(ts)),
        };
        foreach (var part in parts) Console.WriteLine("  " + part);
    }

    static void Run(string title, Action scenario)
    {
        Console.WriteLine("== " + title + " ==");
        try
        {
            scenario();
        }
        catch (InvalidProgramException e)
        {
            // CoreCLR supports the vararg calling convention only on Windows.
            Console.WriteLine("not runnable here: " + e.GetType().Name + ": " + e.Message);
        }
    }

    static void Main()
    {
        Run("counts", Counts);
        Run("sums", Sums);
        Run("many types", ManyTypes);
        Run("by-ref", ByRef);
        Run("signatures", Signatures);
        Run("instance", Instance);
        Run("params for comparison", ParamsComparison);
        Run("render via __makeref", RenderDirect);
        Console.WriteLine("done");
    }
}
