// Unsafe code: pointers and pointer arithmetic, `fixed` (arrays, strings, fields,
// fixed-size buffers), stackalloc into a pointer, sizeof, pointer-to-struct with ->,
// void* and casts, managed function pointers (calli), unmanaged[Cdecl] function
// pointers taken from [UnmanagedCallersOnly] methods, and __makeref / __refvalue /
// __reftype with TypedReference.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Weft.Corpus.UnsafeCode;

[StructLayout(LayoutKind.Sequential)]
public unsafe struct Header
{
    public int Tag;
    public fixed byte Name[8];
    public fixed int Values[4];
    public long Stamp;
}

public struct Node
{
    public int Value;
    public unsafe Node* Next;
}

public sealed class Box
{
    public int A;
    public long B;
    public double C;
}

public static unsafe class Program
{
    // ---------- pointer basics ----------
    static long SumPtr(int* p, int count)
    {
        long s = 0;
        int* end = p + count;
        while (p < end) s += *p++;
        return s;
    }

    static void ReverseInPlace(byte* start, int length)
    {
        byte* lo = start, hi = start + length - 1;
        while (lo < hi)
        {
            byte t = *lo; *lo = *hi; *hi = t;
            lo++; hi--;
        }
    }

    static int StrLen(char* s)
    {
        char* p = s;
        while (*p != '\0') p++;
        return (int)(p - s);
    }

    static uint Fnv1a(void* data, int length)
    {
        uint h = 2166136261;
        byte* b = (byte*)data;
        for (int i = 0; i < length; i++) { h ^= b[i]; h *= 16777619; }
        return h;
    }

    // ---------- function pointers ----------
    static int Square(int x) => x * x;
    static int Negate(int x) => -x;
    static int Triple(int x) => 3 * x;
    static long Combine(int a, long b, short c) => a * 1000000L + b * 10 + c;
    static string Describe(string s, int n) => s + "#" + n;

