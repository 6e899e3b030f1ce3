// Static constructors and properties.
// Static constructors: a class with an explicit static constructor (precise
// initialisation, no beforefieldinit) runs it exactly at the first access to a static
// member or the first instance creation, so the log order below is fixed. A class
// with only static field initialisers is marked beforefieldinit; the runtime only
// promises that it runs before the first static field read, so we print only facts
// that hold under that promise.
// Properties: auto, get-only, init-only, required, computed, static, virtual/abstract,
// interface and explicit interface properties, indexers (several kinds), ref-returning
// properties, the `field` keyword, private setters, properties on structs.
namespace Weft.Corpus.Properties;

public static class Trace
{
    public static readonly List<string> Log = new List<string>();
    public static int Note(string s) { Log.Add(s); return Log.Count; }
    public static void Flush(string title)
    {
        Console.WriteLine(title + ": " + string.Join(" > ", Log));
        Log.Clear();
    }
}

public class Precise
{
    public static readonly int Value;
    public static int Counter;
    static Precise()
    {
        Trace.Note("Precise.cctor");
        Value = 42;
    }
    public static int Touch() { Trace.Note("Precise.Touch"); return ++Counter; }
}

public class Relaxed
{
    // No explicit static constructor: the class is beforefieldinit.
    // It reports to its own probe rather than to Trace.Log, because when it runs
    // relative to other code is up to the runtime (it may even run while Main is compiled).
    public static readonly int Order = RelaxedProbe.Hit();
    public static readonly string Text = "relaxed-" + 7 * 6;
}

public static class RelaxedProbe
{
    public static int Hits;
    public static int Hit() => ++Hits;
}

public class First
{
    public static readonly int A;
    static First()
    {
        Trace.Note("First.cctor begin");
        A = Second.B + 1; // triggers Second's cctor in the middle of ours
        Trace.Note("First.cctor end");
    }
}

public class Second
{
    public static readonly int B;
    public static int SeenFromSecond;
    static Second()
    {
        Trace.Note("Second.cctor");
        SeenFromSecond = CycleA.X; // starts CycleA
        B = 10;
    }
}

public class CycleA
{
    public static int X;
    static CycleA()
    {
        Trace.Note("CycleA.cctor begin");
        X = CycleB.Y + 100; // CycleB reads CycleA.X while we are still running: sees 0
        Trace.Note("CycleA.cctor end X=" + X);
    }
}

public class CycleB
{
    public static int Y;
    static CycleB()
    {
        Trace.Note("CycleB.cctor sees CycleA.X=" + CycleA.X);
        Y = CycleA.X + 5;
    }
}

public class PerInstantiation<T>
{
    public static readonly string Name;
    static PerInstantiation()
    {
        Name = typeof(T).Name;
        Trace.Note("PerInstantiation<" + Name + ">.cctor");
    }
    public PerInstantiation() { Trace.Note("PerInstantiation<" + Name + ">.ctor"); }
}

public class InstanceTrigger
{
    static InstanceTrigger() { Trace.Note("InstanceTrigger.cctor"); }
    public InstanceTrigger() { Trace.Note("InstanceTrigger.ctor"); }
}

public class Thrower
{
    public static int Value;
    static Thrower()
    {
        Trace.Note("Thrower.cctor");
        throw new InvalidOperationException("static init failed");
    }
}

// ---------- properties ----------
public interface INamed
{
    string Name { get; }
    string Display => "[" + Name + "]";
}

public interface IHasId
{
    int Id { get; }
}

public abstract class Entity : INamed, IHasId
{
    private static int s_nextId = 100;
    public static int Created { get; private set; }
    public static string Prefix { get; set; } = "E";

    public int Id { get; }
    public abstract string Name { get; }
    public virtual string Kind => "entity";
    int IHasId.Id => Id * 10; // explicit interface implementation with different behaviour

    protected Entity() { Id = s_nextId++; Created++; }
}

