// The pass `configure-await`, to the effect of ConfigureAwait.Fody's ConfigureAwait(false): the
// awaits of a library's async methods do not come back on the caller's SynchronizationContext.
// Where an async method's state machine suspends on a task (the builder's AwaitUnsafeOnCompleted
// or AwaitOnCompleted with a TaskAwaiter or ValueTaskAwaiter), the context is taken away while the
// continuation is registered and given back after:
//
//   call      class SynchronizationContext SynchronizationContext::get_Current()
//   stloc     saved
//   ldnull
//   call      void SynchronizationContext::SetSynchronizationContext(class SynchronizationContext)
//   call      void AsyncTaskMethodBuilder::AwaitUnsafeOnCompleted<...>(!!0&, !!1&)   (the await)
//   ldloc     saved
//   call      void SynchronizationContext::SetSynchronizationContext(class SynchronizationContext)
//
// so the awaiter, which captures the context current when it registers, captures none: the
// continuation runs on the thread pool, as after ConfigureAwait(false). The awaiter types stay
// what the compiler chose (ConfigureAwait.Fody changes them to the configured ones); a custom
// TaskScheduler is still captured, as ConfigureAwait(false) would not.
using System.Runtime.CompilerServices;
using Weft;

public sealed class ConfigureAwaitPass : Pass
{
    private uint getCurrent, setContext, contextType;

    private const uint MemberRefTable = 0x0A, MethodSpecTable = 0x2B;
    private const byte Default = 0x00, Void = 0x01, Class = 0x12, ValueType = 0x11, GenericInst = 0x15;

    public override void BeginModule(Module module)
    {
        uint context = module.FrameworkType("System.Threading", "System.Threading", "SynchronizationContext");
        contextType = context;
        byte[] contextSig = [Class, .. Sig.TypeDefOrRef(context)];
        getCurrent = module.MemberRef(context, "get_Current", [Default, 0, .. contextSig]);
        setContext = module.MemberRef(context, "SetSynchronizationContext", [Default, 1, Void, .. contextSig]);
    }

    public override void RunMethod(Method method)
    {
        Metadata md = method.Metadata;
        Body body = method.Body;
        var awaits = body.Instructions().Where(i => i.Opcode == Op.Call && SuspendsOnATask(md, i.Token)).ToArray();
        if (awaits.Length == 0)
        {
            method.Skip("no await on a task");
            return;
        }
        uint saved = method.AddLocal([Class, .. Sig.TypeDefOrRef(contextType)]);
        foreach (Instr call in awaits)
        {
            Emitter before = body.EmitBefore(call);
            Instr first = before.Tok(Op.Call, getCurrent);
            before.Stloc(saved);
            before.Op(Op.Ldnull);
            before.Tok(Op.Call, setContext);
            body.Retarget(call, first); // what branched to the call runs this first
            Instr[] now = body.Instructions();
            Emitter after = body.EmitBefore(now[Array.IndexOf(now, call) + 1]);
            after.Ldloc(saved);
            after.Tok(Op.Call, setContext);
        }
        method.Note(awaits.Length + " awaits without the caller's context");
    }

    /// <summary>Whether a call's token is a builder's AwaitUnsafeOnCompleted or AwaitOnCompleted
    /// instantiated over a TaskAwaiter or ValueTaskAwaiter (of a result or none).</summary>
    private static bool SuspendsOnATask(Metadata md, uint token)
    {
        if (token >> 24 != MethodSpecTable)
            return false;
        uint row = token & 0xFFFFFF;
        uint generic = md.Token(MethodSpecTable, row, 0);
        if (generic >> 24 != MemberRefTable)
            return false;
        string name = md.String(MemberRefTable, generic & 0xFFFFFF, 1);
        if (name is not ("AwaitUnsafeOnCompleted" or "AwaitOnCompleted"))
            return false;
        byte[] inst = md.Blob(MethodSpecTable, row, 1); // 0x0A, count, the awaiter's type, ...
        if (inst.Length < 4 || inst[0] != 0x0A)
            return false;
        int at = 2;
        if (inst[at] == GenericInst)
            ++at;
        if (inst[at] != ValueType)
            return false;
        uint awaiter = Sig.ReadTypeDefOrRef(inst, at + 1);
        return md.TypeName(awaiter) is "TaskAwaiter" or "TaskAwaiter`1" or "ValueTaskAwaiter"
                                          or "ValueTaskAwaiter`1";
    }
}

static class Registration
{
    [ModuleInitializer]
    internal static void Register() =>
        Plugin.Define("weft-configure-await", "1.0", p => p.AddPass(
            "configure-await",
            "Awaits on tasks do not come back on the caller's SynchronizationContext, as ConfigureAwait(false)",
            _ => new ConfigureAwaitPass()));
}
