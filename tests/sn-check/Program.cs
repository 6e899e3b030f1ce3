// sn-check: makes strong-name key pairs and checks strong-name signatures, independently of weft.
//
//   sn-check keygen OUT.snk BITS [PUBLIC.snk sha1|sha256]
//                                     writes a new RSA key pair as a CryptoAPI PRIVATEKEYBLOB and
//                                     optionally its public half as the PublicKeyBlob an assembly
//                                     carries (for public signing), naming the hash algorithm
//   sn-check verify FILE...           prints "valid", "invalid" or "unsigned" for each file;
//                                     exits 0 only if every file is validly signed
//
// The digest follows the strong-name rules: the headers up to the end of the section table with
// the CheckSum field and the certificate table entry as zeros, then each section's raw data in
// section-table order, leaving out the signature's own bytes. The signature is stored
// little-endian; it is checked as a PKCS #1 v1.5 signature with the assembly's public key.
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Security.Cryptography;

static int Keygen(string path, int bits, string? publicPath, string? hash)
{
    using var rsa = new RSACryptoServiceProvider(bits);
    File.WriteAllBytes(path, rsa.ExportCspBlob(includePrivateParameters: true));
    if (publicPath != null)
    {
        byte[] key = rsa.ExportCspBlob(includePrivateParameters: false);
        key[5] = 0x24; // the key algorithm: CALG_RSA_SIGN, as signed assemblies carry it
        var blob = new List<byte>();
        blob.AddRange(BitConverter.GetBytes(0x2400));
        blob.AddRange(BitConverter.GetBytes(hash == "sha256" ? 0x800C : 0x8004));
        blob.AddRange(BitConverter.GetBytes(key.Length));
        blob.AddRange(key);
        File.WriteAllBytes(publicPath, blob.ToArray());
    }
    return 0;
}

static string Check(string path)
{
    byte[] file = File.ReadAllBytes(path);
    using var pe = new PEReader(new MemoryStream(file));
    PEHeaders h = pe.PEHeaders;
    CorHeader? cor = h.CorHeader;
    if (cor == null || (cor.Flags & CorFlags.StrongNameSigned) == 0)
        return "unsigned";
    DirectoryEntry sigDir = cor.StrongNameSignatureDirectory;
    if (!h.TryGetDirectoryOffset(sigDir, out int sigAt) || sigDir.Size == 0)
        return "invalid (no signature slot)";
    int sigSize = sigDir.Size;

    MetadataReader md = pe.GetMetadataReader();
    byte[] publicKey = md.GetBlobBytes(md.GetAssemblyDefinition().PublicKey);
    if (publicKey.Length < 32)
        return "invalid (no usable public key)";
    int hashAlg = BitConverter.ToInt32(publicKey, 4);
    int bits = BitConverter.ToInt32(publicKey, 12 + 12);
    int exponent = BitConverter.ToInt32(publicKey, 12 + 16);
    byte[] modulus = publicKey.Skip(12 + 20).Take(bits / 8).Reverse().ToArray();
    byte[] exp = BitConverter.GetBytes(exponent).Reverse().SkipWhile(b => b == 0).ToArray();
    HashAlgorithmName name = hashAlg switch
    {
        0 or 0x8004 => HashAlgorithmName.SHA1,
        0x800C => HashAlgorithmName.SHA256,
        0x800D => HashAlgorithmName.SHA384,
        0x800E => HashAlgorithmName.SHA512,
        _ => throw new InvalidDataException($"hash algorithm 0x{hashAlg:x}"),
    };

    int optionalAt = h.CoffHeaderStartOffset + 20;
    bool plus = h.PEHeader!.Magic == PEMagic.PE32Plus;
    int checksumAt = optionalAt + 64;
    int certificateDirAt = optionalAt + (plus ? 112 : 96) + 4 * 8;
    int sectionTableEnd = optionalAt + h.CoffHeader.SizeOfOptionalHeader + 40 * h.SectionHeaders.Length;

    using var hash = IncrementalHash.CreateHash(name);
    byte[] head = file[..sectionTableEnd];
    Array.Clear(head, checksumAt, 4);
    Array.Clear(head, certificateDirAt, 8);
    hash.AppendData(head);
    foreach (SectionHeader s in h.SectionHeaders)
    {
        int start = s.PointerToRawData, end = s.PointerToRawData + s.SizeOfRawData;
        if (sigAt + sigSize <= start || sigAt >= end)
        {
            hash.AppendData(file, start, end - start);
            continue;
        }
        if (sigAt > start)
            hash.AppendData(file, start, sigAt - start);
        if (sigAt + sigSize < end)
            hash.AppendData(file, sigAt + sigSize, end - sigAt - sigSize);
    }
    byte[] digest = hash.GetHashAndReset();
    byte[] signature = file.Skip(sigAt).Take(sigSize).Reverse().ToArray();

    using var rsa = RSA.Create();
    rsa.ImportParameters(new RSAParameters { Modulus = modulus, Exponent = exp });
    return rsa.VerifyHash(digest, signature, name, RSASignaturePadding.Pkcs1) ? "valid" : "invalid";
}

if ((args.Length == 3 || args.Length == 5) && args[0] == "keygen")
    return Keygen(args[1], int.Parse(args[2]), args.ElementAtOrDefault(3), args.ElementAtOrDefault(4));
if (args.Length >= 2 && args[0] == "verify")
{
    int bad = 0;
    foreach (string path in args.Skip(1))
    {
        string verdict;
        try { verdict = Check(path); }
        catch (Exception e) { verdict = "invalid (" + e.Message + ")"; }
        Console.WriteLine($"{path}: {verdict}");
        if (verdict != "valid")
            bad++;
    }
    return bad == 0 ? 0 : 1;
}
Console.Error.WriteLine("usage: sn-check keygen OUT.snk BITS [PUBLIC.snk sha1|sha256] | sn-check verify FILE...");
return 2;
