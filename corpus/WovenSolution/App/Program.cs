using Sample.Greeter;

namespace Sample.App;

public static class Program
{
    public static void Main() => Run();

    static void Run()
    {
        Console.WriteLine(Greeting.Shout("weft"));
        Console.WriteLine(Greeting.Count(new[] { "ann", "bob", "carol" }));
    }
}
