// Custom attributes and constants.
// Attributes (defined in Attributes.cs) carry fixed arguments of every primitive type,
// strings (including null), enums (own and framework, including a ulong flags enum),
// Type (closed generic, open generic, array, nested, null), object (boxed values,
// arrays, Type), arrays (int[], string[], Type[], object[], empty and null), named
// field and property arguments, and generic attributes. They are applied to the
// assembly, module, types, methods, constructors, parameters, return values, fields,
// properties, events and generic parameters, and are read back both as metadata
// (CustomAttributeData) and as instantiated objects.
// Constants: const fields of every primitive type, decimal (DecimalConstant), enum,
// string and null; default parameter values of many kinds, including decimal and
// DateTime ([DateTimeConstant]) defaults.
using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Weft.Corpus.Attributes;

[assembly: Text("assembly-level", Priority = 1)]
[assembly: Marker("assembly")]
[module: Marker("module")]

namespace Weft.Corpus.Attributes;

[Primitives(true, 'A', -128, 255, -32768, 65535, int.MinValue, uint.MaxValue, long.MinValue, ulong.MaxValue, 1.5f, -2.25)]
[Primitives(false, '\0', 0, 0, 0, 0, 0, 0, 0, 0, float.NaN, double.PositiveInfinity)]
[Text("plain")]
[Text(null, Note = "null string", Priority = -5, Color = Color.Blue)]
[Text("", Kind = typeof(List<int>), Extra = 42, Labels = new[] { "a", null, "c" })]
[Enums(Color.Green, Perm.Read | Perm.Exec | Perm.Huge, DayOfWeek.Saturday, AttributeTargets.Method | AttributeTargets.Field, Palette = new[] { Color.Red, Color.Blue })]
[Types(typeof(int), typeof(string), typeof(int[]), typeof(int[,]), typeof(List<string>), typeof(Dictionary<,>), typeof(Dictionary<string, List<int[]>>), typeof(Nested.Inner), typeof(Sample))]
[Types(null, null)]
[Types(typeof(void))]
[Objects(7, "s", 'c', 2.5, 3.5f, (byte)9, (sbyte)-9, (short)-300, (ushort)300, 4u, 5L, 6ul, true, Color.Red, DayOfWeek.Monday, typeof(string), new[] { 1, 2 }, new[] { "x" }, null)]
[Objects(null, Named = new object[] { 1, "two", typeof(Color[]) })]
[Objects(new int[0])]
[Arrays(new[] { 1, 2, 3 }, new[] { "one", null }, new[] { typeof(byte), typeof(Perm) }, new object[] { 1, "o", null, new[] { 2 } }, Longs = new[] { long.MaxValue, -1L }, Bytes = new byte[] { 0, 127, 255 })]
[Arrays(null, null, null, null)]
[Arrays(new int[0], new string[0], new Type[0], new object[0])]
[Typed<int>(5)]
[Typed<string>("generic")]
[Typed<Type>(typeof(Perm))]
[Typed<int[]>(new[] { 9, 8 })]
[Typed<Color>(Color.Green)]
[Typed<object>]
[Pair<string, double>("pi", 3.14159)]
[Pair<Color, Type>(Color.Blue, typeof(IEnumerable<>))]
[Description("framework attribute with a string")]
[InheritedTag("base-inherited")]
[LocalTag("base-local")]
public class Sample
{
    [Text("field", Note = "on a field")]
    [Marker]
    public int Field;

    [Primitives(true, 'f', 1, 2, 3, 4, 5, 6, 7, 8, 9f, 10d)]
    public static readonly string StaticField = "sf";

    [Text("property")]
    [DefaultValue(12)]
    public int Property { [Marker("getter")] get; [Marker("setter")] set; }

    [Marker("event")]
    public event EventHandler Happened { [Marker("add")] add { } [Marker("remove")] remove { } }

    [Marker("ctor")]
    public Sample() { }

