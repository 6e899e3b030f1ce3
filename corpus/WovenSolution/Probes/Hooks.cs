namespace Sample.Probes;

/// Called by the woven code on entry to and exit from the methods the specs choose.
public static class Hooks
{
    public static void OnEnter(string methodName) => Console.WriteLine($"enter {methodName}");

    public static void OnExit(string methodName) => Console.WriteLine($"exit {methodName}");
}
