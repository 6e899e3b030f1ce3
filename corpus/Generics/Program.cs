// Generics: constraints, reference/value instantiations, generic virtual methods,
// generic interface methods, static abstract interface members, default interface methods.
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text;

namespace Weft.Corpus.Generics;

public interface IShape
{
    string Name { get; }
    int Area();
    // Default interface method.
    string Describe() => $"{Name} with area {Area()}";
    // Default interface method that other defaults build on.
    int DoubleArea() => Area() * 2;
}

public abstract class ShapeBase : IShape
{
    public abstract string Name { get; }
    public abstract int Area();
}

public sealed class Rect : ShapeBase
{
    public int W, H;
    public Rect() { W = 1; H = 1; }
    public Rect(int w, int h) { W = w; H = h; }
    public override string Name => "Rect";
    public override int Area() => W * H;
}

public sealed class Square : ShapeBase, IShape
{
    public int S = 3;
    public override string Name => "Square";
    public override int Area() => S * S;
    // Re-implements the default method.
    string IShape.Describe() => $"Square[{S}] area={Area()}";
}

public struct Point : IShape, IEquatable<Point>
{
    public int X, Y;
    public Point(int x, int y) { X = x; Y = y; }
    public string Name => "Point";
    public int Area() => 0;
    public bool Equals(Point other) => X == other.X && Y == other.Y;
    public override string ToString() => $"({X},{Y})";
}

// Static abstract interface members (generic math style, own interface).
public interface IMonoid<TSelf> where TSelf : IMonoid<TSelf>
{
    static abstract TSelf Zero { get; }
    static abstract TSelf Combine(TSelf a, TSelf b);
    static virtual string Label => "monoid";
}

public readonly struct SumInt : IMonoid<SumInt>
{
    public readonly int Value;
    public SumInt(int v) { Value = v; }
    public static SumInt Zero => new SumInt(0);
    public static SumInt Combine(SumInt a, SumInt b) => new SumInt(a.Value + b.Value);
    public override string ToString() => "Sum(" + Value + ")";
}

public sealed class Concat : IMonoid<Concat>
{
    public readonly string Text;
    public Concat(string t) { Text = t; }
    public static Concat Zero => new Concat("");
    public static Concat Combine(Concat a, Concat b) => new Concat(a.Text + b.Text);
    static string IMonoid<Concat>.Label => "concat";
    public override string ToString() => "Concat(\"" + Text + "\")";
}

public static class Monoids
{
    public static T Fold<T>(IEnumerable<T> items) where T : IMonoid<T>
    {
        T acc = T.Zero;
        foreach (var it in items) acc = T.Combine(acc, it);
        return acc;
    }
    public static string LabelOf<T>() where T : IMonoid<T> => T.Label;

    // BCL generic math with INumber<T>.
    public static T SumSquares<T>(ReadOnlySpan<T> values) where T : INumber<T>
    {
        T acc = T.Zero;
        foreach (var v in values) acc += v * v;
        return acc;
    }
}

// Constraints of every kind.
public static class Constrained
{
    public static T MakeClass<T>() where T : class, new() => new T();
    public static T MakeStruct<T>() where T : struct => default;
    public static int AreaOf<T>(T shape) where T : IShape => shape.Area();
    public static string NameOfBase<T>(T shape) where T : ShapeBase => shape.Name + "/" + shape.GetType().Name;
    public static unsafe int SizeOf<T>() where T : unmanaged => sizeof(T);
    public static unsafe long SumBytes<T>(T value) where T : unmanaged
    {
        byte* p = (byte*)&value;
        long s = 0;
        for (int i = 0; i < sizeof(T); i++) s += p[i];
        return s;
    }
    public static bool IsNull<T>(T value) => value is null;
    public static string Pair<TKey, TValue>(TKey k, TValue v) where TKey : notnull => k.ToString() + "=" + (v?.ToString() ?? "null");
    public static T Max<T>(T a, T b) where T : IComparable<T> => a.CompareTo(b) >= 0 ? a : b;
    public static bool Eq<T>(T a, T b) where T : IEquatable<T> => a.Equals(b);
    // Calling an interface method on an array element of type T: the compiler emits
    // `readonly. ldelema !!T` followed by `constrained. !!T callvirt`.
    public static int CountAbove<T>(T[] items, T pivot) where T : IComparable<T>
    {
        int n = 0;
        for (int i = 0; i < items.Length; i++)
            if (items[i].CompareTo(pivot) > 0) n++;
        return n;
    }
}

