// The work of weft's benchmarks done by the .NET libraries weft is measured against:
//   dotnet Peers.dll (srm | cecil | cecil-roundtrip | cecil-entry-exit) [--repeat N] [--threads N]
//                    [--probe PROBES.dll] (--corelib | --framework | --csharp | paths...)
// srm:   every table row, every signature (decoded with a small type provider), every custom
//        attribute value, every method body with its IL walked instruction by instruction.
// cecil: ReadingMode.Immediate, then every type, field, method, parameter and property type,
//        every custom attribute argument and every method body's instructions.
// cecil-roundtrip: as weft-roundtrip-bench: read (ReadingMode.Immediate), load every method body
//        (so that Cecil encodes it again rather than copying it) and write the module to a file.
// cecil-entry-exit: beside weft-weave-bench, what a Cecil user writes for entry/exit probes: every
//        method body gets `ldc.i4 <token>; call Weft.Probes.Empty::OnEnter(int32)` first and
//        `ldc.i4 <token>; call OnExit(int32)` before each ret (the probes of --probe, imported).
//        Lighter than weft's entry-exit: no trampolines, no single exit block, constructors not
//        special-cased, nothing checked.
// --csharp: Roslyn's Microsoft.CodeAnalysis.CSharp.dll of the newest SDK `dotnet --list-sdks` names.
using System.Collections.Immutable;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using Mono.Cecil;
using Mono.Cecil.Rocks; // SimplifyMacros, OptimizeMacros

string mode = args.Length > 0 ? args[0] : "";
int repeat = 1, threads = Environment.ProcessorCount;
var inputs = new List<string>();
string label = "", probe = "";
string fx = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
for (int i = 1; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--repeat": repeat = int.Parse(args[++i]); break;
        case "--threads": threads = int.Parse(args[++i]); break;
        case "--corelib": inputs.Add(Path.Combine(fx, "System.Private.CoreLib.dll")); label = "System.Private.CoreLib.dll"; break;
        case "--framework": inputs.Add(fx); label = "Microsoft.NETCore.App folder"; break;
        case "--csharp": inputs.Add(NewestSdkCSharp()); label = "Microsoft.CodeAnalysis.CSharp.dll"; break;
        case "--probe": probe = args[++i]; break;
        default: inputs.Add(args[i]); break;
    }
}
if ((mode != "srm" && mode != "cecil" && mode != "cecil-roundtrip" && mode != "cecil-entry-exit")
    || inputs.Count == 0 || (mode == "cecil-entry-exit" && !File.Exists(probe)))
{
    Console.Error.WriteLine("usage: Peers (srm | cecil | cecil-roundtrip | cecil-entry-exit) [--repeat N] [--threads N] [--probe PROBES.dll] (--corelib | --framework | --csharp | paths...)");
    return 2;
}
string outDir = Path.Combine(Path.GetTempPath(), "weft-peers-" + Environment.ProcessId);
Directory.CreateDirectory(outDir);
long failures = 0, written = 0;
var files = inputs.SelectMany(p => Directory.Exists(p) ? Directory.EnumerateFiles(p, "*.dll") : new[] { p })
                  .OrderBy(f => f, StringComparer.Ordinal).ToList();
if (label == "")
    label = files.Count == 1 ? Path.GetFileName(files[0]) : $"{files.Count} files";

double best = double.MaxValue, first = 0;
long bodies = 0, instructions = 0, count = 0;
for (int r = 0; r < repeat; r++)
{
    bodies = instructions = count = failures = written = 0;
    var sw = Stopwatch.StartNew();
    Parallel.ForEach(files, new ParallelOptions { MaxDegreeOfParallelism = threads }, file =>
    {
        var (b, n) = mode switch
        {
            "srm" => Srm.Read(file),
            "cecil" => CecilReader.Read(file, null),
            "cecil-entry-exit" => CecilEntryExit.Weave(file, Path.Combine(outDir, Path.GetFileName(file)), probe),
            _ => CecilReader.Read(file, Path.Combine(outDir, Path.GetFileName(file))),
        };
        if (b == -2)
        {
            Interlocked.Increment(ref failures);
            return;
        }
        if (b < 0)
            return;
        Interlocked.Add(ref bodies, b);
        Interlocked.Add(ref instructions, n);
        Interlocked.Increment(ref count);
    });
    if (r == 0)
        first = sw.Elapsed.TotalSeconds;
    best = Math.Min(best, sw.Elapsed.TotalSeconds);
}
if (mode == "cecil-roundtrip")
{
    written = Directory.EnumerateFiles(outDir).Sum(f => new FileInfo(f).Length);
    Console.WriteLine($"Mono.Cecil round trip: {label}: {count} assemblies, {bodies} method bodies loaded and written again, {written / 1048576.0:F1} MiB written{(failures > 0 ? $", {failures} refused" : "")}");
}
else if (mode == "cecil-entry-exit")
{
    written = Directory.EnumerateFiles(outDir).Sum(f => new FileInfo(f).Length);
    Console.WriteLine($"Mono.Cecil entry-exit (lighter: OnEnter/OnExit(int token) called inline, no trampolines, no exit block): {label}: {count} assemblies, {bodies} methods changed, {instructions} instructions after, {written / 1048576.0:F1} MiB written{(failures > 0 ? $", {failures} refused" : "")}");
}
else
    Console.WriteLine($"{(mode == "srm" ? "System.Reflection.Metadata" : "Mono.Cecil")} read: {label}: {count} assemblies, {bodies} method bodies, {instructions} instructions");
