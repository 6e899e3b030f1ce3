// PdbCheck ORIGINAL.dll WOVEN.dll
//
// Checks the portable PDB next to WOVEN.dll (written by weft for its changed method bodies)
// against the woven assembly and against the PDB next to ORIGINAL.dll, with System.Reflection
// .Metadata only:
//  - the PDB opens, and its id is the one WOVEN.dll's CodeView entry names (GUID and stamp);
//  - if WOVEN.dll has a PDB checksum entry, it is the hash of the PDB with its id zeroed;
//  - every sequence point's IL offset is the start of an instruction of the woven body;
//  - the visible (non-hidden) sequence points of each method are the original ones, one to one,
//    in the same order, in the same documents.
// Prints a summary; exit 0 if all holds, 1 with one line per problem otherwise.
using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Security.Cryptography;

if (args.Length != 2)
{
    Console.Error.WriteLine("usage: PdbCheck ORIGINAL.dll WOVEN.dll");
    return 2;
}

var problems = new List<string>();
void Problem(string what) { if (problems.Count < 50) problems.Add(what); }

using var originalPe = new PEReader(File.OpenRead(args[0]));
using var wovenPe = new PEReader(File.OpenRead(args[1]));
var originalPdb = MetadataReaderProvider.FromPortablePdbImage(ImmutableArray.Create(PdbBytes(args[0], originalPe))).GetMetadataReader();
var wovenPdbBytes = PdbBytes(args[1], wovenPe);
using var wovenProvider = MetadataReaderProvider.FromPortablePdbImage(ImmutableArray.Create(wovenPdbBytes));
var wovenPdb = wovenProvider.GetMetadataReader();

// The id and the checksum.
var id = wovenPdb.DebugMetadataHeader!.Id;
bool named = false;
foreach (var entry in wovenPe.ReadDebugDirectory())
{
    if (entry.Type == DebugDirectoryEntryType.CodeView)
    {
        var cv = wovenPe.ReadCodeViewDebugDirectoryData(entry);
        var guid = cv.Guid.ToByteArray();
        var stamp = BitConverter.GetBytes(entry.Stamp);
        named |= id.Take(16).SequenceEqual(guid) && id.Skip(16).SequenceEqual(stamp);
    }
    else if (entry.Type == DebugDirectoryEntryType.PdbChecksum)
    {
        var sum = wovenPe.ReadPdbChecksumDebugDirectoryData(entry);
        var copy = (byte[])wovenPdbBytes.Clone();
        int at = IdOffset(copy);
        Array.Clear(copy, at, 20);
        byte[] want = sum.AlgorithmName switch
        {
            "SHA256" => SHA256.HashData(copy),
            "SHA384" => SHA384.HashData(copy),
            "SHA512" => SHA512.HashData(copy),
            _ => Array.Empty<byte>(),
        };
        if (!want.SequenceEqual(sum.Checksum))
            Problem($"the PDB checksum entry ({sum.AlgorithmName}) does not match the PDB");
    }
}
if (!named)
    Problem("no CodeView entry names the PDB id");

