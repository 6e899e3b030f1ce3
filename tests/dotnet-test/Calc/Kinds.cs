namespace Calc;

/// Comparisons of strings the compiler lowers to chains of String.op_Equality.
public static class Kinds
{
    public static int Rank<T>() => typeof(T).Name switch
    {
        nameof(Int32) => 1,
        nameof(Int64) => 2,
        _ => 0,
    };

    public static bool IsUnit(string s) => s is "one" or "unit";
}

/// A lambda in a generic class: its delegate's cache is a field of a generic class.
public sealed class Bag<T>
{
    private readonly List<KeyValuePair<string, T>> items = new();

    public void Add(string key, T value) => items.Add(new(key, value));

    public IEnumerable<string> Keys => items.Select(x => x.Key);
}
