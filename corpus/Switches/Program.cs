// Switches: a large dense `switch` over ints (compiled to the IL `switch` instruction
// with ~100 targets), a sparse int switch (compiled to compare trees), switches over
// strings (hash / length based dispatch), chars, enums, longs, `goto case`,
// switch expressions with relational, type, property and list patterns, and `when` guards.
namespace Weft.Corpus.Switches;

public enum Opcode : byte { Nop, Push, Pop, Add, Sub, Mul, Div, Dup, Swap, Jmp, Halt }

public abstract record Shape;
public sealed record Circle(int Radius) : Shape;
public sealed record Rectangle(int W, int H) : Shape;
public sealed record Triangle(int A, int B, int C) : Shape;

public static class Program
{
    // Dense switch: 96 consecutive cases, each with its own body.
    static int Dense(int selector, int acc)
    {
        switch (selector)
        {
            case 0: acc = acc * 3 + 0; break;
            case 1: acc ^= 1 * 0x9E37; break;
            case 2: acc = (acc << 1) - 2; break;
            case 3: acc += (acc >> 3) + 3; break;
            case 4: acc = acc * 7 - 4 * 13; break;
            case 5: acc -= 5 * 5; break;
            case 6: acc = (acc ^ (acc >> 5)) + 6; break;
            case 7: acc = unchecked(acc * 31 + 7 * 17); break;
            case 8: acc = acc * 3 + 8; break;
            case 9: acc ^= 9 * 0x9E37; break;
            case 10: acc = (acc << 1) - 10; break;
            case 11: acc += (acc >> 3) + 11; break;
            case 12: acc = acc * 7 - 12 * 13; break;
            case 13: acc -= 13 * 13; break;
            case 14: acc = (acc ^ (acc >> 5)) + 14; break;
            case 15: acc = unchecked(acc * 31 + 15 * 17); break;
            case 16: acc = acc * 3 + 16; break;
            case 17: acc ^= 17 * 0x9E37; break;
            case 18: acc = (acc << 1) - 18; break;
            case 19: acc += (acc >> 3) + 19; break;
            case 20: acc = acc * 7 - 20 * 13; break;
            case 21: acc -= 21 * 21; break;
            case 22: acc = (acc ^ (acc >> 5)) + 22; break;
            case 23: acc = unchecked(acc * 31 + 23 * 17); break;
            case 24: acc = acc * 3 + 24; break;
            case 25: acc ^= 25 * 0x9E37; break;
            case 26: acc = (acc << 1) - 26; break;
            case 27: acc += (acc >> 3) + 27; break;
            case 28: acc = acc * 7 - 28 * 13; break;
            case 29: acc -= 29 * 29; break;
            case 30: acc = (acc ^ (acc >> 5)) + 30; break;
            case 31: acc = unchecked(acc * 31 + 31 * 17); break;
            case 32: acc = acc * 3 + 32; break;
            case 33: acc ^= 33 * 0x9E37; break;
            case 34: acc = (acc << 1) - 34; break;
            case 35: acc += (acc >> 3) + 35; break;
            case 36: acc = acc * 7 - 36 * 13; break;
            case 37: acc -= 37 * 37; break;
            case 38: acc = (acc ^ (acc >> 5)) + 38; break;
            case 39: acc = unchecked(acc * 31 + 39 * 17); break;
            case 40: acc = acc * 3 + 40; break;
            case 41: acc ^= 41 * 0x9E37; break;
            case 42: acc = (acc << 1) - 42; break;
            case 43: acc += (acc >> 3) + 43; break;
            case 44: acc = acc * 7 - 44 * 13; break;
            case 45: acc -= 45 * 45; break;
            case 46: acc = (acc ^ (acc >> 5)) + 46; break;
            case 47: acc = unchecked(acc * 31 + 47 * 17); break;
            case 48: acc = acc * 3 + 48; break;
            case 49: acc ^= 49 * 0x9E37; break;
            case 50: acc = (acc << 1) - 50; break;
            case 51: acc += (acc >> 3) + 51; break;
            case 52: acc = acc * 7 - 52 * 13; break;
            case 53: acc -= 53 * 53; break;
            case 54: acc = (acc ^ (acc >> 5)) + 54; break;
            case 55: acc = unchecked(acc * 31 + 55 * 17); break;
            case 56: acc = acc * 3 + 56; break;
            case 57: acc ^= 57 * 0x9E37; break;
            case 58: acc = (acc << 1) - 58; break;
            case 59: acc += (acc >> 3) + 59; break;
            case 60: acc = acc * 7 - 60 * 13; break;
            case 61: acc -= 61 * 61; break;
            case 62: acc = (acc ^ (acc >> 5)) + 62; break;
            case 63: acc = unchecked(acc * 31 + 63 * 17); break;
            case 64: acc = acc * 3 + 64; break;
            case 65: acc ^= 65 * 0x9E37; break;
            case 66: acc = (acc << 1) - 66; break;
            case 67: acc += (acc >> 3) + 67; break;
            case 68: acc = acc * 7 - 68 * 13; break;
            case 69: acc -= 69 * 69; break;
            case 70: acc = (acc ^ (acc >> 5)) + 70; break;
            case 71: acc = unchecked(acc * 31 + 71 * 17); break;
            case 72: acc = acc * 3 + 72; break;
            case 73: acc ^= 73 * 0x9E37; break;
            case 74: acc = (acc << 1) - 74; break;
            case 75: acc += (acc >> 3) + 75; break;
            case 76: acc = acc * 7 - 76 * 13; break;
            case 77: acc -= 77 * 77; break;
            case 78: acc = (acc ^ (acc >> 5)) + 78; break;
            case 79: acc = unchecked(acc * 31 + 79 * 17); break;
            case 80: acc = acc * 3 + 80; break;
            case 81: acc ^= 81 * 0x9E37; break;
            case 82: acc = (acc << 1) - 82; break;
            case 83: acc += (acc >> 3) + 83; break;
            case 84: acc = acc * 7 - 84 * 13; break;
            case 85: acc -= 85 * 85; break;
            case 86: acc = (acc ^ (acc >> 5)) + 86; break;
            case 87: acc = unchecked(acc * 31 + 87 * 17); break;
            case 88: acc = acc * 3 + 88; break;
            case 89: acc ^= 89 * 0x9E37; break;
            case 90: acc = (acc << 1) - 90; break;
            case 91: acc += (acc >> 3) + 91; break;
            case 92: acc = acc * 7 - 92 * 13; break;
            case 93: acc -= 93 * 93; break;
            case 94: acc = (acc ^ (acc >> 5)) + 94; break;
            case 95: acc = unchecked(acc * 31 + 95 * 17); break;
            default: acc = -acc - 1; break;
        }
        return acc;
    }

