// Generic methods taking and returning lambdas: their caches are fields of generic classes.

namespace Weft.BranchPatterns;

public static class GenericMethods
{
    public static List<TOut> Convert<TIn, TOut>(IEnumerable<TIn> xs, Func<TIn, TOut> f, Func<TIn, bool> keep = null)
    {
        var list = new List<TOut>();
        foreach (TIn x in xs)
            if (keep == null || keep(x))
                list.Add(f(x));
        return list;
    }

    public static int CountDefaults<T>(IEnumerable<T> xs) => xs.Count(static x => EqualityComparer<T>.Default.Equals(x, default));

    public static T Largest<T>(IEnumerable<T> xs) where T : IComparable<T>
    {
        T best = default;
        bool any = false;
        foreach (T x in xs)
        {
            if (!any || x.CompareTo(best) > 0)
                best = x;
            any = true;
        }
        return best;
    }

    public static Func<T, string> Namer<T>() => static x => x?.ToString() ?? "null";

    public static int Run()
    {
        int r = 0;
        r += Convert(new[] { 1, 2, 3 }, static x => x * 2).Sum();
        r += Convert(new[] { 1, 2, 3 }, static x => x.ToString(), static x => x > 1).Count;
        r += Convert(new[] { "a", null }, Namer<string>()).Count;
        r += CountDefaults(new[] { 0, 1, 0 }) + CountDefaults(new[] { "a", null });
        r += Largest(new[] { 3, 9, 2 }) + Largest(new[] { "b", "a" }).Length + Largest(Array.Empty<int>());
        return r;
    }
}