Directory.Delete(outDir, recursive: true);
long largest = files.Max(f => new FileInfo(f).Length);
double peak = Process.GetCurrentProcess().PeakWorkingSet64 / 1048576.0;
Console.WriteLine($"  first run {first:F3} s, best of {repeat} {best:F3} s, threads {threads}, peak RSS {peak:F1} MiB = {peak / (largest / 1048576.0):F2}x the largest input ({largest / 1048576.0:F1} MiB)");
return 0;

// The last SDK `dotnet --list-sdks` lists (they come in ascending order), as the C++ benches find it.
static string NewestSdkCSharp()
{
    var psi = new ProcessStartInfo("dotnet", "--list-sdks") { RedirectStandardOutput = true };
    using var p = Process.Start(psi)!;
    string found = "";
    foreach (var line in p.StandardOutput.ReadToEnd().Split('\n'))
    {
        int open = line.IndexOf('['), close = line.LastIndexOf(']');
        if (open < 0 || close < open)
            continue;
        var dll = Path.Combine(line[(open + 1)..close], line[..open].Trim(), "Roslyn", "bincore", "Microsoft.CodeAnalysis.CSharp.dll");
        if (File.Exists(dll))
            found = dll;
    }
    p.WaitForExit();
    return found;
}

static class Srm
{
    public static (long, long) Read(string file)
    {
        using var stream = File.OpenRead(file);
        using var pe = new PEReader(stream);
        if (!pe.HasMetadata)
            return (-1, 0);
        var md = pe.GetMetadataReader();
        var provider = new Provider();
        foreach (var h in md.TypeDefinitions)
        {
            var t = md.GetTypeDefinition(h);
            _ = md.GetString(t.Name);
            foreach (var f in t.GetFields())
                md.GetFieldDefinition(f).DecodeSignature(provider, null);
            foreach (var p in t.GetProperties())
                md.GetPropertyDefinition(p).DecodeSignature(provider, null);
        }
        foreach (var h in md.MemberReferences)
        {
            var m = md.GetMemberReference(h);
            if (m.GetKind() == MemberReferenceKind.Method) m.DecodeMethodSignature(provider, null);
            else m.DecodeFieldSignature(provider, null);
        }
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.TypeSpec); i++)
            md.GetTypeSpecification(MetadataTokens.TypeSpecificationHandle(i)).DecodeSignature(provider, null);
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.MethodSpec); i++)
            md.GetMethodSpecification(MetadataTokens.MethodSpecificationHandle(i)).DecodeSignature(provider, null);
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.StandAloneSig); i++)
        {
            var s = md.GetStandaloneSignature(MetadataTokens.StandaloneSignatureHandle(i));
            if (s.GetKind() == StandaloneSignatureKind.LocalVariables) s.DecodeLocalSignature(provider, null);
            else s.DecodeMethodSignature(provider, null);
        }
        foreach (var h in md.CustomAttributes)
        {
            try { md.GetCustomAttribute(h).DecodeValue(provider); }
            catch (BadImageFormatException) { } // an enum it cannot size
        }
        long bodies = 0, instructions = 0;
        foreach (var h in md.MethodDefinitions)
        {
            var m = md.GetMethodDefinition(h);
            m.DecodeSignature(provider, null);
            if (m.RelativeVirtualAddress == 0 || (m.ImplAttributes & System.Reflection.MethodImplAttributes.CodeTypeMask) != 0)
                continue;
            var body = pe.GetMethodBody(m.RelativeVirtualAddress);
            _ = body.ExceptionRegions;
            if (!body.LocalSignature.IsNil)
                md.GetStandaloneSignature(body.LocalSignature).DecodeLocalSignature(provider, null);
            var il = body.GetILReader();
            while (il.RemainingBytes > 0)
            {
                int op = il.ReadByte();
                if (op == 0xFE) op = 0xFE00 | il.ReadByte();
                int operand = OperandSize((ILOpCode)op, ref il); // may read the switch count first
                il.Offset += operand;
                instructions++;
            }
            bodies++;
        }
        return (bodies, instructions);
    }

    static int OperandSize(ILOpCode op, ref BlobReader il)
    {
        switch (op)
        {
            case ILOpCode.Ldarg_s: case ILOpCode.Ldarga_s: case ILOpCode.Starg_s: case ILOpCode.Ldloc_s:
            case ILOpCode.Ldloca_s: case ILOpCode.Stloc_s: case ILOpCode.Ldc_i4_s: case ILOpCode.Unaligned:
            case (ILOpCode)0xFE19: // no.
                return 1;
            case ILOpCode.Ldarg: case ILOpCode.Ldarga: case ILOpCode.Starg: case ILOpCode.Ldloc:
            case ILOpCode.Ldloca: case ILOpCode.Stloc:
                return 2;
            case ILOpCode.Ldc_i8: case ILOpCode.Ldc_r8:
                return 8;
            case ILOpCode.Switch:
                return il.ReadInt32() * 4;
        }
        if (op.IsBranch())
            return op.GetBranchOperandSize();
        switch (op)
        {
            case ILOpCode.Ldc_i4: case ILOpCode.Ldc_r4: case ILOpCode.Jmp: case ILOpCode.Call:
            case ILOpCode.Calli: case ILOpCode.Callvirt: case ILOpCode.Cpobj: case ILOpCode.Ldobj:
            case ILOpCode.Ldstr: case ILOpCode.Newobj: case ILOpCode.Castclass: case ILOpCode.Isinst:
            case ILOpCode.Unbox: case ILOpCode.Ldfld: case ILOpCode.Ldflda: case ILOpCode.Stfld:
            case ILOpCode.Ldsfld: case ILOpCode.Ldsflda: case ILOpCode.Stsfld: case ILOpCode.Stobj:
            case ILOpCode.Box: case ILOpCode.Newarr: case ILOpCode.Ldelema: case ILOpCode.Ldelem:
            case ILOpCode.Stelem: case ILOpCode.Unbox_any: case ILOpCode.Refanyval: case ILOpCode.Mkrefany:
            case ILOpCode.Ldtoken: case ILOpCode.Ldftn: case ILOpCode.Ldvirtftn: case ILOpCode.Initobj:
            case ILOpCode.Constrained: case ILOpCode.Sizeof:
                return 4;
        }
        return 0;
    }

    // Builds nothing: the point is to decode, as weft's reader does.
    sealed class Provider : ISignatureTypeProvider<int, object?>, ICustomAttributeTypeProvider<int>
    {
        public int GetArrayType(int e, ArrayShape s) => 0;
        public int GetByReferenceType(int e) => 0;
        public int GetFunctionPointerType(MethodSignature<int> s) => 0;
        public int GetGenericInstantiation(int g, ImmutableArray<int> a) => 0;
        public int GetGenericMethodParameter(object? c, int i) => 0;
        public int GetGenericTypeParameter(object? c, int i) => 0;
        public int GetModifiedType(int m, int u, bool r) => 0;
        public int GetPinnedType(int e) => 0;
        public int GetPointerType(int e) => 0;
        public int GetPrimitiveType(PrimitiveTypeCode t) => (int)t;
        public int GetSZArrayType(int e) => 0;
        public int GetTypeFromDefinition(MetadataReader r, TypeDefinitionHandle h, byte k) => 0;
        public int GetTypeFromReference(MetadataReader r, TypeReferenceHandle h, byte k) => 0;
        public int GetTypeFromSpecification(MetadataReader r, object? c, TypeSpecificationHandle h, byte k) => 0;
        public int GetSystemType() => 0;
        public bool IsSystemType(int t) => false;
        public int GetTypeFromSerializedName(string n) => 0;
        public PrimitiveTypeCode GetUnderlyingEnumType(int t) => PrimitiveTypeCode.Int32;
    }
}

