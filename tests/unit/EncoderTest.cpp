//===- tests/unit/EncoderTest.cpp - Instruction graph, encoder, verifier ---===//
#include "il/Encoder.h"

#include "il/BodyReader.h"
#include "il/CallShapes.h"
#include "il/MethodBody.h"
#include "il/StackDepth.h"
#include "il/Verifier.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "tests/support/Env.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace weft;
using namespace weft::il;
using namespace weft::metadata;

namespace {

MethodBody decodeBytes(const std::vector<uint8_t> &Bytes) {
  auto Raw = readMethodBody(Bytes, 0);
  EXPECT_TRUE(bool(Raw));
  auto B = MethodBody::decode(*Raw);
  EXPECT_TRUE(bool(B)) << llvm::toString(B.takeError());
  return std::move(*B);
}

// Shapes for bodies that call nothing.
struct NoCalls : CallShapeSource {
  std::optional<CallShape> shapeOf(uint32_t) const override { return std::nullopt; }
};

TEST(Encoder, UneditedTinyBodyEncodesToItsBytes) {
  std::vector<uint8_t> Bytes{(4 << 2) | 2, 0x16, 0x2C, 0x00, 0x2A}; // ldc.i4.0 brfalse.s +0 ret
  MethodBody B = decodeBytes(Bytes);
  NoCalls Shapes;
  EncodeOptions O;
  O.Shapes = &Shapes;
  auto E = encode(B, O);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(E->Bytes, Bytes);
  EXPECT_FALSE(E->Fat);
}

// Inserting code between a short branch and its target past what a short branch reaches makes
// the branch long; the offset map follows the instructions.
TEST(Encoder, ShortBranchesBecomeLongWhenTheyNoLongerReach) {
  // IL_0000: br.s IL_0003 ; IL_0002: nop ; IL_0003: ret
  std::vector<uint8_t> Bytes{(4 << 2) | 2, 0x2B, 0x01, 0x00, 0x2A};
  MethodBody B = decodeBytes(Bytes);
  Instr *Ret = B.instructions()[2];
  for (int I = 0; I < 200; ++I)
    B.insertBefore(Ret, B.create(Opcode::Nop));
  NoCalls Shapes;
  EncodeOptions O;
  O.Shapes = &Shapes;
  auto E = encode(B, O);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(B.instructions()[0]->Op, Opcode::Br);
  EXPECT_EQ(E->BranchesLengthened, 1u);
  EXPECT_EQ(E->CodeSize, 5u + 1 + 200 + 1);
  EXPECT_TRUE(E->Fat) << "code of 64 bytes or more needs a fat header";
  // Map: 0 -> 0, 2 -> 5, 3 -> 206, end 4 -> 207.
  std::vector<std::pair<uint32_t, uint32_t>> Want{{0, 0}, {2, 5}, {3, 206}, {4, 207}};
  EXPECT_EQ(E->OffsetMap, Want);
  // The encoded body decodes back to the same instructions.
  auto Raw = readMethodBody(E->Bytes, 0);
  ASSERT_TRUE(bool(Raw));
  std::vector<Instruction> Out;
  ASSERT_FALSE(bool(decodeInstructions(Raw->Code, 0, Out)));
  EXPECT_EQ(Out.size(), 203u);
  EXPECT_EQ(Out[0].Target, 206u);
}

TEST(Encoder, OperandsThatDoNotFitTakeTheLongForm) {
  MethodBody B;
  Instr *L = B.create(Opcode::Ldloc_S);
  L->Index = 300;
  B.insertBefore(nullptr, L);
  B.insertBefore(nullptr, B.create(Opcode::Ldc_I4_S, 1000));
  B.insertBefore(nullptr, B.create(Opcode::Pop));
  B.insertBefore(nullptr, B.create(Opcode::Pop));
  B.insertBefore(nullptr, B.create(Opcode::Ret));
  B.LocalVarSigToken = 0x11000001;
  auto E = encode(B, {});
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(B.instructions()[0]->Op, Opcode::Ldloc);
  EXPECT_EQ(B.instructions()[1]->Op, Opcode::Ldc_I4);
  EXPECT_TRUE(E->Fat) << "locals need a fat header";
}

TEST(Encoder, ExceptionSectionsAreSmallWhenTheyFit) {
  // try { nop; leave.s end } finally { endfinally } end: ret
  MethodBody B;
  Instr *Nop = B.create(Opcode::Nop), *Ret = B.create(Opcode::Ret);
  Instr *Leave = B.createBranch(Opcode::Leave_S, Ret), *EndF = B.create(Opcode::Endfinally);
  for (Instr *I : {Nop, Leave, EndF, Ret})
    B.insertBefore(nullptr, I);
  ExceptionRegion R;
  R.Kind = RegionKind::Finally;
  R.TryStart = Nop;
  R.TryEnd = EndF;
  R.HandlerStart = EndF;
  R.HandlerEnd = Ret;
  B.Regions.push_back(R);
  NoCalls Shapes;
  EncodeOptions O;
  O.Shapes = &Shapes;
  auto E = encode(B, O);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  auto Raw = readMethodBody(E->Bytes, 0);
  ASSERT_TRUE(bool(Raw));
  ASSERT_EQ(Raw->Clauses.size(), 1u);
  EXPECT_FALSE(Raw->FatSections);
  EXPECT_EQ(Raw->Clauses[0].Kind, ClauseFinally);
  EXPECT_EQ(Raw->Clauses[0].TryLength, 3u);
  EXPECT_EQ(Raw->Clauses[0].HandlerOffset, 3u);
  // Grow the try block past 255 bytes: the section becomes fat.
  for (int I = 0; I < 300; ++I)
    B.insertBefore(Leave, B.create(Opcode::Nop));
  E = encode(B, O);
  ASSERT_TRUE(bool(E));
  Raw = readMethodBody(E->Bytes, 0);
  ASSERT_TRUE(bool(Raw));
  EXPECT_TRUE(Raw->FatSections);
  EXPECT_EQ(Raw->Clauses[0].TryLength, 1u + 300u + 2u); // the leave.s still reaches: short
}

TEST(Encoder, RemovingAnInstructionRetargetsBranchesToTheNextOne) {
  std::vector<uint8_t> Bytes{(5 << 2) | 2, 0x2B, 0x01,
                             0x00,         0x00, 0x2A}; // br.s IL_0003; nop; nop; ret
  MethodBody B = decodeBytes(Bytes);
  Instr *Target = B.instructions()[2];
  B.remove(Target);
  EXPECT_EQ(B.instructions()[0]->Target, B.instructions()[2]);
  auto E = encode(B, {});
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(E->CodeSize, 4u);
}

// --- the verifier, on bodies attached to a real method (System.Object::.ctor: instance, no
// parameters, returns void) ---

uint32_t objectCtorRow(const Module &M) {
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R)
    if (M.getString(M.get(TableId::MethodDef, R, MethodDefCol::Name)) == ".ctor") {
      uint32_t T = M.declaringTypeOfMethod(R);
      if (T && M.getString(M.get(TableId::TypeDef, T, TypeDefCol::TypeName)) == "Object" &&
          M.getString(M.get(TableId::TypeDef, T, TypeDefCol::TypeNamespace)) == "System")
        return R;
    }
  return 0;
}

