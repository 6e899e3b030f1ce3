//===- tests/unit/BodyReaderTest.cpp - Method bodies and instructions -----===//
#include "il/BodyReader.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace weft;
using namespace weft::il;

namespace {

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }

TEST(Opcodes, TableIsConsistent) {
  std::set<std::string> Names;
  std::set<unsigned> Codes;
  for (unsigned I = 0; I < unsigned(Opcode::Count); ++I) {
    const OpcodeInfo &Info = info(Opcode(I));
    EXPECT_TRUE(Names.insert(Info.Name).second) << Info.Name;
    EXPECT_TRUE(Codes.insert(Info.Byte1 << 8 | Info.Byte2).second) << Info.Name;
    auto Back = Info.Byte1 == 0xFE ? twoByteOpcode(Info.Byte2) : oneByteOpcode(Info.Byte2);
    ASSERT_TRUE(Back.has_value());
    EXPECT_EQ(*Back, Opcode(I));
  }
  EXPECT_EQ(Names.size(), 219u);
  EXPECT_FALSE(oneByteOpcode(0x24).has_value()); // unused
  EXPECT_FALSE(oneByteOpcode(0xFE).has_value()); // the prefix byte itself
  EXPECT_FALSE(twoByteOpcode(0x08).has_value());
  EXPECT_EQ(name(Opcode::Constrained), "constrained.");
  EXPECT_EQ(info(Opcode::Ldloc).Operand, OperandKind::Var);
}

TEST(Opcodes, ShortAndLongBranchForms) {
  EXPECT_EQ(longForm(Opcode::Br_S), Opcode::Br);
  EXPECT_EQ(longForm(Opcode::Blt_Un_S), Opcode::Blt_Un);
  EXPECT_EQ(longForm(Opcode::Leave_S), Opcode::Leave);
  EXPECT_EQ(shortForm(Opcode::Bge), Opcode::Bge_S);
  EXPECT_EQ(shortForm(Opcode::Leave), Opcode::Leave_S);
  EXPECT_EQ(shortForm(Opcode::Call), Opcode::Call);
  for (unsigned I = 0; I < unsigned(Opcode::Count); ++I) {
    Opcode Op = Opcode(I);
    if (info(Op).Operand == OperandKind::ShortBr) {
      EXPECT_EQ(shortForm(longForm(Op)), Op) << name(Op).str();
    }
  }
}

// Every opcode, with an operand of the right size, decodes to itself.
TEST(Instructions, EveryOpcodeDecodes) {
  for (unsigned I = 0; I < unsigned(Opcode::Count); ++I) {
    const OpcodeInfo &Info = info(Opcode(I));
    std::vector<uint8_t> Code;
    if (Info.Byte1 == 0xFE)
      Code.push_back(0xFE);
    Code.push_back(Info.Byte2);
    unsigned OperandBytes = operandSize(Info.Operand);
    if (Info.Operand == OperandKind::Switch) {
      Code.insert(Code.end(), {2, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF});
    } else {
      Code.insert(Code.end(), OperandBytes, 0);
    }
    std::vector<Instruction> Out;
    llvm::Error E = decodeInstructions(Code, 0, Out);
    ASSERT_FALSE(bool(E)) << Info.Name << ": " << errorOf(std::move(E));
    ASSERT_EQ(Out.size(), 1u) << Info.Name;
    EXPECT_EQ(Out[0].Op, Opcode(I));
    EXPECT_EQ(Out[0].Size, Code.size()) << Info.Name;
  }
}

TEST(Instructions, OperandsAndTargets) {
  // ldc.i4.s -2; ldc.i8 1<<40; br.s -2 (to itself); ldarg 0x1234; switch (2 targets); ret
  std::vector<uint8_t> Code{0x1F, 0xFE, 0x21, 0,    0,    0,    0,    0,    1,   0, 0,
                            0x2B, 0xFE, 0xFE, 0x09, 0x34, 0x12, 0x45, 2,    0,   0, 0,
                            0,    0,    0,    0,    0xFC, 0xFF, 0xFF, 0xFF, 0x2A};
  std::vector<Instruction> Out;
  InstructionDecoder D(Code, 0);
  Instruction I;
  while (D.next(I))
    Out.push_back(I);
  ASSERT_FALSE(bool(D.takeError()));
  ASSERT_EQ(Out.size(), 6u);
  EXPECT_EQ(Out[0].Int, -2);
  EXPECT_EQ(Out[1].Int, int64_t(1) << 40);
  EXPECT_EQ(Out[2].Target, Out[2].Offset);
  EXPECT_EQ(Out[3].Index, 0x1234u);
  EXPECT_EQ(Out[4].Count, 2u);
  EXPECT_EQ(D.switchTarget(Out[4], 0), Out[4].next());
  EXPECT_EQ(D.switchTarget(Out[4], 1), Out[4].next() - 4);
  EXPECT_EQ(Out[5].Op, Opcode::Ret);
}