    // Dense switch expression over small ints returning strings.
    static string DayName(int d) => d switch
    {
        0 => "Sunday", 1 => "Monday", 2 => "Tuesday", 3 => "Wednesday",
        4 => "Thursday", 5 => "Friday", 6 => "Saturday", _ => "?",
    };

    // Sparse values: compiled to a binary search of comparisons.
    static int Sparse(int code)
    {
        switch (code)
        {
            case -1000: return 1;
            case -7: return 2;
            case 3: return 3;
            case 100: return 4;
            case 1000: return 5;
            case 4096: return 6;
            case 65535: return 7;
            case 1000000: return 8;
            case int.MaxValue: return 9;
            default: return 0;
        }
    }

    // Two dense clusters with a gap: usually two `switch` instructions.
    static string Clusters(int v)
    {
        switch (v)
        {
            case 1: case 2: case 3: return "low-a";
            case 4: return "low-b";
            case 5: case 6: return "low-c";
            case 1001: return "high-1";
            case 1002: return "high-2";
            case 1003: return "high-3";
            case 1004: case 1005: return "high-45";
            default: return "none";
        }
    }

    static long LongSwitch(long v) => v switch
    {
        0L => 10,
        1L => 11,
        5_000_000_000L => 12,
        -5_000_000_000L => 13,
        long.MaxValue => 14,
        _ => -1,
    };

    // String switch with enough cases for the compiler to use hashing or length dispatch.
    static int Keyword(string word)
    {
        switch (word)
        {
            case "abstract": return 1;
            case "as": return 2;
            case "base": return 3;
            case "bool": return 4;
            case "break": return 5;
            case "byte": return 6;
            case "case": return 7;
            case "catch": return 8;
            case "char": return 9;
            case "checked": return 10;
            case "class": return 11;
            case "const": return 12;
            case "continue": return 13;
            case "decimal": return 14;
            case "default": return 15;
            case "delegate": return 16;
            case "do": return 17;
            case "double": return 18;
            case "else": return 19;
            case "enum": return 20;
            case "event": return 21;
            case "explicit": return 22;
            case "extern": return 23;
            case "false": return 24;
            case "finally": return 25;
            case "fixed": return 26;
            case "float": return 27;
            case "for": return 28;
            case "foreach": return 29;
            case "goto": return 30;
            case "": return 100;
            case null: return -100;
            default: return 0;
        }
    }

