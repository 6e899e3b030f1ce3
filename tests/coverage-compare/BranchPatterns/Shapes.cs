// Switch expressions with `when` guards and property, relational and `or` patterns, over records
// copied `with` new values (a generic record too).

namespace Weft.BranchPatterns;

public abstract record Shape(string Name);
public record Circle(string Name, double Radius) : Shape(Name);
public record Rect(string Name, double W, double H) : Shape(Name);
public record Labelled<T>(T Value, string Label);

public static class Shapes
{
    public static string Describe(Shape s, int limit) => s switch
    {
        Circle { Radius: > 10 } c when c.Name.Length > limit => "big named circle",
        Circle c when c.Radius == 0 => "dot",
        Circle => "circle",
        Rect r when r.W == r.H => "square",
        Rect { W: < 1 } or Rect { H: < 1 } => "thin",
        Rect => "rect",
        null => "none",
        _ => "shape",
    };

    public static int Classify(int x, bool flag) => (x, flag) switch
    {
        ( < 0, _) => -1,
        (0, true) => 0,
        (var v, false) when v % 2 == 0 => 2,
        (var v, _) when v > 100 => 100,
        _ => 1,
    };

    public static int Run()
    {
        int r = 0;
        Shape[] shapes = { new Circle("c", 1), new Circle("longname", 20), new Circle("d", 0), new Rect("s", 2, 2), new Rect("t", 0.5, 3), new Rect("r", 2, 3), null };
        foreach (var s in shapes)
        {
            r += Describe(s, 3).Length;
            var copy = s is Circle c ? c with { Radius = c.Radius + 1 } : s is Rect rc ? rc with { W = 1 } : s;
            r += copy == s ? 1 : 0;
            r += copy is Circle { Radius: > 5 } ? 1 : 0;
        }
        var l = new Labelled<int>(3, "a");
        var l2 = l with { Label = "b" };
        r += l2.Value + (l2 == l ? 1 : 0) + (l2.Equals(l with { Label = "b" }) ? 1 : 0);
        foreach (int x in new[] { -5, 0, 4, 7, 200, 201 })
            r += Classify(x, x == 0) + Classify(x, false);
        return r;
    }
}
