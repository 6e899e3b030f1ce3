// Weft.Sdk: passes for weft written in C#, compiled with NativeAOT into a shared library that
// weft loads like any plugin of its C ABI (docs/plugins.md). A plugin derives from Pass and
// registers its passes from a module initializer:
//
//   public sealed class Hello(Options options) : Pass { ... }
//   static class Registration {
//       [ModuleInitializer]
//       internal static void Register() =>
//           Plugin.Define("my-plugin", "1.0", p => p.AddPass("hello", "says hello", o => new Hello(o)));
//   }
//
// The SDK exports weft_plugin_init (its package's targets make the project a NativeAOT shared
// library exporting it); the passes see the module, the method and its instruction graph through
// the classes below, and what they throw reaches weft as the pass's error.
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Weft.Native;

namespace Weft;

/// <summary>A failure weft reports, with its message.</summary>
public sealed class WeftException(string message) : Exception(message);

/// <summary>A pass: one instance per module; RunMethod runs for many methods at once.</summary>
public abstract class Pass
{
    public virtual void BeginModule(Module module) { }
    public abstract void RunMethod(Method method);
    public virtual void FinishMethod(Method method) { }
    public virtual void EndModule(Module module) { }
}

/// <summary>What the SDK keeps of weft's table and strings.</summary>
internal static unsafe class Host
{
    internal static Api* Api;

    internal static void Check(int status)
    {
        if (status != 0)
            throw new WeftException(Api->LastError().ToString());
    }

    /// <summary>Runs <paramref name="use"/> with <paramref name="text"/> as a weft_string.</summary>
    internal static T With<T>(string text, Func<WeftString, T> use)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        fixed (byte* p = bytes)
            return use(new WeftString { Data = p, Size = (nuint)bytes.Length });
    }

    internal static T With<T>(ReadOnlySpan<byte> data, Func<WeftBytes, T> use)
    {
        fixed (byte* p = data)
            return use(new WeftBytes { Data = p, Size = (nuint)data.Length });
    }

    /// <summary>A text weft writes snprintf's way.</summary>
    internal static string Text(Func<nint, nuint, nuint> write)
    {
        byte[] buffer = new byte[128];
        nuint n;
        fixed (byte* p = buffer)
            n = write((nint)p, (nuint)buffer.Length);
        if (n > (nuint)buffer.Length)
        {
            buffer = new byte[(int)n];
            fixed (byte* p = buffer)
                write((nint)p, n);
        }
        return Encoding.UTF8.GetString(buffer, 0, (int)n);
    }

    internal static void SetError(string message) =>
        With(message, s => { Api->SetError(s); return 0; });
}

/// <summary>The options a pass was made with.</summary>
public readonly unsafe struct Options
{
    private readonly void* handle;
    internal Options(void* handle) => this.handle = handle;

    public bool Has(string key)
    {
        void* h = handle;
        return Host.With(key, k => { WeftString v; return Host.Api->Option(h, k, &v); }) == 0;
    }

    public string Get(string key, string fallback = "")
    {
        void* h = handle;
        return Host.With(key, k =>
        {
            WeftString v;
            return Host.Api->Option(h, k, &v) == 0 ? v.ToString() : fallback;
        });
    }

    /// <summary>A path option, made relative to the spec file's folder.</summary>
    public string Path(string key)
    {
        void* h = handle;
        return Host.With(key, k => Host.Text((b, n) => Host.Api->OptionPath(h, k, (byte*)b, n)));
    }

    /// <summary>The rule that gave the options, for messages.</summary>
    public string Rule => Host.Api->OptionRule(handle).ToString();
}

/// <summary>How the plugin registers its passes (Plugin.Define).</summary>
public sealed unsafe class Registrar
{
    private readonly void* plugin;
    internal Registrar(void* plugin) => this.plugin = plugin;

    /// <summary>Registers a pass: its name, one line of description, its options (name,
    /// description) and how to make an instance for the options.</summary>
    public void AddPass(string name, string description, Func<Options, Pass> create,
                        params (string Name, string Description)[] options)
    {
        var registered = new Registered(name, description, options, create);
        Plugin.Keep.Add(registered);
        Host.Check(Host.Api->RegisterPass(plugin, registered.Info));
    }
}

/// <summary>A registered pass: its description as weft reads it, kept for the plugin's life.</summary>
internal sealed unsafe class Registered
{
    internal readonly PassInfo* Info;
    internal readonly Func<Options, Pass> Create;

