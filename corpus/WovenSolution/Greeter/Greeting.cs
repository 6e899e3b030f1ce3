namespace Sample.Greeter;

public static class Greeting
{
    public static string Hello(string name) => $"Hello, {name}!";

    public static string Shout(string name)
    {
        if (string.IsNullOrEmpty(name))
            return "HEY!";
        return Hello(name).ToUpperInvariant();
    }

    public static int Count(IEnumerable<string> names)
    {
        int n = 0;
        foreach (string name in names)
            if (name.Length > 3)
                n++;
        return n;
    }
}
