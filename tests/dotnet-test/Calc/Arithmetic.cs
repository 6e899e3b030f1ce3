namespace Calc;

public static class Arithmetic
{
    public static int Abs(int x)
    {
        if (x < 0)
            return -x;
        return x;
    }

    public static string Sign(int x) => x switch
    {
        < 0 => "negative",
        0 => "zero",
        _ => "positive",
    };

    public static int Sum(IEnumerable<int> values, Func<int, bool>? keep = null)
    {
        int total = 0;
        foreach (int v in values)
            if (keep?.Invoke(v) ?? true)
                total += v;
        return total;
    }

    public static int Never(int x) => x * 3;
}
