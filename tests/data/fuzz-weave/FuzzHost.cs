// Methods of different shapes whose bodies FuzzWeave replaces with fuzzed bytes: static and
// instance, with and without a return value, by-ref, generic and vararg-free value-type code.
// Their own bodies are the seeds. int.Parse and string.Concat are the intercept-call targets.
using System;

namespace Weft.Fuzz;

public struct Pair
{
    public int A;
    public long B;
    public int Sum() => A + (int)B;
}

public class Host
{
    int field;
    static string text = "";

    public static void Nothing() { }

    public static int Add(int a, int b) => a + b;

    public int Instance(string s, ref int count)
    {
        count += s.Length + field;
        return int.Parse(s);
    }

    public static string Join(string a, string b, object o)
    {
        try
        {
            return string.Concat(a, b) + o;
        }
        catch (FormatException e) when (e.Message.Length > 2)
        {
            return e.Message;
        }
        finally
        {
            text = a;
        }
    }

    public static T Pick<T>(T x, T y, bool first) => first ? x : y;

    public static long Loop(int n, double d)
    {
        long sum = 0;
        for (int i = 0; i < n; i++)
        {
            switch (i % 4)
            {
                case 0: sum += i; break;
                case 1: sum -= (long)d; break;
                case 2: sum *= 2; break;
                default: continue;
            }
        }
        return sum;
    }

    public static unsafe int Pointers(int* p, Pair pair, Span<int> span)
    {
        int local = pair.Sum();
        span[0] = *p + local;
        return span.Length;
    }

    public static void Throws(object o)
    {
        if (o == null)
            throw new ArgumentNullException(nameof(o));
        text = o.ToString();
    }
}