    [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
    static int NativeAdd(int a, int b) => a + b;

    [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
    static void NativeFill(int* dest, int count, int seed)
    {
        for (int i = 0; i < count; i++) dest[i] = seed + i * seed;
    }

    [UnmanagedCallersOnly]
    static double NativeScale(double x) => x * 2.5;

    static int ApplyAll(delegate*<int, int>[] fns, int x)
    {
        foreach (var f in fns) x = f(x);
        return x;
    }

    static T Twice<T>(delegate*<T, T> f, T x) => f(f(x));

    // ---------- TypedReference ----------
    static string Inspect(TypedReference tr)
    {
        Type t = __reftype(tr);
        if (t == typeof(int)) { __refvalue(tr, int) += 1; return "int now " + __refvalue(tr, int); }
        if (t == typeof(string)) { __refvalue(tr, string) = __refvalue(tr, string) + "!"; return "string now " + __refvalue(tr, string); }
        if (t == typeof(double)) return "double " + __refvalue(tr, double);
        return "other " + t.Name;
    }

    static void Main()
    {
        Console.WriteLine("== sizeof ==");
        Console.WriteLine($"byte={sizeof(byte)} short={sizeof(short)} int={sizeof(int)} long={sizeof(long)} char={sizeof(char)} bool={sizeof(bool)}");
        Console.WriteLine($"float={sizeof(float)} double={sizeof(double)} decimal={sizeof(decimal)} Header={sizeof(Header)} Node={sizeof(Node)} ptr={sizeof(void*)} nint={sizeof(nint)}");

        Console.WriteLine("== fixed arrays / strings ==");
        int[] data = new int[20];
        for (int i = 0; i < data.Length; i++) data[i] = i * 3 - 7;
        fixed (int* p = data)
        {
            Console.WriteLine("sum=" + SumPtr(p, data.Length) + " p[5]=" + p[5] + " *(p+19)=" + *(p + 19));
            int* q = &p[10];
            q[-1] = 1000;
            *q += 500;
            Console.WriteLine("distance=" + (q - p) + " q[-1]=" + q[-1] + " q[0]=" + q[0]);
        }
        Console.WriteLine("data[9..11]=" + data[9] + "," + data[10] + "," + data[11]);
        byte[] bytes = "abcdefg"u8.ToArray();
        fixed (byte* b = bytes) ReverseInPlace(b, bytes.Length);
        Console.WriteLine("reversed=" + System.Text.Encoding.ASCII.GetString(bytes));
        string text = "pointer text";
        fixed (char* c = text)
        {
            Console.WriteLine("strlen=" + StrLen(c) + " c[3]=" + c[3] + " hash=" + Fnv1a(c, text.Length * 2).ToString("x8"));
        }
        fixed (int* empty = Array.Empty<int>()) Console.WriteLine("empty array pointer null=" + (empty == null));

        Console.WriteLine("== stackalloc pointer ==");
        int* buf = stackalloc int[16];
        for (int i = 0; i < 16; i++) buf[i] = 1 << i;
        Console.WriteLine("stack sum=" + SumPtr(buf, 16) + " buf[15]=" + buf[15]);
        byte* bb = stackalloc byte[32];
        for (int i = 0; i < 32; i++) bb[i] = (byte)(i * 7);
        Console.WriteLine("fnv=" + Fnv1a(bb, 32).ToString("x8") + " as long=" + ((long*)bb)[1].ToString("x16"));
        byte* sevens = stackalloc byte[] { 7, 7, 7, 7, 7, 7, 7, 7, 7, 7 }; // uniform initialiser: initblk
        Console.WriteLine("sevens=" + sevens[0] + "," + sevens[9] + " as long=" + ((long*)sevens)[0].ToString("x16"));
        double* dp = stackalloc double[] { 1.5, 2.25, -0.75 }; // non-uniform initialiser: cpblk from a data blob
        Console.WriteLine("doubles=" + (dp[0] + dp[1] + dp[2]));

        Console.WriteLine("== structs via pointers ==");
        Header h = default;
        h.Tag = 0x7E;
        for (int i = 0; i < 8; i++) h.Name[i] = (byte)('A' + i);
        for (int i = 0; i < 4; i++) h.Values[i] = (i + 1) * 11;
        h.Stamp = 123456789012L;
        Header* hp = &h;
        hp->Values[2] = -1;
        hp->Tag++;
        Console.WriteLine("tag=" + hp->Tag + " name=" + new string((sbyte*)hp->Name, 0, 8) + " values=" + h.Values[0] + "," + h.Values[1] + "," + h.Values[2] + "," + h.Values[3] + " stamp=" + hp->Stamp);
        Console.WriteLine("offsets: Name=" + ((byte*)hp->Name - (byte*)hp) + " Values=" + ((byte*)hp->Values - (byte*)hp) + " Stamp=" + ((byte*)&hp->Stamp - (byte*)hp));
        Node* nodes = stackalloc Node[5];
        for (int i = 0; i < 5; i++) { nodes[i].Value = i * i + 1; nodes[i].Next = i < 4 ? &nodes[i + 1] : null; }
        int listSum = 0, steps = 0;
        for (Node* n = nodes; n != null; n = n->Next) { listSum += n->Value; steps++; }
        Console.WriteLine("linked list sum=" + listSum + " steps=" + steps);
        var box = new Box { A = 1, B = 2, C = 3.5 };
        fixed (long* pb = &box.B) { *pb = 77; }
        fixed (double* pc = &box.C) { *pc *= 4; }
        Console.WriteLine("box=" + box.A + "," + box.B + "," + box.C);

        Console.WriteLine("== void*, casts, nint ==");
        long big = 0x0102030405060708;
        void* vp = &big;
        Console.WriteLine("bytes: " + ((byte*)vp)[0] + " " + ((byte*)vp)[7] + " ushort[1]=" + ((ushort*)vp)[1]);
        nint addrDiff = (nint)((byte*)vp + 6) - (nint)vp;
        Console.WriteLine("nint diff=" + addrDiff + " nuint max>0=" + (nuint.MaxValue > 0));
        float f = 1.0f;
        int bits = *(int*)&f;
        Console.WriteLine("float bits=" + bits.ToString("x8"));
        IntPtr native = Marshal.AllocHGlobal(64);
        try
        {
            Unsafe.InitBlockUnaligned((void*)native, 0xAB, 64);
            int* ip = (int*)native;
            ip[3] = 42;
            Console.WriteLine("hglobal: " + ip[0].ToString("x8") + " " + ip[3] + " " + Fnv1a((void*)native, 64).ToString("x8"));
        }
        finally { Marshal.FreeHGlobal(native); }

        Console.WriteLine("== managed function pointers ==");
        delegate*<int, int> sq = &Square;
        delegate*<int, int> neg = &Negate;
        Console.WriteLine("sq(9)=" + sq(9) + " neg(9)=" + neg(9) + " null=" + (sq == null));
        var table = new delegate*<int, int>[] { &Square, &Triple, &Negate, &Triple };
        Console.WriteLine("ApplyAll(4)=" + ApplyAll(table, 4));
        delegate*<int, long, short, long> comb = &Combine;
        Console.WriteLine("comb=" + comb(7, 123, 4));
        delegate*<string, int, string> desc = &Describe;
        Console.WriteLine("desc=" + desc("item", 3));
        Console.WriteLine("Twice<int>=" + Twice<int>(&Triple, 5));
        int accum = 0;
        for (int i = 0; i < 10; i++) accum += table[i % table.Length](i);
        Console.WriteLine("dispatch loop=" + accum);

        Console.WriteLine("== unmanaged function pointers ==");
        delegate* unmanaged[Cdecl]<int, int, int> nadd = &NativeAdd;
        Console.WriteLine("NativeAdd(40,2)=" + nadd(40, 2));
        delegate* unmanaged[Cdecl]<int*, int, int, void> nfill = &NativeFill;
        int* filled = stackalloc int[6];
        nfill(filled, 6, 5);
        Console.WriteLine("NativeFill=" + filled[0] + "," + filled[1] + "," + filled[5] + " sum=" + SumPtr(filled, 6));
        delegate* unmanaged<double, double> nscale = &NativeScale;
        Console.WriteLine("NativeScale(4)=" + nscale(4.0));
        IntPtr raw = (IntPtr)nadd;
        var back = (delegate* unmanaged[Cdecl]<int, int, int>)raw;
        Console.WriteLine("round trip via IntPtr=" + back(-5, 8));

        Console.WriteLine("== TypedReference ==");
        int iv = 41;
        string sv = "hey";
        double dv = 6.5;
        DateTime dt = default;
        Console.WriteLine(Inspect(__makeref(iv)) + "; iv=" + iv);
        Console.WriteLine(Inspect(__makeref(sv)) + "; sv=" + sv);
        Console.WriteLine(Inspect(__makeref(dv)));
        Console.WriteLine(Inspect(__makeref(dt)));
        TypedReference tr = __makeref(iv);
        __refvalue(tr, int) = 7;
        Console.WriteLine("after direct refvalue iv=" + iv + " type=" + __reftype(tr).Name + " object=" + TypedReference.ToObject(tr));
        Console.WriteLine("done");
    }
}