public sealed class Person : Entity
{
    private string _first = "";
    public string First
    {
        get => _first;
        set => _first = value?.Trim() ?? throw new ArgumentNullException(nameof(value));
    }
    public string Last { get; set; } = "Unknown";
    public int Age { get; init; }
    public required string Country { get; init; }
    public override string Name => First + " " + Last;
    public override string Kind => "person/" + base.Kind;
    public string Initials => (First.Length > 0 ? First[..1] : "?") + (Last.Length > 0 ? Last[..1] : "?");
    public bool IsAdult => Age >= 18;

    // C# 14 `field` keyword: a property with logic that keeps the compiler's backing field.
    public int Score
    {
        get => field;
        set => field = Math.Clamp(value, 0, 100);
    }

    public string Nickname
    {
        get => field ?? First.ToLowerInvariant();
        set;
    }
}

public sealed class Matrix
{
    private readonly double[] _cells;
    public int Rows { get; }
    public int Cols { get; }
    public Matrix(int rows, int cols) { Rows = rows; Cols = cols; _cells = new double[rows * cols]; }

    public double this[int r, int c]
    {
        get => _cells[r * Cols + c];
        set => _cells[r * Cols + c] = value;
    }

    public double this[Index r, Index c] => this[r.GetOffset(Rows), c.GetOffset(Cols)];

    public double[] this[int r] => Enumerable.Range(0, Cols).Select(c => this[r, c]).ToArray();

    public double Trace
    {
        get
        {
            double s = 0;
            for (int i = 0; i < Math.Min(Rows, Cols); i++) s += this[i, i];
            return s;
        }
    }
}

public sealed class Settings
{
    private readonly Dictionary<string, string> _values = new Dictionary<string, string>(StringComparer.Ordinal);
    public readonly List<string> Audit = new List<string>();
    public string this[string key]
    {
        get { Audit.Add("get " + key); return _values.TryGetValue(key, out var v) ? v : "<none>"; }
        set { Audit.Add("set " + key); if (value == null) _values.Remove(key); else _values[key] = value; }
    }
    public int Count => _values.Count;
}

public sealed class Buffer
{
    private readonly int[] _data = new int[4];
    public ref int this[int i] => ref _data[i];
    public ref int First => ref _data[0];
    public int Sum => _data.Sum();
}

public struct Temperature
{
    private double _celsius;
    public double Celsius { readonly get => _celsius; set => _celsius = value; }
    public double Fahrenheit
    {
        readonly get => _celsius * 9 / 5 + 32;
        set => _celsius = (value - 32) * 5 / 9;
    }
    public readonly string Describe => Celsius < 0 ? "freezing" : Celsius < 25 ? "mild" : "hot";
}