    internal Registered(string name, string description, (string Name, string Description)[] options,
                        Func<Options, Pass> create)
    {
        Create = create;
        Info = (PassInfo*)NativeMemory.AllocZeroed((nuint)sizeof(PassInfo));
        Info->Size = (uint)sizeof(PassInfo);
        Info->Name = Utf8(name);
        Info->Description = Utf8(description);
        Info->OptionCount = (nuint)options.Length;
        Info->Options = (OptionInfo*)NativeMemory.AllocZeroed((nuint)(sizeof(OptionInfo) * Math.Max(1, options.Length)));
        for (int i = 0; i < options.Length; ++i)
        {
            Info->Options[i].Name = Utf8(options[i].Name);
            Info->Options[i].Description = Utf8(options[i].Description);
        }
        Info->Data = (void*)GCHandle.ToIntPtr(GCHandle.Alloc(this));
        Info->Create = &Callbacks.Create;
        Info->Destroy = &Callbacks.Destroy;
        Info->BeginModule = &Callbacks.BeginModule;
        Info->RunMethod = &Callbacks.RunMethod;
        Info->FinishMethod = &Callbacks.FinishMethod;
        Info->EndModule = &Callbacks.EndModule;
    }

    private static byte* Utf8(string s)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(s);
        byte* p = (byte*)NativeMemory.Alloc((nuint)bytes.Length + 1);
        bytes.CopyTo(new Span<byte>(p, bytes.Length));
        p[bytes.Length] = 0;
        return p;
    }
}

/// <summary>The callbacks weft calls: each turns what the pass throws into the ABI's error.</summary>
internal static unsafe class Callbacks
{
    private static int Guard(Action action)
    {
        try
        {
            action();
            return 0;
        }
        catch (Exception e)
        {
            Host.SetError(e is WeftException ? e.Message : e.GetType().Name + ": " + e.Message);
            return 1;
        }
    }

    private static Pass PassOf(void* instance) => (Pass)GCHandle.FromIntPtr((nint)instance).Target!;

    [UnmanagedCallersOnly]
    internal static int Create(void* data, void* options, void** instance)
    {
        void** result = instance;
        return Guard(() =>
        {
            var r = (Registered)GCHandle.FromIntPtr((nint)data).Target!;
            Pass pass = r.Create(new Options(options));
            *result = (void*)GCHandle.ToIntPtr(GCHandle.Alloc(pass));
        });
    }

    [UnmanagedCallersOnly]
    internal static void Destroy(void* instance) => GCHandle.FromIntPtr((nint)instance).Free();

    [UnmanagedCallersOnly]
    internal static int BeginModule(void* instance, void* module) =>
        Guard(() => PassOf(instance).BeginModule(new Module(module)));

    [UnmanagedCallersOnly]
    internal static int RunMethod(void* instance, void* method) =>
        Guard(() => PassOf(instance).RunMethod(new Method(method)));

    [UnmanagedCallersOnly]
    internal static void FinishMethod(void* instance, void* method) =>
        Guard(() => PassOf(instance).FinishMethod(new Method(method)));

    [UnmanagedCallersOnly]
    internal static int EndModule(void* instance, void* module) =>
        Guard(() => PassOf(instance).EndModule(new Module(module)));

    /// <summary>BeforeEachExit's and MakeSingleExit's callback: User is a GCHandle of the
    /// pass's Action.</summary>
    [UnmanagedCallersOnly]
    internal static void Emit(void* user, void* body, void* before, int tailCall)
    {
        var emit = (Action<Emitter, bool>)GCHandle.FromIntPtr((nint)user).Target!;
        emit(new Emitter(new Body(body), new Instr(before)), tailCall != 0);
    }
}

/// <summary>The plugin: its name, version and passes, given to weft when it loads the library.</summary>
public static unsafe class Plugin
{
    internal static readonly List<object> Keep = [];
    private static string? name, version;
    private static Action<Registrar>? register;

    /// <summary>Says what the plugin is and how it registers its passes; called from a module
    /// initializer of the plugin's assembly, before weft asks.</summary>
    public static void Define(string name, string version, Action<Registrar> register)
    {
        Plugin.name = name;
        Plugin.version = version;
        Plugin.register = register;
    }