    static string SmallStringSwitch(string s) => s switch
    {
        "red" => "#f00",
        "green" => "#0f0",
        "blue" => "#00f",
        _ => "#???",
    };

    static int CharClass(char c)
    {
        switch (c)
        {
            case 'a': case 'e': case 'i': case 'o': case 'u': return 1;
            case >= '0' and <= '9': return 2;
            case ' ': case '\t': case '\n': return 3;
            case >= 'a' and <= 'z': return 4;
            case >= 'A' and <= 'Z': return 5;
            default: return 0;
        }
    }

    // A small stack machine dispatching on an enum; uses goto case.
    static string Run(Opcode[] code, int[] args)
    {
        var stack = new Stack<int>();
        int pc = 0, steps = 0;
        while (pc < code.Length && steps++ < 1000)
        {
            Opcode op = code[pc];
            int arg = args[pc];
            pc++;
            switch (op)
            {
                case Opcode.Nop: break;
                case Opcode.Push: stack.Push(arg); break;
                case Opcode.Pop: stack.Pop(); break;
                case Opcode.Add: stack.Push(stack.Pop() + stack.Pop()); break;
                case Opcode.Sub: { int b = stack.Pop(), a = stack.Pop(); stack.Push(a - b); break; }
                case Opcode.Mul: stack.Push(stack.Pop() * stack.Pop()); break;
                case Opcode.Div:
                    if (stack.Peek() == 0) goto case Opcode.Halt;
                    { int b = stack.Pop(), a = stack.Pop(); stack.Push(a / b); }
                    break;
                case Opcode.Dup: stack.Push(stack.Peek()); break;
                case Opcode.Swap: { int b = stack.Pop(), a = stack.Pop(); stack.Push(b); stack.Push(a); break; }
                case Opcode.Jmp:
                    if (stack.Pop() != 0) pc = arg;
                    break;
                case Opcode.Halt:
                    return "halt at " + pc + " stack=[" + string.Join(",", stack) + "]";
                default:
                    throw new InvalidOperationException("bad opcode");
            }
        }
        return "end steps=" + steps + " stack=[" + string.Join(",", stack) + "]";
    }

    static string Classify(object o) => o switch
    {
        null => "null",
        int i when i < 0 => "negative int",
        0 => "zero",
        int i when i < 10 => "small int " + i,
        int i => "int " + i,
        long l => "long " + l,
        string { Length: 0 } => "empty string",
        string s when s.StartsWith('#') => "tag " + s.Substring(1),
        string s => "string(" + s.Length + ")",
        int[] { Length: 0 } => "empty int[]",
        int[] and [var first, .., var last] => "int[] " + first + ".." + last,
        int[] and [var only] => "int[] single " + only,
        Circle { Radius: > 10 } => "big circle",
        Circle c => "circle r=" + c.Radius,
        Rectangle(var w, var h) when w == h => "square " + w,
        Rectangle r => "rect " + r.W + "x" + r.H,
        Shape => "other shape",
        _ => "unknown " + o.GetType().Name,
    };

    static int Area(Shape s) => s switch
    {
        Circle c => 3 * c.Radius * c.Radius,
        Rectangle { W: var w, H: var h } => w * h,
        Triangle t => (t.A + t.B + t.C) / 2,
        _ => throw new ArgumentException("shape"),
    };

    static string Tuple(int a, bool b) => (a, b) switch
    {
        (0, _) => "zero",
        ( > 0, true) => "pos-true",
        ( > 0, false) => "pos-false",
        (_, true) => "neg-true",
        _ => "neg-false",
    };

    static string Bucket(double d) => d switch
    {
        < 0 => "negative",
        0 => "zero",
        > 0 and <= 1 => "unit",
        > 1 and < 100 => "medium",
        double.PositiveInfinity => "infinite",
        double.NaN => "nan",
        _ => "large",
    };