    [Text("method", Priority = 3)]
    [Obsolete("do not call", false)]
    [return: Marker("return value")]
    [return: Typed<long>(long.MaxValue)]
    public string Method(
        [Marker("param a")] int a,
        [Text("param b", Extra = Color.Red)][Optional] string b,
        [Typed<decimal>] decimal c = 1.25m,
        [In] in int d = 0,
        [Out] int[] e = null)
        => a + b + c + d;

    public T Generic<[Marker("generic param")] T>([Typed<string>("generic arg")] T value) => value;

    [Marker("nested type")]
    public class Nested
    {
        public class Inner { }
    }
}

[LocalTag("derived-local")]
public sealed class DerivedSample : Sample { }

// ---------- constants ----------
public static class Constants
{
    public const bool Bool = true;
    public const char Char = '\u263A';
    public const char NulChar = '\0';
    public const sbyte SByte = -100;
    public const byte Byte = 200;
    public const short Short = -30000;
    public const ushort UShort = 60000;
    public const int Int = -2000000000;
    public const uint UInt = 4000000000;
    public const long Long = -9000000000000000000;
    public const ulong ULong = 18000000000000000000;
    public const float Float = 3.25f;
    public const float FloatNaN = float.NaN;
    public const float FloatNegZero = -0.0f;
    public const double Double = -1.0 / 3.0;
    public const double DoubleEps = double.Epsilon;
    public const double DoubleMax = double.MaxValue;
    public const double DoubleNegInf = double.NegativeInfinity;
    public const decimal Decimal = 79228162514264337593543950335m;
    public const decimal DecimalFraction = -0.000000000123456789m;
    public const string String = "const string with \"quotes\" and \t tab and \u00e9";
    public const string NullString = null;
    public const string Empty = "";
    public const Color EnumConst = Color.Blue;
    public const Perm FlagsConst = Perm.Read | Perm.Write | Perm.Huge;
    public const DayOfWeek FrameworkEnum = DayOfWeek.Friday;
    public const object NullObject = null;
    public const nint NativeInt = -12345;
    public const nuint NativeUInt = 54321;
    public const int Computed = (Int / 1000) + Short * 2 - (int)Byte;
    public const string Concatenated = "pre" + "fix" + nameof(Computed);
}

public static class Defaults
{
    public static string Ints(int a = 1, long b = -2, byte c = 255, char d = 'z', bool e = true, double f = 0.5, float g = -1.5f)
        => $"{a},{b},{c},{d},{e},{f},{g}";

    public static string Refs(string s = "dflt", string n = null, object o = null, int[] arr = null, Type t = null)
        => (s ?? "null") + "," + (n ?? "null") + "," + (o ?? "null") + "," + (arr == null ? "null" : "arr") + "," + (t?.Name ?? "null");

    public static string Structs(Color color = Color.Green, Perm perm = Perm.Read | Perm.Exec, DayOfWeek day = DayOfWeek.Sunday,
        Guid g = default, CancellationToken ct = default, int? maybe = null, int? some = 5, TimeSpan span = default)
        => $"{color},{perm},{day},{g},{ct.IsCancellationRequested},{maybe?.ToString() ?? "null"},{some},{span}";

    public static string Money(decimal price = 19.99m, decimal big = 123456789012345678901234567.8m, decimal zero = 0m)
        => $"{price},{big},{zero}";

    public static string Dates([Optional, DateTimeConstant(630822816000000000)] DateTime when, [Optional] DateTime none)
        => when.ToString("yyyy-MM-dd HH:mm:ss") + "," + none.ToString("yyyy-MM-dd");

    public static string OptionalObj([Optional] object o, [Optional] int i, [Optional] string s)
        => (o == Type.Missing ? "Missing" : o?.ToString() ?? "null") + "," + i + "," + (s ?? "null");

    public static string Params(string head = "h", params int[] rest) => head + ":" + rest.Length + ":" + rest.Sum();
}

