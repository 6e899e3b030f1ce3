//===- tests/unit/StrongNameTest.cpp - RSA and strong-name key blobs ------===//
//
// The RSA signer against a known answer (a 512-bit key and signature computed separately with
// Python's integers), with the key's CRT numbers and with its private exponent alone; keys whose
// numbers do not belong together; and the reading of key blobs, good and bad. Whole signed
// assemblies are checked end to end in tests/cli/StrongNameTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "pe/StrongName.h"

#include "pe/Rsa.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>
#include <random>

using namespace llvm;
using namespace weft;
using namespace weft::pe;

namespace {

std::vector<uint8_t> bytes(StringRef Hex) {
  std::string B = fromHex(Hex);
  return std::vector<uint8_t>(B.begin(), B.end());
}

// n = p * q for two 256-bit primes, e = 65537, d = e^-1 mod (p-1)(q-1), dP = d mod p-1,
// dQ = d mod q-1, QInv = q^-1 mod p; S is the PKCS #1 v1.5 signature of SHA-256("weft").
const char *const N = "aaa71e2c0566b8145f67bdf439ffcb5434dad3c8bbcbc030a7eb28ba23619d6e"
                      "45aef220e40ccc0b76922421104c1d370ab12c0b4e13e5282ffb00974abeb7c7";
const char *const D = "5be7102aa8e5feb08a08b695b63e7963e9eb072f0d63d726dce799d15488975d"
                      "1045176e0d7f9ec1b38846436086fa3c0ca9ff3f1d54d0bac57f87f458e1a321";
const char *const P = "d8fc824a83a8bf393152593979f3d5bec7b784ab60945a57c2b22cedd12c0b89";
const char *const Q = "c955f56f9aae6171a758017b3ed2c0fc2dde1b30324a20c99f209a89134944cf";
const char *const DP = "023dd186bd876fba42852c40c8beb91588709fe139552efdbb182618aad17ea9";
const char *const DQ = "ad8499cc9fc11e5637654f918a6954cd823263b83bff4b16b93ffe2f9921925d";
const char *const QInv = "d28355fb8c45b86411cad5a2fde7ab2b16c7c29f8930611d2e121b05142f4c58";
const char *const S = "57810baef1289b7af4835108bf493f7299f5aa1a4e77d3156174fb5c41974c1f"
                      "89b0a4318366db162e0b808af4923e47f7464956acc374d7d5e53910fcc25f99";

RsaPrivateKey exponentOnlyKey() {
  RsaPrivateKey K;
  K.Public.Modulus = bytes(N);
  K.Public.Exponent = {0x01, 0x00, 0x01};
  K.PrivateExponent = bytes(D);
  return K;
}

RsaPrivateKey crtKey() {
  RsaPrivateKey K = exponentOnlyKey();
  K.Prime1 = bytes(P);
  K.Prime2 = bytes(Q);
  K.Exponent1 = bytes(DP);
  K.Exponent2 = bytes(DQ);
  K.Coefficient = bytes(QInv);
  return K;
}

std::vector<uint8_t> weftDigest() {
  StringRef Msg = "weft";
  return digest(DigestKind::SHA256, {arrayRefFromStringRef(Msg)});
}

std::string errorOf(Error E) { return toString(std::move(E)); }

// The signature of SHA-256("weft") under \p Key as hex, or the error's message.
std::string signatureOrError(const RsaPrivateKey &Key) {
  Expected<std::vector<uint8_t>> Sig = rsaSignPkcs1(Key, DigestKind::SHA256, weftDigest());
  return Sig ? toHex(*Sig, /*LowerCase=*/true) : errorOf(Sig.takeError());
}

TEST(Rsa, SignsTheKnownAnswerWithTheCrtNumbers) {
  EXPECT_FALSE(errorToBool(checkRsaKey(crtKey())));
  EXPECT_EQ(signatureOrError(crtKey()), S);
}

TEST(Rsa, SignsTheKnownAnswerWithThePrivateExponentAlone) {
  EXPECT_FALSE(errorToBool(checkRsaKey(exponentOnlyKey())));
  EXPECT_EQ(signatureOrError(exponentOnlyKey()), S);
}

TEST(Rsa, RejectsChangedSignaturesDigestsAndKeys) {
  std::vector<uint8_t> Sig = bytes(S);
  RsaPublicKey Pub = crtKey().Public;
  ASSERT_TRUE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, weftDigest(), Sig));
  std::vector<uint8_t> Changed = Sig;
  Changed[10] ^= 1;
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, weftDigest(), Changed));
  std::vector<uint8_t> OtherDigest = weftDigest();
  OtherDigest[0] ^= 1;
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, OtherDigest, Sig));
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA1, weftDigest(), Sig));
  EXPECT_FALSE(
      rsaVerifyPkcs1(Pub, DigestKind::SHA256, weftDigest(), ArrayRef<uint8_t>(Sig).drop_front()));
  RsaPublicKey OtherKey = Pub;
  OtherKey.Modulus[20] ^= 1;
  EXPECT_FALSE(rsaVerifyPkcs1(OtherKey, DigestKind::SHA256, weftDigest(), Sig));
}

