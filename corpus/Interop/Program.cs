// P/Invoke into the C library: [DllImport] with blittable and non-blittable
// arguments, string marshalling (UTF-8, StringBuilder buffers), [MarshalAs] on
// parameters, return values and struct fields, structs by value / by reference /
// as out parameters, SetLastError, callbacks (marshalled delegates and
// [UnmanagedCallersOnly] function pointers) used by qsort and bsearch, and
// source-generated [LibraryImport] stubs.
// The library name "libc" resolves to the C library on Linux in .NET 7 and later.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace Weft.Corpus.Interop;

[StructLayout(LayoutKind.Sequential)]
public struct DivResult
{
    public int Quotient;
    public int Remainder;
}

[StructLayout(LayoutKind.Sequential)]
public struct LDivResult
{
    public long Quotient;
    public long Remainder;
}

// Layout of glibc's struct tm on x86-64.
[StructLayout(LayoutKind.Sequential)]
public struct Tm
{
    public int Sec, Min, Hour, MDay, Mon, Year, WDay, YDay, IsDst;
    public long GmtOff;
    public IntPtr Zone;
}

// A non-blittable struct: the marshaller converts it to and from its native form.
[StructLayout(LayoutKind.Sequential, CharSet = CharSet.Ansi)]
public struct Record
{
    public int Id;
    [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 16)]
    public string Name;
    [MarshalAs(UnmanagedType.ByValArray, SizeConst = 4)]
    public int[] Scores;
    [MarshalAs(UnmanagedType.U1)]
    public bool Active;
    [MarshalAs(UnmanagedType.I2)]
    public short Level;
    public double Weight;
}

[StructLayout(LayoutKind.Sequential)]
public struct Pair
{
    public int Key;
    public int Value;
}

[UnmanagedFunctionPointer(CallingConvention.Cdecl)]
public unsafe delegate int CompareFn(void* a, void* b);

internal static unsafe class LibC
{
    const string Lib = "libc";

    [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)]
    public static extern nuint strlen([MarshalAs(UnmanagedType.LPUTF8Str)] string s);

    [DllImport(Lib, EntryPoint = "strlen", CharSet = CharSet.Ansi)]
    public static extern nuint AnsiLength(string s);

    [DllImport(Lib, ExactSpelling = true), SuppressGCTransition]
    public static extern int abs(int x);

    [DllImport(Lib)]
    public static extern long labs(long x);

    [DllImport(Lib)]
    public static extern DivResult div(int numerator, int denominator);

    [DllImport(Lib)]
    public static extern LDivResult ldiv(long numerator, long denominator);

    [DllImport(Lib)]
    public static extern void qsort(int[] items, nuint count, nuint size, CompareFn compare);

    [DllImport(Lib, EntryPoint = "qsort")]
    public static extern void qsort_pairs([In, Out] Pair[] items, nuint count, nuint size, delegate* unmanaged[Cdecl]<Pair*, Pair*, int> compare);

    [DllImport(Lib)]
    public static extern int* bsearch(int* key, int[] items, nuint count, nuint size, CompareFn compare);

    [DllImport(Lib)]
    public static extern IntPtr strncpy(StringBuilder dest, string src, nuint n);

    [DllImport(Lib)]
    public static extern int strcmp([MarshalAs(UnmanagedType.LPStr)] string a, [MarshalAs(UnmanagedType.LPStr)] string b);

    [DllImport(Lib)]
    public static extern int memcmp([MarshalAs(UnmanagedType.LPArray)] byte[] a, [MarshalAs(UnmanagedType.LPArray)] byte[] b, nuint n);

    [DllImport(Lib)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool isdigit(int c);

    [DllImport(Lib)]
    public static extern int toupper(int c);

    [DllImport(Lib)]
    public static extern Tm* gmtime_r(ref long time, out Tm result);

    [DllImport(Lib)]
    public static extern long timegm(ref Tm tm);

    [DllImport(Lib)]
    public static extern IntPtr memcpy(out Record dest, in Record src, nuint n);

    [DllImport(Lib, SetLastError = true)]
    public static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

    [DllImport(Lib)]
    public static extern IntPtr malloc(nuint size);

    [DllImport(Lib)]
    public static extern void free(IntPtr p);

    [DllImport(Lib)]
    public static extern IntPtr memset(IntPtr p, int value, nuint n);
}

