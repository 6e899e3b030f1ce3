// Exceptions: nested try/catch/finally, filters, rethrow, using (try/fault-like
// cleanup), exceptions crossing methods, finally on return, and a stack-trace section.
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.RegularExpressions;

namespace Weft.Corpus.Exceptions;

public class CorpusException : Exception
{
    public int Code { get; }
    public CorpusException(string message, int code) : base(message) { Code = code; }
    public CorpusException(string message, int code, Exception inner) : base(message, inner) { Code = code; }
}

public sealed class DerivedCorpusException : CorpusException
{
    public DerivedCorpusException(string message, int code) : base(message, code) { }
}

public sealed class Resource : IDisposable
{
    private readonly string _name;
    private readonly List<string> _log;
    public Resource(string name, List<string> log) { _name = name; _log = log; log.Add("open " + name); }
    public void Use(bool fail)
    {
        _log.Add("use " + _name);
        if (fail) throw new InvalidOperationException("failure in " + _name);
    }
    public void Dispose() => _log.Add("close " + _name);
}

public struct StructResource : IDisposable
{
    public static int Disposed;
    public int Id;
    public void Dispose() { Disposed += Id; }
}

public static class Program
{
    static readonly List<string> Log = new List<string>();

    static void Flush(string title)
    {
        Console.WriteLine(title + ": " + string.Join(" > ", Log));
        Log.Clear();
    }

    // ---------- nested try/catch/finally ----------
    static int Nested(int mode)
    {
        int result = 0;
        try
        {
            Log.Add("L1 try");
            try
            {
                Log.Add("L2 try");
                try
                {
                    Log.Add("L3 try");
                    if (mode == 1) throw new ArgumentException("a1");
                    if (mode == 2) throw new InvalidOperationException("i2");
                    if (mode == 3) throw new CorpusException("c3", 3);
                    if (mode == 4) throw new DivideByZeroException();
                    result += 1;
                }
                catch (ArgumentException e)
                {
                    Log.Add("L3 catch " + e.Message);
                    result += 10;
                }
                finally
                {
                    Log.Add("L3 finally");
                    result += 100;
                }
            }
            catch (InvalidOperationException e)
            {
                Log.Add("L2 catch " + e.Message);
                result += 1000;
                try
                {
                    throw new CorpusException("from catch", 99, e);
                }
                catch (CorpusException inner) when (inner.Code == 99)
                {
                    Log.Add("L2 inner catch " + inner.InnerException.Message);
                    result += 2000;
                }
            }
            finally
            {
                Log.Add("L2 finally");
                result += 10000;
            }
        }
        catch (CorpusException e) when (e.Code == 3)
        {
            Log.Add("L1 catch corpus " + e.Message);
            result += 100000;
        }
        catch (Exception e)
        {
            Log.Add("L1 catch " + e.GetType().Name);
            result += 200000;
        }
        finally
        {
            Log.Add("L1 finally");
        }
        return result;
    }

    // ---------- exception filters ----------
    static bool Note(string s) { Log.Add("filter " + s); return false; }

    static string Filters(int code)
    {
        try
        {
            try
            {
                throw new CorpusException("f", code);
            }
            catch (CorpusException e) when (Note("inner-observe") || e.Code < 0)
            {
                return "negative";
            }
            finally
            {
                Log.Add("inner finally");
            }
        }
        catch (CorpusException e) when (e.Code % 2 == 0 && e.Code < 10)
        {
            return "small even " + e.Code;
        }
        catch (CorpusException e) when (e.Code % 2 == 0)
        {
            return "big even " + e.Code;
        }
        catch (CorpusException e) when (e is DerivedCorpusException)
        {
            return "derived";
        }
        catch (CorpusException e)
        {
            return "odd " + e.Code;
        }
    }

    static string FilterThrows()
    {
        // An exception thrown inside a filter is swallowed and treated as false.
        try
        {
            throw new CorpusException("outer", 1);
        }
        catch (CorpusException e) when (e.Code / (e.Code - 1) > 0)
        {
            return "first";
        }
        catch (CorpusException e)
        {
            return "second (filter threw and was ignored) " + e.Message;
        }
    }

    // ---------- rethrow ----------
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Thrower(int n)
    {
        if (n > 0) throw new CorpusException("depth" + n, n);
    }