TEST(Rsa, RefusesKeysWhoseNumbersDoNotBelongTogether) {
  struct Case {
    RsaPrivateKey Key;
    const char *Message;
  };
  std::vector<Case> Cases;
  auto Add = [&](RsaPrivateKey K, const char *Message) {
    Cases.push_back({std::move(K), Message});
  };
  RsaPrivateKey K = crtKey();
  K.Prime1.back() ^= 2; // still odd
  Add(K, "the primes do not multiply to the modulus");
  K = crtKey();
  std::swap(K.Prime1, K.Prime2); // the product holds; the CRT numbers are p's and q's
  Add(K, "the first CRT exponent is not d mod p-1");
  K = crtKey();
  K.Prime2.back() ^= 1;
  Add(K, "the primes are not odd numbers above 1");
  K = crtKey();
  K.Exponent2[3] ^= 0x40;
  Add(K, "the second CRT exponent is not d mod q-1");
  K = crtKey();
  K.PrivateExponent[7] ^= 1;
  Add(K, "the first CRT exponent is not d mod p-1");
  K = crtKey();
  K.Public.Exponent = {0x03};
  Add(K, "the private exponent does not invert the public exponent modulo p-1");
  K = crtKey();
  K.Coefficient[0] ^= 0x10;
  Add(K, "the coefficient is not the inverse of q modulo p");
  K = crtKey();
  K.Coefficient.clear();
  Add(K, "the key gives 4 of the five CRT numbers");
  K = crtKey();
  for (std::vector<uint8_t> *Part :
       {&K.Prime1, &K.Prime2, &K.Exponent1, &K.Exponent2, &K.Coefficient})
    std::fill(Part->begin(), Part->end(), 0);
  Add(K, "the primes are not odd numbers above 1");
  // Without CRT numbers only the signature shows that d is wrong.
  K = exponentOnlyKey();
  K.PrivateExponent.back() ^= 2;
  Add(K, "the key makes signatures its public half does not verify");
  K = exponentOnlyKey();
  K.Public.Modulus.back() ^= 1; // even
  Add(K, "cannot sign with the key");
  for (const Case &C : Cases) {
    std::string Got = signatureOrError(C.Key);
    EXPECT_NE(Got.find(C.Message), std::string::npos) << C.Message << "\n" << Got;
  }
  // checkRsaKey sees what the CRT numbers say, before any signing.
  K = crtKey();
  K.Prime1.back() ^= 2;
  EXPECT_EQ(errorOf(checkRsaKey(K)), "the primes do not multiply to the modulus");
}

// Numbers of any size and value make an error, never a crash or a signature.
TEST(Rsa, HostileKeysAreRefused) {
  std::mt19937 Random(20240607);
  auto Number = [&](size_t Max) {
    std::vector<uint8_t> B(Random() % (Max + 1));
    for (uint8_t &Byte : B)
      Byte = uint8_t(Random());
    return B;
  };
  for (int I = 0; I < 200; ++I) {
    RsaPrivateKey K;
    K.Public.Modulus = Number(I % 2 ? 64 : 2100);
    K.Public.Exponent = Number(8);
    K.PrivateExponent = Number(70);
    if (I % 3)
      for (std::vector<uint8_t> *Part :
           {&K.Prime1, &K.Prime2, &K.Exponent1, &K.Exponent2, &K.Coefficient})
        *Part = Number(40);
    Expected<std::vector<uint8_t>> Sig = rsaSignPkcs1(K, DigestKind::SHA1, weftDigest());
    ASSERT_FALSE(bool(Sig)) << I;
    EXPECT_FALSE(errorOf(Sig.takeError()).empty());
    EXPECT_FALSE(rsaVerifyPkcs1(K.Public, DigestKind::SHA256, weftDigest(), bytes(S)));
  }
}

// A PRIVATEKEYBLOB of the known key, numbers little-endian.
std::vector<uint8_t> keyBlob() {
  std::vector<uint8_t> B = {7, 2, 0, 0, 0, 0x24, 0, 0, 'R', 'S', 'A', '2', 0, 2, 0, 0, 1, 0, 1, 0};
  for (const char *Hex : {N, P, Q, DP, DQ, QInv, D}) {
    std::vector<uint8_t> Number = bytes(Hex);
    B.insert(B.end(), Number.rbegin(), Number.rend());
  }
  return B;
}

