// Lambdas and closures: captured locals across nested scopes, captured `this`,
// static lambdas, local functions (static and capturing, recursive, generic),
// closures created in loops (per-iteration and shared captures), expression-bodied
// lambdas with ref-like parameters, method group conversions and currying.
namespace Weft.Corpus.Closures;

public sealed class Counter
{
    private int _count;
    private readonly string _name;
    public Counter(string name) { _name = name; }

    // Lambdas that capture `this`.
    public Action Incrementer(int step) => () => _count += step;
    public Func<string> Reporter() => () => _name + "=" + _count;

    // Lambda capturing both `this` and a local.
    public Func<int, int> Scaler()
    {
        int factor = _count + 1;
        return x => x * factor + _count;
    }

    // Local function capturing `this`.
    public int SumTo(int n)
    {
        return Go(n);
        int Go(int k) => k <= 0 ? _count : k + Go(k - 1);
    }
}

public static class Program
{
    static int s_static = 7;

    static Func<int> MakeCounter()
    {
        int c = 0;
        return () => ++c;
    }

    static (Func<int>, Action<int>) SharedState()
    {
        int value = 10;
        return (() => value, v => value += v);
    }

    static List<Func<string>> NestedScopes()
    {
        var result = new List<Func<string>>();
        int outer = 1;
        for (int i = 0; i < 3; i++)
        {
            int mid = i * 10;
            {
                int inner = i * 100;
                result.Add(() => $"outer={outer} mid={mid} inner={inner}");
            }
            // Modifying after capture is visible to closures.
            mid += 5;
        }
        outer = 2;
        return result;
    }

    static string LoopCaptures()
    {
        var forActions = new List<Func<int>>();
        for (int i = 0; i < 4; i++) forActions.Add(() => i); // one shared i
        var foreachActions = new List<Func<int>>();
        foreach (var x in new[] { 10, 20, 30 }) foreachActions.Add(() => x); // fresh x each iteration
        var copyActions = new List<Func<int>>();
        for (int i = 0; i < 4; i++) { int copy = i; copyActions.Add(() => copy * copy); }
        int w = 0;
        var whileActions = new List<Func<int>>();
        while (w < 3) { int local = w * 7; whileActions.Add(() => local + w); w++; }
        return "for=" + string.Join(",", forActions.Select(f => f()))
            + " foreach=" + string.Join(",", foreachActions.Select(f => f()))
            + " copy=" + string.Join(",", copyActions.Select(f => f()))
            + " while=" + string.Join(",", whileActions.Select(f => f()));
    }

    static int StaticLambdas()
    {
        Func<int, int, int> add = static (a, b) => a + b;
        Func<int, int> twice = static x => x * 2;
        Func<int> readStatic = static () => s_static;
        return add(twice(5), readStatic());
    }

    static string LocalFunctions(int n)
    {
        int calls = 0;
        long Fact(int k) { calls++; return k <= 1 ? 1 : k * Fact(k - 1); }
        static int Gcd(int a, int b) => b == 0 ? a : Gcd(b, a % b);
        T Pick<T>(bool first, T a, T b) { calls++; return first ? a : b; }
        IEnumerable<int> Evens(int max) { for (int i = 0; i <= max; i += 2) yield return i; }
        void Bump(ref int x) => x += n;
        int y = 1;
        Bump(ref y); Bump(ref y);
        return $"fact={Fact(n)} gcd={Gcd(84, 36)} pick={Pick(n > 5, "big", "small")}/{Pick(false, 1.5, 2.5)} evens={string.Join(",", Evens(n))} y={y} calls={calls}";
    }

    static Func<int, Func<int, Func<int, int>>> Curry(Func<int, int, int, int> f) => a => b => c => f(a, b, c);

    static Func<T, T> Compose<T>(params Func<T, T>[] fs)
    {
        return x =>
        {
            foreach (var f in fs) x = f(x);
            return x;
        };
    }

    static Func<int, int> Memoize(Func<Func<int, int>, Func<int, int>> generator, out Func<int> cacheSize)
    {
        var cache = new Dictionary<int, int>();
        Func<int, int> self = null;
        Func<int, int> impl = generator(x => self(x));
        self = x =>
        {
            if (cache.TryGetValue(x, out var v)) return v;
            v = impl(x);
            cache[x] = v;
            return v;
        };
        cacheSize = () => cache.Count;
        return self;
    }