public static class Program
{
    static string Format(CustomAttributeData a)
    {
        var parts = new List<string>();
        foreach (var arg in a.ConstructorArguments) parts.Add(FormatArg(arg));
        foreach (var named in a.NamedArguments)
            parts.Add((named.IsField ? "field " : "prop ") + named.MemberName + "=" + FormatArg(named.TypedValue));
        return TypeName(a.AttributeType) + "(" + string.Join(", ", parts) + ")";
    }

    static string FormatArg(CustomAttributeTypedArgument arg)
    {
        string type = TypeName(arg.ArgumentType);
        if (arg.Value == null) return type + ":null";
        if (arg.Value is IReadOnlyCollection<CustomAttributeTypedArgument> items)
            return type + "{" + string.Join(",", items.Select(FormatArg)) + "}";
        if (arg.Value is Type t) return type + ":" + TypeName(t);
        if (arg.Value is string s) return type + ":\"" + Escape(s) + "\"";
        if (arg.Value is char c) return type + ":U+" + ((int)c).ToString("X4");
        return type + ":" + arg.Value;
    }

    static string TypeName(Type t)
    {
        if (t.IsArray) return TypeName(t.GetElementType()) + "[" + new string(',', t.GetArrayRank() - 1) + "]";
        if (t.IsGenericType)
        {
            var name = t.Name.Substring(0, t.Name.IndexOf('`'));
            var args = t.IsGenericTypeDefinition ? new string(',', t.GetGenericArguments().Length - 1) : string.Join(",", t.GetGenericArguments().Select(TypeName));
            return name + "<" + args + ">";
        }
        if (t.IsNested) return TypeName(t.DeclaringType) + "." + t.Name;
        return t.Name;
    }

    static bool Interesting(CustomAttributeData a) =>
        a.AttributeType.Namespace == "Weft.Corpus.Attributes"
        || a.AttributeType == typeof(ObsoleteAttribute)
        || a.AttributeType == typeof(DescriptionAttribute)
        || a.AttributeType == typeof(DefaultValueAttribute)
        || a.AttributeType == typeof(OptionalAttribute)
        || a.AttributeType == typeof(InAttribute)
        || a.AttributeType == typeof(OutAttribute)
        || a.AttributeType == typeof(DateTimeConstantAttribute)
        || a.AttributeType == typeof(DecimalConstantAttribute);

    static void Dump(string title, IEnumerable<CustomAttributeData> data)
    {
        var lines = data.Where(Interesting).Select(Format).OrderBy(s => s, StringComparer.Ordinal).ToList();
        Console.WriteLine(title + " (" + lines.Count + ")");
        foreach (var l in lines) Console.WriteLine("    " + l);
    }

