// CallHeavy: a benchmark-style program made of many small method calls:
// naive recursive Fibonacci, virtual and interface dispatch over a class hierarchy,
// delegate calls, generic calls over value and reference types, small static helpers,
// and a tiny bytecode interpreter with one method per opcode.
// Usage: CallHeavy [rounds]   (default 1). With the default the output is fixed and
// checked; a larger count makes the run proportionally longer for benchmarking.
using System.Runtime.CompilerServices;

namespace Weft.Corpus.CallHeavy;

public abstract class Shape
{
    public abstract long Area();
    public virtual long Perimeter() => 0;
    public long Weight() => Area() * 3 + Perimeter();
}

public sealed class Sq : Shape
{
    private readonly int _s;
    public Sq(int s) { _s = s; }
    public override long Area() => (long)_s * _s;
    public override long Perimeter() => 4L * _s;
}

public sealed class Rc : Shape
{
    private readonly int _w, _h;
    public Rc(int w, int h) { _w = w; _h = h; }
    public override long Area() => (long)_w * _h;
    public override long Perimeter() => 2L * (_w + _h);
}

public class Tri : Shape
{
    protected readonly int B, H;
    public Tri(int b, int h) { B = b; H = h; }
    public override long Area() => (long)B * H / 2;
}

public sealed class RightTri : Tri
{
    public RightTri(int b, int h) : base(b, h) { }
    public override long Perimeter() => B + H + (long)Math.Sqrt((double)B * B + (double)H * H);
}

public interface IStep
{
    int Apply(int x);
}

public sealed class AddStep : IStep { private readonly int _k; public AddStep(int k) { _k = k; } public int Apply(int x) => x + _k; }
public sealed class XorStep : IStep { private readonly int _k; public XorStep(int k) { _k = k; } public int Apply(int x) => x ^ _k; }
public sealed class RotStep : IStep { public int Apply(int x) => (x << 3) | (int)((uint)x >> 29); }
public struct MulStep : IStep { public int K; public int Apply(int x) => x * K; }

public enum Op : byte { Push, Load, Store, Add, Sub, Mul, Mod, Lt, Jz, Jmp, Dup, Pop, Halt }

public sealed class Vm
{
    private readonly int[] _stack = new int[64];
    private readonly int[] _vars = new int[8];
    private int _sp;
    public long Executed;

    [MethodImpl(MethodImplOptions.NoInlining)] void Push(int v) => _stack[_sp++] = v;
    [MethodImpl(MethodImplOptions.NoInlining)] int Pop() => _stack[--_sp];
    [MethodImpl(MethodImplOptions.NoInlining)] void DoAdd() { int b = Pop(), a = Pop(); Push(a + b); }
    [MethodImpl(MethodImplOptions.NoInlining)] void DoSub() { int b = Pop(), a = Pop(); Push(a - b); }
    [MethodImpl(MethodImplOptions.NoInlining)] void DoMul() { int b = Pop(), a = Pop(); Push(a * b); }
    [MethodImpl(MethodImplOptions.NoInlining)] void DoMod() { int b = Pop(), a = Pop(); Push(a % b); }
    [MethodImpl(MethodImplOptions.NoInlining)] void DoLt() { int b = Pop(), a = Pop(); Push(a < b ? 1 : 0); }

    public int Run(byte[] code)
    {
        int pc = 0;
        _sp = 0;
        Array.Clear(_vars);
        while (true)
        {
            Executed++;
            var op = (Op)code[pc++];
            switch (op)
            {
                case Op.Push: Push((sbyte)code[pc++]); break;
                case Op.Load: Push(_vars[code[pc++]]); break;
                case Op.Store: _vars[code[pc++]] = Pop(); break;
                case Op.Add: DoAdd(); break;
                case Op.Sub: DoSub(); break;
                case Op.Mul: DoMul(); break;
                case Op.Mod: DoMod(); break;
                case Op.Lt: DoLt(); break;
                case Op.Jz: { int target = code[pc++]; if (Pop() == 0) pc = target; break; }
                case Op.Jmp: pc = code[pc]; break;
                case Op.Dup: { int v = Pop(); Push(v); Push(v); break; }
                case Op.Pop: Pop(); break;
                case Op.Halt: return _vars[1];
                default: throw new InvalidOperationException("bad op");
            }
        }
    }
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Ackermann(long m, long n)
    {
        if (m == 0) return n + 1;
        if (n == 0) return Ackermann(m - 1, 1);
        return Ackermann(m - 1, Ackermann(m, n - 1));
    }

    static long Shapes(int loops)
    {
        var shapes = new Shape[] { new Sq(3), new Rc(2, 7), new Tri(6, 5), new RightTri(3, 4), new Sq(10), new Rc(1, 1), new RightTri(5, 12), new Tri(9, 9) };
        long sum = 0;
        for (int i = 0; i < loops; i++)
        {
            Shape s = shapes[i & 7];
            sum += s.Area();
            sum ^= s.Weight();
        }
        return sum;
    }

