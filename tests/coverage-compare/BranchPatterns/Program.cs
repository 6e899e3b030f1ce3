// Patterns whose branches weft once counted otherwise than coverlet.msbuild 10.0.1, each run with
// inputs that take both ways of its branches and inputs that take one way only, in loops:
// tests/package/CoverageCompareTest.cpp compares every line's hits and every branch outcome's.
// - Reader: a switch over an enum in a method called in a loop, a do/while left by `break`.
// - Machine (Loops.cs): switch sections that end where the switch ends, loops left by `break`,
//   conditions joined by `||` and `&&`.
// - Delegates: lambdas and method groups in property initializers (two constructors), passed to
//   calls, through `?.`, in UnsafeRegister callbacks, local functions; Pump<T>, the same in a
//   generic class.
// - AsyncPatterns: `await using`, `await foreach`; Shapes: switch expressions with `when`, records
//   with `with`; Queries: LINQ query syntax; GenericMethods: generic methods with lambdas.
// The output is the same at every run.
namespace Weft.BranchPatterns;

public static class Program
{
    public static int Main()
    {
        Console.WriteLine("reader " + Reader.Run());
        Console.WriteLine("loops " + Machine.Run());
        Console.WriteLine("delegates " + Delegates.Run());
        Console.WriteLine("pump " + Pump<object>.Run());
        Console.WriteLine("async " + AsyncPatterns.Run().GetAwaiter().GetResult());
        Console.WriteLine("shapes " + Shapes.Run());
        Console.WriteLine("queries " + Queries.Run());
        Console.WriteLine("generics " + GenericMethods.Run());
        return 0;
    }
}
