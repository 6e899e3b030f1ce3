using System.CodeDom.Compiler;

namespace Calc;

/// A property whose lambda captures `this`: the compiler puts the lambda in Tally itself, marked
/// CompilerGenerated, on the property's line.
public sealed class Tally
{
    private readonly List<int> values = new();

    public int Offset { get; set; }

    public void Add(int v) => values.Add(v);

    public IEnumerable<int> Shifted => values.Select(v => v + Offset);
}

/// Auto-properties given their values from a primary constructor: the constructor's statements
/// are on the properties' lines.
public sealed class Span(int low, int high)
{
    public int Low { get; } = low;

    public int High { get; } = high;

    public int Length => High - Low;
}

/// Code a generator wrote, as a designer or resource file is.
[GeneratedCode("calc-gen", "1.0")]
public static class Generated
{
    public static int Twice(int x) => x * 2;
}
