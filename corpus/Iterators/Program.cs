// Iterators: yield return / yield break, try/finally inside iterators (run on
// completion, on early Dispose and on exceptions), generic iterators, iterator
// properties and methods on generic types, nested iterators, IEnumerator-returning iterators.
using System.Collections;

namespace Weft.Corpus.Iterators;

public sealed class Range2D : IEnumerable<(int Row, int Col)>
{
    private readonly int _rows, _cols;
    public Range2D(int rows, int cols) { _rows = rows; _cols = cols; }
    public IEnumerator<(int Row, int Col)> GetEnumerator()
    {
        for (int r = 0; r < _rows; r++)
            for (int c = 0; c < _cols; c++)
                yield return (r, c);
    }
    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}

public sealed class Tree<T>
{
    public T Value;
    public List<Tree<T>> Children = new List<Tree<T>>();
    public Tree(T value, params Tree<T>[] children) { Value = value; Children.AddRange(children); }

    public IEnumerable<T> PreOrder()
    {
        yield return Value;
        foreach (var child in Children)
            foreach (var v in child.PreOrder())
                yield return v;
    }

    public IEnumerable<(T Value, int Depth)> BreadthFirst()
    {
        var queue = new Queue<(Tree<T>, int)>();
        queue.Enqueue((this, 0));
        while (queue.Count > 0)
        {
            var (node, depth) = queue.Dequeue();
            yield return (node.Value, depth);
            foreach (var c in node.Children) queue.Enqueue((c, depth + 1));
        }
    }

    public IEnumerable<T> Leaves
    {
        get
        {
            if (Children.Count == 0) { yield return Value; yield break; }
            foreach (var c in Children)
                foreach (var l in c.Leaves)
                    yield return l;
        }
    }
}

public static class Program
{
    static readonly List<string> Log = new List<string>();

    static IEnumerable<int> Fibonacci()
    {
        int a = 0, b = 1;
        while (true)
        {
            yield return a;
            (a, b) = (b, a + b);
        }
    }

    static IEnumerable<int> Primes(int limit)
    {
        if (limit < 2) yield break;
        yield return 2;
        for (int n = 3; n <= limit; n += 2)
        {
            bool prime = true;
            for (int d = 3; d * d <= n; d += 2)
                if (n % d == 0) { prime = false; break; }
            if (prime) yield return n;
        }
    }

    static IEnumerable<string> Guarded(string name, int count, int failAt)
    {
        Log.Add(name + ":start");
        try
        {
            for (int i = 0; i < count; i++)
            {
                try
                {
                    if (i == failAt) throw new InvalidOperationException(name + " failed at " + i);
                    yield return name + i;
                }
                finally
                {
                    Log.Add(name + ":inner" + i);
                }
            }
            Log.Add(name + ":end");
        }
        finally
        {
            Log.Add(name + ":outer finally");
        }
    }

    static IEnumerable<TResult> Zip<T1, T2, TResult>(IEnumerable<T1> a, IEnumerable<T2> b, Func<T1, T2, TResult> f)
    {
        using var ea = a.GetEnumerator();
        using var eb = b.GetEnumerator();
        while (ea.MoveNext() && eb.MoveNext())
            yield return f(ea.Current, eb.Current);
    }

    static IEnumerable<T> TakeEvery<T>(IEnumerable<T> source, int step)
    {
        int i = 0;
        foreach (var x in source)
        {
            if (i++ % step == 0) yield return x;
        }
    }

    static IEnumerable<IReadOnlyList<T>> Chunks<T>(IEnumerable<T> source, int size)
    {
        var buf = new List<T>(size);
        foreach (var x in source)
        {
            buf.Add(x);
            if (buf.Count == size) { yield return buf.ToArray(); buf.Clear(); }
        }
        if (buf.Count > 0) yield return buf.ToArray();
    }

    static IEnumerator<char> Letters(string s)
    {
        foreach (var ch in s)
            if (char.IsLetter(ch)) yield return char.ToUpperInvariant(ch);
    }

    static IEnumerable Untyped()
    {
        yield return 1;
        yield return "two";
        yield return 3.5;
        yield return null;
        yield return new[] { 4, 5 };
    }

    static IEnumerable<int> Collatz(long n)
    {
        int steps = 0;
        while (n != 1)
        {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
            if (steps > 1000) yield break;
        }
        yield return steps;
    }