    static void Main()
    {
        Console.WriteLine("== attribute metadata ==");
        var asm = typeof(Sample).Assembly;
        Dump("assembly", asm.GetCustomAttributesData());
        Dump("module", typeof(Sample).Module.GetCustomAttributesData());
        var sample = typeof(Sample);
        Dump("type Sample", sample.GetCustomAttributesData());
        Dump("field Field", sample.GetField("Field").GetCustomAttributesData());
        Dump("field StaticField", sample.GetField("StaticField").GetCustomAttributesData());
        var prop = sample.GetProperty("Property");
        Dump("property", prop.GetCustomAttributesData());
        Dump("getter", prop.GetMethod.GetCustomAttributesData());
        Dump("setter", prop.SetMethod.GetCustomAttributesData());
        var ev = sample.GetEvent("Happened");
        Dump("event", ev.GetCustomAttributesData());
        Dump("event add", ev.AddMethod.GetCustomAttributesData());
        Dump("ctor", sample.GetConstructor(Type.EmptyTypes).GetCustomAttributesData());
        var method = sample.GetMethod("Method");
        Dump("method", method.GetCustomAttributesData());
        Dump("return", method.ReturnParameter.GetCustomAttributesData());
        foreach (var p in method.GetParameters())
        {
            Dump("param " + p.Name, p.GetCustomAttributesData());
            Console.WriteLine("    optional=" + p.IsOptional + " hasDefault=" + p.HasDefaultValue + " default=" + Describe(p.HasDefaultValue ? p.DefaultValue : "<none>") + " in=" + p.IsIn + " out=" + p.IsOut);
        }
        var generic = sample.GetMethod("Generic");
        Dump("generic param T", generic.GetGenericArguments()[0].GetCustomAttributesData());
        Dump("generic method param", generic.GetParameters()[0].GetCustomAttributesData());
        Dump("nested type", typeof(Sample.Nested).GetCustomAttributesData());

        Console.WriteLine("== instantiated attributes ==");
        foreach (var line in sample.GetCustomAttributes(false).Select(Instantiated).OrderBy(s => s, StringComparer.Ordinal))
            Console.WriteLine("  " + line);
        var text = method.GetCustomAttribute<TextAttribute>();
        Console.WriteLine("method Text: value=" + text.Value + " priority=" + text.Priority);
        var obsolete = method.GetCustomAttribute<ObsoleteAttribute>();
        Console.WriteLine("obsolete: " + obsolete.Message + " error=" + obsolete.IsError);
        Console.WriteLine("return typed: " + method.ReturnParameter.GetCustomAttribute<TypedAttribute<long>>().Describe());
        Console.WriteLine("DefaultValue: " + prop.GetCustomAttribute<DefaultValueAttribute>().Value);

        Console.WriteLine("== inheritance ==");
        var derived = typeof(DerivedSample);
        Console.WriteLine("derived inherit=true: " + string.Join(",", derived.GetCustomAttributes(true).OfType<InheritedTagAttribute>().Select(a => a.Tag))
            + " | local: " + string.Join(",", derived.GetCustomAttributes(true).OfType<LocalTagAttribute>().Select(a => a.Tag)));
        Console.WriteLine("derived inherit=false: inherited tags=" + derived.GetCustomAttributes(false).OfType<InheritedTagAttribute>().Count());
        Console.WriteLine("IsDefined Marker on Field=" + Attribute.IsDefined(sample.GetField("Field"), typeof(MarkerAttribute)) + " on Nested=" + typeof(Sample.Nested).IsDefined(typeof(MarkerAttribute), false));

        Console.WriteLine("== constants (in code) ==");
        Console.WriteLine($"{Constants.Bool} U+{(int)Constants.Char:X4} U+{(int)Constants.NulChar:X4} {Constants.SByte} {Constants.Byte} {Constants.Short} {Constants.UShort}");
        Console.WriteLine($"{Constants.Int} {Constants.UInt} {Constants.Long} {Constants.ULong}");
        Console.WriteLine($"{Constants.Float} {Constants.FloatNaN} {1 / Constants.FloatNegZero} {Constants.Double:R} {Constants.DoubleEps:R} {Constants.DoubleMax:R} {Constants.DoubleNegInf}");
        Console.WriteLine($"{Constants.Decimal} {Constants.DecimalFraction}");
        Console.WriteLine($"[{Escape(Constants.String)}] [{Constants.NullString ?? "null"}] [{Constants.Empty}] {Constants.EnumConst} {Constants.FlagsConst} {Constants.FrameworkEnum} {Constants.NullObject == null}");
        Console.WriteLine($"{Constants.NativeInt} {Constants.NativeUInt} {Constants.Computed} {Constants.Concatenated}");

        Console.WriteLine("== constants (metadata) ==");
        foreach (var f in typeof(Constants).GetFields(BindingFlags.Public | BindingFlags.Static).OrderBy(f => f.MetadataToken))
        {
            string raw;
            if (f.IsLiteral) raw = Describe(f.GetRawConstantValue());
            else raw = "initonly " + Describe(f.GetValue(null)) + " attrs=" + string.Join(",", f.GetCustomAttributesData().Select(Format));
            Console.WriteLine("  " + f.Name + " : " + TypeName(f.FieldType) + " = " + raw);
        }

        Console.WriteLine("== default parameter values ==");
        Console.WriteLine(Defaults.Ints());
        Console.WriteLine(Defaults.Ints(9, g: 2f));
        Console.WriteLine(Defaults.Refs());
        Console.WriteLine(Defaults.Refs(n: "given", t: typeof(int)));
        Console.WriteLine(Defaults.Structs());
        Console.WriteLine(Defaults.Money());
        Console.WriteLine(Defaults.Money(zero: 1.5m));
        Console.WriteLine(Defaults.Dates());
        Console.WriteLine(Defaults.OptionalObj());
        Console.WriteLine(Defaults.Params());
        Console.WriteLine(Defaults.Params("x", 1, 2, 3));
        foreach (var m in typeof(Defaults).GetMethods(BindingFlags.Public | BindingFlags.Static).OrderBy(m => m.Name, StringComparer.Ordinal))
        {
            var ps = m.GetParameters().Select(p => p.Name + "=" + (p.HasDefaultValue ? Describe(p.RawDefaultValue) : p.IsOptional ? "optional" : "required"));
            Console.WriteLine("  " + m.Name + "(" + string.Join(", ", ps) + ")");
        }
        Console.WriteLine("done");
    }

