//===- tests/unit/SignatureTest.cpp - Signature blobs ---------------------===//
#include "metadata/Signature.h"

#include "metadata/Names.h"
#include "tests/support/Env.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace weft;
using namespace weft::metadata;

namespace {

const Module &anyModule() { return *test::frameworkAssembly("System.Runtime.dll").Module; }

std::string typeText(const TypeSig &T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  NamePrinter(anyModule()).type(OS, T, GenericContext{});
  return OS.str();
}

std::string methodText(const MethodSig &Sig) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  NamePrinter P(anyModule());
  P.callingConvention(OS, Sig);
  P.type(OS, Sig.Return, GenericContext{});
  P.paramTypes(OS, Sig, GenericContext{});
  return OS.str();
}

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }

TEST(Signature, InstanceMethod) {
  auto S = decodeMethodSig(std::vector<uint8_t>{0x20, 0x02, 0x01, 0x08, 0x0E}, 0);
  ASSERT_TRUE(bool(S)) << errorOf(S.takeError());
  EXPECT_TRUE(S->hasThis());
  EXPECT_EQ(S->Params.size(), 2u);
  EXPECT_EQ(methodText(*S), "instance void(int32, string)");
}

TEST(Signature, GenericMethod) {
  // GENERIC, 2 type parameters, 1 parameter: !!1 (!!0[])
  auto S = decodeMethodSig(std::vector<uint8_t>{0x10, 0x02, 0x01, 0x1E, 0x01, 0x1D, 0x1E, 0x00}, 0);
  ASSERT_TRUE(bool(S)) << errorOf(S.takeError());
  EXPECT_EQ(S->GenericParamCount, 2u);
  EXPECT_EQ(methodText(*S), "!!1(!!0[])");
}

TEST(Signature, VarargCallSiteWithSentinel) {
  auto S = decodeMethodSig(std::vector<uint8_t>{0x05, 0x03, 0x01, 0x08, 0x41, 0x08, 0x0E}, 0);
  ASSERT_TRUE(bool(S)) << errorOf(S.takeError());
  EXPECT_EQ(S->SentinelIndex, 1);
  EXPECT_EQ(methodText(*S), "vararg void(int32, ..., int32, string)");
}

TEST(Signature, ByRefPointersAndTypedReference) {
  auto S = decodeMethodSig(
      std::vector<uint8_t>{0x00, 0x03, 0x10, 0x08, 0x0F, 0x01, 0x0F, 0x0F, 0x05, 0x16}, 0);
  ASSERT_TRUE(bool(S)) << errorOf(S.takeError());
  EXPECT_EQ(methodText(*S), "int32&(void*, uint8**, typedref)");
}

TEST(Signature, ArrayShapes) {
  // int32[0...2,0...3]: rank 2, sizes 3 and 4, lower bounds 0 and 0.
  auto T =
      decodeTypeSpec(std::vector<uint8_t>{0x14, 0x08, 0x02, 0x02, 0x03, 0x04, 0x02, 0x00, 0x00}, 0);
  ASSERT_TRUE(bool(T)) << errorOf(T.takeError());
  EXPECT_EQ(typeText(*T), "int32[0...2,0...3]");
  // float64[,,]: rank 3, nothing else known; string[5,-1...]: one size, two lower bounds.
  auto U = decodeTypeSpec(std::vector<uint8_t>{0x14, 0x0D, 0x03, 0x00, 0x00}, 0);
  ASSERT_TRUE(bool(U));
  EXPECT_EQ(typeText(*U), "float64[,,]");
  auto V = decodeTypeSpec(std::vector<uint8_t>{0x14, 0x0E, 0x02, 0x01, 0x05, 0x02, 0x00, 0x7D}, 0);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(typeText(*V), "string[0...4,-2...]");
}

TEST(Signature, FunctionPointerAndGenericParameters) {
  auto T = decodeTypeSpec(std::vector<uint8_t>{0x1B, 0x01, 0x01, 0x08, 0x13, 0x00}, 0);
  ASSERT_TRUE(bool(T)) << errorOf(T.takeError());
  EXPECT_EQ(typeText(*T), "method unmanaged cdecl int32 *(!0)");
}

TEST(Signature, LocalsWithPinnedAndByRef) {
  auto L = decodeLocalsSig(std::vector<uint8_t>{0x07, 0x03, 0x45, 0x10, 0x08, 0x0E, 0x18}, 0);
  ASSERT_TRUE(bool(L)) << errorOf(L.takeError());
  ASSERT_EQ(L->size(), 3u);
  EXPECT_EQ(typeText((*L)[0]), "int32& pinned");
  EXPECT_EQ(typeText((*L)[1]), "string");
  EXPECT_EQ(typeText((*L)[2]), "native int");
}

