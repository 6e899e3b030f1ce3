// Records: positional and nominal class records, record structs (mutable and
// readonly), inheritance between records (EqualityContract, virtual PrintMembers),
// `with` expressions (on records, record structs and anonymous types),
// value equality (including collections by reference), deconstruction,
// custom ToString/PrintMembers, record members with validation, generic records,
// and records used as dictionary keys.
using System.Text;

namespace Weft.Corpus.Records;

public record Point(int X, int Y)
{
    public double Length => Math.Sqrt(X * X + Y * Y);
    public Point Translate(int dx, int dy) => this with { X = X + dx, Y = Y + dy };
}

public record Point3(int X, int Y, int Z) : Point(X, Y);

public record Person
{
    public string First { get; init; }
    public string Last { get; init; }
    public int Age
    {
        get => _age;
        init => _age = value >= 0 ? value : throw new ArgumentOutOfRangeException(nameof(Age));
    }
    private readonly int _age;
    public string[] Tags { get; init; } = Array.Empty<string>();
}

public sealed record Employee(string Company) : Person
{
    // Custom PrintMembers: hides Age.
    protected override bool PrintMembers(StringBuilder builder)
    {
        builder.Append("Name = ").Append(First).Append(' ').Append(Last).Append(", Company = ").Append(Company);
        return true;
    }
}

public record struct MutablePoint(int X, int Y)
{
    public void Move(int d) { X += d; Y += d; }
}

public readonly record struct Money(decimal Amount, string Currency)
{
    public static Money operator +(Money a, Money b) =>
        a.Currency == b.Currency ? a with { Amount = a.Amount + b.Amount } : throw new InvalidOperationException("currency mismatch");
    public override string ToString() => Amount.ToString("0.00") + " " + Currency;
}

public record Pair<TLeft, TRight>(TLeft Left, TRight Right)
{
    public Pair<TRight, TLeft> Swap() => new(Right, Left);
}

public abstract record Expr
{
    public abstract int Eval();
}
public sealed record Num(int Value) : Expr { public override int Eval() => Value; }
public sealed record Add(Expr L, Expr R) : Expr { public override int Eval() => L.Eval() + R.Eval(); }
public sealed record Mul(Expr L, Expr R) : Expr { public override int Eval() => L.Eval() * R.Eval(); }
public sealed record Neg(Expr E) : Expr { public override int Eval() => -E.Eval(); }

public record Versioned(string Name)
{
    public int Version { get; init; } = 1;
    // Copy constructor customised: each `with` bumps the version.
    protected Versioned(Versioned original)
    {
        Name = original.Name;
        Version = original.Version + 1;
    }
}

public static class Program
{
    static Expr Simplify(Expr e) => e switch
    {
        Add(Num(0), var r) => Simplify(r),
        Add(var l, Num(0)) => Simplify(l),
        Mul(Num(1), var r) => Simplify(r),
        Mul(var l, Num(1)) => Simplify(l),
        Mul(Num(0), _) or Mul(_, Num(0)) => new Num(0),
        Neg(Neg(var inner)) => Simplify(inner),
        Add(var l, var r) => new Add(Simplify(l), Simplify(r)),
        Mul(var l, var r) => new Mul(Simplify(l), Simplify(r)),
        Neg(var inner) => new Neg(Simplify(inner)),
        _ => e,
    };