    /// <summary>weft_plugin_init: weft's table, and the plugin's handle.</summary>
    [UnmanagedCallersOnly(EntryPoint = "weft_plugin_init")]
    public static int Init(Api* api, void* plugin)
    {
        Host.Api = api;
        if (register is null || name is null || version is null)
        {
            Host.SetError("the plugin defines no passes: call Weft.Plugin.Define from a [ModuleInitializer]");
            return 1;
        }
        int status = Host.With(name, n => Host.With(version, v => api->SetPluginInfo(plugin, 1, n, v)));
        if (status != 0)
            return status;
        try
        {
            register(new Registrar(plugin));
            return 0;
        }
        catch (Exception e)
        {
            Host.SetError(e.Message);
            return 1;
        }
    }
}

/// <summary>A module's metadata, read-only (ECMA-335 II.22's tables and columns).</summary>
public readonly unsafe struct Metadata
{
    private readonly void* handle;
    internal Metadata(void* handle) => this.handle = handle;

    public uint Rows(uint table) => Host.Api->RowCount(handle, table);

    public uint Value(uint table, uint row, uint column)
    {
        uint v;
        Host.Check(Host.Api->Column(handle, table, row, column, &v));
        return v;
    }

    public uint Token(uint table, uint row, uint column)
    {
        uint v;
        Host.Check(Host.Api->ColumnToken(handle, table, row, column, &v));
        return v;
    }

    public string String(uint table, uint row, uint column)
    {
        WeftString v;
        Host.Check(Host.Api->ColumnString(handle, table, row, column, &v));
        return v.ToString();
    }

    public byte[] Blob(uint table, uint row, uint column)
    {
        WeftBytes v;
        Host.Check(Host.Api->ColumnBlob(handle, table, row, column, &v));
        return v.ToArray();
    }

    /// <summary>The CustomAttribute rows whose parent is <paramref name="parent"/>.</summary>
    public uint[] CustomAttributes(uint parent)
    {
        uint* rows;
        nuint n;
        Host.Check(Host.Api->CustomAttributes(handle, parent, &rows, &n));
        return new ReadOnlySpan<uint>(rows, (int)n).ToArray();
    }

    /// <summary>The Param rows of a method.</summary>
    public uint[] MethodParams(uint methodRow)
    {
        nuint n;
        Host.Check(Host.Api->MethodParams(handle, methodRow, null, 0, &n));
        uint[] rows = new uint[(int)n];
        fixed (uint* p = rows)
            Host.Check(Host.Api->MethodParams(handle, methodRow, p, n, &n));
        return rows;
    }

    public uint DeclaringTypeOfMethod(uint methodRow) => Host.Api->DeclaringTypeOfMethod(handle, methodRow);

    /// <summary>The simple name of a TypeDef or TypeRef token ("TimeAttribute"); "" for
    /// another token.</summary>
    public string TypeName(uint type) => (type >> 24) switch
    {
        0x01 or 0x02 => String(type >> 24, type & 0xFFFFFF, 1),
        _ => "",
    };

    /// <summary>The simple name of a CustomAttribute row's type, through its constructor (a
    /// MethodDef or MemberRef).</summary>
    public string AttributeTypeName(uint row)
    {
        uint ctor = Token(0x0C, row, 1);
        return (ctor >> 24) switch
        {
            0x0A => TypeName(Token(0x0A, ctor & 0xFFFFFF, 0)),
            0x06 => TypeName(0x02u << 24 | DeclaringTypeOfMethod(ctor & 0xFFFFFF)),
            _ => "",
        };
    }

    /// <summary>The token as ildasm writes an ldtoken operand.</summary>
    public string TokenText(uint token)
    {
        void* h = handle;
        return Host.Text((b, n) => Host.Api->TokenText(h, token, (byte*)b, n));
    }
}