    static IEnumerable<int> Counter(int start)
    {
        // An iterator with a by-value parameter: each enumeration restarts from start.
        while (start < 1000)
        {
            yield return start;
            start *= 2;
        }
    }

    public static void Main()
    {
        Console.WriteLine("== simple ==");
        Console.WriteLine("fib: " + string.Join(",", Fibonacci().Take(20)));
        Console.WriteLine("fib sum<10000: " + Fibonacci().TakeWhile(x => x < 10000).Sum());
        Console.WriteLine("primes<100: " + string.Join(",", Primes(100)));
        Console.WriteLine("primes<1: [" + string.Join(",", Primes(1)) + "]");
        Console.WriteLine("count primes<20000: " + Primes(20000).Count());
        var counter = Counter(3);
        Console.WriteLine("counter twice: " + string.Join(",", counter) + " | " + string.Join(",", counter));

        Console.WriteLine("== finally in iterators ==");
        Console.WriteLine("full: " + string.Join(",", Guarded("A", 3, -1)));
        Console.WriteLine("  " + string.Join(" ", Log)); Log.Clear();
        Console.WriteLine("take 2: " + string.Join(",", Guarded("B", 5, -1).Take(2)));
        Console.WriteLine("  " + string.Join(" ", Log)); Log.Clear();
        try
        {
            foreach (var s in Guarded("C", 5, 2)) Log.Add("got " + s);
        }
        catch (InvalidOperationException e) { Log.Add("caught: " + e.Message); }
        Console.WriteLine("throwing:");
        Console.WriteLine("  " + string.Join(" ", Log)); Log.Clear();
        using (var e = Guarded("D", 4, -1).GetEnumerator())
        {
            e.MoveNext(); e.MoveNext();
            Log.Add("current " + e.Current);
        }
        Console.WriteLine("manual dispose:");
        Console.WriteLine("  " + string.Join(" ", Log)); Log.Clear();
        var lazy = Guarded("E", 2, -1);
        Console.WriteLine("lazy not started: log count=" + Log.Count);

        Console.WriteLine("== generic iterators ==");
        Console.WriteLine("zip: " + string.Join(" ", Zip(new[] { 1, 2, 3, 4 }, new[] { "a", "b", "c" }, (n, s) => s + n)));
        Console.WriteLine("every3: " + string.Join(",", TakeEvery(Enumerable.Range(0, 20), 3)));
        Console.WriteLine("every2 strings: " + string.Join(",", TakeEvery("a b c d e".Split(' '), 2)));
        foreach (var chunk in Chunks(Enumerable.Range(1, 11), 4))
            Console.WriteLine("chunk [" + string.Join(",", chunk) + "] sum=" + chunk.Sum());
        var grid = new Range2D(3, 4);
        Console.WriteLine("grid: " + string.Join(" ", grid.Select(p => p.Row + "" + p.Col)));
        Console.WriteLine("grid diag count: " + grid.Count(p => p.Row == p.Col));

        var tree = new Tree<string>("root",
            new Tree<string>("a", new Tree<string>("a1"), new Tree<string>("a2", new Tree<string>("a2x"))),
            new Tree<string>("b"),
            new Tree<string>("c", new Tree<string>("c1")));
        Console.WriteLine("preorder: " + string.Join(",", tree.PreOrder()));
        Console.WriteLine("bfs: " + string.Join(",", tree.BreadthFirst().Select(t => t.Value + "@" + t.Depth)));
        Console.WriteLine("leaves: " + string.Join(",", tree.Leaves));
        var itree = new Tree<int>(1, new Tree<int>(2, new Tree<int>(4)), new Tree<int>(3));
        Console.WriteLine("int preorder sum: " + itree.PreOrder().Sum());

        Console.WriteLine("== IEnumerator and untyped ==");
        var le = Letters("we-ft 2 go!");
        var sbl = new System.Text.StringBuilder();
        while (le.MoveNext()) sbl.Append(le.Current);
        Console.WriteLine("letters: " + sbl);
        foreach (var o in Untyped())
            Console.WriteLine("untyped: " + (o == null ? "null" : o is int[] arr ? "int[" + arr.Length + "]" : o.GetType().Name + "=" + o));

        Console.WriteLine("== collatz ==");
        var steps = new List<string>();
        for (long n = 1; n <= 30; n++) steps.Add(n + ":" + Collatz(n).Single());
        Console.WriteLine(string.Join(" ", steps));
        Console.WriteLine("done");
    }
}