    static string ClosureOverParametersAndOut(int p, string q)
    {
        Func<string> f = () => q + p;
        p++;
        q = q.ToUpperInvariant();
        return f();
    }

    static int Deep(int seed)
    {
        int a = seed;
        Func<Func<Func<int>>> level1 = () =>
        {
            int b = a * 2;
            return () =>
            {
                int c = b + a;
                return () => a + b + c;
            };
        };
        var l2 = level1();
        a = 100; // seen by every level that reads `a` later
        var l3 = l2();
        return l3();
    }

    static event Action<string> Notified;

    public static void Main()
    {
        Console.WriteLine("== counters ==");
        var c1 = MakeCounter();
        var c2 = MakeCounter();
        Console.WriteLine($"c1={c1()},{c1()},{c1()} c2={c2()} c1={c1()}");
        var (get, add) = SharedState();
        add(5); add(-2);
        Console.WriteLine("shared=" + get());

        Console.WriteLine("== nested scopes ==");
        foreach (var f in NestedScopes()) Console.WriteLine(f());

        Console.WriteLine("== loops ==");
        Console.WriteLine(LoopCaptures());

        Console.WriteLine("== this capture ==");
        var counter = new Counter("ctr");
        var inc3 = counter.Incrementer(3);
        var inc10 = counter.Incrementer(10);
        inc3(); inc3(); inc10();
        var report = counter.Reporter();
        Console.WriteLine(report());
        var scale = counter.Scaler();
        inc3();
        Console.WriteLine("scale(2)=" + scale(2) + " " + report());
        Console.WriteLine("SumTo(10)=" + counter.SumTo(10));

        Console.WriteLine("== static lambdas / local functions ==");
        Console.WriteLine("static=" + StaticLambdas());
        Console.WriteLine(LocalFunctions(6));
        Console.WriteLine(LocalFunctions(3));

        Console.WriteLine("== higher order ==");
        var curried = Curry((a, b, c) => a * 100 + b * 10 + c);
        Console.WriteLine("curry=" + curried(1)(2)(3) + " partial=" + curried(9)(8)(0));
        var pipeline = Compose<int>(x => x + 1, x => x * 3, x => x - 4);
        Console.WriteLine("compose(5)=" + pipeline(5) + " compose(0)=" + pipeline(0));
        var spipe = Compose<string>(s => s.Trim(), s => s.Replace(' ', '_'), s => "<" + s + ">");
        Console.WriteLine("compose(str)=" + spipe("  a b c "));
        var fib = Memoize(self => n => n < 2 ? n : self(n - 1) + self(n - 2), out var size);
        Console.WriteLine("memo fib(40)=" + fib(40) + " cache=" + size());
        Console.WriteLine("param capture=" + ClosureOverParametersAndOut(4, "q"));
        Console.WriteLine("deep(3)=" + Deep(3));

        Console.WriteLine("== method groups / events with lambdas ==");
        Func<string, int> parse = int.Parse;
        Func<int, string> hex = i => i.ToString("X");
        Converter<string, string> conv = s => hex(parse(s) * 16);
        Console.WriteLine("conv(255)=" + conv("255"));
        var collected = new List<string>();
        Notified += s => collected.Add("first:" + s);
        int prefixLen = 2;
        Action<string> second = s => collected.Add("second:" + s.Substring(0, prefixLen));
        Notified += second;
        Notified?.Invoke("hello");
        Notified -= second;
        prefixLen = 3;
        Notified?.Invoke("world");
        Console.WriteLine(string.Join(" ", collected));
        var words = new[] { "delta", "alpha", "charlie", "bravo" };
        int comparisons = 0;
        Array.Sort(words, (x, y) => { comparisons++; return string.CompareOrdinal(x, y); });
        Console.WriteLine("sorted=" + string.Join(",", words) + " comparisons>0=" + (comparisons > 0));
        Predicate<int> isOdd = x => (x & 1) == 1;
        Console.WriteLine("odd count=" + Array.FindAll(Enumerable.Range(0, 25).ToArray(), isOdd).Length);
        Console.WriteLine("done");
    }
}