internal static unsafe partial class LibCGenerated
{
    [LibraryImport("libc", EntryPoint = "access", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    public static partial int Access(string path, int mode);

    [LibraryImport("libc", EntryPoint = "strtol")]
    public static partial long StrToL(byte* text, out byte* end, int radix);

    [LibraryImport("libc", EntryPoint = "strlen", StringMarshalling = StringMarshalling.Utf8)]
    public static partial nuint Utf8Length(string s);

    [LibraryImport("libc", EntryPoint = "strcmp")]
    public static partial int CompareUtf8([MarshalAs(UnmanagedType.LPUTF8Str)] string a, [MarshalAs(UnmanagedType.LPUTF8Str)] string b);

    [LibraryImport("libc", EntryPoint = "isalpha")]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool IsAlpha(int c);

    [LibraryImport("libc", EntryPoint = "gmtime_r")]
    public static partial Tm* GmTime(in long time, out Tm result);
}

public static unsafe class Program
{
    static int s_compareCalls;

    static int CompareInts(void* a, void* b)
    {
        s_compareCalls++;
        int x = *(int*)a, y = *(int*)b;
        return x < y ? -1 : x > y ? 1 : 0;
    }

    static int CompareDescending(void* a, void* b)
    {
        int x = *(int*)a, y = *(int*)b;
        return y.CompareTo(x);
    }

    [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
    static int ComparePairs(Pair* a, Pair* b)
    {
        // by value, then by key
        int c = a->Value.CompareTo(b->Value);
        return c != 0 ? c : a->Key.CompareTo(b->Key);
    }

    static string FormatTm(in Tm t) =>
        $"{t.Year + 1900:D4}-{t.Mon + 1:D2}-{t.MDay:D2} {t.Hour:D2}:{t.Min:D2}:{t.Sec:D2} wday={t.WDay} yday={t.YDay} zone={Marshal.PtrToStringUTF8(t.Zone)}";

    static void Main()
    {
        Console.WriteLine("== simple calls ==");
        Console.WriteLine("abs(-42)=" + LibC.abs(-42) + " abs(17)=" + LibC.abs(17));
        Console.WriteLine("labs(-9000000000)=" + LibC.labs(-9_000_000_000L));
        var d = LibC.div(47, 5);
        Console.WriteLine("div(47,5)=" + d.Quotient + " r " + d.Remainder);
        var d2 = LibC.div(-47, 5);
        Console.WriteLine("div(-47,5)=" + d2.Quotient + " r " + d2.Remainder);
        var ld = LibC.ldiv(10_000_000_007L, 1000L);
        Console.WriteLine("ldiv=" + ld.Quotient + " r " + ld.Remainder);
        Console.WriteLine("toupper: " + new string("weft interop".Select(c => (char)LibC.toupper(c)).ToArray()));
        Console.WriteLine("isdigit: " + string.Concat("a1b2;9".Select(c => LibC.isdigit(c) ? "D" : ".")));

        Console.WriteLine("== strings ==");
        Console.WriteLine("strlen(hello)=" + LibC.strlen("hello"));
        Console.WriteLine("strlen(utf8 'h\\u00E9llo\\u2192')=" + LibC.strlen("h\u00E9llo\u2192") + " chars=" + "h\u00E9llo\u2192".Length);
        Console.WriteLine("AnsiLength(abc)=" + LibC.AnsiLength("abc"));
        Console.WriteLine("strlen(empty)=" + LibC.strlen(""));
        Console.WriteLine("strcmp: " + Math.Sign(LibC.strcmp("apple", "banana")) + " " + Math.Sign(LibC.strcmp("same", "same")) + " " + Math.Sign(LibC.strcmp("b", "a")));
        var sb = new StringBuilder(32);
        LibC.strncpy(sb, "copied by libc", 15);
        Console.WriteLine("strncpy -> '" + sb + "' length=" + sb.Length);
        Console.WriteLine("memcmp: " + Math.Sign(LibC.memcmp(new byte[] { 1, 2, 3 }, new byte[] { 1, 2, 4 }, 3)) + " " + LibC.memcmp(new byte[] { 9, 9 }, new byte[] { 9, 9 }, 2));

        Console.WriteLine("== callbacks ==");
        int[] values = { 42, -7, 19, 0, 88, 3, 19, -100, 55, 1 };
        CompareFn cmp = CompareInts;
        LibC.qsort(values, (nuint)values.Length, sizeof(int), cmp);
        Console.WriteLine("qsort asc=" + string.Join(",", values) + " callbacks>0=" + (s_compareCalls > 0));
        int key = 55;
        int* found = LibC.bsearch(&key, values, (nuint)values.Length, sizeof(int), cmp);
        Console.WriteLine("bsearch(55) found=" + (found != null ? (*found).ToString() : "null"));
        key = 56;
        found = LibC.bsearch(&key, values, (nuint)values.Length, sizeof(int), cmp);
        Console.WriteLine("bsearch(56) found=" + (found != null ? "yes" : "null"));
        LibC.qsort(values, (nuint)values.Length, sizeof(int), CompareDescending);
        Console.WriteLine("qsort desc=" + string.Join(",", values));
        var pairs = new Pair[] { new() { Key = 1, Value = 30 }, new() { Key = 2, Value = 10 }, new() { Key = 3, Value = 20 }, new() { Key = 0, Value = 10 } };
        LibC.qsort_pairs(pairs, (nuint)pairs.Length, (nuint)sizeof(Pair), &ComparePairs);
        Console.WriteLine("qsort pairs=" + string.Join(" ", pairs.Select(p => p.Key + ":" + p.Value)));
        GC.KeepAlive(cmp);

        Console.WriteLine("== structs by reference ==");
        long t = 1_700_000_000L;
        Tm* ret = LibC.gmtime_r(ref t, out Tm tm);
        Console.WriteLine("gmtime_r: " + FormatTm(tm) + " returned non-null=" + (ret != null));
        tm.MDay += 40; // timegm normalises
        long back = LibC.timegm(ref tm);
        Console.WriteLine("timegm(+40 days)=" + back + " diff days=" + (back - t) / 86400 + " normalised=" + FormatTm(tm));
        long t2 = 0;
        LibCGenerated.GmTime(in t2, out var epoch);
        Console.WriteLine("epoch: " + FormatTm(epoch));

        var rec = new Record { Id = 7, Name = "weft-record", Scores = new[] { 90, 85, 77, 100 }, Active = true, Level = -3, Weight = 72.5 };
        int nativeSize = Marshal.SizeOf<Record>();
        LibC.memcpy(out Record copy, in rec, (nuint)nativeSize);
        Console.WriteLine("Marshal.SizeOf<Record>=" + nativeSize);
        Console.WriteLine("memcpy record: id=" + copy.Id + " name=" + copy.Name + " scores=" + string.Join(",", copy.Scores) + " active=" + copy.Active + " level=" + copy.Level + " weight=" + copy.Weight);
        Console.WriteLine("copy is separate array=" + !ReferenceEquals(copy.Scores, rec.Scores));
        IntPtr mem = Marshal.AllocHGlobal(nativeSize);
        try
        {
            Marshal.StructureToPtr(rec, mem, false);
            Console.WriteLine("native name bytes=" + Marshal.PtrToStringAnsi(mem + 4) + " byte[20]=" + Marshal.ReadInt32(mem, 20) + " active byte=" + Marshal.ReadByte(mem, 36));
            var again = Marshal.PtrToStructure<Record>(mem);
            Console.WriteLine("round trip name=" + again.Name + " sum scores=" + again.Scores.Sum());
            Marshal.DestroyStructure<Record>(mem);
        }
        finally { Marshal.FreeHGlobal(mem); }

        Console.WriteLine("== SetLastError ==");
        const int ENOENT = 2;
        int fd = LibC.open("/proc/weft-corpus-does-not-exist", 0);
        int err = Marshal.GetLastPInvokeError();
        Console.WriteLine("open -> " + fd + " errno is ENOENT=" + (err == ENOENT));
        int rc = LibCGenerated.Access("/proc/weft-corpus-does-not-exist/x", 0);
        err = Marshal.GetLastPInvokeError();
        Console.WriteLine("access (LibraryImport) -> " + rc + " errno is ENOENT=" + (err == ENOENT));
        rc = LibCGenerated.Access("/", 0);
        Console.WriteLine("access(/) -> " + rc);

        Console.WriteLine("== LibraryImport ==");
        Console.WriteLine("Utf8Length('\\u00FCn\\u00EFc\\u00F8d\\u00E9')=" + LibCGenerated.Utf8Length("\u00FCn\u00EFc\u00F8d\u00E9"));
        Console.WriteLine("CompareUtf8: " + Math.Sign(LibCGenerated.CompareUtf8("alpha", "alpha")) + " " + Math.Sign(LibCGenerated.CompareUtf8("alpha", "beta")));
        Console.WriteLine("IsAlpha: " + string.Concat("aZ9_ q".Select(c => LibCGenerated.IsAlpha(c) ? "A" : "-")));
        byte[] numText = "  -12345xyz\0"u8.ToArray();
        fixed (byte* p = numText)
        {
            long parsed = LibCGenerated.StrToL(p, out byte* end, 10);
            Console.WriteLine("strtol=" + parsed + " consumed=" + (end - p));
            long hex = LibCGenerated.StrToL(p + 8, out end, 16); // "xyz" -> 0, nothing consumed
            Console.WriteLine("strtol(xyz,16)=" + hex + " consumed=" + (end - (p + 8)));
        }
        byte[] hexText = "ff7f\0"u8.ToArray();
        fixed (byte* p = hexText) Console.WriteLine("strtol(ff7f,16)=" + LibCGenerated.StrToL(p, out _, 16));

        Console.WriteLine("== native memory ==");
        IntPtr block = LibC.malloc(64);
        LibC.memset(block, 0x5A, 64);
        long sum = 0;
        for (int i = 0; i < 64; i++) sum += Marshal.ReadByte(block, i);
        LibC.free(block);
        Console.WriteLine("malloc/memset sum=" + sum);
        IntPtr fp = Marshal.GetFunctionPointerForDelegate(cmp);
        var viaPtr = (delegate* unmanaged[Cdecl]<void*, void*, int>)fp;
        int a1 = 5, b1 = 9;
        Console.WriteLine("delegate via function pointer=" + viaPtr(&a1, &b1) + "," + viaPtr(&b1, &a1));
        GC.KeepAlive(cmp);
        Console.WriteLine("done");
    }
}
