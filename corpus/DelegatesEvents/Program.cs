// Delegates and events: custom delegate types (with ref/out params, generic, variant),
// multicast combine/remove and invocation lists, Func/Action, open and closed
// delegates over instance and static methods, delegates to virtual methods,
// DynamicInvoke, field-like events, events with custom add/remove accessors,
// static events, EventHandler<T>.
namespace Weft.Corpus.DelegatesEvents;

public delegate int BinaryOp(int a, int b);
public delegate void RefUpdater(ref int value, out string note);
public delegate TResult Transformer<in TIn, out TResult>(TIn input);
public delegate void Notify(string source, int value);

public class PriceChangedEventArgs : EventArgs
{
    public decimal Old { get; }
    public decimal New { get; }
    public PriceChangedEventArgs(decimal o, decimal n) { Old = o; New = n; }
}

public class Animal
{
    public string Name;
    public Animal(string n) { Name = n; }
    public virtual string Speak() => Name + " makes a sound";
}

public sealed class Dog : Animal
{
    public Dog(string n) : base(n) { }
    public override string Speak() => Name + " barks";
}

public sealed class Stock
{
    private decimal _price;
    public string Symbol { get; }
    public Stock(string symbol, decimal price) { Symbol = symbol; _price = price; }

    // Field-like event.
    public event EventHandler<PriceChangedEventArgs> PriceChanged;

    // Event with custom accessors that records subscription traffic and keeps
    // handlers in its own list.
    private readonly List<Notify> _watchers = new List<Notify>();
    public readonly List<string> Audit = new List<string>();
    public event Notify Watch
    {
        add { Audit.Add("add#" + _watchers.Count); _watchers.Add(value); }
        remove { Audit.Add("remove#" + _watchers.Count); _watchers.Remove(value); }
    }

    public decimal Price
    {
        get => _price;
        set
        {
            if (value == _price) return;
            var old = _price;
            _price = value;
            PriceChanged?.Invoke(this, new PriceChangedEventArgs(old, value));
            foreach (var w in _watchers.ToArray()) w(Symbol, (int)(value * 100));
        }
    }
}

public static class Bus
{
    // Static event with explicit backing delegate and custom accessors.
    private static Action<string> s_handlers;
    public static int Subscriptions;
    public static event Action<string> Message
    {
        add { Subscriptions++; s_handlers = (Action<string>)Delegate.Combine(s_handlers, value); }
        remove { Subscriptions--; s_handlers = (Action<string>)Delegate.Remove(s_handlers, value); }
    }
    public static void Publish(string m) => s_handlers?.Invoke(m);
}

public sealed class Calculator
{
    public int Base;
    public Calculator(int b) { Base = b; }
    public int AddBase(int a, int b) => a + b + Base;
    public static int Mul(int a, int b) => a * b;
}

public static class Program
{
    static readonly List<string> Log = new List<string>();

    static int Sub(int a, int b) => a - b;
    static void Double(ref int v, out string note) { v *= 2; note = "doubled to " + v; }
    static void AddOne(ref int v, out string note) { v += 1; note = "incremented to " + v; }

    static int Apply(BinaryOp op, int a, int b) => op(a, b);