// Generic virtual methods, overridden in derived generic classes.
public class Visitor
{
    public virtual string Visit<T>(T value) => "Visitor.Visit<" + typeof(T).Name + ">(" + value + ")";
    public virtual int Count<T>(IEnumerable<T> items) { int n = 0; foreach (var _ in items) n++; return n; }
}

public class TaggedVisitor<TTag> : Visitor
{
    private readonly TTag _tag;
    public TaggedVisitor(TTag tag) { _tag = tag; }
    public override string Visit<T>(T value) => "Tagged[" + _tag + "].Visit<" + typeof(T).Name + ">(" + value + ") / " + base.Visit(value);
    public override int Count<T>(IEnumerable<T> items) => base.Count(items) * 10;
}

public sealed class DeepVisitor<TTag, TOther> : TaggedVisitor<TTag>
{
    public DeepVisitor(TTag tag) : base(tag) { }
    public override string Visit<T>(T value) => "Deep<" + typeof(TOther).Name + ">:" + base.Visit(value);
}

// Generic interface with a generic method.
public interface IConverter<TIn>
{
    TOut Convert<TOut>(TIn input, Func<TIn, TOut> f);
    string Show<TExtra>(TIn input, TExtra extra);
}

public sealed class LoggingConverter<TIn> : IConverter<TIn>
{
    public readonly List<string> Log = new List<string>();
    public TOut Convert<TOut>(TIn input, Func<TIn, TOut> f)
    {
        var r = f(input);
        Log.Add(typeof(TIn).Name + "->" + typeof(TOut).Name + ":" + r);
        return r;
    }
    public string Show<TExtra>(TIn input, TExtra extra) => input + "+" + extra + "<" + typeof(TExtra).Name + ">";
}

public struct StructConverter : IConverter<int>
{
    public int Calls;
    public TOut Convert<TOut>(int input, Func<int, TOut> f) { Calls++; return f(input * 2); }
    public string Show<TExtra>(int input, TExtra extra) => "S" + input + ":" + extra;
}

// Generic containers.
public sealed class Stack2<T>
{
    private T[] _items = new T[2];
    private int _count;
    public int Count => _count;
    public void Push(T item)
    {
        if (_count == _items.Length) Array.Resize(ref _items, _items.Length * 2);
        _items[_count++] = item;
    }
    public T Pop() => _items[--_count];
    public T Peek() => _items[_count - 1];
    public TResult Aggregate<TResult>(TResult seed, Func<TResult, T, TResult> f)
    {
        var acc = seed;
        for (int i = 0; i < _count; i++) acc = f(acc, _items[i]);
        return acc;
    }
}

public class Node<T> where T : IComparable<T>
{
    public T Value;
    public Node<T> Left, Right;
    public Node(T v) { Value = v; }
    public void Insert(T v)
    {
        if (v.CompareTo(Value) < 0) { if (Left == null) Left = new Node<T>(v); else Left.Insert(v); }
        else { if (Right == null) Right = new Node<T>(v); else Right.Insert(v); }
    }
    public void InOrder(List<T> into)
    {
        Left?.InOrder(into);
        into.Add(Value);
        Right?.InOrder(into);
    }
}

// Static fields per instantiation.
public static class PerType<T>
{
    public static int Hits;
    public static readonly string Name = typeof(T).Name;
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static string CallVisit<T>(Visitor v, T value) => v.Visit(value);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string Generic3<A, B, C>(A a, B b, C c) => $"{typeof(A).Name},{typeof(B).Name},{typeof(C).Name}:{a}|{b}|{c}";

