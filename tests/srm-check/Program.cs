// Cross-checks `weft info --json --bodies` against System.Reflection.Metadata: for every managed
// assembly in the given folders (default: every installed shared framework, found through
// `dotnet --list-runtimes`), the row count of every table, the number of method bodies, and each
// method body's code size must agree.
//
//   dotnet SrmCheck.dll <weft executable> [folder...]
//
// Exit code 0 when everything agrees, 1 on any mismatch, 2 on usage errors.

using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text.Json;

if (args.Length < 1)
{
    Console.Error.WriteLine("usage: SrmCheck <weft executable> [folder...]");
    return 2;
}
string weft = args[0];
var folders = args.Skip(1).ToList();
if (folders.Count == 0)
    folders = InstalledFrameworks();
if (folders.Count == 0)
{
    Console.Error.WriteLine("no folders to check (dotnet --list-runtimes listed nothing)");
    return 2;
}

int assemblies = 0, skipped = 0, mismatches = 0;
long rows = 0, bodies = 0;
foreach (string folder in folders)
{
    foreach (string file in Directory.EnumerateFiles(folder, "*.dll").OrderBy(f => f, StringComparer.Ordinal))
    {
        Expected? expected = ReadWithSrm(file);
        if (expected is null)
        {
            skipped++;
            continue;
        }
        assemblies++;
        var problems = Compare(file, expected, RunWeft(weft, file));
        rows += expected.Tables.Values.Sum();
        bodies += expected.Bodies.Count;
        foreach (string p in problems.Take(10))
            Console.WriteLine($"MISMATCH {Path.GetFileName(file)}: {p}");
        mismatches += problems.Count;
    }
}
Console.WriteLine($"checked {assemblies} assemblies in {folders.Count} folders ({skipped} not managed): " +
                  $"{rows} table rows, {bodies} method bodies; {mismatches} mismatches");
return mismatches == 0 && assemblies > 0 ? 0 : 1;

static List<string> InstalledFrameworks()
{
    var psi = new ProcessStartInfo("dotnet", "--list-runtimes") { RedirectStandardOutput = true };
    using var p = Process.Start(psi)!;
    string output = p.StandardOutput.ReadToEnd();
    p.WaitForExit();
    var result = new List<string>();
    // "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]"
    foreach (string line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
    {
        int open = line.IndexOf('['), close = line.LastIndexOf(']');
        string[] words = line[..Math.Max(open, 0)].Trim().Split(' ');
        if (open < 0 || close < open || words.Length != 2)
            continue;
        result.Add(Path.Combine(line[(open + 1)..close], words[1]));
    }
    return result;
}

static Expected? ReadWithSrm(string file)
{
    using var stream = File.OpenRead(file);
    using var pe = new PEReader(stream);
    if (!pe.HasMetadata)
        return null;
    MetadataReader md = pe.GetMetadataReader();
    var e = new Expected();
    for (int t = 0; t < TableNames.Length; t++)
    {
        if (TableNames[t] is null)
            continue;
        int count = md.GetTableRowCount((TableIndex)t);
        if (count > 0)
            e.Tables[TableNames[t]!] = count;
    }
    foreach (MethodDefinitionHandle h in md.MethodDefinitions)
    {
        MethodDefinition m = md.GetMethodDefinition(h);
        if (m.RelativeVirtualAddress == 0)
            continue;
        if ((m.ImplAttributes & MethodImplAttributes.CodeTypeMask) != MethodImplAttributes.IL)
            continue;
        MethodBodyBlock body = pe.GetMethodBody(m.RelativeVirtualAddress);
        e.Bodies[MetadataTokens.GetToken(h)] = body.GetILReader().Length;
    }
    return e;
}

static JsonDocument RunWeft(string weft, string file)
{
    var psi = new ProcessStartInfo(weft) { RedirectStandardOutput = true, RedirectStandardError = true };
    psi.ArgumentList.Add("info");
    psi.ArgumentList.Add("--json");
    psi.ArgumentList.Add("--bodies");
    psi.ArgumentList.Add(file);
    using var p = Process.Start(psi)!;
    string output = p.StandardOutput.ReadToEnd();
    string error = p.StandardError.ReadToEnd();
    p.WaitForExit();
    if (p.ExitCode != 0)
        throw new Exception($"weft info failed on {file} (exit {p.ExitCode}): {error}");
    return JsonDocument.Parse(output);
}

static List<string> Compare(string file, Expected srm, JsonDocument weftJson)
{
    var problems = new List<string>();
    JsonElement root = weftJson.RootElement;
    var weftTables = new Dictionary<string, int>();
    foreach (JsonProperty p in root.GetProperty("tables").EnumerateObject())
        if (p.Value.GetInt32() > 0)
            weftTables[p.Name] = p.Value.GetInt32();
    foreach (string name in srm.Tables.Keys.Union(weftTables.Keys))
    {
        srm.Tables.TryGetValue(name, out int a);
        weftTables.TryGetValue(name, out int b);
        if (a != b)
            problems.Add($"table {name}: System.Reflection.Metadata {a} rows, weft {b}");
    }
    int weftCount = root.GetProperty("methods_with_body").GetInt32();
    if (weftCount != srm.Bodies.Count)
        problems.Add($"methods with body: System.Reflection.Metadata {srm.Bodies.Count}, weft {weftCount}");
    long total = 0;
    var seen = new HashSet<int>();
    foreach (JsonElement b in root.GetProperty("method_bodies").EnumerateArray())
    {
        int token = Convert.ToInt32(b.GetProperty("token").GetString(), 16);
        int size = b.GetProperty("code_size").GetInt32();
        total += size;
        seen.Add(token);
        if (!srm.Bodies.TryGetValue(token, out int expected))
            problems.Add($"0x{token:x8}: weft has a body, System.Reflection.Metadata none");
        else if (expected != size)
            problems.Add($"0x{token:x8}: code size System.Reflection.Metadata {expected}, weft {size}");
    }
    foreach (int token in srm.Bodies.Keys.Where(t => !seen.Contains(t)))
        problems.Add($"0x{token:x8}: System.Reflection.Metadata has a body, weft none");
    if (root.GetProperty("il_bytes").GetInt64() != total)
        problems.Add("il_bytes is not the sum of the listed code sizes");
    return problems;
}

sealed class Expected
{
    public Dictionary<string, int> Tables { get; } = new();
    public Dictionary<int, int> Bodies { get; } = new();
}

static partial class Program
{
    // ECMA-335 II.22 and portable PDB table names, by table number.
    static readonly string?[] TableNames =
    {
        "Module", "TypeRef", "TypeDef", "FieldPtr", "Field", "MethodPtr", "MethodDef", "ParamPtr",
        "Param", "InterfaceImpl", "MemberRef", "Constant", "CustomAttribute", "FieldMarshal",
        "DeclSecurity", "ClassLayout", "FieldLayout", "StandAloneSig", "EventMap", "EventPtr",
        "Event", "PropertyMap", "PropertyPtr", "Property", "MethodSemantics", "MethodImpl",
        "ModuleRef", "TypeSpec", "ImplMap", "FieldRVA", "ENCLog", "ENCMap", "Assembly",
        "AssemblyProcessor", "AssemblyOS", "AssemblyRef", "AssemblyRefProcessor", "AssemblyRefOS",
        "File", "ExportedType", "ManifestResource", "NestedClass", "GenericParam", "MethodSpec",
        "GenericParamConstraint", null, null, null,
        "Document", "MethodDebugInformation", "LocalScope", "LocalVariable", "LocalConstant",
        "ImportScope", "StateMachineMethod", "CustomDebugInformation",
    };
}
