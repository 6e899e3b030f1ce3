//===- tests/unit/StrongNameTest.cpp - RSA and strong-name key blobs ------===//
//
// The RSA arithmetic against a known answer (a 512-bit key and signature computed separately with
// Python's integers), and the reading of key blobs, good and bad. Whole signed assemblies are
// checked end to end in tests/cli/StrongNameTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "pe/StrongName.h"

#include "support/Rsa.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

std::vector<uint8_t> bytes(StringRef Hex) {
  std::string B = fromHex(Hex);
  return std::vector<uint8_t>(B.begin(), B.end());
}

// n = p * q for two 256-bit primes, e = 65537, d = e^-1 mod (p-1)(q-1); S is the PKCS #1 v1.5
// signature of SHA-256("weft").
const char *const N = "aaa71e2c0566b8145f67bdf439ffcb5434dad3c8bbcbc030a7eb28ba23619d6e"
                      "45aef220e40ccc0b76922421104c1d370ab12c0b4e13e5282ffb00974abeb7c7";
const char *const D = "5be7102aa8e5feb08a08b695b63e7963e9eb072f0d63d726dce799d15488975d"
                      "1045176e0d7f9ec1b38846436086fa3c0ca9ff3f1d54d0bac57f87f458e1a321";
const char *const S = "57810baef1289b7af4835108bf493f7299f5aa1a4e77d3156174fb5c41974c1f"
                      "89b0a4318366db162e0b808af4923e47f7464956acc374d7d5e53910fcc25f99";

RsaPrivateKey knownKey() {
  RsaPrivateKey K;
  K.Public.Modulus = bytes(N);
  K.Public.Exponent = {0x01, 0x00, 0x01};
  K.PrivateExponent = bytes(D);
  return K;
}

std::vector<uint8_t> weftDigest() {
  StringRef Msg = "weft";
  return digest(DigestKind::SHA256, {arrayRefFromStringRef(Msg)});
}

TEST(Rsa, SignsTheKnownAnswer) {
  std::optional<std::vector<uint8_t>> Sig =
      rsaSignPkcs1(knownKey(), DigestKind::SHA256, weftDigest());
  ASSERT_TRUE(Sig);
  EXPECT_EQ(toHex(*Sig, /*LowerCase=*/true), S);
  EXPECT_TRUE(rsaVerifyPkcs1(knownKey().Public, DigestKind::SHA256, weftDigest(), *Sig));
}

TEST(Rsa, RejectsChangedSignaturesDigestsAndKeys) {
  std::vector<uint8_t> Sig = bytes(S);
  RsaPublicKey Pub = knownKey().Public;
  ASSERT_TRUE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, weftDigest(), Sig));
  std::vector<uint8_t> Changed = Sig;
  Changed[10] ^= 1;
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, weftDigest(), Changed));
  std::vector<uint8_t> OtherDigest = weftDigest();
  OtherDigest[0] ^= 1;
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA256, OtherDigest, Sig));
  EXPECT_FALSE(rsaVerifyPkcs1(Pub, DigestKind::SHA1, weftDigest(), Sig));
  // A private exponent that does not belong to the modulus: the signer notices.
  RsaPrivateKey Bad = knownKey();
  Bad.PrivateExponent.back() ^= 2;
  EXPECT_FALSE(rsaSignPkcs1(Bad, DigestKind::SHA256, weftDigest()));
  // An even modulus is no RSA modulus.
  Bad = knownKey();
  Bad.Public.Modulus.back() ^= 1;
  EXPECT_FALSE(rsaSignPkcs1(Bad, DigestKind::SHA256, weftDigest()));
}

// A PRIVATEKEYBLOB of the known key (the CRT numbers are not used, so zeros do).
std::vector<uint8_t> keyBlob() {
  std::vector<uint8_t> B = {7, 2, 0, 0, 0, 0x24, 0, 0, 'R', 'S', 'A', '2', 0, 2, 0, 0, 1, 0, 1, 0};
  std::vector<uint8_t> Mod = bytes(N), Priv = bytes(D);
  B.insert(B.end(), Mod.rbegin(), Mod.rend());
  B.insert(B.end(), 32 * 5, 0);
  B.insert(B.end(), Priv.rbegin(), Priv.rend());
  return B;
}

std::string errorOf(Error E) { return toString(std::move(E)); }

TEST(StrongNameKey, ReadsAKeyPairAndGivesItsPublicKey) {
  Expected<pe::StrongNameKey> K = pe::StrongNameKey::parse(keyBlob());
  ASSERT_TRUE(bool(K)) << errorOf(K.takeError());
  EXPECT_EQ(K->signatureSize(), 64u);
  EXPECT_EQ(K->key().Public.Modulus, bytes(N));
  std::vector<uint8_t> Public = K->publicKeyBlob();
  ASSERT_EQ(Public.size(), 12u + 20 + 64);
  EXPECT_EQ(toHex(ArrayRef<uint8_t>(Public).take_front(32), true),
            "00240000048000005400000006020000002400005253413100020000"
            "01000100");
  Expected<pe::AssemblyPublicKey> P = pe::parseAssemblyPublicKey(Public);
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->HashAlgorithm, pe::CalgSha1);
  EXPECT_TRUE(K->matches(*P));
  P->Key.Modulus[5] ^= 1;
  EXPECT_FALSE(K->matches(*P));
}

TEST(StrongNameKey, PublicKeyTokenOfTheEcmaKey) {
  // The ECMA standard key's token is the one every framework reference to it carries.
  std::vector<uint8_t> Ecma(16, 0);
  Ecma[8] = 4;
  EXPECT_EQ(pe::publicKeyToken(Ecma), "b77a5c561934e089");
  Expected<pe::AssemblyPublicKey> P = pe::parseAssemblyPublicKey(Ecma);
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
  Expected<pe::StrongNameKey> K = pe::StrongNameKey::parse(B);
  ASSERT_TRUE(bool(K));
  Cases.push_back({K->publicKeyBlob(), "key blob at offset 0xc: holds only a public key"});
  std::vector<uint8_t> Even = B;
  Even[20] ^= 1;
  Cases.push_back({Even, "key blob at offset 0x14: the modulus is not an odd number"});
  for (const Case &C : Cases) {
    Expected<pe::StrongNameKey> R = pe::StrongNameKey::parse(C.Blob);
    ASSERT_FALSE(bool(R)) << C.Message;
    std::string Msg = errorOf(R.takeError());
    EXPECT_NE(Msg.find(C.Message), std::string::npos) << Msg;
  }
}

} // namespace
