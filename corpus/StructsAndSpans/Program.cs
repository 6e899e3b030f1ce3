// Structs, ref locals and ref returns, in/out/ref parameters, readonly structs,
// ref structs (with ref fields), Span<T>/ReadOnlySpan<T>, stackalloc into a span,
// `scoped`, struct copies vs references, boxing/unboxing, inline arrays,
// default struct initialisation, mutable structs in arrays and lists.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Weft.Corpus.StructsAndSpans;

public struct Vec2
{
    public int X, Y;
    public Vec2(int x, int y) { X = x; Y = y; }
    public void Scale(int k) { X *= k; Y *= k; }
    public readonly int Dot(in Vec2 o) => X * o.X + Y * o.Y;
    public static Vec2 operator +(Vec2 a, Vec2 b) => new Vec2(a.X + b.X, a.Y + b.Y);
    public override readonly string ToString() => "<" + X + "," + Y + ">";
}

public readonly struct Money : IComparable<Money>
{
    public readonly long Cents;
    public readonly string Currency;
    public Money(long cents, string currency) { Cents = cents; Currency = currency; }
    public Money Add(Money o) => o.Currency == Currency ? new Money(Cents + o.Cents, Currency) : throw new InvalidOperationException("currency");
    public int CompareTo(Money other) => Cents.CompareTo(other.Cents);
    public override string ToString() => (Cents / 100) + "." + (Cents % 100).ToString("D2") + " " + Currency;
}

[StructLayout(LayoutKind.Sequential, Pack = 1)]
public struct Packed
{
    public byte A;
    public int B;
    public short C;
}

[StructLayout(LayoutKind.Explicit)]
public struct Overlay
{
    [FieldOffset(0)] public long Whole;
    [FieldOffset(0)] public int Low;
    [FieldOffset(4)] public int High;
    [FieldOffset(0)] public byte B0;
}

public struct Big
{
    public long A, B, C, D, E, F, G, H;
    public long Sum() => A + B + C + D + E + F + G + H;
}

// A ref struct holding a span and a ref field.
public ref struct Cursor
{
    private readonly Span<int> _data;
    private int _pos;
    public ref int Hits;
    public Cursor(Span<int> data, ref int hits) { _data = data; _pos = 0; Hits = ref hits; }
    public bool TryNext(out int value)
    {
        if (_pos >= _data.Length) { value = 0; return false; }
        value = _data[_pos++];
        Hits++;
        return true;
    }
    public ref int Current => ref _data[_pos - 1];
}

[InlineArray(8)]
public struct Buffer8
{
    private int _element0;
}

public sealed class Holder
{
    public Vec2 Field;
    public Vec2 Prop { get; set; }
    public Vec2[] Array = new Vec2[3];
    public ref Vec2 RefToField => ref Field;
}

public static class Program
{
    static int[] s_table = { 5, 3, 9, 1, 7 };

    static ref int FindMax(int[] arr)
    {
        int best = 0;
        for (int i = 1; i < arr.Length; i++) if (arr[i] > arr[best]) best = i;
        return ref arr[best];
    }

    static ref int Choose(bool first, ref int a, ref int b) => ref first ? ref a : ref b;

    static ref readonly Vec2 ReadOnlyRef(in Vec2 v) => ref v;

    static void Swap<T>(ref T a, ref T b) { T t = a; a = b; b = t; }

    static bool TryDivide(int a, int b, out int quotient, out int remainder)
    {
        if (b == 0) { quotient = remainder = 0; return false; }
        quotient = a / b;
        remainder = a % b;
        return true;
    }

    static long SumBig(in Big b) => b.Sum();
    static long SumBigByValue(Big b) { b.A = 1000; return b.Sum(); }

    static int SumSpan(ReadOnlySpan<int> span)
    {
        int s = 0;
        foreach (var x in span) s += x;
        return s;
    }

    static void Fill(Span<int> span, int start)
    {
        for (int i = 0; i < span.Length; i++) span[i] = start + i * i;
    }

    static int ParseCsvInts(ReadOnlySpan<char> text, scoped Span<int> into)
    {
        int count = 0;
        while (!text.IsEmpty && count < into.Length)
        {
            int comma = text.IndexOf(',');
            var part = comma < 0 ? text : text.Slice(0, comma);
            into[count++] = int.Parse(part.Trim());
            text = comma < 0 ? ReadOnlySpan<char>.Empty : text.Slice(comma + 1);
        }
        return count;
    }