/// <summary>The module, in BeginModule and EndModule.</summary>
public readonly unsafe struct Module
{
    private readonly void* handle;
    internal Module(void* handle) => this.handle = handle;

    public Metadata Metadata => new(Host.Api->ModuleMetadata(handle));
    public string AssemblyName => Host.Api->AssemblyName(handle).ToString();
    public string InputPath => Host.Api->InputPath(handle).ToString();

    public uint CoreType(string ns, string name)
    {
        void* h = handle;
        return Host.With(ns, n => Host.With(name, t =>
        {
            uint token;
            Host.Check(Host.Api->CoreType(h, n, t, &token));
            return token;
        }));
    }

    public uint FrameworkType(string assembly, string ns, string name)
    {
        void* h = handle;
        return Host.With(assembly, a => Host.With(ns, n => Host.With(name, t =>
        {
            uint token;
            Host.Check(Host.Api->FrameworkType(h, a, n, t, &token));
            return token;
        })));
    }

    /// <summary>A reference to an assembly (a probe or helper assembly the woven code calls):
    /// an equal existing row, or a new one.</summary>
    public uint AssemblyRef(string name, Version version, string culture = "",
                            ReadOnlySpan<byte> publicKeyOrToken = default)
    {
        void* h = handle;
        byte[] key = publicKeyOrToken.ToArray();
        ushort* v = stackalloc ushort[4];
        v[0] = (ushort)version.Major;
        v[1] = (ushort)version.Minor;
        v[2] = (ushort)Math.Max(version.Build, 0);
        v[3] = (ushort)Math.Max(version.Revision, 0);
        return Host.With(name, n => Host.With(culture, c => Host.With<uint>(key, k => Host.Api->AssemblyRef(h, n, v, k, c))));
    }

    /// <summary>Another assembly's metadata by path (probes, replacements), read once per run;
    /// it lives as long as the module.</summary>
    public Metadata OpenAssembly(string path)
    {
        void* h = handle;
        void* md = null;
        void** result = &md;
        Host.With(path, p => { Host.Check(Host.Api->OpenAssembly(h, p, result)); return 0; });
        return new Metadata(md);
    }

    public uint TypeRef(uint scope, string ns, string name)
    {
        void* h = handle;
        return Host.With(ns, n => Host.With(name, t => Host.Api->TypeRef(h, scope, n, t)));
    }

    public uint MemberRef(uint parent, string name, ReadOnlySpan<byte> signature)
    {
        void* h = handle;
        byte[] sig = signature.ToArray();
        return Host.With(name, n => Host.With<uint>(sig, s => Host.Api->MemberRef(h, parent, n, s)));
    }

    public uint TypeSpec(ReadOnlySpan<byte> signature)
    {
        void* h = handle;
        return Host.With<uint>(signature, s => Host.Api->TypeSpec(h, s));
    }

    public uint MethodSpec(uint method, ReadOnlySpan<byte> instantiation)
    {
        void* h = handle;
        return Host.With<uint>(instantiation, s => Host.Api->MethodSpec(h, method, s));
    }

    public void Warn(string message)
    {
        void* h = handle;
        Host.With(message, m => { Host.Api->Warn(h, m); return 0; });
    }

    public void AddSideFile(string suffix, ReadOnlySpan<byte> contents)
    {
        void* h = handle;
        byte[] data = contents.ToArray();
        Host.With(suffix, s => Host.With<int>(data, d => { Host.Api->AddSideFile(h, s, d); return 0; }));
    }
}