    static string ViaInterface<TConv>(ref TConv conv, int x) where TConv : IConverter<int>
        => conv.Convert(x, i => "v" + i) + "/" + conv.Show(x, 'c');

    public static void Main()
    {
        Console.WriteLine("== constraints ==");
        var r = Constrained.MakeClass<Rect>();
        Console.WriteLine("MakeClass<Rect>: " + r.W + "x" + r.H + " area " + r.Area());
        var p = Constrained.MakeStruct<Point>();
        Console.WriteLine("MakeStruct<Point>: " + p);
        Console.WriteLine("AreaOf<Rect>: " + Constrained.AreaOf(new Rect(4, 5)));
        Console.WriteLine("AreaOf<Point>: " + Constrained.AreaOf(new Point(1, 2)));
        Console.WriteLine("AreaOf<IShape>: " + Constrained.AreaOf<IShape>(new Square()));
        Console.WriteLine("NameOfBase<Square>: " + Constrained.NameOfBase(new Square()));
        Console.WriteLine("SizeOf<int>: " + Constrained.SizeOf<int>());
        Console.WriteLine("SizeOf<long>: " + Constrained.SizeOf<long>());
        Console.WriteLine("SizeOf<Point>: " + Constrained.SizeOf<Point>());
        Console.WriteLine("SizeOf<decimal>: " + Constrained.SizeOf<decimal>());
        Console.WriteLine("SumBytes<int>(0x01020304): " + Constrained.SumBytes(0x01020304));
        Console.WriteLine("SumBytes<Point>(7,9): " + Constrained.SumBytes(new Point(7, 9)));
        Console.WriteLine("IsNull<string>(null): " + Constrained.IsNull<string>(null));
        Console.WriteLine("IsNull<int?>(null): " + Constrained.IsNull<int?>(null));
        Console.WriteLine("IsNull<int>(0): " + Constrained.IsNull(0));
        Console.WriteLine("Pair: " + Constrained.Pair("k", (string)null) + " " + Constrained.Pair(3, 4.5));
        Console.WriteLine("Max<int>: " + Constrained.Max(17, 42) + " Max<string>: " + Constrained.Max("pear", "apple"));
        Console.WriteLine("CountAbove<int>: " + Constrained.CountAbove(new[] { 5, 1, 9, 7, 3 }, 4) + " CountAbove<string>: " + Constrained.CountAbove(new[] { "kiwi", "apple", "plum" }, "banana"));
        Console.WriteLine("Eq<Point>: " + Constrained.Eq(new Point(1, 2), new Point(1, 2)) + " " + Constrained.Eq(new Point(1, 2), new Point(2, 1)));

        Console.WriteLine("== default interface methods ==");
        IShape[] shapes = { new Rect(2, 3), new Square(), new Point(5, 5) };
        foreach (var s in shapes) Console.WriteLine(s.Describe() + " ; double=" + s.DoubleArea());

        Console.WriteLine("== static abstract members ==");
        var sums = new[] { new SumInt(3), new SumInt(4), new SumInt(35) };
        Console.WriteLine("Fold<SumInt>: " + Monoids.Fold(sums) + " label=" + Monoids.LabelOf<SumInt>());
        var cats = new[] { new Concat("we"), new Concat("ft"), new Concat("!") };
        Console.WriteLine("Fold<Concat>: " + Monoids.Fold(cats) + " label=" + Monoids.LabelOf<Concat>());
        Console.WriteLine("SumSquares<int>: " + Monoids.SumSquares<int>(new[] { 1, 2, 3, 4 }));
        Console.WriteLine("SumSquares<long>: " + Monoids.SumSquares<long>(new[] { 100000L, 200000L }));
        Console.WriteLine("SumSquares<double>: " + Monoids.SumSquares<double>(new[] { 0.5, 1.5 }));
        Console.WriteLine("SumSquares<decimal>: " + Monoids.SumSquares<decimal>(new[] { 1.1m, 2.2m }));

        Console.WriteLine("== generic virtual methods ==");
        Visitor v0 = new Visitor();
        Visitor v1 = new TaggedVisitor<string>("t");
        Visitor v2 = new DeepVisitor<int, Point>(7);
        foreach (var v in new[] { v0, v1, v2 })
        {
            Console.WriteLine(CallVisit(v, 42));
            Console.WriteLine(CallVisit(v, "str"));
            Console.WriteLine(CallVisit(v, new Point(1, 1)));
            Console.WriteLine("Count: " + v.Count(new[] { 1, 2, 3 }) + " " + v.Count(new List<string> { "a", "b" }));
        }

        Console.WriteLine("== generic interface methods ==");
        var lc = new LoggingConverter<int>();
        IConverter<int> ic = lc;
        Console.WriteLine(ic.Convert(21, x => x * 2));
        Console.WriteLine(ic.Convert(5, x => "five:" + x));
        Console.WriteLine(ic.Convert(3, x => new Point(x, -x)));
        Console.WriteLine(ic.Show(9, 2.5));
        Console.WriteLine(string.Join(" | ", lc.Log));
        var sc = new StructConverter();
        Console.WriteLine(ViaInterface(ref sc, 10) + " calls=" + sc.Calls);
        Console.WriteLine(ViaInterface(ref sc, 11) + " calls=" + sc.Calls);
        IConverter<string> sconv = new LoggingConverter<string>();
        Console.WriteLine(sconv.Convert("abc", s => s.Length) + " " + sconv.Show("x", new Rect(2, 2).Area()));

        Console.WriteLine("== generic containers ==");
        var st = new Stack2<string>();
        foreach (var w in "the quick brown fox jumps".Split(' ')) st.Push(w);
        Console.WriteLine("count=" + st.Count + " peek=" + st.Peek() + " agg=" + st.Aggregate(0, (a, s) => a + s.Length));
        Console.WriteLine("pop=" + st.Pop() + " pop=" + st.Pop() + " count=" + st.Count);
        var sp = new Stack2<Point>();
        for (int i = 0; i < 5; i++) sp.Push(new Point(i, i * i));
        Console.WriteLine("points agg=" + sp.Aggregate(new StringBuilder(), (sb, pt) => sb.Append(pt)).ToString());
        var tree = new Node<int>(50);
        foreach (var x in new[] { 30, 70, 20, 40, 60, 80, 35, 65 }) tree.Insert(x);
        var ordered = new List<int>();
        tree.InOrder(ordered);
        Console.WriteLine("tree: " + string.Join(",", ordered));
        var stree = new Node<string>("m");
        foreach (var x in new[] { "c", "x", "a", "e", "z" }) stree.Insert(x);
        var sordered = new List<string>();
        stree.InOrder(sordered);
        Console.WriteLine("stree: " + string.Join(",", sordered));

        Console.WriteLine("== per-instantiation statics ==");
        PerType<int>.Hits += 3;
        PerType<string>.Hits += 5;
        PerType<int>.Hits += 1;
        PerType<List<int>>.Hits = 9;
        Console.WriteLine(PerType<int>.Name + "=" + PerType<int>.Hits + " " + PerType<string>.Name + "=" + PerType<string>.Hits + " " + PerType<List<int>>.Name + "=" + PerType<List<int>>.Hits);
        Console.WriteLine(Generic3(1, "two", 3.0));
        Console.WriteLine(Generic3(new Point(1, 2), (object)null, 'z'));
        Console.WriteLine(typeof(Dictionary<,>).MakeGenericType(typeof(int), typeof(Point)).Name);
        var dict = new Dictionary<string, List<Point>>();
        dict["a"] = new List<Point> { new Point(1, 2) };
        dict["b"] = new List<Point> { new Point(3, 4), new Point(5, 6) };
        foreach (var key in dict.Keys.OrderBy(k => k, StringComparer.Ordinal)) Console.WriteLine(key + ": " + string.Join(";", dict[key]));
        Console.WriteLine("done");
    }
}