std::vector<std::string> verifyProblems(MethodBody &B) {
  const Module &M = *test::frameworkAssembly("System.Private.CoreLib.dll").Module;
  uint32_t Row = objectCtorRow(M);
  EXPECT_NE(Row, 0u);
  ModuleCallShapes Shapes(M);
  // Give the new instructions offsets, as the decoder would.
  auto E = encode(B, {});
  EXPECT_TRUE(bool(E));
  for (Instr *I : B.instructions())
    I->OriginalOffset = I->Offset;
  std::vector<analysis::Diagnostic> Out;
  analysis::verifyBody(M, Row, B, 8, Shapes, Out);
  std::vector<std::string> Texts;
  for (auto &D : Out)
    Texts.push_back(D.What);
  return Texts;
}

bool mentions(const std::vector<std::string> &Problems, const std::string &Part) {
  for (const std::string &P : Problems)
    if (P.find(Part) != std::string::npos)
      return true;
  return false;
}

MethodBody bodyOf(std::initializer_list<Opcode> Ops) {
  MethodBody B;
  for (Opcode Op : Ops)
    B.insertBefore(nullptr, B.create(Op));
  return B;
}

TEST(Verifier, CleanBodyHasNoProblems) {
  MethodBody B = bodyOf({Opcode::Ldarg_0, Opcode::Pop, Opcode::Ret});
  EXPECT_TRUE(verifyProblems(B).empty());
}