static class CecilReader
{
    // Reads every part of the module; with an output path, writes it there afterwards. Returns
    // (-1, 0) for a file that is not a .NET module and (-2, 0) for one Cecil fails on.
    public static (long, long) Read(string file, string? output)
    {
        var resolver = new DefaultAssemblyResolver();
        resolver.AddSearchDirectory(Path.GetDirectoryName(file)!);
        Mono.Cecil.ModuleDefinition module;
        try
        {
            module = Mono.Cecil.ModuleDefinition.ReadModule(file, new ReaderParameters(ReadingMode.Immediate) { AssemblyResolver = resolver });
        }
        catch (BadImageFormatException)
        {
            return (-1, 0);
        }
        long bodies = 0, instructions = 0;
        using (module)
        {
            foreach (var t in module.GetTypes())
            {
                foreach (var ca in t.CustomAttributes) Touch(ca);
                foreach (var f in t.Fields) { _ = f.FieldType.FullName; foreach (var ca in f.CustomAttributes) Touch(ca); }
                foreach (var p in t.Properties) _ = p.PropertyType.FullName;
                foreach (var m in t.Methods)
                {
                    _ = m.ReturnType.FullName;
                    foreach (var p in m.Parameters) _ = p.ParameterType.FullName;
                    foreach (var ca in m.CustomAttributes) Touch(ca);
                    if (!m.HasBody)
                        continue;
                    var body = m.Body;
                    _ = body.ExceptionHandlers.Count;
                    _ = body.Variables.Count;
                    instructions += body.Instructions.Count;
                    bodies++;
                }
            }
            if (output != null)
            {
                // Cecil writes IL-only images; a ReadyToRun input is written as IL only, as weft
                // writes it (Cecil refuses an image without the IL-only flag).
                module.Attributes = (module.Attributes | ModuleAttributes.ILOnly) & ~ModuleAttributes.ILLibrary;
                try { module.Write(output); }
                catch (Exception e)
                {
                    Console.Error.WriteLine($"{file}: {e.GetType().Name}: {e.Message}");
                    return (-2, 0);
                }
            }
        }
        return (bodies, instructions);
    }