public static class Program
{
    static void Main()
    {
        Console.WriteLine("== static constructors ==");
        Trace.Note("main start");
        Trace.Note("read Precise.Value=" + Precise.Value);
        Trace.Note("read again=" + Precise.Value);
        Trace.Flush("precise");

        int touched = Precise.Touch();
        Trace.Flush("touch " + touched);

        Trace.Note("before First");
        Trace.Note("First.A=" + First.A);
        Trace.Flush("chain");
        Console.WriteLine("values: First.A=" + First.A + " Second.B=" + Second.B + " Second.SeenFromSecond=" + Second.SeenFromSecond + " CycleA.X=" + CycleA.X + " CycleB.Y=" + CycleB.Y);

        Trace.Note("gen start");
        _ = PerInstantiation<int>.Name;
        _ = new PerInstantiation<string>();
        _ = new PerInstantiation<int>();
        _ = PerInstantiation<string>.Name;
        Trace.Flush("generic");

        Trace.Note("before new");
        _ = new InstanceTrigger();
        _ = new InstanceTrigger();
        Trace.Flush("instance");

        for (int attempt = 1; attempt <= 2; attempt++)
        {
            try { Thrower.Value++; }
            catch (TypeInitializationException e) { Trace.Note("attempt " + attempt + ": " + e.GetType().Name + " inner=" + e.InnerException.Message); }
        }
        Trace.Flush("failing cctor");

        // beforefieldinit: only facts guaranteed by the runtime are printed.
        string relaxedText = Relaxed.Text;
        int relaxedOrder = Relaxed.Order;
        Console.WriteLine("relaxed: text=" + relaxedText + " order=" + relaxedOrder + " initialiser ran " + RelaxedProbe.Hits + " time(s)");
        Console.WriteLine("flags: Precise beforefieldinit=" + ((typeof(Precise).Attributes & System.Reflection.TypeAttributes.BeforeFieldInit) != 0)
            + " Relaxed beforefieldinit=" + ((typeof(Relaxed).Attributes & System.Reflection.TypeAttributes.BeforeFieldInit) != 0));

        Console.WriteLine("== properties ==");
        var p = new Person { First = "  Ada ", Last = "Lovelace", Age = 36, Country = "UK" };
        var q = new Person { First = "Tim", Age = 12, Country = "NZ" };
        Console.WriteLine(p.Id + " " + p.Name + " (" + p.Initials + ") adult=" + p.IsAdult + " kind=" + p.Kind + " country=" + p.Country);
        Console.WriteLine(q.Id + " " + q.Name + " (" + q.Initials + ") adult=" + q.IsAdult + " display=" + ((INamed)q).Display + " ihasid=" + ((IHasId)q).Id);
        try { p.First = null; } catch (ArgumentNullException e) { Console.WriteLine("setter threw for " + e.ParamName); }
        p.Score = 150; q.Score = -5;
        Console.WriteLine("scores " + p.Score + " " + q.Score + " nick " + p.Nickname);
        p.Nickname = "countess";
        Console.WriteLine("nick " + p.Nickname + " / " + q.Nickname);
        Entity.Prefix = "P";
        Console.WriteLine("static: created=" + Entity.Created + " prefix=" + Entity.Prefix);
        INamed[] named = { p, q };
        Console.WriteLine("interface names: " + string.Join(", ", named.Select(n => n.Name)));

        Console.WriteLine("== indexers ==");
        var m = new Matrix(3, 3);
        for (int r = 0; r < 3; r++) for (int c = 0; c < 3; c++) m[r, c] = r * 3 + c + 0.5;
        m[1, 1] *= 2;
        Console.WriteLine("trace=" + m.Trace + " row1=" + string.Join(",", m[1]) + " last=" + m[^1, ^1] + " m[^3,^2]=" + m[^3, ^2]);
        var settings = new Settings();
        settings["mode"] = "fast";
        settings["level"] = "3";
        settings["mode"] += "-er";
        settings["level"] = null;
        Console.WriteLine("settings mode=" + settings["mode"] + " level=" + settings["level"] + " count=" + settings.Count);
        Console.WriteLine("audit: " + string.Join(",", settings.Audit));
        var buf = new Buffer();
        buf[2] = 7;
        buf[2] += 3;
        buf.First = 5;
        ref int slot = ref buf[3];
        slot = 100;
        Console.WriteLine("ref indexer sum=" + buf.Sum);

        Console.WriteLine("== struct properties ==");
        var t = new Temperature { Celsius = 100 };
        Console.WriteLine("F=" + t.Fahrenheit + " " + t.Describe);
        t.Fahrenheit = 14;
        Console.WriteLine("C=" + t.Celsius + " " + t.Describe);
        var temps = new Temperature[3];
        temps[1].Celsius = 20;
        temps[2].Fahrenheit = 212;
        Console.WriteLine("array: " + string.Join(",", temps.Select(x => x.Celsius + "/" + x.Describe)));

        Console.WriteLine("== anonymous types and tuples ==");
        var anon = new { Name = "box", Size = 3, Tags = new[] { "a", "b" } };
        Console.WriteLine(anon.Name + " " + anon.Size + " " + anon.Tags.Length + " " + anon);
        var anon2 = new { Name = "box", Size = 3, Tags = anon.Tags };
        Console.WriteLine("anon equal=" + anon.Equals(anon2));
        (string Label, int Count) tuple = ("items", 4);
        tuple.Count++;
        Console.WriteLine("tuple=" + tuple + " label=" + tuple.Label);
        Console.WriteLine("done");
    }
}