    static void Reverse<T>(Span<T> s)
    {
        for (int i = 0, j = s.Length - 1; i < j; i++, j--) (s[i], s[j]) = (s[j], s[i]);
    }

    static string Hex(ReadOnlySpan<byte> bytes)
    {
        Span<char> chars = stackalloc char[bytes.Length * 2];
        const string digits = "0123456789abcdef";
        for (int i = 0; i < bytes.Length; i++)
        {
            chars[2 * i] = digits[bytes[i] >> 4];
            chars[2 * i + 1] = digits[bytes[i] & 15];
        }
        return new string(chars);
    }

    static int Checksum(scoped ReadOnlySpan<byte> data)
    {
        int a = 1, b = 0;
        foreach (var x in data) { a = (a + x) % 65521; b = (b + a) % 65521; }
        return (b << 16) | a;
    }

    static void Main()
    {
        Console.WriteLine("== struct copies ==");
        var v = new Vec2(2, 3);
        var copy = v;
        copy.Scale(10);
        Console.WriteLine("v=" + v + " copy=" + copy + " sum=" + (v + copy) + " dot=" + v.Dot(copy));
        var holder = new Holder();
        holder.Field.Scale(5); // no-op on zero
        holder.Field.X = 4;
        holder.Field.Scale(2);
        var p = holder.Prop;
        p.X = 99; // modifies a copy
        holder.Array[1].Y = 7;
        holder.Array[1].Scale(3);
        holder.RefToField.Y = -1;
        Console.WriteLine("holder field=" + holder.Field + " prop=" + holder.Prop + " arr=" + string.Join("", holder.Array));
        var list = new List<Vec2> { new Vec2(1, 1) };
        var item = list[0]; item.X = 50; list[0] = item;
        var span = CollectionsMarshal.AsSpan(list);
        span[0].Y = 60;
        Console.WriteLine("list[0]=" + list[0]);
        Vec2 def = default;
        Vec2 ctor = new Vec2();
        Console.WriteLine("default=" + def + " new()=" + ctor + " equals=" + def.Equals(ctor));

        Console.WriteLine("== readonly struct / in ==");
        var m1 = new Money(1250, "EUR");
        var m2 = new Money(399, "EUR");
        var total = m1.Add(m2);
        Console.WriteLine("money=" + total + " cmp=" + m1.CompareTo(m2) + " max=" + (m1.CompareTo(m2) > 0 ? m1 : m2));
        try { m1.Add(new Money(1, "USD")); } catch (InvalidOperationException e) { Console.WriteLine("mismatch: " + e.Message); }
        var big = new Big { A = 1, B = 2, C = 3, D = 4, E = 5, F = 6, G = 7, H = 8 };
        Console.WriteLine("big in=" + SumBig(big) + " byval=" + SumBigByValue(big) + " after=" + big.Sum());
        ref readonly Vec2 rr = ref ReadOnlyRef(v);
        Console.WriteLine("readonly ref=" + rr);

        Console.WriteLine("== ref locals / returns ==");
        ref int max = ref FindMax(s_table);
        max = -max;
        Console.WriteLine("table=" + string.Join(",", s_table));
        ref int max2 = ref FindMax(s_table);
        max2 += 100;
        Console.WriteLine("table=" + string.Join(",", s_table));
        int a = 1, b = 2;
        Choose(true, ref a, ref b) = 10;
        Choose(false, ref a, ref b) += 20;
        Swap(ref a, ref b);
        Console.WriteLine($"a={a} b={b}");
        string s1 = "left", s2 = "right";
        Swap(ref s1, ref s2);
        Console.WriteLine($"s1={s1} s2={s2}");
        int[] arr = { 1, 2, 3, 4 };
        ref int r = ref arr[0];
        for (int i = 0; i < arr.Length; i++) { r = ref arr[i]; r *= r; }
        Console.WriteLine("squares=" + string.Join(",", arr));
        ref int elem = ref MemoryMarshal.GetArrayDataReference(arr);
        Console.WriteLine("Unsafe.Add=" + Unsafe.Add(ref elem, 2));
        Console.WriteLine("TryDivide: " + (TryDivide(47, 5, out var q, out var rem) ? q + " r " + rem : "fail") + " / " + (TryDivide(1, 0, out _, out _) ? "?" : "div0"));

        Console.WriteLine("== layouts ==");
        Console.WriteLine("sizeof Packed=" + Unsafe.SizeOf<Packed>() + " Vec2=" + Unsafe.SizeOf<Vec2>() + " Big=" + Unsafe.SizeOf<Big>() + " Overlay=" + Unsafe.SizeOf<Overlay>());
        var ov = new Overlay { Whole = 0x0000000A_000000FFL };
        Console.WriteLine("overlay low=" + ov.Low + " high=" + ov.High + " b0=" + ov.B0);
        ov.High = -1;
        Console.WriteLine("overlay whole=" + ov.Whole);

        Console.WriteLine("== spans ==");
        Span<int> stack = stackalloc int[10];
        Fill(stack, 3);
        Console.WriteLine("stack span=" + string.Join(",", stack.ToArray()) + " sum=" + SumSpan(stack));
        Reverse(stack.Slice(2, 5));
        Console.WriteLine("partially reversed=" + string.Join(",", stack.ToArray()));
        Span<int> parsed = stackalloc int[8];
        int n = ParseCsvInts(" 12, 7 ,-3,40,5 ", parsed);
        Console.WriteLine("parsed " + n + ": " + string.Join("|", parsed.Slice(0, n).ToArray()));
        var heap = new int[] { 9, 8, 7, 6, 5, 4 };
        Span<int> hs = heap.AsSpan(1, 4);
        hs.Sort();
        Console.WriteLine("sorted slice=" + string.Join(",", heap));
        ReadOnlySpan<byte> bytes = "weft!"u8;
        Console.WriteLine("u8 hex=" + Hex(bytes) + " checksum=" + Checksum(bytes));
        ReadOnlySpan<char> chars = "hello, span world".AsSpan();
        Console.WriteLine("index=" + chars.IndexOf("span".AsSpan()) + " last o=" + chars.LastIndexOf('o') + " starts=" + chars.StartsWith("hell".AsSpan()) + " slice=" + chars[7..11].ToString());
        Span<byte> raw = stackalloc byte[16];
        MemoryMarshal.Write(raw, in v);
        MemoryMarshal.Write(raw.Slice(8), 0x1122334455667788L);
        Console.WriteLine("raw=" + Hex(raw));
        var ints = MemoryMarshal.Cast<byte, int>(raw);
        Console.WriteLine("as ints=" + string.Join(",", ints.ToArray()));
        Span<Vec2> vecs = stackalloc Vec2[3];
        for (int i = 0; i < vecs.Length; i++) vecs[i] = new Vec2(i, -i);
        foreach (ref var vv in vecs) vv.Scale(4);
        Console.WriteLine("vecs=" + string.Join("", vecs.ToArray()));

        Console.WriteLine("== ref struct ==");
        int hits = 0;
        var cursor = new Cursor(stack, ref hits);
        int acc = 0;
        while (cursor.TryNext(out int x))
        {
            acc += x;
            if ((x & 1) == 0) cursor.Current = 0;
        }
        Console.WriteLine("cursor acc=" + acc + " hits=" + hits + " after=" + string.Join(",", stack.ToArray()));

        Console.WriteLine("== inline array ==");
        var buf = new Buffer8();
        for (int i = 0; i < 8; i++) buf[i] = i * 3 + 1;
        Span<int> bs = buf;
        Console.WriteLine("inline=" + string.Join(",", bs.ToArray()) + " sum=" + SumSpan(buf));

        Console.WriteLine("== boxing ==");
        object boxed = v;
        v.X = 1000;
        var unboxed = (Vec2)boxed;
        Console.WriteLine("boxed=" + boxed + " unboxed=" + unboxed + " v=" + v);
        IComparable<Money> cmp = m1;
        Console.WriteLine("via interface=" + cmp.CompareTo(m2));
        object[] objs = { 1, 2L, 3.0f, (byte)4, 'c', true, new Vec2(1, 2), (int?)5, null };
        Console.WriteLine("types=" + string.Join(",", objs.Select(o => o == null ? "null" : o.GetType().Name)));
        int? maybe = null;
        int? some = 17;
        Console.WriteLine("nullable: " + (maybe ?? -1) + " " + some.GetValueOrDefault() + " " + (maybe + some).HasValue + " " + ((object)maybe == null) + " " + (some * 2));
        Console.WriteLine("done");
    }
}
