// The pass `null-guard`, as NullGuard.Fody does it: every public method of a public type throws
// ArgumentNullException naming the parameter when a parameter of a reference type is given null,
// before its own code runs, unless the parameter may be null: annotated nullable (C#'s `string?`:
// NullableAttribute, or NullableContextAttribute on the method or its type) or marked with an
// attribute named AllowNullAttribute or CanBeNullAttribute. ref and out parameters, value types
// and generic parameters are left alone.
//
//   ldarg     text
//   brtrue.s  next
//   ldstr     "text"
//   newobj    instance void System.ArgumentNullException::.ctor(string)
//   throw
//   next: ...
using System.Runtime.CompilerServices;
using Weft;

public sealed class NullGuardPass : Pass
{
    private uint argumentNull;

    // ECMA-335 tables and columns, and element types.
    private const uint TypeDefTable = 0x02, MethodDefTable = 0x06, ParamTable = 0x08,
                       CustomAttributeTable = 0x0C;
    private const byte HasThis = 0x20, Void = 0x01, String = 0x0E, Object = 0x1C, Class = 0x12,
                       SZArray = 0x1D, Array = 0x14, GenericInst = 0x15, ByRef = 0x10, CModReqd = 0x1F, CModOpt = 0x20;

    public override void BeginModule(Module module)
    {
        uint exception = module.CoreType("System", "ArgumentNullException");
        argumentNull = module.MemberRef(exception, ".ctor", [HasThis, 1, Void, String]);
    }

    public override void RunMethod(Method method)
    {
        Metadata md = method.Metadata;
        if (!IsPublic(md, method))
        {
            method.Skip("not public"); // left as it was, not encoded again
            return;
        }
        uint context = Context(md, method.Token, Context(md, TypeDefTable << 24 | method.DeclaringType, 0));
        var guarded = new List<(uint Arg, string Name)>();
        uint first = method.IsStatic ? 0u : 1u;
        foreach (uint param in md.MethodParams(method.Row))
        {
            uint sequence = md.Value(ParamTable, param, 1);
            if (sequence == 0 || sequence > method.ParamCount)
                continue;
            if (!IsReference(method.ParamType(sequence - 1)) || MayBeNull(md, ParamTable << 24 | param, context))
                continue;
            guarded.Add((first + sequence - 1, md.String(ParamTable, param, 2)));
        }
        if (guarded.Count == 0)
        {
            method.Skip("no parameter that must not be null");
            return;
        }
        Body body = method.Body;
        Instr[] all = body.Instructions();
        Instr next = all.Length > 0 ? all[0] : default;
        // Last guard first, each placed before the one after it, to which its branch goes.
        for (int i = guarded.Count - 1; i >= 0; --i)
        {
            Emitter e = body.EmitBefore(next);
            Instr start = e.Ldarg(guarded[i].Arg);
            e.Branch(Op.Brtrue_S, next);
            e.Ldstr(method.UserString(guarded[i].Name));
            e.Tok(Op.Newobj, argumentNull);
            e.Op(Op.Throw);
            next = start;
        }
        method.Note("null guards on " + string.Join(", ", guarded.Select(g => g.Name)));
    }

    /// <summary>A public method of a public (or nested public) type.</summary>
    private static bool IsPublic(Metadata md, Method method)
    {
        if ((md.Value(MethodDefTable, method.Row, 2) & 0x7) != 0x6 || method.DeclaringType == 0)
            return false;
        uint visibility = md.Value(TypeDefTable, method.DeclaringType, 0) & 0x7;
        return visibility == 1 || visibility == 2;
    }

    /// <summary>Whether a parameter's type (signature bytes) is a reference type weft can see to
    /// be one: string, object, a class, an array, a generic class.</summary>
    private static bool IsReference(byte[] type)
    {
        int at = 0;
        while (at < type.Length && (type[at] == CModReqd || type[at] == CModOpt))
            at += 1 + CompressedLength(type, at + 1);
        if (at >= type.Length)
            return false;
        return type[at] switch
        {
            String or Object or Class or SZArray or Array => true,
            GenericInst => at + 1 < type.Length && type[at + 1] == Class,
            _ => false, // ByRef, value types, generic parameters, pointers
        };
    }

    private static int CompressedLength(byte[] b, int at) =>
        at >= b.Length ? 1 : (b[at] & 0x80) == 0 ? 1 : (b[at] & 0xC0) == 0x80 ? 2 : 4;

    /// <summary>Whether the parameter may be null: an attribute says so, or its nullable
    /// annotation (or the method's or type's context) is 2.</summary>
    private static bool MayBeNull(Metadata md, uint param, uint context)
    {
        uint flag = context;
        foreach (uint row in md.CustomAttributes(param))
        {
            string name = md.AttributeTypeName(row);
            if (name is "AllowNullAttribute" or "CanBeNullAttribute")
                return true;
            if (name == "NullableAttribute")
                flag = FirstFlag(md.Blob(CustomAttributeTable, row, 2), flag);
        }
        return flag == 2;
    }

    /// <summary>The NullableContextAttribute flag of a method or type, else <paramref name="outer"/>.</summary>
    private static uint Context(Metadata md, uint token, uint outer)
    {
        foreach (uint row in md.CustomAttributes(token))
            if (md.AttributeTypeName(row) == "NullableContextAttribute")
                return FirstFlag(md.Blob(CustomAttributeTable, row, 2), outer);
        return outer;
    }

    /// <summary>The first flag of a Nullable(byte) or Nullable(byte[]) value blob.</summary>
    private static uint FirstFlag(byte[] value, uint fallback)
    {
        if (value.Length == 4 + 1)
            return value[2]; // prolog, the byte, no named arguments
        if (value.Length >= 2 + 4 + 1 && BitConverter.ToInt32(value, 2) > 0)
            return value[6]; // prolog, the array's count, its first byte
        return fallback;
    }

}

static class Registration
{
    [ModuleInitializer]
    internal static void Register() =>
        Plugin.Define("weft-null-guard", "1.0", p => p.AddPass(
            "null-guard",
            "Public methods throw ArgumentNullException for null reference arguments, as NullGuard.Fody does",
            _ => new NullGuardPass()));
}
