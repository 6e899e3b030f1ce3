// Replacements for the intercept-call pass's tests (tests/corpus/InterceptTest.cpp). Each one
// changes what the corpus programs print in a way the tests predict exactly.
namespace Weft.Replacements;

/// Static targets: System.Console::WriteLine and System.IO.File::ReadAllText.
public static class Console
{
    public static int Calls;

    /// For System.Console::WriteLine(string): every line gets a prefix.
    public static void WriteLine(string value)
    {
        Calls++;
        System.Console.WriteLine("| " + value);
    }

    /// For System.IO.File::ReadAllText(string), which no corpus program calls.
    public static string ReadAllText(string path) => "replaced " + path;
}

/// Instance targets, the instance first.
public static class Instance
{
    /// For System.String::ToUpperInvariant(): the instance is the string.
    public static string ToUpperInvariant(string self) => "[" + self + "]";

    /// For System.Object::Equals(object), reached through `constrained.` with an argument.
    public static bool Equals(object self, object other) => !object.Equals(self, other);

    /// For Weft.Corpus.Generics.IShape::Area(), an interface of a corpus program: a MethodDef
    /// token, and a `constrained. !!T` call.
    public static int Area(object self) => 1000;

    /// For System.Int32::ToString(): a value type's instance arrives by reference.
    public static string ToString(ref int self) => "#" + self.ToString(System.Globalization.CultureInfo.InvariantCulture);
}

/// Signatures the pass refuses.
public static class Bad
{
    /// Not static.
    public class Holder
    {
        public string ToUpperInvariant(string self) => self;
    }

    /// Generic.
    public static string ToUpperInvariant<T>(T self) => "";

    /// Takes no instance and the wrong parameters.
    public static void WriteLine(int a, int b, int c) { }

    /// A value type's instance taken by value.
    public static string ToString(int self) => "";

    internal static string Internal(string s) => s;
}

internal static class Hidden
{
    public static void WriteLine(string value) { }
}
