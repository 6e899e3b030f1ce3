// Lambdas and method groups the compiler caches in static fields: in property initializers of a
// type with two constructors (both run them), passed to calls, through `?.`, as UnsafeRegister
// and Register callbacks, and local functions; Pump<T> has them in a generic class.

namespace Weft.BranchPatterns;

public static class Transforms
{
    public static int Twice(int x) => x * 2;
    public static int Negate(int x) => x < 0 ? x : -x;
}

public class Holder
{
    public Func<int, int> Lambda { get; } = static x => x > 2 ? x : -x;
    public Func<int, int> Group { get; } = Transforms.Twice;
    public Func<int> Plain { get; set; } = static () => 7;
    public static Func<int, int> Shared { get; } = static x => x + 1;
    public readonly int Seed;

    public Holder() { Seed = 1; }
    public Holder(int seed) { Seed = seed; }
}

public class GenericHolder<T>
{
    public Func<T, bool> IsDefault { get; } = static x => x is null || x.Equals(default(T));
    public Func<int, int> Group { get; } = Transforms.Negate;
    public readonly T Value;

    public GenericHolder() { }
    public GenericHolder(T value) { Value = value; }
}

public class Registration
{
    int _fired;
    public int Fired => _fired;

    public void Watch(CancellationToken token, bool unsafeWay)
    {
        if (unsafeWay)
            token.UnsafeRegister(static o => ((Registration)o)._fired++, this);
        else
            token.Register(static o => ((Registration)o)._fired += 10, this);
    }

    public void WatchWithState(CancellationToken token)
    {
        token.UnsafeRegister(static (o, t) => ((Registration)o)._fired += t.CanBeCanceled ? 100 : 1000, this);
    }
}

public static class Delegates
{
    static int Apply(Func<int, int> f, int x) => f(x);
    static IEnumerable<int> Map(IEnumerable<int> xs, Func<int, int> f) => xs.Select(f);

    public static int Calls(int[] xs)
    {
        int sum = 0;
        foreach (int x in xs)
        {
            sum += Apply(static v => v > 3 ? v : 0, x);
            sum += Apply(Transforms.Twice, x);
            sum += Map(xs, Transforms.Negate).Sum();
        }
        return sum;
    }

    public static int Conditional(List<int> list, int limit)
    {
        int n = list?.Count(x => x > limit) ?? -1;
        n += list?.Where(static x => x % 2 == 0).Sum() ?? 0;
        return n;
    }

    public static int LocalFunctions(int[] xs)
    {
        int total = 0;
        foreach (int x in xs)
            total += Clamp(x) + Scale(x) + Pick(x, x > 2);
        return total;

        static int Clamp(int v) => v > 4 ? 4 : v < 0 ? 0 : v;
        int Scale(int v)
        {
            if (v == total)
                return 0;
            return v * 2;
        }
        static T Pick<T>(T a, bool first) where T : struct => first ? a : default;
    }

    public static int Run()
    {
        int r = 0;
        foreach (var h in new[] { new Holder(), new Holder(3), new Holder() })
            r += h.Lambda(h.Seed) + h.Group(h.Seed) + h.Plain() + Holder.Shared(h.Seed);
        var g1 = new GenericHolder<string>();
        var g2 = new GenericHolder<string>("x");
        var g3 = new GenericHolder<int>(4);
        r += (g1.IsDefault(g1.Value) ? 1 : 0) + (g2.IsDefault(g2.Value) ? 1 : 0) + (g3.IsDefault(0) ? 1 : 0);
        r += g1.Group(5) + g3.Group(-2);

        using (var cts = new CancellationTokenSource())
        {
            var reg = new Registration();
            reg.Watch(cts.Token, true);
            reg.Watch(cts.Token, false);
            reg.WatchWithState(cts.Token);
            cts.Cancel();
            r += reg.Fired;
        }
        var idle = new Registration();
        idle.Watch(CancellationToken.None, true);

        r += Calls(new[] { 1, 5 }) + Calls(new[] { 2 });
        r += Conditional(new List<int> { 1, 2, 3, 4 }, 2) + Conditional(null, 1);
        r += LocalFunctions(new[] { 1, 3, 5, -1 });
        return r;
    }
}

// The same in a generic class: its lambdas' and method groups' cache fields belong to a generic
// class, which coverlet does not take for a cache (it counts their null checks as branches), on
// the lines where the lambdas' own branches are.
public sealed class Pump<T>
{
    readonly List<T> _items = new();
    int _signals;
    public Func<T, bool> Accept { get; init; } = static x => x is not null;
    public Func<int, int> Step { get; } = Transforms.Negate;

    public Pump() { }
    public Pump(Func<T, bool> accept) { Accept = accept; }

    public int Signals => _signals;

    public void Push(T item)
    {
        if (Accept(item))
            _items.Add(item);
    }

    public int Count(Func<T, bool> match) => _items?.Count(x => x is not null && match(x)) ?? -1;

    public async Task<int> DrainAsync(CancellationToken token)
    {
        using var registration = token.UnsafeRegister(static o => ((Pump<T>)o)._signals++, this);
        int n = 0;
        foreach (T item in _items)
        {
            await Task.Yield();
            n += item is null ? 0 : 1;
        }
        return n;
    }

    public static int Run()
    {
        var words = new Pump<string>();
        var numbers = new Pump<int>(static x => x > 0);
        foreach (string w in new[] { "a", null, "bc" })
            words.Push(w);
        for (int i = -1; i < 3; i++)
            numbers.Push(i);
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        int r = words.Count(static w => w.Length > 1) + numbers.Count(static x => x > 5);
        r += words.DrainAsync(cts.Token).GetAwaiter().GetResult() + words.Signals;
        r += numbers.DrainAsync(CancellationToken.None).GetAwaiter().GetResult() + numbers.Signals;
        return r * 10 + words.Step(3) + numbers.Step(-3);
    }
}