    static void Main()
    {
        Console.WriteLine("== dense int switch ==");
        int acc = 1;
        for (int round = 0; round < 3; round++)
        {
            for (int sel = -2; sel < 100; sel++) acc = Dense(sel, acc);
            Console.WriteLine("round " + round + " acc=" + acc);
        }
        var sample = new List<string>();
        for (int sel = 0; sel < 100; sel += 9) sample.Add(sel + ":" + Dense(sel, 1000));
        Console.WriteLine(string.Join(" ", sample));
        Console.WriteLine(string.Join(",", Enumerable.Range(-1, 9).Select(DayName)));

        Console.WriteLine("== sparse / clusters / long ==");
        var sparseIn = new[] { -1000, -7, 3, 100, 1000, 4096, 65535, 1000000, int.MaxValue, 0, 99, int.MinValue };
        Console.WriteLine(string.Join(",", sparseIn.Select(Sparse)));
        Console.WriteLine(string.Join(",", new[] { 0, 1, 3, 4, 6, 7, 1000, 1001, 1003, 1005, 1006 }.Select(Clusters)));
        Console.WriteLine(string.Join(",", new[] { 0L, 1L, 5_000_000_000L, -5_000_000_000L, long.MaxValue, 2L }.Select(LongSwitch)));

        Console.WriteLine("== strings ==");
        var words = "class goto as foreach nope explicit base enum for do finally float checked abstract x Class".Split(' ');
        Console.WriteLine(string.Join(",", words.Select(w => w + "=" + Keyword(w))));
        Console.WriteLine("empty=" + Keyword("") + " null=" + Keyword(null));
        int ksum = 0;
        foreach (var w in new[] { "abstract", "as", "base", "bool", "break", "byte", "case", "catch", "char", "checked", "class", "const", "continue", "decimal", "default", "delegate", "do", "double", "else", "enum", "event", "explicit", "extern", "false", "finally", "fixed", "float", "for", "foreach", "goto" })
            ksum = ksum * 3 + Keyword(w);
        Console.WriteLine("keyword checksum=" + ksum);
        Console.WriteLine(SmallStringSwitch("green") + SmallStringSwitch("blue") + SmallStringSwitch("RED"));
        Console.WriteLine("chars: " + string.Join("", "Hello, World 42!\t".Select(c => (char)('0' + CharClass(c)))));

        Console.WriteLine("== enum switch / goto case ==");
        var prog = new[] { Opcode.Push, Opcode.Push, Opcode.Add, Opcode.Dup, Opcode.Mul, Opcode.Push, Opcode.Swap, Opcode.Sub, Opcode.Halt };
        var pargs = new[] { 3, 4, 0, 0, 0, 9, 0, 0, 0 };
        Console.WriteLine(Run(prog, pargs));
        // countdown loop: push 5; label 1: push 1; sub; dup; dup; jmp 1 (while != 0)
        var loop = new[] { Opcode.Push, Opcode.Push, Opcode.Sub, Opcode.Dup, Opcode.Dup, Opcode.Jmp, Opcode.Nop };
        var largs = new[] { 5, 1, 0, 0, 0, 1, 0 };
        Console.WriteLine(Run(loop, largs));
        var div0 = new[] { Opcode.Push, Opcode.Push, Opcode.Div, Opcode.Push };
        Console.WriteLine(Run(div0, new[] { 8, 0, 0, 1 }));
        var div = new[] { Opcode.Push, Opcode.Push, Opcode.Div };
        Console.WriteLine(Run(div, new[] { 85, 4, 0 }));

        Console.WriteLine("== patterns ==");
        object[] things = { null, -5, 0, 7, 123, 9L, "", "#tag", "plain", new int[0], new[] { 4, 5, 6 }, new[] { 8 }, new Circle(11), new Circle(2), new Rectangle(3, 3), new Rectangle(2, 5), new Triangle(3, 4, 5), 2.5 };
        foreach (var o in things) Console.WriteLine("  " + Classify(o));
        Console.WriteLine("areas=" + string.Join(",", new Shape[] { new Circle(2), new Rectangle(4, 5), new Triangle(6, 8, 10) }.Select(Area)));
        Console.WriteLine(string.Join(",", new[] { (0, true), (3, true), (3, false), (-3, true), (-3, false) }.Select(t => Tuple(t.Item1, t.Item2))));
        Console.WriteLine(string.Join(",", new[] { -1.0, 0.0, 0.5, 50.0, 1e9, double.PositiveInfinity, double.NaN }.Select(Bucket)));
        Console.WriteLine("done");
    }
}