/// <summary>One method, in RunMethod and FinishMethod.</summary>
public readonly unsafe struct Method
{
    private readonly void* handle;
    internal Method(void* handle) => this.handle = handle;

    public Metadata Metadata => new(Host.Api->MethodMetadata(handle));
    public uint Token => Host.Api->MethodToken(handle);
    public uint Row => Token & 0xFFFFFF;
    /// <summary>The declaring TypeDef's row (0 for a global method).</summary>
    public uint DeclaringType => Host.Api->DeclaringType(handle);
    /// <summary>"Namespace.Type::Method".</summary>
    public string DisplayName => Host.Api->MethodDisplayName(handle).ToString();
    public bool IsConstructor => Host.Api->IsConstructor(handle) != 0;
    public bool IsStatic => Host.Api->IsStatic(handle) != 0;
    public Body Body => new(Host.Api->Body(handle));
    /// <summary>The return type, as type signature bytes.</summary>
    public byte[] ReturnType => Host.Api->ReturnType(handle).ToArray();
    public uint ParamCount => Host.Api->ParamCount(handle);
    public byte[] ParamType(uint index) => Host.Api->ParamType(handle, index).ToArray();

    /// <summary>A provisional token for a user string (real once the batch is done).</summary>
    public uint UserString(string text)
    {
        void* h = handle;
        return Host.With(text, t => Host.Api->MethodUserString(h, t));
    }

    public uint MemberRef(uint parent, string name, ReadOnlySpan<byte> signature)
    {
        void* h = handle;
        byte[] sig = signature.ToArray();
        return Host.With(name, n => Host.With<uint>(sig, s => Host.Api->MethodMemberRef(h, parent, n, s)));
    }

    public uint TypeToken(ReadOnlySpan<byte> type)
    {
        void* h = handle;
        return Host.With<uint>(type, t => Host.Api->TypeToken(h, t));
    }

    /// <summary>A new local of the type (signature bytes); its number.</summary>
    public uint AddLocal(ReadOnlySpan<byte> type)
    {
        void* h = handle;
        return Host.With<uint>(type, t => Host.Api->AddLocal(h, t));
    }

    public void Skip(string reason)
    {
        void* h = handle;
        Host.With(reason, r => { Host.Api->Skip(h, r); return 0; });
    }

    public void Note(string what)
    {
        void* h = handle;
        Host.With(what, w => { Host.Api->Note(h, w); return 0; });
    }

    /// <summary>Places code before each way out of the method: each ret (the return value on the
    /// stack) and each tail call (its arguments on the stack); the code must leave the stack as
    /// it found it.</summary>
    public void BeforeEachExit(Action<Emitter, bool> emit)
    {
        GCHandle h = GCHandle.Alloc(emit);
        try
        {
            Host.Api->BeforeEachExit(handle, &Callbacks.Emit, (void*)GCHandle.ToIntPtr(h));
        }
        finally
        {
            h.Free();
        }
    }

    /// <summary>Where code wrapping the body may begin; throws, saying why, when it cannot be
    /// wrapped in a try block.</summary>
    public int WrapStart()
    {
        nuint at;
        Host.Check(Host.Api->WrapStart(handle, &at));
        return (int)at;
    }

    /// <summary>Sends every ret to one epilogue at the end (with wrap: as leave, tail calls moved
    /// out): the epilogue, the local holding the value (or null), where the method's code ends.</summary>
    public (Instr Epilogue, uint? ValueLocal, Instr End) MakeSingleExit(bool wrap)
    {
        SingleExit x;
        Host.Check(Host.Api->MakeSingleExit(handle, wrap ? 1 : 0, null, null, &x));
        return (new Instr(x.Epilogue), x.HasValue != 0 ? x.ValueLocal : null, new Instr(x.End));
    }
}

/// <summary>An instruction of a body.</summary>
public readonly unsafe struct Instr : IEquatable<Instr>
{
    internal readonly void* Handle;
    internal Instr(void* handle) => Handle = handle;

    public bool IsNull => Handle == null;
    public uint Opcode
    {
        get => Host.Api->Opcode(Handle);
        set => Host.Api->SetOpcode(Handle, value);
    }
    public long Integer
    {
        get => Host.Api->Integer(Handle);
        set => Host.Api->SetInteger(Handle, value);
    }
    public uint Token
    {
        get => Host.Api->Token(Handle);
        set => Host.Api->SetToken(Handle, value);
    }
    public uint Index
    {
        get => Host.Api->Index(Handle);
        set => Host.Api->SetIndex(Handle, value);
    }
    public Instr Target
    {
        get => new(Host.Api->Target(Handle));
        set => Host.Api->SetTarget(Handle, value.Handle);
    }
    public uint OriginalOffset => Host.Api->OriginalOffset(Handle);

    public bool Equals(Instr other) => Handle == other.Handle;
    public override bool Equals(object? obj) => obj is Instr i && Equals(i);
    public override int GetHashCode() => ((nint)Handle).GetHashCode();
    public static bool operator ==(Instr a, Instr b) => a.Handle == b.Handle;
    public static bool operator !=(Instr a, Instr b) => a.Handle != b.Handle;
}

/// <summary>An instruction graph: branches and exception clauses point at instructions.</summary>
public readonly unsafe struct Body
{
    internal readonly void* Handle;
    internal Body(void* handle) => Handle = handle;

    /// <summary>The instructions in order (a copy: edit freely while walking it).</summary>
    public Instr[] Instructions()
    {
        nuint n;
        void** all = Host.Api->Instructions(Handle, &n);
        var result = new Instr[(int)n];
        for (int i = 0; i < result.Length; ++i)
            result[i] = new Instr(all[i]);
        return result;
    }

    public Instr Create(uint opcode)
    {
        void* i = Host.Api->CreateInstr(Handle, opcode);
        if (i == null)
            throw new WeftException(Host.Api->LastError().ToString());
        return new Instr(i);
    }

    public void InsertBefore(Instr before, Instr instr) => Host.Api->InsertBefore(Handle, before.Handle, instr.Handle);
    public void Remove(Instr instr) => Host.Api->Remove(Handle, instr.Handle);
    public void Retarget(Instr from, Instr to) => Host.Api->Retarget(Handle, from.Handle, to.Handle);
    /// <summary>Places new instructions before <paramref name="before"/> (null: at the end).</summary>
    public Emitter EmitBefore(Instr before) => new(this, before);
    public Emitter EmitAtEnd() => new(this, default);

    /// <summary>Makes tryFirst up to handlerFirst a try block whose handler runs from handlerFirst
    /// to end (kind: 0 catch, 1 filter, 2 finally, 3 fault); the new clause's index.</summary>
    public int Protect(Instr tryFirst, Instr handlerFirst, Instr end, uint kind, uint catchType = 0) =>
        (int)Host.Api->ProtectBody(Handle, tryFirst.Handle, handlerFirst.Handle, end.Handle, kind, catchType);
}

