namespace Bench;

/// <summary>Probes that take the method's token and cannot throw: entry-exit calls them directly.</summary>
public static class Probes
{
    public static void OnEnter(int token) { }
    public static void OnExit(int token) { }
}
