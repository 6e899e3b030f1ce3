// The pass `cs-entry-exit`: what bench/plugins/EntryExit.c does through the C ABI, in C# through
// the SDK: the built-in entry-exit with probes that take the method's token and cannot throw.
// `ldc.i4 token; call Enter` where the body may be wrapped (after a constructor's base call), one
// exit for every ret, `ldc.i4 token; call Exit` at its head and before each tail call.
using System.Runtime.CompilerServices;
using Weft;

public sealed class EntryExitPass(Options options) : Pass
{
    private readonly string probeAssembly = options.Path("probe-assembly");
    private readonly string probeType = options.Get("probe-type");
    private readonly string enterName = options.Get("enter", "OnEnter");
    private readonly string exitName = options.Get("exit", "OnExit");
    private uint enter, exit;

    // static void (int32)
    private static readonly byte[] ProbeSig = [0x00, 1, 0x01, 0x08];
    // ECMA-335 II.22.2: the Assembly table, its columns.
    private const uint AssemblyTable = 0x20, MajorVersion = 1, NameColumn = 7, CultureColumn = 8;

    public override void BeginModule(Module module)
    {
        if (probeAssembly.Length == 0 || probeType.Length == 0)
            throw new WeftException("cs-entry-exit needs the options probe-assembly and probe-type");
        Metadata probes = module.OpenAssembly(probeAssembly);
        if (probes.Rows(AssemblyTable) == 0)
            throw new WeftException("the probe assembly has no assembly manifest");
        var version = new Version((int)probes.Value(AssemblyTable, 1, MajorVersion),
                                  (int)probes.Value(AssemblyTable, 1, MajorVersion + 1),
                                  (int)probes.Value(AssemblyTable, 1, MajorVersion + 2),
                                  (int)probes.Value(AssemblyTable, 1, MajorVersion + 3));
        uint scope = module.AssemblyRef(probes.String(AssemblyTable, 1, NameColumn), version,
                                        probes.String(AssemblyTable, 1, CultureColumn));
        int dot = probeType.LastIndexOf('.');
        uint type = module.TypeRef(scope, dot < 0 ? "" : probeType[..dot], probeType[(dot + 1)..]);
        enter = enterName.Length > 0 ? module.MemberRef(type, enterName, ProbeSig) : 0;
        exit = exitName.Length > 0 ? module.MemberRef(type, exitName, ProbeSig) : 0;
    }

    public override void RunMethod(Method method)
    {
        int start;
        (Instr Epilogue, uint? ValueLocal, Instr End) x;
        try
        {
            start = method.WrapStart();
            x = method.MakeSingleExit(wrap: false);
        }
        catch (WeftException e)
        {
            method.Skip(e.Message);
            return;
        }
        Body body = method.Body;
        int token = (int)method.Token;
        if (enter != 0)
            CallProbe(body.EmitBefore(body.Instructions()[start]), token, enter);
        if (exit == 0)
            return;
        foreach (Instr first in TailCallStarts(body))
            body.Retarget(first, CallProbe(body.EmitBefore(first), token, exit));
        if (!x.Epilogue.IsNull)
            body.Retarget(x.Epilogue, CallProbe(body.EmitBefore(x.Epilogue), token, exit));
    }

    /// <summary>ldc.i4 token; call probe: the first of the two.</summary>
    private static Instr CallProbe(Emitter e, int token, uint probe)
    {
        Instr first = e.Ldc(token);
        e.Tok(Op.Call, probe);
        return first;
    }

    /// <summary>The first prefix of each run of prefixes holding `tail.`.</summary>
    private static List<Instr> TailCallStarts(Body body)
    {
        Instr[] all = body.Instructions();
        List<Instr> starts = [];
        for (int i = 0; i < all.Length; i++)
        {
            if (all[i].Opcode != Op.Tailcall)
                continue;
            int first = i;
            while (first > 0 && IsPrefix(all[first - 1].Opcode))
                first--;
            starts.Add(all[first]);
        }
        return starts;
    }

    private static bool IsPrefix(uint op) =>
        op is Op.Tailcall or Op.Constrained or Op.Readonly or Op.Volatile or Op.Unaligned or Op.No;
}

static class Registration
{
    [ModuleInitializer]
    internal static void Register() =>
        Plugin.Define("bench-entry-exit-cs", "1.0", p => p.AddPass(
            "cs-entry-exit",
            "entry-exit with token probes through the C# SDK (bench/plugin.sh)",
            o => new EntryExitPass(o),
            ("probe-assembly", "the probe assembly (.dll), relative to the spec file"),
            ("probe-type", "the type holding the probes (Namespace.Type)"),
            ("enter", "the entry probe's name (default OnEnter; empty for none)"),
            ("exit", "the exit probe's name (default OnExit; empty for none)")));
}