    static void Rethrower(int n)
    {
        try
        {
            Thrower(n);
        }
        catch (CorpusException e)
        {
            Log.Add("rethrow " + e.Message);
            throw;
        }
        finally
        {
            Log.Add("rethrower finally");
        }
    }

    static void WrapAndThrow(int n)
    {
        try
        {
            Rethrower(n);
        }
        catch (Exception e)
        {
            throw new InvalidOperationException("wrapped", e);
        }
    }

    // ---------- finally on return ----------
    static int FinallyOnReturn(int x)
    {
        int local = x;
        try
        {
            if (x > 5) return local * 2;
            local += 1;
            return local;
        }
        finally
        {
            local = -1000; // does not change the value already returned
            Log.Add("finally after return x=" + x);
        }
    }

    static int FinallyInLoop()
    {
        int count = 0;
        for (int i = 0; i < 10; i++)
        {
            try
            {
                if (i % 3 == 0) continue;
                if (i == 8) break;
                count += i;
            }
            finally
            {
                count += 100;
            }
        }
        return count;
    }

    static string Goto(int n)
    {
        var sb = new StringBuilder();
        int i = 0;
    again:
        try
        {
            sb.Append('t').Append(i);
            if (++i < n) goto again;
        }
        finally
        {
            sb.Append('f');
        }
        return sb.ToString();
    }

    // ---------- using ----------
    static void Usings(bool fail)
    {
        try
        {
            using var a = new Resource("A", Log);
            using (var b = new Resource("B", Log))
            {
                using (new Resource("C", Log))
                {
                    b.Use(false);
                    a.Use(fail);
                }
            }
            Log.Add("after usings");
        }
        catch (InvalidOperationException e)
        {
            Log.Add("caught " + e.Message);
        }
    }

    static int StructUsing()
    {
        StructResource.Disposed = 0;
        for (int i = 1; i <= 4; i++)
        {
            using var r = new StructResource { Id = i };
            if (i == 3) continue;
        }
        return StructResource.Disposed;
    }