    // Keeps the output ASCII whatever the console encoding is.
    static string Escape(string s)
    {
        var sb = new System.Text.StringBuilder();
        foreach (char ch in s)
        {
            if (ch == '\t') sb.Append("\\t");
            else if (ch < 32 || ch > 126) sb.Append("\\u").Append(((int)ch).ToString("X4"));
            else sb.Append(ch);
        }
        return sb.ToString();
    }

    static string Instantiated(object a) => a switch
    {
        PrimitivesAttribute p => "Primitives " + p.Text,
        TextAttribute t => "Text value=" + (t.Value ?? "null") + " note=" + (t.Note ?? "null") + " priority=" + t.Priority + " color=" + t.Color + " kind=" + (t.Kind == null ? "null" : TypeName(t.Kind)) + " extra=" + ObjectsAttribute.Show(t.Extra) + " labels=" + (t.Labels == null ? "null" : string.Join("/", t.Labels.Select(l => l ?? "null"))),
        EnumsAttribute e => "Enums " + e.Text + " palette=" + (e.Palette == null ? "null" : string.Join("/", e.Palette)),
        TypesAttribute ty => "Types " + ty.Text,
        ObjectsAttribute o => "Objects " + o.Text + " named=" + ObjectsAttribute.Show(o.Named),
        ArraysAttribute ar => "Arrays " + ar.Text + " longs=" + (ar.Longs == null ? "null" : string.Join("/", ar.Longs)) + " bytes=" + (ar.Bytes == null ? "null" : string.Join("/", ar.Bytes)),
        TypedAttribute<int> ti => ti.Describe(),
        TypedAttribute<string> ts => ts.Describe(),
        TypedAttribute<Type> tt => tt.Describe(),
        TypedAttribute<int[]> ta => ta.Describe(),
        TypedAttribute<Color> tc => tc.Describe(),
        TypedAttribute<object> to => to.Describe(),
        PairAttribute<string, double> ps => "Pair " + ps.Key + "=" + ps.Value,
        PairAttribute<Color, Type> pc => "Pair " + pc.Key + "=" + TypeName(pc.Value),
        DescriptionAttribute d => "Description " + d.Description,
        InheritedTagAttribute it => "InheritedTag " + it.Tag,
        LocalTagAttribute lt => "LocalTag " + lt.Tag,
        _ => "other " + a.GetType().Name,
    };

    static string Describe(object o) => o switch
    {
        null => "null",
        string s => "\"" + Escape(s) + "\"",
        char c => "U+" + ((int)c).ToString("X4"),
        double d => "double " + d.ToString("R"),
        float f => "float " + f.ToString("R"),
        DateTime dt => "DateTime " + dt.ToString("yyyy-MM-dd HH:mm:ss"),
        _ when o == DBNull.Value => "DBNull",
        _ when o == Missing.Value => "Missing",
        _ => o.GetType().Name + " " + o,
    };
}