    static void Main()
    {
        Console.WriteLine("== custom delegates ==");
        BinaryOp add = (a, b) => a + b;
        BinaryOp sub = Sub;
        var calc = new Calculator(100);
        BinaryOp inst = calc.AddBase;
        BinaryOp stat = Calculator.Mul;
        Console.WriteLine($"add={Apply(add, 7, 5)} sub={Apply(sub, 7, 5)} inst={Apply(inst, 7, 5)} mul={Apply(stat, 7, 5)}");
        calc.Base = 1000;
        Console.WriteLine("inst after mutation=" + inst(1, 2) + " target=" + (inst.Target == calc) + " method=" + inst.Method.Name);

        Console.WriteLine("== multicast ==");
        BinaryOp multi = add;
        multi += sub;
        multi += stat;
        Console.WriteLine("multicast returns last=" + multi(6, 3) + " count=" + multi.GetInvocationList().Length);
        foreach (BinaryOp d in multi.GetInvocationList()) Console.WriteLine("  " + (d.Method.Name.StartsWith("<") ? "(lambda)" : d.Method.Name) + " -> " + d(6, 3));
        multi -= sub;
        Console.WriteLine("after remove count=" + multi.GetInvocationList().Length + " result=" + multi(6, 3));
        multi -= add; multi -= stat;
        Console.WriteLine("empty is null=" + (multi == null));

        RefUpdater chain = Double;
        chain += AddOne;
        chain += Double;
        int value = 5;
        chain(ref value, out var note);
        Console.WriteLine("ref chain value=" + value + " note(last)=" + note);

        Action<string> log = s => Log.Add("a:" + s);
        log += s => Log.Add("b:" + s.Length);
        Action<string> third = s => Log.Add("c:" + s.ToUpperInvariant());
        log += third;
        log += third;
        log("xy");
        log -= third; // removes the last occurrence only
        log("pqr");
        Console.WriteLine(string.Join(" ", Log)); Log.Clear();

        Console.WriteLine("== Func / Action / generic variance ==");
        Func<int, int, int> f2 = (a, b) => a * 10 + b;
        Func<int> f0 = () => 42;
        Action<int, string, double> a3 = (i, s, d) => Log.Add(i + s + d);
        a3(1, "x", 2.5);
        Console.WriteLine("f2=" + f2(3, 4) + " f0=" + f0() + " a3=" + string.Join("", Log)); Log.Clear();
        Transformer<object, string> objToStr = o => "obj:" + o;
        Transformer<string, object> strToObj = objToStr; // contravariant in, covariant out
        Console.WriteLine("variance=" + strToObj("v"));
        Func<Dog, Animal> dogToAnimal = d => d;
        Func<Animal, string> speak = a => a.Speak();
        Func<Dog, object> speakDog = speak; // variance again
        Console.WriteLine("speakDog=" + speakDog(new Dog("rex")) + " / " + dogToAnimal(new Dog("fido")).Name);

        Console.WriteLine("== open / closed / virtual ==");
        var openSpeak = (Func<Animal, string>)Delegate.CreateDelegate(typeof(Func<Animal, string>), typeof(Animal).GetMethod("Speak"));
        Console.WriteLine("open virtual: " + openSpeak(new Animal("cat")) + " | " + openSpeak(new Dog("dog")));
        Animal pet = new Dog("max");
        Func<string> closedSpeak = pet.Speak;
        Console.WriteLine("closed virtual: " + closedSpeak());
        Func<string> boxedToString = 123.ToString;
        Console.WriteLine("closed over boxed int: " + boxedToString());
        Func<int, string> extension = "pre".Prefix;
        Console.WriteLine("closed extension: " + extension(3));
        Console.WriteLine("DynamicInvoke: " + add.DynamicInvoke(20, 22) + " " + ((Delegate)f0).DynamicInvoke());

        Console.WriteLine("== events ==");
        var stock = new Stock("WFT", 10.00m);
        EventHandler<PriceChangedEventArgs> h1 = (s, e) => Log.Add(((Stock)s).Symbol + " " + e.Old + "->" + e.New);
        stock.PriceChanged += h1;
        stock.PriceChanged += (s, e) => Log.Add("delta " + (e.New - e.Old));
        Notify w1 = (src, v) => Log.Add("w1 " + src + " " + v);
        Notify w2 = (src, v) => Log.Add("w2 " + v % 7);
        stock.Watch += w1;
        stock.Watch += w2;
        stock.Price = 10.50m;
        stock.Price = 10.50m; // no change, no events
        stock.PriceChanged -= h1;
        stock.Watch -= w1;
        stock.Price = 9.25m;
        Console.WriteLine(string.Join(" | ", Log)); Log.Clear();
        Console.WriteLine("audit: " + string.Join(",", stock.Audit));

        Action<string> sub1 = m => Log.Add("s1:" + m);
        Action<string> sub2 = m => Log.Add("s2:" + m.Length);
        Bus.Message += sub1;
        Bus.Message += sub2;
        Bus.Publish("hello");
        Bus.Message -= sub1;
        Bus.Publish("bye");
        Console.WriteLine("bus: " + string.Join(" ", Log) + " subs=" + Bus.Subscriptions); Log.Clear();

        Console.WriteLine("== delegate equality and exceptions in multicast ==");
        BinaryOp x1 = Sub, x2 = Sub;
        Console.WriteLine("equal method groups=" + (x1 == x2) + " equal lambdas=" + (new BinaryOp((a, b) => a) == new BinaryOp((a, b) => a)));
        Action boom = () => Log.Add("first ran");
        boom += () => throw new InvalidOperationException("second fails");
        boom += () => Log.Add("third never runs");
        try { boom(); } catch (InvalidOperationException e) { Log.Add("caught " + e.Message); }
        Console.WriteLine(string.Join(" ", Log)); Log.Clear();

        int total = 0;
        var table = new Dictionary<string, BinaryOp>
        {
            ["add"] = add, ["sub"] = sub, ["mul"] = stat, ["max"] = Math.Max, ["min"] = Math.Min,
        };
        foreach (var key in new[] { "add", "sub", "mul", "max", "min" })
        {
            int r = table[key](17, 4);
            total += r;
            Console.WriteLine(key + "(17,4)=" + r);
        }
        Console.WriteLine("total=" + total);
        Console.WriteLine("done");
    }
}

public static class StringExtensions
{
    public static string Prefix(this string s, int n) => string.Concat(Enumerable.Repeat(s, n));
}