TEST(Signature, FieldAndPropertyAndMethodSpec) {
  auto F = decodeFieldSig(std::vector<uint8_t>{0x06, 0x1D, 0x05}, 0);
  ASSERT_TRUE(bool(F));
  EXPECT_EQ(typeText(*F), "uint8[]");
  auto P = decodePropertySig(std::vector<uint8_t>{0x28, 0x01, 0x08, 0x0E}, 0);
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(P->hasThis());
  EXPECT_EQ(P->Params.size(), 1u);
  auto MS = decodeMethodSpec(std::vector<uint8_t>{0x0A, 0x02, 0x08, 0x1C}, 0);
  ASSERT_TRUE(bool(MS));
  ASSERT_EQ(MS->size(), 2u);
  EXPECT_EQ(typeText((*MS)[1]), "object");
}

TEST(Signature, TokensAreCheckedAgainstTheModule) {
  const Module &M = anyModule();
  uint32_t Rows = M.rowCount(TableId::TypeRef);
  // CLASS with a TypeRef one past the last row (coded: row << 2 | 1).
  uint32_t Coded = ((Rows + 1) << 2) | 1;
  std::vector<uint8_t> Blob{0x12, uint8_t(0xC0 | (Coded >> 24)), uint8_t(Coded >> 16),
                            uint8_t(Coded >> 8), uint8_t(Coded)};
  auto T = decodeTypeSpec(Blob, 0x500, &M);
  ASSERT_FALSE(bool(T));
  EXPECT_NE(errorOf(T.takeError()).find("does not exist"), std::string::npos);
  auto Ok = decodeTypeSpec(Blob, 0x500, nullptr);
  EXPECT_TRUE(bool(Ok)) << "without a module only the structure is checked";
}

struct BadSig {
  const char *Name;
  std::vector<uint8_t> Blob;
  const char *Message;
  uint64_t Offset;
};

TEST(Signature, BadSignaturesAreRefusedWithStructureAndOffset) {
  std::vector<uint8_t> Deep(70, 0x0F); // 70 nested pointers
  Deep.push_back(0x08);
  const BadSig Cases[] = {
      {"bad-truncated", {0x00, 0x02, 0x01, 0x08}, "unexpected end of data", 0x1004},
      {"bad-element-type", {0x00, 0x01, 0x01, 0x42}, "unknown element type 0x42", 0x1003},
      {"bad-param-count",
       {0x00, 0xC0, 0x01, 0x00, 0x00, 0x01},
       "larger than the signature",
       0x1001},
      {"bad-sentinel-in-type", {0x00, 0x00, 0x41}, "varargs sentinel outside", 0x1002},
      {"bad-empty-instantiation", {0x00, 0x00, 0x15, 0x12, 0x05, 0x00}, "no arguments", 0x1005},
      {"bad-field-kind",
       {0x00, 0x00, 0x1B, 0x06, 0x08},
       "does not start a method signature",
       0x1003},
      {"bad-rank", {0x00, 0x00, 0x14, 0x08, 0x00, 0x00, 0x00}, "array rank 0", 0x1004},
      {"bad-internal", {0x00, 0x00, 0x21}, "ELEMENT_TYPE_INTERNAL", 0x1002},
  };
  for (const BadSig &C : Cases) {
    auto S = decodeMethodSig(C.Blob, 0x1000);
    ASSERT_FALSE(bool(S)) << C.Name;
    std::string Msg = errorOf(S.takeError());
    EXPECT_NE(Msg.find("method signature at offset"), std::string::npos) << C.Name << ": " << Msg;
    EXPECT_NE(Msg.find(C.Message), std::string::npos) << C.Name << ": " << Msg;
    char Off[32];
    snprintf(Off, sizeof Off, "0x%llx", (unsigned long long)C.Offset);
    EXPECT_NE(Msg.find(Off), std::string::npos) << C.Name << ": " << Msg;
  }
  std::vector<uint8_t> DeepMethod{0x00, 0x00};
  DeepMethod.insert(DeepMethod.end(), Deep.begin(), Deep.end());
  auto S = decodeMethodSig(DeepMethod, 0);
  ASSERT_FALSE(bool(S));
  EXPECT_NE(errorOf(S.takeError()).find("levels deep"), std::string::npos);
}

} // namespace
