// Statements that are a lone `br` reached by a conditional branch (`goto case` into a loop,
// `continue;` after a check that throws, `return;` in a switch section inside a loop), as
// Newtonsoft.Json's JsonTextReader and XmlNodeConverter write them: coverlet's counter for the
// taken branch goes on to where the `br`s end, past the statement's counter, so coverlet counts
// the statement only when other code arrives at it.

namespace Weft.BranchPatterns;

public enum Phase { Start, Property, Array, PostValue, Done }

public class Jumps
{
    readonly int[] _data;
    int _pos;
    public int Depth, Values, Skipped;

    public Jumps(int[] data) { _data = data; }

    bool ParsePostValue(bool strict) => _pos >= _data.Length || (strict && _data[_pos] < 0);

    public string Read(Phase state)
    {
        switch (state)
        {
            case Phase.PostValue:
                if (ParsePostValue(true))
                {
                    return null;
                }
                goto case Phase.Start;
            case Phase.Start:
            case Phase.Property:
            case Phase.Array:
                while (true)
                {
                    if (_pos >= _data.Length)
                        return "end";
                    int c = _data[_pos++];
                    if (c == 0)
                        return "zero";
                }
            default:
                return "other";
        }
    }

    static int Refill(int x) => x + 1;

    public static int Continues(int[] xs)
    {
        int n = 0, i = 0;
        while (i < xs.Length)
        {
            int x = xs[i++];
            if (x == 0)
            {
                if (Refill(x) == 0)
                {
                    throw new InvalidOperationException("no data");
                }

                continue;
            }
            n += x;
        }
        return n;
    }

    public void Walk(Token[] tokens)
    {
        int i = 0;
        do
        {
            switch (tokens[i])
            {
                case Token.StartObject:
                    Depth++;
                    break;
                case Token.Comment:
                    Values++;
                    break;
                case Token.EndObject:
                case Token.EndArray:
                    return;
                default:
                    Skipped++;
                    break;
            }
        } while (++i < tokens.Length);
        Skipped += 100;
    }

    public static int Run()
    {
        int r = 0;
        foreach (var (data, phase) in new[] { (new[] { 3, 0 }, Phase.PostValue), (new[] { -1 }, Phase.PostValue),
                                               (new int[0], Phase.PostValue), (new[] { 2, 5 }, Phase.Start),
                                               (new[] { 1 }, Phase.Done) })
            r += new Jumps(data).Read(phase)?.Length ?? 1;
        r += Continues(new[] { 0, 4, 0, 0, 7 }) + Continues(new[] { 1 });
        var w = new Jumps(new int[0]);
        w.Walk(new[] { Token.StartObject, Token.Comment, Token.EndObject, Token.Integer });
        w.Walk(new[] { Token.Comment, Token.Null });
        w.Walk(new[] { Token.EndArray });
        return r + w.Depth + w.Values + w.Skipped;
    }
}