TEST(Verifier, StackUnderflowAndOverflow) {
  MethodBody B = bodyOf({Opcode::Pop, Opcode::Ret});
  EXPECT_TRUE(mentions(verifyProblems(B), "takes 1 values but the stack holds 0"));
  MethodBody C;
  for (int I = 0; I < 9; ++I)
    C.insertBefore(nullptr, C.create(Opcode::Ldnull));
  for (int I = 0; I < 9; ++I)
    C.insertBefore(nullptr, C.create(Opcode::Pop));
  C.insertBefore(nullptr, C.create(Opcode::Ret));
  EXPECT_TRUE(mentions(verifyProblems(C), "grows to 9 values but .maxstack is 8"));
}

TEST(Verifier, InconsistentDepthAtAJoin) {
  // ldarg.0; brtrue L; ldnull; L: ret  -- L is reached with 0 and with 1 value
  MethodBody B;
  Instr *Ret = B.create(Opcode::Ret);
  B.insertBefore(nullptr, B.create(Opcode::Ldarg_0));
  B.insertBefore(nullptr, B.createBranch(Opcode::Brtrue_S, Ret));
  B.insertBefore(nullptr, B.create(Opcode::Ldnull));
  B.insertBefore(nullptr, Ret);
  EXPECT_TRUE(mentions(verifyProblems(B), "on one path into"));
}

TEST(Verifier, LocalsArgumentsAndPlacement) {
  MethodBody B =
      bodyOf({Opcode::Ldloc_0, Opcode::Pop, Opcode::Ldarg_1, Opcode::Pop, Opcode::Endfinally});
  std::vector<std::string> P = verifyProblems(B);
  EXPECT_TRUE(mentions(P, "uses local 0 but the method has 0 locals"));
  EXPECT_TRUE(mentions(P, "uses argument 1 but the method has 1 arguments"));
  EXPECT_TRUE(mentions(P, "endfinally outside a finally or fault handler"));
}

TEST(Verifier, ExceptionRegionRules) {
  // try { nop; ret } finally { nop }  then ret: ret in try, falls out of finally, into handler.
  MethodBody B;
  Instr *Nop = B.create(Opcode::Nop), *RetIn = B.create(Opcode::Ret), *H = B.create(Opcode::Nop),
        *RetOut = B.create(Opcode::Ret);
  for (Instr *I : {Nop, RetIn, H, RetOut})
    B.insertBefore(nullptr, I);
  ExceptionRegion R;
  R.Kind = RegionKind::Finally;
  R.TryStart = Nop;
  R.TryEnd = H;
  R.HandlerStart = H;
  R.HandlerEnd = RetOut;
  B.Regions.push_back(R);
  std::vector<std::string> P = verifyProblems(B);
  EXPECT_TRUE(mentions(P, "ret inside a try block"));
  EXPECT_TRUE(mentions(P, "falls through out of a finally handler"));
  // A branch into the middle of the try block.
  MethodBody C;
  Instr *T0 = C.create(Opcode::Nop), *T1 = C.create(Opcode::Nop), *Ret = C.create(Opcode::Ret);
  Instr *Leave = C.createBranch(Opcode::Leave_S, Ret), *End = C.create(Opcode::Endfinally);
  C.insertBefore(nullptr, C.createBranch(Opcode::Br_S, T1));
  for (Instr *I : {T0, T1, Leave, End, Ret})
    C.insertBefore(nullptr, I);
  ExceptionRegion S;
  S.Kind = RegionKind::Finally;
  S.TryStart = T0;
  S.TryEnd = End;
  S.HandlerStart = End;
  S.HandlerEnd = Ret;
  C.Regions.push_back(S);
  EXPECT_TRUE(mentions(verifyProblems(C), "branch into the middle of a try block"));
}

} // namespace