    static int Steps(int loops)
    {
        IStep[] steps = { new AddStep(7), new XorStep(0x5A5A), new RotStep(), new MulStep { K = 3 }, new AddStep(-11) };
        int x = 1;
        for (int i = 0; i < loops; i++) x = steps[i % steps.Length].Apply(x);
        return x;
    }

    static T Max<T>(T a, T b) where T : IComparable<T> => a.CompareTo(b) >= 0 ? a : b;

    static long Generics(int loops)
    {
        long acc = 0;
        string best = "";
        for (int i = 0; i < loops; i++)
        {
            acc += Max(i % 1000, 500);
            acc += Max((long)i * 3 % 777, 300L);
            if ((i & 1023) == 0) best = Max(best, "k" + (i % 9));
        }
        return acc + best.Length * 1000 + best[^1];
    }

    static long Delegates(int loops)
    {
        Func<int, int>[] fs = { x => x + 1, x => x * 2, x => x - 3, static x => x ^ 0xFF };
        long acc = 0;
        int v = 0;
        for (int i = 0; i < loops; i++)
        {
            v = fs[i & 3](v) & 0xFFFFF;
            acc += v;
        }
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Mix(int a, int b, int c, int d, int e, int f) => ((a * 31 + b) * 31 + c) ^ ((d * 17 + e) * 17 + f);

    static int ManyArgs(int loops)
    {
        int h = 0;
        for (int i = 0; i < loops; i++) h = Mix(h, i, i >> 1, i >> 2, h >> 3, 7);
        return h;
    }

    // while (i < n) { sum = sum + (i * i) % 7; i = i + 1 }
    static byte[] Program1(int n)
    {
        return new byte[]
        {
            (byte)Op.Push, (byte)n, (byte)Op.Store, 2,          // 0: n -> v2
            (byte)Op.Push, 0, (byte)Op.Store, 0,                // 4: i = 0
            (byte)Op.Push, 0, (byte)Op.Store, 1,                // 8: sum = 0
            (byte)Op.Load, 0, (byte)Op.Load, 2, (byte)Op.Lt,    // 12: i < n
            (byte)Op.Jz, 41,                                    // 17
            (byte)Op.Load, 1, (byte)Op.Load, 0, (byte)Op.Load, 0, (byte)Op.Mul, (byte)Op.Push, 7, (byte)Op.Mod, (byte)Op.Add, (byte)Op.Store, 1, // 19
            (byte)Op.Load, 0, (byte)Op.Push, 1, (byte)Op.Add, (byte)Op.Store, 0, // 32
            (byte)Op.Jmp, 12,                                   // 39
            (byte)Op.Halt,                                      // 41
        };
    }

    static void Main(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0]) : 1;
        if (rounds < 1) rounds = 1;
        long checksum = 17;
        var vm = new Vm();
        for (int r = 0; r < rounds; r++)
        {
            bool print = r == 0;
            int fib = Fib(27);
            int fibMix = Fib(26 - r % 2) - Fib(25 + r % 2);
            long ack = Ackermann(2, 300 + r % 3);
            long shapes = Shapes(16_000_000);
            int steps = Steps(12_000_000);
            long gen = Generics(6_000_000);
            long del = Delegates(12_000_000);
            int many = ManyArgs(12_000_000);
            int vmSum = 0;
            for (int k = 0; k < 600; k++) vmSum += vm.Run(Program1(40 + k % 80));
            if (print)
            {
                Console.WriteLine("fib(27)=" + fib + " fib(26)-fib(25)=" + fibMix);
                Console.WriteLine("ackermann(2,300)=" + ack);
                Console.WriteLine("shapes=" + shapes);
                Console.WriteLine("steps=" + steps);
                Console.WriteLine("generics=" + gen);
                Console.WriteLine("delegates=" + del);
                Console.WriteLine("manyargs=" + many);
                Console.WriteLine("vm=" + vmSum + " executed=" + vm.Executed);
            }
            checksum = unchecked(checksum * 1_000_003 + fib);
            checksum = unchecked(checksum * 1_000_003 + fibMix);
            checksum = unchecked(checksum * 1_000_003 + ack);
            checksum = unchecked(checksum * 1_000_003 + shapes);
            checksum = unchecked(checksum * 1_000_003 + steps);
            checksum = unchecked(checksum * 1_000_003 + gen);
            checksum = unchecked(checksum * 1_000_003 + del);
            checksum = unchecked(checksum * 1_000_003 + many);
            checksum = unchecked(checksum * 1_000_003 + vmSum);
        }
        Console.WriteLine("rounds=" + rounds + " checksum=" + checksum);
    }
}
