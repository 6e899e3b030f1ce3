// Switch sections that end where the switch ends (optimized, the last falls into the code after
// it, which the empty section's arm also jumps to), loops left by `break`, and `||`/`&&`
// conditions whose first half jumps to where the second half goes on.

namespace Weft.BranchPatterns;

public enum Token { None, StartObject, StartArray, PropertyName, Comment, Raw, Integer, Float, String, Boolean, Null, EndObject, EndArray }

public class Machine
{
    Token _state;
    public int Depth, Values, Skipped;

    public void Step(Token t)
    {
        _state = t;
        switch (_state)
        {
            case Token.StartObject:
            case Token.StartArray:
                Depth++;
                break;
            case Token.EndObject:
            case Token.EndArray:
                Depth--;
                break;
            case Token.Comment:
                break;
            case Token.Integer:
            case Token.Float:
            case Token.String:
                Values++;
                break;
            default:
                Skipped++;
                break;
        }
    }

    public static int Loops(int[] xs, int stop)
    {
        int found = 0;
        for (int i = 0; i < xs.Length; i++)
        {
            if (xs[i] == stop)
                break;
            found += xs[i];
        }
        int j = 0;
        while (j < xs.Length)
        {
            if (xs[j] < 0)
                break;
            j++;
        }
        foreach (int x in xs)
        {
            if (x > stop || x == -stop)
                break;
            found++;
        }
        return found + j;
    }

    public static int Conditions(int a, int b)
    {
        int r = 0;
        if (a > 0 || b > 0)
            r++;
        if (a > 0 && b > 0 || a < -5)
            r += 2;
        if (!(a == b || b == 3))
            r += 4;
        return r;
    }

    public static int Run()
    {
        var m = new Machine();
        foreach (Token t in new[] { Token.StartObject, Token.PropertyName, Token.Integer, Token.StartArray, Token.String, Token.EndArray, Token.EndObject, Token.Comment })
            m.Step(t);
        var idle = new Machine();
        for (int i = 0; i < 3; i++)
            idle.Step(Token.Integer);
        int r = m.Depth + m.Values + m.Skipped + idle.Values;
        r += Loops(new[] { 1, 2, 3 }, 2) + Loops(new[] { 4, -1 }, 9) + Loops(new int[0], 1);
        foreach (var (a, b) in new[] { (1, 0), (0, 0), (2, 2), (-6, 3) })
            r += Conditions(a, b);
        return r;
    }
}
