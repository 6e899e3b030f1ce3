using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Weft.Sites;

public static class Program
{
    static int Twice(int x) => 2 * x;

    static T Echo<T>(T value) => value;

    public static void Main()
    {
        // Constructions: newobj of a class, of a generic class, of a value type; a value type
        // initialised in place.
        var sb = new StringBuilder("x");
        Console.WriteLine("sb=" + sb.Append('y'));
        var ints = new List<int>();
        ints.Add(1);
        ints.Add(2);
        var names = new List<string> { "a" };
        Console.WriteLine("ints=" + string.Join(",", ints) + " names=" + string.Join(",", names));
        Console.WriteLine("day=" + new DateTime(2001, 2, 3).Day);
        DateTime local;
        local = new DateTime(2004, 5, 6);
        Console.WriteLine("local day=" + local.Day);

        // Instantiations of generic methods, the framework's and the program's own.
        Console.WriteLine("count=" + ints.Count() + " first=" + names.First());
        Console.WriteLine("echo=" + Echo(7) + "," + Echo("e"));

        // Delegates: a static method, an instance method closed over its instance, a virtual one.
        Func<int, int> twice = Twice;
        Console.WriteLine("direct=" + Twice(4) + " delegate=" + twice(5));
        Func<string> bound = "abc".ToUpperInvariant;
        Console.WriteLine("bound=" + bound());
        object boxed = 42;
        Func<string> virt = boxed.ToString;
        Console.WriteLine("virtual=" + virt());
    }
}