    static void Touch(Mono.Cecil.CustomAttribute ca)
    {
        try { _ = ca.ConstructorArguments.Count; _ = ca.Properties.Count; }
        catch (Exception) { } // an enum or type it cannot resolve
    }
}

static class CecilEntryExit
{
    // Returns (methods changed, instructions after), (-1, 0) for a file that is not a .NET module
    // and (-2, 0) for one Cecil fails on.
    public static (long, long) Weave(string file, string output, string probePath)
    {
        var resolver = new DefaultAssemblyResolver();
        resolver.AddSearchDirectory(Path.GetDirectoryName(file)!);
        Mono.Cecil.ModuleDefinition module;
        try
        {
            module = Mono.Cecil.ModuleDefinition.ReadModule(file, new ReaderParameters(ReadingMode.Immediate) { AssemblyResolver = resolver });
        }
        catch (BadImageFormatException)
        {
            return (-1, 0);
        }
        long changed = 0, instructions = 0;
        using (module)
        using (var probes = Mono.Cecil.ModuleDefinition.ReadModule(probePath))
        {
            var empty = probes.GetType("Weft.Probes.Empty");
            var onEnter = module.ImportReference(empty.Methods.Single(m => m.Name == "OnEnter"));
            var onExit = module.ImportReference(empty.Methods.Single(m => m.Name == "OnExit"));
            foreach (var t in module.GetTypes())
            {
                foreach (var m in t.Methods)
                {
                    if (!m.HasBody || m.Body.Instructions.Count == 0) // a body Cecil reads as empty
                        continue;
                    var body = m.Body;
                    int token = m.MetadataToken.ToInt32();
                    body.SimplifyMacros();
                    var il = body.GetILProcessor();
                    // Each ret becomes the ldc.i4 itself, so that branches to it and handler ends
                    // at it now reach the exit probe.
                    foreach (var ret in body.Instructions.Where(i => i.OpCode == Mono.Cecil.Cil.OpCodes.Ret).ToList())
                    {
                        ret.OpCode = Mono.Cecil.Cil.OpCodes.Ldc_I4;
                        ret.Operand = token;
                        var call = il.Create(Mono.Cecil.Cil.OpCodes.Call, onExit);
                        il.InsertAfter(ret, call);
                        il.InsertAfter(call, il.Create(Mono.Cecil.Cil.OpCodes.Ret));
                    }
                    var first = body.Instructions[0];
                    il.InsertBefore(first, il.Create(Mono.Cecil.Cil.OpCodes.Ldc_I4, token));
                    il.InsertBefore(first, il.Create(Mono.Cecil.Cil.OpCodes.Call, onEnter));
                    body.OptimizeMacros();
                    instructions += body.Instructions.Count;
                    changed++;
                }
            }
            module.Attributes = (module.Attributes | ModuleAttributes.ILOnly) & ~ModuleAttributes.ILLibrary;
            try { module.Write(output); }
            catch (Exception e)
            {
                Console.Error.WriteLine($"{file}: {e.GetType().Name}: {e.Message}");
                return (-2, 0);
            }
        }
        return (changed, instructions);
    }
}
