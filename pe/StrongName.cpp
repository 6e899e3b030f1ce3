//===- pe/StrongName.cpp - Strong-name keys and signatures ----------------===//
#include "pe/StrongName.h"

#include "pe/Image.h"
#include "pe/Writer.h"
#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;

namespace weft::pe {

namespace {

constexpr uint32_t MagicRsa1 = 0x31415352; // "RSA1": a public key
constexpr uint32_t MagicRsa2 = 0x32415352; // "RSA2": a key pair
constexpr uint8_t PublicKeyBlobType = 6, PrivateKeyBlobType = 7;
constexpr const char *PublicKeyOnly =
    "holds only a public key; signing needs the key pair (delay signing is not supported)";

// Key files store numbers little-endian; the RSA code takes them big-endian.
std::vector<uint8_t> reversed(ArrayRef<uint8_t> B) {
  return std::vector<uint8_t>(B.rbegin(), B.rend());
}

std::vector<uint8_t> exponentBytes(uint32_t E) {
  std::vector<uint8_t> B;
  for (int Shift = 24; Shift >= 0; Shift -= 8)
    if (!B.empty() || (E >> Shift) & 0xFF)
      B.push_back(uint8_t(E >> Shift));
  return B;
}

// Reads the BLOBHEADER and RSAPUBKEY of a CryptoAPI key blob; leaves R at the modulus.
Error readKeyHeader(ByteReader &R, const char *Structure, uint8_t WantType, uint32_t WantMagic,
                    uint32_t &Bits, uint32_t &Exponent) {
  uint64_t Start = R.fileOffset();
  if (!R.has(20))
    return formatError(Structure, Start, "truncated: a key blob header takes 20 bytes");
  uint8_t Type = R.u8(), Version = R.u8();
  R.u16();
  R.u32(); // the key algorithm: signing and key-exchange keys sign alike
  uint32_t Magic = R.u32();
  Bits = R.u32();
  Exponent = R.u32();
  if (Type != WantType) {
    if (WantType == PrivateKeyBlobType && Type == PublicKeyBlobType)
      return formatError(Structure, Start, PublicKeyOnly);
    return formatError(Structure, Start,
                       "blob type " + hex(Type) + " is not a " +
                           (WantType == PrivateKeyBlobType ? "private" : "public") + " key blob (" +
                           hex(WantType) + ")");
  }
  if (Version != 2)
    return formatError(Structure, Start + 1,
                       "blob version " + Twine(unsigned(Version)) + " is not 2");
  if (Magic != WantMagic)
    return formatError(Structure, Start + 8,
                       "magic " + hex(Magic, 8) + " is not " + hex(WantMagic, 8) + " (\"RSA" +
                           (WantMagic == MagicRsa2 ? "2" : "1") + "\")");
  if (Bits < 512 || Bits > 16384 || Bits % 16)
    return formatError(Structure, Start + 12,
                       "key length of " + Twine(Bits) +
                           " bits is not a multiple of 16 between 512 and 16384");
  if (!Exponent)
    return formatError(Structure, Start + 16, "the public exponent is zero");
  return Error::success();
}

struct Headers {
  uint64_t ChecksumAt = 0, CertificateDirAt = 0, SectionTableEnd = 0;
  std::vector<std::pair<uint64_t, uint64_t>> Sections; // raw data: offset, size
};

Expected<Headers> readHeaders(ArrayRef<uint8_t> File) {
  auto U16 = [&](uint64_t At) { return support::endian::read16le(&File[At]); };
  auto U32 = [&](uint64_t At) { return support::endian::read32le(&File[At]); };
  if (File.size() < 0x40)
    return formatError("DOS header", 0, "truncated");
  uint64_t Nt = U32(0x3C);
  if (Nt + 24 > File.size() || U32(Nt) != 0x00004550)
    return formatError("NT headers", Nt, "missing or truncated");
  uint16_t Count = U16(Nt + 6), OptSize = U16(Nt + 20);
  uint64_t Opt = Nt + 24;
  if (Opt + OptSize > File.size() || OptSize < 2)
    return formatError("optional header", Opt, "truncated");
  bool Plus = U16(Opt) == 0x20B;
  uint64_t Dirs = Opt + (Plus ? 112 : 96);
  if (Dirs + 8 * (DirSecurity + 1) > Opt + OptSize)
    return formatError("optional header", Opt, "too short for the certificate table entry");
  Headers H;
  H.ChecksumAt = Opt + 64;
  H.CertificateDirAt = Dirs + 8 * DirSecurity;
  H.SectionTableEnd = Opt + OptSize + uint64_t(Count) * 40;
  if (H.SectionTableEnd > File.size())
    return formatError("section table", Opt + OptSize, "truncated");
  for (uint64_t S = Opt + OptSize; S < H.SectionTableEnd; S += 40) {
    uint64_t Size = U32(S + 16), At = U32(S + 20);
    if (At + Size > File.size())
      return formatError("section header", S,
                         "raw data " + hex(At) + "+" + hex(Size) +
                             " runs past the end of the file");
    H.Sections.push_back({At, Size});
  }
  return H;
}

} // namespace

Expected<AssemblyPublicKey> parseAssemblyPublicKey(ArrayRef<uint8_t> Blob) {
  const char *Structure = "public key blob";
  ByteReader R(Blob);
  if (!R.has(12))
    return formatError(Structure, 0, "truncated: the header takes 12 bytes");
  AssemblyPublicKey P;
  P.SignatureAlgorithm = R.u32();
  P.HashAlgorithm = R.u32();
  uint32_t Length = R.u32();
  if (Length != R.remaining())
    return formatError(Structure, 8,
                       "says the key takes " + Twine(Length) + " bytes, " + Twine(R.remaining()) +
                           " follow");
  if (P.SignatureAlgorithm == 0 && P.HashAlgorithm == 0 && Length == 4)
    return formatError(Structure, 0,
                       "is the ECMA standard key, whose private half only the runtime's builders "
                       "hold");
  uint32_t Bits = 0, Exponent = 0;
  if (Error E = readKeyHeader(R, Structure, PublicKeyBlobType, MagicRsa1, Bits, Exponent))
    return std::move(E);
  if (!R.has(Bits / 8))
    return formatError(Structure, R.fileOffset(), "truncated modulus");
  P.Key.Modulus = reversed(R.bytes(Bits / 8));
  P.Key.Exponent = exponentBytes(Exponent);
  return P;
}

Expected<StrongNameKey> StrongNameKey::parse(ArrayRef<uint8_t> Blob) {
  const char *Structure = "key blob";
  ByteReader R(Blob);
  // A public key extracted with `sn -p` starts with the assembly form's 12-byte header.
  if (!Blob.empty() && Blob[0] != PrivateKeyBlobType && Blob.size() > 12 &&
      Blob[12] == PublicKeyBlobType)
    return formatError(Structure, 12, PublicKeyOnly);
  uint32_t Bits = 0, Exponent = 0;
  if (Error E = readKeyHeader(R, Structure, PrivateKeyBlobType, MagicRsa2, Bits, Exponent))
    return std::move(E);
  uint64_t Need = uint64_t(Bits) / 8 * 2 + uint64_t(Bits) / 16 * 5;
  if (R.remaining() < Need)
    return formatError(Structure, R.fileOffset(),
                       "truncated: a " + Twine(Bits) + "-bit key pair takes " + Twine(Need) +
                           " bytes here, " + Twine(R.remaining()) + " remain");
  StrongNameKey K;
  RsaPrivateKey &Key = K.Key;
  Key.Public.Modulus = reversed(R.bytes(Bits / 8));
  Key.Public.Exponent = exponentBytes(Exponent);
  uint64_t CrtAt = R.fileOffset();
  for (std::vector<uint8_t> *Part :
       {&Key.Prime1, &Key.Prime2, &Key.Exponent1, &Key.Exponent2, &Key.Coefficient})
    *Part = reversed(R.bytes(Bits / 16));
  Key.PrivateExponent = reversed(R.bytes(Bits / 8));
  if (!(Key.Public.Modulus.back() & 1) || Key.Public.Modulus.front() == 0)
    return formatError(Structure, 20,
                       "the modulus is not an odd number of " + Twine(Bits) + " bits");
  // A key whose numbers do not belong together is refused now, before any work is done with it.
  if (Error E = checkRsaKey(Key))
    return formatError(Structure, CrtAt, toString(std::move(E)));
  return K;
}

std::vector<uint8_t> StrongNameKey::publicKeyBlob(uint32_t HashAlgorithm) const {
  uint32_t Bits = signatureSize() * 8;
  std::vector<uint8_t> B;
  auto Put32 = [&](uint32_t V) {
    for (int I = 0; I < 4; ++I)
      B.push_back(uint8_t(V >> (8 * I)));
  };
  Put32(CalgRsaSign);
  Put32(HashAlgorithm);
  Put32(20 + Bits / 8);
  B.insert(B.end(), {PublicKeyBlobType, 2, 0, 0});
  Put32(CalgRsaSign);
  Put32(MagicRsa1);
  Put32(Bits);
  uint32_t Exponent = 0;
  for (uint8_t Byte : Key.Public.Exponent)
    Exponent = Exponent << 8 | Byte;
  Put32(Exponent);
  B.insert(B.end(), Key.Public.Modulus.rbegin(), Key.Public.Modulus.rend());
  return B;
}

bool StrongNameKey::matches(const AssemblyPublicKey &Public) const {
  return Public.Key.Modulus == Key.Public.Modulus && Public.Key.Exponent == Key.Public.Exponent;
}

Expected<DigestKind> strongNameDigestKind(uint32_t HashAlgorithm) {
  switch (HashAlgorithm) {
  case 0:
  case CalgSha1: return DigestKind::SHA1;
  case CalgSha256: return DigestKind::SHA256;
  default:
    return plainError("the public key names hash algorithm " + hex(HashAlgorithm) +
                      "; only SHA-1 (0x8004) and SHA-256 (0x800C) are supported");
  }
}

Expected<std::vector<uint8_t>> strongNameDigest(ArrayRef<uint8_t> File, uint64_t SignatureOffset,
                                                uint32_t SignatureSize, DigestKind Kind) {
  Expected<Headers> H = readHeaders(File);
  if (!H)
    return H.takeError();
  std::vector<uint8_t> Head(File.begin(), File.begin() + H->SectionTableEnd);
  std::fill_n(Head.begin() + H->ChecksumAt, 4, 0);
  std::fill_n(Head.begin() + H->CertificateDirAt, 8, 0);
  std::vector<ArrayRef<uint8_t>> Pieces{Head};
  uint64_t SigEnd = SignatureOffset + SignatureSize;
  for (auto [At, Size] : H->Sections) {
    uint64_t End = At + Size;
    if (SigEnd <= At || SignatureOffset >= End) {
      Pieces.push_back(File.slice(At, Size));
      continue;
    }
    if (SignatureOffset > At)
      Pieces.push_back(File.slice(At, SignatureOffset - At));
    if (SigEnd < End)
      Pieces.push_back(File.slice(SigEnd, End - SigEnd));
  }
  return digest(Kind, Pieces);
}

Error signImage(MutableArrayRef<uint8_t> File, const SignatureSlot &Slot, const StrongNameKey &Key,
                uint32_t HashAlgorithm) {
  if (Slot.Size != Key.signatureSize() || Slot.FileOffset + Slot.Size > File.size())
    return plainError("the image has no " + Twine(Key.signatureSize()) +
                      "-byte strong-name signature slot");
  Expected<DigestKind> Kind = strongNameDigestKind(HashAlgorithm);
  if (!Kind)
    return Kind.takeError();
  Expected<std::vector<uint8_t>> Digest = strongNameDigest(File, Slot.FileOffset, Slot.Size, *Kind);
  if (!Digest)
    return Digest.takeError();
  Expected<std::vector<uint8_t>> Signature = rsaSignPkcs1(Key.key(), *Kind, *Digest);
  if (!Signature)
    return plainError(Key.name() + ": " + toString(Signature.takeError()));
  std::copy(Signature->rbegin(), Signature->rend(), File.begin() + Slot.FileOffset);
  if (support::endian::read32le(&File[Slot.ChecksumOffset]))
    support::endian::write32le(&File[Slot.ChecksumOffset], peChecksum(File, Slot.ChecksumOffset));
  return Error::success();
}

Expected<bool> verifyStrongName(ArrayRef<uint8_t> File, uint64_t SignatureOffset,
                                uint32_t SignatureSize, const AssemblyPublicKey &Public) {
  Expected<DigestKind> Kind = strongNameDigestKind(Public.HashAlgorithm);
  if (!Kind)
    return Kind.takeError();
  if (SignatureOffset + SignatureSize > File.size())
    return formatError("strong-name signature", SignatureOffset, "runs past the end of the file");
  Expected<std::vector<uint8_t>> Digest =
      strongNameDigest(File, SignatureOffset, SignatureSize, *Kind);
  if (!Digest)
    return Digest.takeError();
  std::vector<uint8_t> Signature = reversed(File.slice(SignatureOffset, SignatureSize));
  return rsaVerifyPkcs1(Public.Key, *Kind, *Digest, Signature);
}

StrongNameCheck checkStrongName(const Image &In, ArrayRef<uint8_t> PublicKey) {
  const std::optional<CliHeader> &Cli = In.cli();
  if (!Cli || !(Cli->Flags & CliStrongNameSigned))
    return {};
  auto Fail = [](StrongNameState S, Error E) { return StrongNameCheck{S, toString(std::move(E))}; };
  if (PublicKey.empty())
    return {StrongNameState::Invalid, "the assembly has no public key"};
  if (PublicKey.size() == 16 && support::endian::read32le(&PublicKey[8]) == 4)
    return {StrongNameState::Unchecked,
            "the ECMA standard key stands for a key only the runtime's builders hold"};
  Expected<AssemblyPublicKey> Public = parseAssemblyPublicKey(PublicKey);
  if (!Public)
    return Fail(StrongNameState::Invalid, Public.takeError());
  if (Expected<DigestKind> Kind = strongNameDigestKind(Public->HashAlgorithm); !Kind)
    return Fail(StrongNameState::Unchecked, Kind.takeError());
  const DataDirectory &Slot = Cli->StrongNameSignature;
  Expected<uint64_t> At =
      In.rvaToOffset(Slot.RVA, Slot.Size, "strong-name signature", Cli->FileOffset + 32);
  if (!At)
    return Fail(StrongNameState::Invalid, At.takeError());
  if (Slot.Size != Public->Key.Modulus.size())
    return {StrongNameState::Invalid, "the signature slot takes " + std::to_string(Slot.Size) +
                                          " bytes; the key makes " +
                                          std::to_string(Public->Key.Modulus.size())};
  Expected<bool> Ok = verifyStrongName(In.bytes(), *At, Slot.Size, *Public);
  if (!Ok)
    return Fail(StrongNameState::Invalid, Ok.takeError());
  if (!*Ok)
    return {StrongNameState::Invalid,
            In.isReadyToRun() ? "the signature does not match the image (its native code was "
                                "compiled in after signing)"
                              : "the signature does not match the image"};
  return {StrongNameState::Valid, {}};
}

} // namespace weft::pe
