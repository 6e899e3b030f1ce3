// Probes for entry-exit and a replacement for intercept-call, as FuzzWeave names them.
using System;

namespace Weft.Fuzz;

public static class Probe
{
    public static void OnEnter(int token, string method, object instance, object[] arguments) { }
    public static void OnExit(int token, string method, object returnValue) { }
    public static void OnException(int token, string method, Exception exception) { }
}

public static class Replacement
{
    public static int Parse(string s) => 0;
    public static string Concat(string a, string b) => a;
}
