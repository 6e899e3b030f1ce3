// Replacements for the intercept-call pass's tests (tests/corpus/InterceptTest.cpp). Each one
// changes what the corpus programs print in a way the tests predict exactly.
using System.Collections.Generic;
using System.Linq;

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

    /// For System.Object::ToString(), called and made a delegate of (ldvirtftn).
    public static string ToString(object self) => "{" + self + "}";
}

/// Constructors, through factories (tests/intercept-sites).
public static class Factories
{
    /// For System.Text.StringBuilder::.ctor(string).
    public static System.Text.StringBuilder Create(string value) => new System.Text.StringBuilder("<" + value + ">");

    /// For System.Collections.Generic.List`1::.ctor(): a new list starts with default(T).
    public static List<T> Create<T>() => new List<T> { default };

    /// For System.DateTime::.ctor(int32, int32, int32), a value type: the day after.
    public static System.DateTime Create(int year, int month, int day) => new System.DateTime(year, month, day).AddDays(1);
}

/// Methods of generic types and generic methods, by generic replacements.
public static class Generic
{
    /// For System.Collections.Generic.List`1::Add: every item is added twice.
    public static void Add<T>(List<T> list, T item)
    {
        list.Add(item);
        list.Add(item);
    }

    /// For System.Linq.Enumerable::Count: a thousand more.
    public static int Count<T>(IEnumerable<T> source) => Enumerable.Count(source) + 1000;

    /// For Weft.Sites.Program::Echo, a generic method of the program: nothing comes back.
    public static T Echo<T>(T value) => default;
}

/// One instantiation of a generic type's method.
public static class OneInstantiation
{
    /// For System.Collections.Generic.List`1<string>::Add only.
    public static void Add(List<string> list, string item) => list.Add(item.ToUpperInvariant());
}

/// A static method of the program, called and made a delegate of (ldftn).
public static class Delegates
{
    /// For Weft.Sites.Program::Twice(int32).
    public static int Twice(int x) => 3 * x;
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