    // ---------- crossing method boundaries ----------
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level3(int v)
    {
        if (v == 0) throw new DivideByZeroException("level3 zero");
        int[] arr = new int[3];
        return arr[v]; // IndexOutOfRange for v >= 3
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level2(int v)
    {
        try { return Level3(v) + 1; }
        finally { Log.Add("L2fin" + v); }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level1(int v)
    {
        try { return Level2(v) + 1; }
        catch (IndexOutOfRangeException) { Log.Add("L1 caught IOOR"); return -1; }
    }

    static string Crossing(int v)
    {
        try { return "ok " + Level1(v); }
        catch (DivideByZeroException e) { return "top caught " + e.Message; }
    }

    // ---------- runtime-raised exceptions ----------
    static string RuntimeErrors(int which)
    {
        try
        {
            switch (which)
            {
                case 0: { object o = "s"; return ((int)o).ToString(); }
                case 1: { string s = null; return s.Length.ToString(); }
                case 2: { int z = which - 2; return (10 / z).ToString(); }
                case 3: { checked { int m = int.MaxValue - 2 + which; return m.ToString(); } }
                case 4: { return int.Parse("x12").ToString(); }
                case 5: { var d = new Dictionary<int, int>(); return d[5].ToString(); }
                case 6: { object[] arr = new string[1]; arr[0] = 1; return "no"; }
                default: return "none";
            }
        }
        catch (Exception e)
        {
            return e.GetType().FullName;
        }
    }

    // ---------- AggregateException and when + Flatten ----------
    static string Aggregate()
    {
        try
        {
            throw new AggregateException(new CorpusException("x", 1),
                new AggregateException(new CorpusException("y", 2), new ArgumentException("z")));
        }
        catch (AggregateException ae) when (ae.InnerExceptions.Count == 2)
        {
            var flat = ae.Flatten();
            return string.Join(",", flat.InnerExceptions.Select(e => e.GetType().Name + ":" + e.Message));
        }
    }

    // ---------- stack traces ----------
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int DeepThrow(int depth)
    {
        if (depth == 0)
        {
            throw new CorpusException("bottom", 0);
        }
        // The call and the work after it share one statement (so one line): optimised
        // code reports the return address, which then still maps to this line.
        return DeepThrow(depth - 1) + 1; // `+ 1` keeps the call out of tail position
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int StartDeep()
    {
        return DeepThrow(2) * 3;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RethrowForTrace()
    {
        try
        {
            Console.WriteLine("unreached " + StartDeep());
        }
        catch (CorpusException)
        {
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ThrowFromLambda()
    {
        int limit = 1; // captured: the lambda lives in a closure class
        Func<int, int> f = x =>
        {
            if (x > limit) throw new InvalidOperationException("lambda");
            return x;
        };
        int a = f(1);
        if (a < 0) return -1;
        return f(a + 1) + a; // throws for x = 2
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void NullDeref(string s)
    {
        int n = s.Length;
        Console.WriteLine("unreached " + n);
    }

    static readonly Regex FrameRx = new Regex(@"^\s*at (?<method>[^(]+)\(.*?\)(?: in .*:line (?<line>\d+))?\s*$");

    static void PrintTrace(string title, Exception e)
    {
        Console.WriteLine("trace " + title + ": " + e.GetType().Name + ": " + e.Message);
        foreach (var raw in (e.StackTrace ?? "").Split('\n'))
        {
            var line = raw.TrimEnd('\r');
            if (line.Length == 0) continue;
            var m = FrameRx.Match(line);
            if (!m.Success) { Console.WriteLine("  ?? " + line.Trim()); continue; }
            var method = m.Groups["method"].Value;
            var ln = m.Groups["line"].Success ? m.Groups["line"].Value : "?";
            Console.WriteLine("  at " + method + " :line " + ln);
        }
    }

    static void StackTraces()
    {
        try { StartDeep(); }
        catch (Exception e) { PrintTrace("deep", e); }

        try { RethrowForTrace(); }
        catch (Exception e) { PrintTrace("rethrow", e); }

        try { ThrowFromLambda(); }
        catch (Exception e) { PrintTrace("lambda", e); }

        try { NullDeref(null); }
        catch (Exception e) { PrintTrace("nullref", e); }

        try { WrapAndThrow(4); }
        catch (Exception e)
        {
            Log.Clear();
            PrintTrace("wrapped-outer", e);
            PrintTrace("wrapped-inner", e.InnerException);
        }
    }

    public static void Main()
    {
        Console.WriteLine("== nested ==");
        for (int mode = 0; mode <= 4; mode++)
        {
            int r = Nested(mode);
            Flush("mode " + mode + " => " + r);
        }

        Console.WriteLine("== filters ==");
        foreach (var code in new[] { 2, 12, 7, -4 })
        {
            var s = Filters(code);
            Flush("code " + code + " => " + s);
        }
        Console.WriteLine(FilterThrows());
        try { throw new DerivedCorpusException("d", 5); }
        catch (CorpusException e) when (e is DerivedCorpusException { Code: > 4 } d) { Console.WriteLine("pattern filter matched " + d.Message + d.Code); }

        Console.WriteLine("== rethrow ==");
        try { Rethrower(3); }
        catch (CorpusException e) { Log.Add("outer caught " + e.Message + " code " + e.Code); }
        Flush("rethrow");
        try { WrapAndThrow(2); }
        catch (InvalidOperationException e) { Log.Add(e.Message + " inner=" + e.InnerException.Message); }
        Flush("wrap");
        try { Rethrower(0); Log.Add("no throw"); }
        catch { Log.Add("bad"); }
        Flush("nothrow");

        Console.WriteLine("== finally on return ==");
        Console.WriteLine("FinallyOnReturn(3)=" + FinallyOnReturn(3));
        Console.WriteLine("FinallyOnReturn(9)=" + FinallyOnReturn(9));
        Flush("log");
        Console.WriteLine("FinallyInLoop=" + FinallyInLoop());
        Console.WriteLine("Goto(4)=" + Goto(4));

        Console.WriteLine("== using ==");
        Usings(false);
        Flush("ok");
        Usings(true);
        Flush("fail");
        Console.WriteLine("StructUsing=" + StructUsing());

        Console.WriteLine("== crossing ==");
        foreach (var v in new[] { 1, 0, 5 })
        {
            var s = Crossing(v);
            Flush("v=" + v + " " + s);
        }

        Console.WriteLine("== runtime errors ==");
        for (int i = 0; i <= 7; i++) Console.WriteLine(i + ": " + RuntimeErrors(i));
        Console.WriteLine("aggregate: " + Aggregate());

        Console.WriteLine("== stack traces ==");
        StackTraces();
        Console.WriteLine("done");
    }
}