TEST(Instructions, BadCodeIsRefused) {
  std::vector<Instruction> Out;
  std::string M1 = errorOf(decodeInstructions(std::vector<uint8_t>{0x00, 0x24}, 0x200, Out));
  EXPECT_NE(M1.find("unknown opcode 0x24 at IL_0001"), std::string::npos) << M1;
  EXPECT_NE(M1.find("offset 0x201"), std::string::npos) << M1;
  std::string M2 = errorOf(decodeInstructions(std::vector<uint8_t>{0xFE, 0x08}, 0, Out));
  EXPECT_NE(M2.find("unknown opcode 0xFE 0x08"), std::string::npos) << M2;
  std::string M3 = errorOf(decodeInstructions(std::vector<uint8_t>{0x20, 1, 2}, 0, Out));
  EXPECT_NE(M3.find("truncated operand of ldc.i4"), std::string::npos) << M3;
  std::string M4 =
      errorOf(decodeInstructions(std::vector<uint8_t>{0x45, 0xFF, 0xFF, 0xFF, 0x0F}, 0, Out));
  EXPECT_NE(M4.find("more than the code holds"), std::string::npos) << M4;
  std::string M5 = errorOf(decodeInstructions(std::vector<uint8_t>{0xFE}, 0, Out));
  EXPECT_NE(M5.find("truncated two-byte opcode"), std::string::npos) << M5;
}

TEST(MethodBody, TinyHeader) {
  std::vector<uint8_t> Bytes{(2 << 2) | 2, 0x00, 0x2A, 0xCC};
  auto B = readMethodBody(Bytes, 0x400);
  ASSERT_TRUE(bool(B)) << errorOf(B.takeError());
  EXPECT_FALSE(B->Fat);
  EXPECT_EQ(B->Code.size(), 2u);
  EXPECT_EQ(B->MaxStack, 8u);
  EXPECT_EQ(B->LocalVarSigToken, 0u);
  EXPECT_EQ(B->codeFileOffset(), 0x401u);
  EXPECT_EQ(B->TotalSize, 3u);
}

// A fat header with locals, a small EH section followed by a fat one.
std::vector<uint8_t> fatBodyWithTwoSections() {
  std::vector<uint8_t> B{
      0x1B, 0x30,                         // flags: fat | more sections | init locals; size 3 dwords
      0x05, 0x00,                         // max stack 5
      0x06, 0x00, 0x00, 0x00,             // code size 6
      0x01, 0x00, 0x00, 0x11,             // local signature token 0x11000001
      0x00, 0x00, 0x00, 0xDC, 0x00, 0x2A, // nop nop nop endfinally nop ret
      0x00, 0x00,                         // padding to 4
      // small EH section: kind EHTable | MoreSects, size 4 + 12, reserved
      0x81, 16, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00,
      0x00, // finally
      // fat EH section: kind EHTable | FatFormat, size 4 + 24
      0x41, 28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   // exception
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, // try 0, 2
      0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, // handler 2, 2
      0x05, 0x00, 0x00, 0x01,                         // catch type 0x01000005
  };
  return B;
}

TEST(MethodBody, FatHeaderWithSmallAndFatSections) {
  std::vector<uint8_t> Bytes = fatBodyWithTwoSections();
  auto B = readMethodBody(Bytes, 0);
  ASSERT_TRUE(bool(B)) << errorOf(B.takeError());
  EXPECT_TRUE(B->Fat);
  EXPECT_TRUE(B->initLocals());
  EXPECT_EQ(B->MaxStack, 5u);
  EXPECT_EQ(B->LocalVarSigToken, 0x11000001u);
  EXPECT_EQ(B->Code.size(), 6u);
  ASSERT_EQ(B->Clauses.size(), 2u);
  EXPECT_EQ(B->Clauses[0].Kind, ClauseFinally);
  EXPECT_EQ(B->Clauses[0].HandlerOffset, 2u);
  EXPECT_EQ(B->Clauses[1].Kind, ClauseException);
  EXPECT_EQ(B->Clauses[1].ClassTokenOrFilterOffset, 0x01000005u);
  EXPECT_EQ(B->NumSections, 2u);
  EXPECT_TRUE(B->FatSections);
  EXPECT_EQ(B->TotalSize, Bytes.size());
}

TEST(MethodBody, BadBodiesAreRefused) {
  auto Expect = [](std::vector<uint8_t> Bytes, const char *Message) {
    auto B = readMethodBody(Bytes, 0x1000);
    ASSERT_FALSE(bool(B)) << Message;
    std::string M = errorOf(B.takeError());
    EXPECT_NE(M.find(Message), std::string::npos) << M;
    EXPECT_NE(M.find("offset 0x1"), std::string::npos) << M;
  };
  Expect({0x00, 0x2A}, "neither a tiny");
  Expect({(5 << 2) | 2, 0x00}, "runs past the end");
  Expect({0x03, 0x30, 8, 0, 0xFF, 0, 0, 0, 0, 0, 0, 0}, "code size 255");
  Expect({0x03, 0x10, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x2A}, "smaller than 12 bytes");
  std::vector<uint8_t> Bad = fatBodyWithTwoSections();
  Bad[21] = 2; // small section claims less than its own header
  Expect(Bad, "data size 2");
  std::vector<uint8_t> Truncated = fatBodyWithTwoSections();
  Truncated.resize(Truncated.size() - 5);
  Expect(Truncated, "does not fit");
}

} // namespace