/// <summary>Places instructions before one (at the end for none), in the short forms of
/// constants, locals and arguments.</summary>
public readonly struct Emitter(Body body, Instr before)
{
    public Body Body => body;
    public Instr Before => before;

    public Instr Op(uint opcode) => Place(body.Create(opcode));

    public Instr Tok(uint opcode, uint token)
    {
        Instr i = body.Create(opcode);
        i.Token = token;
        return Place(i);
    }

    public Instr Branch(uint opcode, Instr target)
    {
        Instr i = body.Create(opcode);
        i.Target = target;
        return Place(i);
    }

    public Instr Ldc(int value)
    {
        if (value >= -1 && value <= 8)
            return Op((uint)((int)Weft.Op.Ldc_I4_0 + value));
        Instr i = body.Create(value >= -128 && value <= 127 ? Weft.Op.Ldc_I4_S : Weft.Op.Ldc_I4);
        i.Integer = value;
        return Place(i);
    }

    public Instr Ldstr(uint stringToken) => Tok(Weft.Op.Ldstr, stringToken);
    public Instr Ldarg(uint n) => Var(n, Weft.Op.Ldarg_0, Weft.Op.Ldarg_S);
    public Instr Ldloc(uint n) => Var(n, Weft.Op.Ldloc_0, Weft.Op.Ldloc_S);
    public Instr Stloc(uint n) => Var(n, Weft.Op.Stloc_0, Weft.Op.Stloc_S);

    public Instr Ldloca(uint n)
    {
        Instr i = body.Create(Weft.Op.Ldloca_S);
        i.Index = n;
        return Place(i);
    }

    /// <summary>Places an instruction made before (a branch target made before its branch).</summary>
    public Instr Put(Instr i) => Place(i);

    private Instr Var(uint n, uint zero, uint shortForm)
    {
        if (n < 4)
            return Op(zero + n);
        Instr i = body.Create(shortForm);
        i.Index = n;
        return Place(i);
    }

    private Instr Place(Instr i)
    {
        body.InsertBefore(before, i);
        return i;
    }
}

/// <summary>Signature bytes (ECMA-335 II.23.2).</summary>
public static class Sig
{
    /// <summary>A TypeDef, TypeRef or TypeSpec token as a signature's compressed TypeDefOrRef
    /// coded index (II.23.2.8).</summary>
    public static byte[] TypeDefOrRef(uint token)
    {
        uint tag = (token >> 24) switch { 0x02 => 0u, 0x01 => 1u, _ => 2u };
        uint value = ((token & 0xFFFFFF) << 2) | tag;
        if (value < 0x80)
            return [(byte)value];
        if (value < 0x4000)
            return [(byte)(0x80 | (value >> 8)), (byte)value];
        return [(byte)(0xC0 | (value >> 24)), (byte)(value >> 16), (byte)(value >> 8), (byte)value];
    }

    /// <summary>The token the TypeDefOrRef coded index at <paramref name="at"/> names.</summary>
    public static uint ReadTypeDefOrRef(ReadOnlySpan<byte> b, int at)
    {
        uint v = (b[at] & 0x80) == 0 ? b[at]
               : (b[at] & 0xC0) == 0x80 ? (uint)((b[at] & 0x3F) << 8 | b[at + 1])
               : (uint)((b[at] & 0x1F) << 24 | b[at + 1] << 16 | b[at + 2] << 8 | b[at + 3]);
        uint table = (v & 3) switch { 0 => 0x02u, 1 => 0x01u, _ => 0x1Bu };
        return table << 24 | v >> 2;
    }
}
