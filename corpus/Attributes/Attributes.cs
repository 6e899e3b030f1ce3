// Attribute types used by Program.cs. They take every kind of argument that a
// custom attribute blob can encode.
namespace Weft.Corpus.Attributes;

public enum Color : short { Red = 1, Green = 2, Blue = -3 }

[Flags]
public enum Perm : ulong { None = 0, Read = 1, Write = 2, Exec = 4, Huge = 0x8000_0000_0000_0000 }

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class PrimitivesAttribute : Attribute
{
    public PrimitivesAttribute(bool z, char c, sbyte i1, byte u1, short i2, ushort u2, int i4, uint u4, long i8, ulong u8, float r4, double r8)
    {
        Text = $"z={z} c={(int)c} i1={i1} u1={u1} i2={i2} u2={u2} i4={i4} u4={u4} i8={i8} u8={u8} r4={r4} r8={r8}";
    }
    public string Text { get; }
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class TextAttribute : Attribute
{
    public TextAttribute(string value) { Value = value; }
    public string Value { get; }
    // Named arguments: a field and properties of several kinds.
    public string Note;
    public int Priority { get; set; }
    public Color Color { get; set; }
    public Type Kind { get; set; }
    public object Extra { get; set; }
    public string[] Labels { get; set; }
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class EnumsAttribute : Attribute
{
    public EnumsAttribute(Color color, Perm perm, DayOfWeek day, AttributeTargets targets)
    {
        Text = $"color={color} perm={perm} day={day} targets={targets}";
    }
    public string Text { get; }
    public Color[] Palette;
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class TypesAttribute : Attribute
{
    public TypesAttribute(Type single, params Type[] more)
    {
        Text = Name(single) + " | " + (more == null ? "null" : string.Join(",", more.Select(Name)));
    }
    static string Name(Type t) => t == null ? "null" : t.ToString();
    public string Text { get; }
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class ObjectsAttribute : Attribute
{
    public ObjectsAttribute(object value, params object[] values)
    {
        Text = Show(value) + " | " + (values == null ? "null" : string.Join(",", values.Select(Show)));
    }
    internal static string Show(object o) => o switch
    {
        null => "null",
        Array a => o.GetType().Name + "{" + string.Join(",", a.Cast<object>().Select(Show)) + "}",
        Type t => "typeof(" + t + ")",
        _ => o.GetType().Name + ":" + o,
    };
    public string Text { get; }
    public object Named;
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class ArraysAttribute : Attribute
{
    public ArraysAttribute(int[] ints, string[] strings, Type[] types, object[] objects)
    {
        Text = "ints=" + Join(ints) + " strings=" + Join(strings) + " types=" + Join(types) + " objects=" + (objects == null ? "null" : string.Join(",", objects.Select(ObjectsAttribute.Show)));
    }
    static string Join<T>(T[] a) => a == null ? "null" : "[" + string.Join(",", a.Select(x => x?.ToString() ?? "null")) + "]";
    public string Text { get; }
    public long[] Longs { get; set; }
    public byte[] Bytes;
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class MarkerAttribute : Attribute
{
    public MarkerAttribute() { }
    public MarkerAttribute(string where) { Where = where; }
    public string Where { get; }
}

// Generic attributes (C# 11).
[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class TypedAttribute<T> : Attribute
{
    public TypedAttribute() { }
    public TypedAttribute(T value) { Value = value; }
    public T Value { get; }
    public string Describe() => "Typed<" + typeof(T).Name + ">(" + ObjectsAttribute.Show(Value) + ")";
}

[AttributeUsage(AttributeTargets.All, AllowMultiple = true)]
public sealed class PairAttribute<TKey, TValue> : Attribute
{
    public PairAttribute(TKey key, TValue value) { Key = key; Value = value; }
    public TKey Key { get; }
    public TValue Value { get; }
}

// An attribute inherited by derived classes, and one that is not.
[AttributeUsage(AttributeTargets.Class, Inherited = true)]
public sealed class InheritedTagAttribute : Attribute
{
    public InheritedTagAttribute(string tag) { Tag = tag; }
    public string Tag { get; }
}

[AttributeUsage(AttributeTargets.Class, Inherited = false)]
public sealed class LocalTagAttribute : Attribute
{
    public LocalTagAttribute(string tag) { Tag = tag; }
    public string Tag { get; }
}