// The sequence points.
var wovenMd = wovenPe.GetMetadataReader();
int methods = 0, points = 0, hidden = 0;
foreach (var handle in wovenMd.MethodDefinitions)
{
    var def = wovenMd.GetMethodDefinition(handle);
    int row = MetadataTokens.GetRowNumber(handle);
    var debugHandle = MetadataTokens.MethodDebugInformationHandle(row);
    if (row > wovenPdb.MethodDebugInformation.Count)
        continue;
    var after = wovenPdb.GetMethodDebugInformation(debugHandle).GetSequencePoints().ToList();
    if (after.Count == 0)
        continue;
    methods++;
    var name = wovenMd.GetString(def.Name);
    if (def.RelativeVirtualAddress == 0)
    {
        Problem($"0x{MetadataTokens.GetToken(handle):x8} {name}: sequence points but no body");
        continue;
    }
    var body = wovenPe.GetMethodBody(def.RelativeVirtualAddress);
    var starts = InstructionStarts(body.GetILBytes()!);
    foreach (var p in after)
    {
        points++;
        if (p.IsHidden) hidden++;
        if (!starts.Contains(p.Offset))
            Problem($"0x{MetadataTokens.GetToken(handle):x8} {name}: sequence point at IL_{p.Offset:x4} is not on an instruction");
    }
    if (row > originalPdb.MethodDebugInformation.Count)
        continue;
    var before = originalPdb.GetMethodDebugInformation(debugHandle).GetSequencePoints().ToList();
    var a = before.Where(p => !p.IsHidden).ToList();
    var b = after.Where(p => !p.IsHidden).ToList();
    if (a.Count != b.Count)
    {
        Problem($"0x{MetadataTokens.GetToken(handle):x8} {name}: {a.Count} visible sequence points before, {b.Count} after");
        continue;
    }
    for (int i = 0; i < a.Count; i++)
    {
        string Doc(MetadataReader r, DocumentHandle d) => r.GetString(r.GetDocument(d).Name);
        if (a[i].StartLine != b[i].StartLine || a[i].EndLine != b[i].EndLine ||
            a[i].StartColumn != b[i].StartColumn || a[i].EndColumn != b[i].EndColumn ||
            Doc(originalPdb, a[i].Document) != Doc(wovenPdb, b[i].Document))
            Problem($"0x{MetadataTokens.GetToken(handle):x8} {name}: visible point {i} moved to another place in the source");
    }
}

foreach (var p in problems)
    Console.WriteLine(p);
Console.WriteLine($"{args[1]}: PDB id matches, {methods} methods, {points} sequence points ({hidden} hidden), {problems.Count} problems");
return problems.Count == 0 ? 0 : 1;

// The PDB next to the assembly, or the one embedded in it.
static byte[] PdbBytes(string assembly, PEReader pe)
{
    var path = Path.ChangeExtension(assembly, ".pdb");
    if (File.Exists(path))
        return File.ReadAllBytes(path);
    foreach (var entry in pe.ReadDebugDirectory())
        if (entry.Type == DebugDirectoryEntryType.EmbeddedPortablePdb)
        {
            using var provider = pe.ReadEmbeddedPortablePdbDebugDirectoryData(entry);
            var reader = provider.GetMetadataReader();
            unsafe
            {
                return new ReadOnlySpan<byte>(reader.MetadataPointer, reader.MetadataLength).ToArray();
            }
        }
    throw new FileNotFoundException($"{assembly}: no PDB next to it and none embedded");
}

// The file offset of the PDB id: the start of the #Pdb stream, found from the metadata root.
static int IdOffset(byte[] pdb)
{
    int versionLength = BitConverter.ToInt32(pdb, 12);
    int at = 16 + versionLength + 2;
    int streams = BitConverter.ToUInt16(pdb, at);
    at += 2;
    for (int i = 0; i < streams; i++)
    {
        int offset = BitConverter.ToInt32(pdb, at);
        int nameAt = at + 8, end = nameAt;
        while (pdb[end] != 0) end++;
        string name = System.Text.Encoding.ASCII.GetString(pdb, nameAt, end - nameAt);
        if (name == "#Pdb")
            return offset;
        at = nameAt + ((end - nameAt + 1 + 3) & ~3);
    }
    throw new InvalidDataException("no #Pdb stream");
}

// The offsets at which instructions start, from the opcode sizes of System.Reflection.Emit.
static HashSet<int> InstructionStarts(byte[] il)
{
    var oneByte = new OpCode?[256];
    var twoByte = new OpCode?[256];
    foreach (var f in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
    {
        var op = (OpCode)f.GetValue(null)!;
        if (op.Size == 1) oneByte[op.Value & 0xFF] = op;
        else twoByte[op.Value & 0xFF] = op;
    }
    var starts = new HashSet<int>();
    int at = 0;
    while (at < il.Length)
    {
        starts.Add(at);
        OpCode op = il[at] == 0xFE ? twoByte[il[at + 1]]!.Value : oneByte[il[at]]!.Value;
        at += op.Size;
        at += op.OperandType switch
        {
            OperandType.InlineNone => 0,
            OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
            OperandType.InlineVar => 2,
            OperandType.InlineI8 or OperandType.InlineR => 8,
            OperandType.InlineSwitch => 4 + 4 * BitConverter.ToInt32(il, at),
            _ => 4,
        };
    }
    return starts;
}