    static void Main()
    {
        Console.WriteLine("== positional records ==");
        var p1 = new Point(3, 4);
        var p2 = new Point(3, 4);
        var p3 = p1 with { Y = 10 };
        Console.WriteLine(p1 + " length=" + p1.Length);
        Console.WriteLine("p1==p2 " + (p1 == p2) + " Equals " + p1.Equals(p2) + " ReferenceEquals " + ReferenceEquals(p1, p2) + " hash equal " + (p1.GetHashCode() == p2.GetHashCode()));
        Console.WriteLine("p3=" + p3 + " p1!=p3 " + (p1 != p3));
        Console.WriteLine("translate=" + p1.Translate(-3, 1));
        var (x, y) = p3;
        Console.WriteLine("deconstructed x=" + x + " y=" + y);

        Console.WriteLine("== inheritance ==");
        Point q3 = new Point3(3, 4, 5);
        Console.WriteLine(q3 + " equals Point(3,4)? " + q3.Equals(p1) + " reverse " + p1.Equals(q3));
        var q3b = q3 with { X = 30 };
        Console.WriteLine("with on base-typed ref keeps runtime type: " + q3b + " type=" + q3b.GetType().Name);
        Console.WriteLine("Point3 deconstruct: " + ((Point3)q3b switch { var (a, b, c) => a + b + c }));

        Console.WriteLine("== nominal records ==");
        var tags = new[] { "x", "y" };
        var ann = new Person { First = "Ann", Last = "Lee", Age = 30, Tags = tags };
        var ann2 = ann with { };
        var ann3 = ann with { Tags = new[] { "x", "y" } };
        Console.WriteLine(ann.First + " " + ann.Last + " " + ann.Age);
        Console.WriteLine("copy equal=" + (ann == ann2) + " same tags array equal=" + (ann == ann3) + " copy is new object=" + !ReferenceEquals(ann, ann2));
        try { _ = ann with { Age = -1 }; } catch (ArgumentOutOfRangeException e) { Console.WriteLine("init validation: " + e.ParamName); }
        var emp = new Employee("Weft Inc") { First = "Bob", Last = "Stone", Age = 44 };
        Console.WriteLine(emp);
        Console.WriteLine("emp as Person equals person with same names? " + ((Person)emp).Equals(new Person { First = "Bob", Last = "Stone", Age = 44 }));
        var emp2 = emp with { Company = "Other" };
        Console.WriteLine(emp2 + " age kept=" + emp2.Age);

        Console.WriteLine("== record structs ==");
        var mp = new MutablePoint(1, 2);
        var mp2 = mp;
        mp.Move(5);
        mp2.X = 100;
        Console.WriteLine(mp + " " + mp2 + " equal? " + (mp == mp2));
        var mp3 = mp with { Y = 0 };
        Console.WriteLine("with: " + mp3 + " original " + mp);
        var wallet = new Money(10.50m, "EUR") + new Money(2.25m, "EUR");
        Console.WriteLine("money " + wallet + " equal " + (wallet == new Money(12.75m, "EUR")) + " default " + default(Money).Amount);
        try { _ = wallet + new Money(1, "USD"); } catch (InvalidOperationException e) { Console.WriteLine(e.Message); }

        Console.WriteLine("== generic records ==");
        var pair = new Pair<string, int>("age", 7);
        Console.WriteLine(pair + " swapped " + pair.Swap());
        var nested = new Pair<Point, Pair<int, string>>(new Point(1, 1), new Pair<int, string>(2, "two"));
        Console.WriteLine(nested);
        Console.WriteLine("nested equal " + (nested == new Pair<Point, Pair<int, string>>(new Point(1, 1), new Pair<int, string>(2, "two"))));

        Console.WriteLine("== expression trees as records ==");
        Expr expr = new Add(new Mul(new Num(1), new Add(new Num(3), new Num(0))), new Neg(new Neg(new Mul(new Num(4), new Num(5)))));
        Console.WriteLine(expr + " = " + expr.Eval());
        var s = Simplify(expr);
        Console.WriteLine(s + " = " + s.Eval());
        Console.WriteLine("simplified equals manual: " + (s == new Add(new Num(3), new Mul(new Num(4), new Num(5)))));

        Console.WriteLine("== custom copy constructor ==");
        var v1 = new Versioned("doc");
        var v3 = (v1 with { }) with { Name = "doc2" };
        Console.WriteLine(v1 + " -> " + v3);

        Console.WriteLine("== records as keys ==");
        var counts = new Dictionary<Point, int>();
        foreach (var pt in new[] { new Point(1, 2), new Point(2, 1), new Point(1, 2), new Point(0, 0), new Point(1, 2) })
            counts[pt] = counts.TryGetValue(pt, out var n) ? n + 1 : 1;
        foreach (var kv in counts.OrderBy(k => k.Key.X).ThenBy(k => k.Key.Y)) Console.WriteLine("  " + kv.Key + " x" + kv.Value);
        var set = new HashSet<MutablePoint> { new(1, 1), new(1, 1), new(2, 2) };
        Console.WriteLine("set count=" + set.Count + " contains (2,2)=" + set.Contains(new MutablePoint(2, 2)));
        var anon = new { A = 1, B = "b" };
        var anon2 = anon with { B = "c" };
        Console.WriteLine("anonymous with: " + anon2);
        Console.WriteLine("done");
    }
}