TEST(StrongNameKey, ReadsAKeyPairAndGivesItsPublicKey) {
  Expected<StrongNameKey> K = StrongNameKey::parse(keyBlob());
  ASSERT_TRUE(bool(K)) << errorOf(K.takeError());
  EXPECT_EQ(K->signatureSize(), 64u);
  EXPECT_EQ(K->key().Public.Modulus, bytes(N));
  EXPECT_EQ(K->key().Prime1, bytes(P));
  EXPECT_EQ(K->key().Coefficient, bytes(QInv));
  EXPECT_EQ(signatureOrError(K->key()), S);
  std::vector<uint8_t> Public = K->publicKeyBlob();
  ASSERT_EQ(Public.size(), 12u + 20 + 64);
  EXPECT_EQ(toHex(ArrayRef<uint8_t>(Public).take_front(32), true),
            "00240000048000005400000006020000002400005253413100020000"
            "01000100");
  Expected<AssemblyPublicKey> P = parseAssemblyPublicKey(Public);
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->HashAlgorithm, CalgSha1);
  EXPECT_TRUE(K->matches(*P));
  P->Key.Modulus[5] ^= 1;
  EXPECT_FALSE(K->matches(*P));
}

TEST(StrongNameKey, PublicKeyTokenOfTheEcmaKey) {
  // The ECMA standard key's token is the one every framework reference to it carries.
  std::vector<uint8_t> Ecma(16, 0);
  Ecma[8] = 4;
  EXPECT_EQ(publicKeyToken(Ecma), "b77a5c561934e089");
  Expected<AssemblyPublicKey> P = parseAssemblyPublicKey(Ecma);
  ASSERT_FALSE(bool(P));
  EXPECT_NE(errorOf(P.takeError()).find("ECMA standard key"), std::string::npos);
}

TEST(StrongNameKey, BadBlobsAreRefusedWithStructureAndOffset) {
  struct Case {
    std::vector<uint8_t> Blob;
    const char *Message;
  };
  std::vector<Case> Cases;
  std::vector<uint8_t> B = keyBlob();
  Cases.push_back({{B.begin(), B.begin() + 16}, "key blob at offset 0x0: truncated"});
  Cases.push_back({{B.begin(), B.begin() + 100},
                   "key blob at offset 0x14: truncated: a 512-bit key pair takes 288 bytes"});
  std::vector<uint8_t> Magic = B;
  Magic[11] = '1';
  Cases.push_back({Magic, "key blob at offset 0x8: magic 0x31415352 is not 0x32415352"});
  std::vector<uint8_t> Odd = B;
  Odd[12] = 0x08; // 520 bits
  Cases.push_back({Odd, "key blob at offset 0xc: key length of 520 bits is not a multiple of 16"});
  std::vector<uint8_t> Version = B;
  Version[1] = 3;
  Cases.push_back({Version, "key blob at offset 0x1: blob version 3 is not 2"});
  Expected<StrongNameKey> K = StrongNameKey::parse(B);
  ASSERT_TRUE(bool(K));
  Cases.push_back({K->publicKeyBlob(), "key blob at offset 0xc: holds only a public key"});
  std::vector<uint8_t> Even = B;
  Even[20] ^= 1;
  Cases.push_back({Even, "key blob at offset 0x14: the modulus is not an odd number"});
  // The CRT numbers start at 0x54, after the 64-byte modulus.
  std::vector<uint8_t> Prime = B;
  Prime[0x54 + 1] ^= 1;
  Cases.push_back({Prime, "key blob at offset 0x54: the primes do not multiply to the modulus"});
  std::vector<uint8_t> Coefficient = B;
  Coefficient[0x54 + 4 * 32 + 7] ^= 1;
  Cases.push_back(
      {Coefficient, "key blob at offset 0x54: the coefficient is not the inverse of q modulo p"});
  std::vector<uint8_t> Private = B;
  Private.back() ^= 0x80;
  Cases.push_back({Private, "key blob at offset 0x54: the first CRT exponent is not d mod p-1"});
  std::vector<uint8_t> Zeros = B;
  std::fill(Zeros.begin() + 0x54, Zeros.end(), 0);
  Cases.push_back({Zeros, "key blob at offset 0x54: the primes are not odd numbers above 1"});
  for (const Case &C : Cases) {
    Expected<StrongNameKey> R = StrongNameKey::parse(C.Blob);
    ASSERT_FALSE(bool(R)) << C.Message;
    std::string Msg = errorOf(R.takeError());
    EXPECT_NE(Msg.find(C.Message), std::string::npos) << Msg;
  }
}

} // namespace
