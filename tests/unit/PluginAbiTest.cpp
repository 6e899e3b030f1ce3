//===- tests/unit/PluginAbiTest.cpp - The C ABI's tables against weft's own -===//
//
// include/weft-c/Opcodes.h names every CIL opcode weft knows, with its encoding and operand kind
// as il/Opcodes.def has them (the C header is written by hand: this is what keeps it true), and
// the function table weft hands plugins has every function of this ABI version set.
//
//===----------------------------------------------------------------------===//
#include "il/Opcodes.h"
#include "weaving/plugin/CAbi.h"
#include "weft-c/Plugin.h"

#include <gtest/gtest.h>
#include <cstring>
#include <set>

using namespace weft;

namespace {

struct COpcode {
  const char *Name;
  uint32_t Value, Operand;
};

const COpcode COpcodes[] = {
#define WEFT_TEST_OPCODE(Id, Mnemonic, Value, Operand) {Mnemonic, Value, Operand},
    WEFT_OPCODES(WEFT_TEST_OPCODE)
#undef WEFT_TEST_OPCODE
};

TEST(PluginAbi, OpcodesAreWeftsWithTheirEncodingAndOperand) {
  std::set<il::Opcode> Seen;
  for (const COpcode &C : COpcodes) {
    std::optional<il::Opcode> Op = C.Value < 0x100 ? il::oneByteOpcode(uint8_t(C.Value))
                                                   : il::twoByteOpcode(uint8_t(C.Value));
    ASSERT_TRUE(Op && (C.Value < 0x100 || (C.Value >> 8) == 0xFE)) << C.Name;
    EXPECT_EQ(il::name(*Op), C.Name);
    EXPECT_EQ(uint32_t(il::info(*Op).Operand), C.Operand) << C.Name;
    Seen.insert(*Op);
  }
  EXPECT_EQ(Seen.size(), size_t(il::Opcode::Count));
  EXPECT_EQ(WEFT_OP_RET, 0x2Au);
  EXPECT_EQ(WEFT_OP_CEQ, 0xFE01u);
}

TEST(PluginAbi, TheTableHasEveryFunction) {
  const weft_api &A = plugin::cApi();
  EXPECT_EQ(A.Size, sizeof(weft_api));
  EXPECT_EQ(A.AbiVersion, uint32_t(WEFT_ABI_VERSION));
  EXPECT_EQ(A.Minor, uint32_t(WEFT_API_MINOR));
  // Every member from LastError on is a function pointer.
  for (size_t At = offsetof(weft_api, LastError); At < sizeof(weft_api); At += sizeof(void *)) {
    void *F = nullptr;
    std::memcpy(&F, reinterpret_cast<const char *>(&A) + At, sizeof F);
    EXPECT_NE(F, nullptr) << "the function at offset " << At;
  }
  EXPECT_TRUE(WEFT_API_HAS(&A, SetObjectData));
}

TEST(PluginAbi, OperandKindsAreTheTableOnes) {
  const weft_api &A = plugin::cApi();
  EXPECT_EQ(A.OperandKind(WEFT_OP_LDSTR), uint32_t(WEFT_OPERAND_STRING));
  EXPECT_EQ(A.OperandKind(WEFT_OP_SWITCH), uint32_t(WEFT_OPERAND_SWITCH));
  EXPECT_EQ(A.OperandKind(WEFT_OP_LDARG), uint32_t(WEFT_OPERAND_VAR));
  EXPECT_EQ(A.OperandKind(0x1234), uint32_t(WEFT_OPERAND_NONE));
}

} // namespace
