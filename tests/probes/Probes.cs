// Probes for weft's entry-exit pass (see docs/passes.md for the signatures a probe may have).
using System.Globalization;
using System.Text;

namespace Weft.Probes;

/// Records every call as a line; the lines go to the file named by WEFT_PROBE_LOG at exit.
/// Arguments are shown without running the program's own code: primitives and strings by value,
/// anything else by its type's name. Calls made while a probe runs are not recorded.
public static class Recorder
{
    static readonly StringBuilder Log = new();
    static readonly object Gate = new();
    [ThreadStatic] static bool Inside;

    static Recorder()
    {
        AppDomain.CurrentDomain.ProcessExit += (_, _) => Flush();
    }

    public static void OnEnter(int token, string method, object instance, object[] arguments)
    {
        if (Inside) return;
        Inside = true;
        var text = new StringBuilder();
        text.Append("enter ").Append(method).Append(" this=").Append(Show(instance)).Append(" (");
        for (int i = 0; i < arguments.Length; i++)
            text.Append(i == 0 ? "" : ", ").Append(Show(arguments[i]));
        text.Append(')');
        Add(text.ToString());
        Inside = false;
    }

    public static void OnExit(int token, string method, object returnValue)
    {
        if (Inside) return;
        Inside = true;
        Add("exit " + method + " -> " + Show(returnValue));
        Inside = false;
    }

    public static void OnException(int token, string method, Exception exception)
    {
        if (Inside) return;
        Inside = true;
        Add("exception " + method + ": " + exception.GetType().FullName);
        Inside = false;
    }

    static string Show(object value) => value switch
    {
        null => "null",
        string s => "\"" + s + "\"",
        bool or char or sbyte or byte or short or ushort or int or uint or long or ulong =>
            Convert.ToString(value, CultureInfo.InvariantCulture),
        float f => f.ToString("R", CultureInfo.InvariantCulture),
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        _ => value.GetType().Name,
    };

    internal static void Add(string line)
    {
        lock (Gate)
            Log.Append(line).Append('\n');
    }

    public static void Flush()
    {
        string path = Environment.GetEnvironmentVariable("WEFT_PROBE_LOG");
        if (string.IsNullOrEmpty(path)) return;
        lock (Gate)
            File.WriteAllText(path, Log.ToString());
    }
}

/// Probes that name the exact instantiation each call runs in: "enter Ns.Type::Method <T1,T2>"
/// (the declaring type's type arguments, then the method's; "<>" outside generic code), in the
/// Recorder's log.
public static class Instantiations
{
    public static void OnEnter(string method, Type[] typeArguments) =>
        Recorder.Add("enter " + method + " " + Show(typeArguments));

    public static void OnExit(string method, Type[] typeArguments) =>
        Recorder.Add("exit " + method + " " + Show(typeArguments));

    static string Show(Type[] types) =>
        "<" + (types == null ? "" : string.Join(",", Array.ConvertAll(types, t => t.ToString()))) + ">";
}

/// Probes that always throw: the woven program must behave as if they were not there.
public static class Thrower
{
    public static void OnEnter(string method) => throw new InvalidOperationException("enter probe");
    public static void OnExit(string method, object returnValue) =>
        throw new InvalidOperationException("exit probe");
    public static void OnException(string method, Exception exception) =>
        throw new InvalidOperationException("exception probe");
}

/// Probes that do nothing, for measuring what the woven calls cost.
public static class Empty
{
    public static void OnEnter(int token) { }
    public static void OnExit(int token) { }
}

/// Probes that count: they touch a static field, so weft cannot prove they never throw and calls
/// them through its trampolines (the cost of the general path).
public static class Counting
{
    public static long Calls;
    public static void OnEnter(int token) { Calls++; }
    public static void OnExit(int token) { Calls++; }
}

/// Probes with signatures the pass refuses.
public static class WrongSignature
{
    public static void OnEnter(double when) { }
}

public static class OutOfOrder
{
    public static void OnEnter(string method, int token) { }
}
