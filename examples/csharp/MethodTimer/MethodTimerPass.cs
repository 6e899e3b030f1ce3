// The pass `method-timer`, as MethodTimer.Fody does it: every method marked with an attribute
// named TimeAttribute (of any namespace: the program declares its own, as with Fody) logs
//
//   MethodTimer: Namespace.Type::Method 1.234 ms
//
// with the time it took, each time it returns (each ret and tail call; a method left by an
// exception logs nothing). The clock is Stopwatch's: the timestamp at entry in a new local, the
// elapsed time at each exit through Stopwatch.GetElapsedTime. An async method's own body is
// timed: the part up to its first await that does not complete at once.
using System.Runtime.CompilerServices;
using Weft;

public sealed class MethodTimerPass(Options options) : Pass
{
    private readonly string prefix = options.Get("prefix", "MethodTimer");
    private uint getTimestamp, getElapsedTime, totalMilliseconds, timeSpan, doubleType, concat, writeLine;

    // ECMA-335 element types.
    private const byte Default = 0x00, HasThis = 0x20, I8 = 0x0A, R8 = 0x0D, String = 0x0E, Object = 0x1C, Void = 0x01, ValueType = 0x11;

    public override void BeginModule(Module module)
    {
        uint stopwatch = module.FrameworkType("System.Runtime", "System.Diagnostics", "Stopwatch");
        timeSpan = module.CoreType("System", "TimeSpan");
        doubleType = module.CoreType("System", "Double");
        uint stringType = module.CoreType("System", "String");
        uint console = module.FrameworkType("System.Console", "System", "Console");
        getTimestamp = module.MemberRef(stopwatch, "GetTimestamp", [Default, 0, I8]);
        getElapsedTime = module.MemberRef(stopwatch, "GetElapsedTime", [Default, 1, ValueType, .. Sig.TypeDefOrRef(timeSpan), I8]);
        totalMilliseconds = module.MemberRef(timeSpan, "get_TotalMilliseconds", [HasThis, 0, R8]);
        concat = module.MemberRef(stringType, "Concat", [Default, 3, String, Object, Object, Object]);
        writeLine = module.MemberRef(console, "WriteLine", [Default, 1, Void, String]);
    }

    public override void RunMethod(Method method)
    {
        if (!IsTimed(method))
        {
            method.Skip("not marked [Time]"); // left as it was, not encoded again
            return;
        }
        string name = method.DisplayName;
        uint start = method.AddLocal([I8]);
        uint elapsed = method.AddLocal([ValueType, .. Sig.TypeDefOrRef(timeSpan)]);
        Body body = method.Body;
        Instr[] all = body.Instructions();
        Emitter entry = body.EmitBefore(all.Length > 0 ? all[0] : default);
        entry.Tok(Op.Call, getTimestamp);
        entry.Stloc(start);
        uint label = method.UserString(prefix + ": " + name + " ");
        uint unit = method.UserString(" ms");
        method.BeforeEachExit((e, _) =>
        {
            e.Ldstr(label);
            e.Ldloc(start);
            e.Tok(Op.Call, getElapsedTime);
            e.Stloc(elapsed);
            e.Ldloca(elapsed);
            e.Tok(Op.Call, totalMilliseconds);
            e.Tok(Op.Box, doubleType);
            e.Ldstr(unit);
            e.Tok(Op.Call, concat);
            e.Tok(Op.Call, writeLine);
        });
    }

    /// <summary>Whether the method carries an attribute whose type is named TimeAttribute.</summary>
    private static bool IsTimed(Method method)
    {
        Metadata md = method.Metadata;
        return md.CustomAttributes(method.Token).Any(row => md.AttributeTypeName(row) == "TimeAttribute");
    }
}

static class Registration
{
    [ModuleInitializer]
    internal static void Register() =>
        Plugin.Define("weft-method-timer", "1.0", p => p.AddPass(
            "method-timer",
            "Methods marked [Time] log how long each call took, as MethodTimer.Fody does",
            o => new MethodTimerPass(o),
            ("prefix", "what the lines start with (default MethodTimer)")));
}
