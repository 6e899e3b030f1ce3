using System;
using System.Collections.Generic;

// Each line ending in "// hits: N" must be reported run exactly N times: a line is run only when
// control reached it, even where a call before it in the same block threw. A line's hits are the
// runs of every statement on it added up, as coverlet counts (`if (fail) throw ...;` is two).
public static class Lines
{
    static int Total;

    static void Fail(bool fail)
    {
        if (fail) throw new InvalidOperationException("fail"); // hits: 10
    } // hits: 2

    static int CallThrowsMidBlock(bool fail)
    {
        Total++; // hits: 3
        Fail(fail); // hits: 3
        Total += 10; // hits: 1
        return Total; // hits: 1
    } // hits: 1

    static void NullDereference(string s)
    {
        int before = Total; // hits: 2
        int n = s.Length; // hits: 2
        Total = before + n; // hits: 1
    } // hits: 1

    static int DivideInLoop(int[] divisors)
    {
        int sum = 0; // hits: 1
        foreach (int d in divisors)
        {
            sum += 100 / d; // hits: 3
            Total++; // hits: 2
        }
        return sum; // hits: 0
    }

    static string CaughtInside(bool fail)
    {
        string result = "start"; // hits: 2
        try
        {
            Fail(fail); // hits: 2
            result = "no failure"; // hits: 1
        }
        catch (InvalidOperationException)
        {
            result = "caught"; // hits: 1
        }
        return result; // hits: 2
    }

    static void Deep(int n)
    {
        if (n == 0) Fail(true); // hits: 5
        Deep(n - 1); // hits: 3
        Total--; // hits: 0
    }

    sealed class Guarded
    {
        public readonly int Value;
        public Guarded(int value)
        {
            Total++; // hits: 2
            if (value < 0) throw new ArgumentOutOfRangeException(nameof(value)); // hits: 3
            Value = value; // hits: 1
        }
    }

    // No instruction here can throw: one counter for the whole method.
    static int StraightLine(int x)
    {
        int a = x + 1; // hits: 1
        int b = a * 2; // hits: 1
        return a ^ b; // hits: 1
    }

    static void Attempt(Action a, List<string> log)
    {
        try
        {
            a();
            log.Add("ok");
        }
        catch (Exception e)
        {
            log.Add(e.GetType().Name);
        }
    }

    public static void Main()
    {
        var log = new List<string>();
        Attempt(() => CallThrowsMidBlock(false), log);
        Attempt(() => CallThrowsMidBlock(true), log);
        Attempt(() => CallThrowsMidBlock(true), log);
        Attempt(() => NullDereference("abc"), log);
        Attempt(() => NullDereference(null), log);
        Attempt(() => DivideInLoop(new[] { 5, 10, 0, 20 }), log);
        log.Add(CaughtInside(false));
        log.Add(CaughtInside(true));
        Attempt(() => Deep(3), log);
        Attempt(() => new Guarded(1), log);
        Attempt(() => new Guarded(-1), log);
        log.Add(StraightLine(20).ToString());
        Console.WriteLine(string.Join(",", log));
    }
}
