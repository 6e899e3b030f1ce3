//===- tests/unit/BadInputTest.cpp - Malformed files ----------------------===//
//
// A real assembly from the installed framework, damaged one structure at a time. Each damaged copy
// must be refused with an error naming the structure and the file offset: no crash, no hang. The
// damage is placed using weft's own reading of the intact file.
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "il/ReadAll.h"
#include "iltext/Disassembler.h"
#include "iltext/RawDump.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "weaving/ModuleWriter.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <random>

using namespace weft;
using namespace weft::metadata;

namespace {

using Bytes = std::vector<uint8_t>;

// Reads everything the way `weft dump` does; returns the first error, or "" if the file is fine.
std::string readAll(const Bytes &File) {
  auto Img = pe::Image::create(File, "damaged.dll");
  if (!Img)
    return llvm::toString(Img.takeError());
  if (!(*Img)->isManaged())
    return "not managed";
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return llvm::toString(M.takeError());
  ReadStats Stats;
  ReadOptions Opts;
  Opts.CustomAttributes = false; // no resolver here; enums would only be guessed
  if (llvm::Error E = readEverything(**Img, **M, Stats, Opts))
    return llvm::toString(std::move(E));
  llvm::raw_null_ostream Null;
  if (llvm::Error E = text::disassemble(Null, **Img, **M, {}))
    return llvm::toString(std::move(E));
  return "";
}

// As `weft weave` takes a file: read completely, then written anew (to memory).
std::string readAndWrite(const Bytes &File) {
  if (std::string Msg = readAll(File); !Msg.empty())
    return Msg;
  auto Img = pe::Image::create(File, "damaged.dll");
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  metadata::Editor E(**M);
  llvm::Expected<WrittenModule> W = writeModule(**Img, E, std::map<uint32_t, NewBody>{});
  return W ? "" : llvm::toString(W.takeError());
}

class BadInput : public ::testing::Test {
protected:
  void SetUp() override {
    const test::LoadedAssembly &A = test::frameworkAssembly("System.Collections.Concurrent.dll");
    Intact.assign(A.Image->bytes().begin(), A.Image->bytes().end());
    Img = A.Image.get();
    M = A.Module.get();
    ASSERT_EQ(readAll(Intact), "") << "the intact file must read";
  }

  void put16(Bytes &B, uint64_t Off, uint16_t V) { llvm::support::endian::write16le(&B[Off], V); }
  void put32(Bytes &B, uint64_t Off, uint32_t V) { llvm::support::endian::write32le(&B[Off], V); }

  // Expects the damaged file to be refused with a message containing \p Structure and \p What
  // and an offset.
  void expectRefused(const Bytes &B, const std::string &Structure, const std::string &What) {
    std::string Msg = readAll(B);
    ASSERT_FALSE(Msg.empty()) << "damage was not detected: " << Structure << " / " << What;
    EXPECT_NE(Msg.find(Structure), std::string::npos) << Msg;
    EXPECT_NE(Msg.find(What), std::string::npos) << Msg;
    EXPECT_NE(Msg.find("offset 0x"), std::string::npos) << Msg;
  }

  Bytes Intact;
  const pe::Image *Img = nullptr;
  const Module *M = nullptr;
};

TEST_F(BadInput, PEHeaders) {
  expectRefused(Bytes(), "DOS header", "too small");
  Bytes B = Intact;
  B[0] = 'X';
  expectRefused(B, "DOS header", "missing 'MZ' signature");
  B = Intact;
  put32(B, 0x3C, 0xFFFFFF00);
  expectRefused(B, "DOS header", "points outside the file");
  B = Intact;
  B[Img->peHeaderOffset()] = 'Q';
  expectRefused(B, "PE signature", "missing");
  B = Intact;
  put16(B, Img->peHeaderOffset() + 24, 0x0107);
  expectRefused(B, "optional header", "unknown magic 0x0107");
  B = Intact;
  put16(B, Img->peHeaderOffset() + 6, 200);
  expectRefused(B, "COFF header", "200 sections");
  B = Intact;
  put32(B, Img->sections()[0].HeaderOffset + 16, 0x7FFFFFFF);
  expectRefused(B, "section header", "extends beyond the end of the file");
}

TEST_F(BadInput, CliHeaderAndMetadataRoot) {
  uint64_t DirOffset = Img->peHeaderOffset() + 24 + (Img->isPE32Plus() ? 112 : 96) + 14 * 8;
  Bytes B = Intact;
  put32(B, DirOffset + 4, 8);
  expectRefused(B, "CLI header directory", "smaller than the 72-byte CLI header");
  B = Intact;
  put32(B, Img->cli()->FileOffset + 8, 0x7FFFFFF0);
  expectRefused(B, "metadata", "is not inside any section");
  B = Intact;
  B[Img->metadataOffset()] = 'X';
  expectRefused(B, "metadata root", "missing 'BSJB' signature");
  B = Intact;
  put32(B, M->streams()[0].HeaderOffset, 0x7FFFFFF0);
  expectRefused(B, "stream header", "extends beyond the metadata");
}

TEST_F(BadInput, TableStream) {
  const StreamHeader *Tables = nullptr;
  for (const StreamHeader &S : M->streams())
    if (S.Name == "#~")
      Tables = &S;
  ASSERT_NE(Tables, nullptr);
  uint64_t Header = M->fileOffset() + Tables->Offset;
  // Row counts follow the 24-byte header, one per present table in id order: Module first,
  // TypeRef second, TypeDef third.
  Bytes B = Intact;
  put32(B, Header + 24 + 2 * 4, 0x00FFFFFF);
  expectRefused(B, "table", "extend beyond the table stream");
  B = Intact;
  B[Header + 8 + 5] |= 0x20; // Valid bit 0x2D: no such table
  expectRefused(B, "table stream header", "does not exist");

  // A coded index with a tag TypeDefOrRef does not use (2-byte or 4-byte column).
  uint64_t Extends = M->rowOffset(TableId::TypeDef, 2, TypeDefCol::Extends);
  B = Intact;
  B[Extends] |= 0x03;
  expectRefused(B, "table TypeDef, row 2, column Extends", "TypeDefOrRef does not use");
  // A #Strings offset past the heap.
  uint64_t Name = M->rowOffset(TableId::TypeDef, 2, TypeDefCol::TypeName);
  B = Intact;
  put16(B, Name, 0xFFFF);
  if (M->stringHeapSize() > 0xFFFF)
    put32(B, Name, 0x7FFFFFFF);
  expectRefused(B, "table TypeDef, row 2, column TypeName", "is beyond the heap");
  // A list column that goes backwards.
  uint64_t Methods = M->rowOffset(TableId::TypeDef, 3, TypeDefCol::MethodList);
  B = Intact;
  put16(B, Methods, 0);
  expectRefused(B, "table TypeDef, row 3, column MethodList", "null row index");
}

TEST_F(BadInput, NestingCycle) {
  ASSERT_GT(M->rowCount(TableId::NestedClass), 0u);
  // Make the first nested type's enclosing type the nested type itself.
  uint64_t Enclosing = M->rowOffset(TableId::NestedClass, 1, NestedClassCol::EnclosingClass);
  uint32_t Nested = M->get(TableId::NestedClass, 1, NestedClassCol::NestedClass);
  Bytes B = Intact;
  put16(B, Enclosing, uint16_t(Nested));
  expectRefused(B, "table NestedClass, row 1", "nesting cycle");
}

TEST_F(BadInput, MethodBodies) {
  // The first method with a fat body.
  uint32_t Row = 0;
  il::RawMethodBody Body;
  for (uint32_t R = 1; R <= M->rowCount(TableId::MethodDef) && !Row; ++R) {
    uint32_t RVA = M->get(TableId::MethodDef, R, MethodDefCol::RVA);
    if (!RVA)
      continue;
    uint64_t Off = 0;
    llvm::ArrayRef<uint8_t> Tail = Img->rvaTail(RVA, &Off);
    auto B = il::readMethodBody(Tail, Off);
    ASSERT_TRUE(bool(B));
    if (B->Fat && B->Code.size() > 8) {
      Row = R;
      Body = *B;
    }
  }
  ASSERT_NE(Row, 0u);
  Bytes B = Intact;
  B[Body.FileOffset] = 0x00;
  expectRefused(B, "method header", "neither a tiny");
  B = Intact;
  B[Body.codeFileOffset()] = 0x24;
  expectRefused(B, "IL code", "unknown opcode 0x24 at IL_0000");
  B = Intact;
  put32(B, Body.FileOffset + 4, 0x7FFFFFFF);
  expectRefused(B, "method body", "runs past the end of the section");
  B = Intact;
  put32(B, Body.FileOffset + 8, 0x11FFFFFF);
  expectRefused(B, "fat method header", "is not a StandAloneSig row");
  // A branch into the middle of an instruction: `br` to offset 1 placed at offset 0.
  B = Intact;
  B[Body.codeFileOffset()] = 0x38;
  put32(B, Body.codeFileOffset() + 1, uint32_t(-4));
  expectRefused(B, "IL code", "is not the start of an instruction");
}

// Inputs the fuzzers once crashed on.
TEST(FuzzRegressions, AreRefusedNotCrashedOn) {
  std::string Dir = test::sourceDir() + "/tests/data/fuzz-regressions";
  std::vector<std::string> Files = test::filesUnder(Dir, {".dll", ".exe", ".bin"});
  ASSERT_FALSE(Files.empty());
  for (const std::string &F : Files) {
    std::string Text = test::readFile(F);
    Bytes B(Text.begin(), Text.end());
    EXPECT_FALSE(readAndWrite(B).empty()) << F << " should be refused";
    std::string Raw;
    llvm::raw_string_ostream OS(Raw);
    llvm::consumeError(text::rawDump(OS, B));
  }
}

// Every method pointed at the largest body: each read alone is fine, together they would make
// every pass over the methods cost the number of methods times that body.
TEST_F(BadInput, ManyMethodsSharingALargeBody) {
  uint32_t Largest = 0, LargestSize = 0, Rows = M->rowCount(TableId::MethodDef);
  for (uint32_t R = 1; R <= Rows; ++R) {
    auto Body = il::readMethodDefBody(*Img, *M, R);
    ASSERT_TRUE(bool(Body));
    if (*Body && (*Body)->Code.size() > LargestSize) {
      LargestSize = uint32_t((*Body)->Code.size());
      Largest = M->get(TableId::MethodDef, R, MethodDefCol::RVA);
    }
  }
  Bytes B = Intact;
  for (uint32_t R = 1; R <= Rows; ++R) {
    put32(B, M->rowOffset(TableId::MethodDef, R, MethodDefCol::RVA), Largest);
    put16(B, M->rowOffset(TableId::MethodDef, R, MethodDefCol::ImplFlags), 0);
  }
  // This file is small: a budget below what its methods now add up to stands for a large one.
  uint64_t Budget = uint64_t(LargestSize) * Rows / 2;
  auto Damaged = pe::Image::create(B, "damaged.dll");
  ASSERT_TRUE(bool(Damaged));
  auto DM = Module::create((*Damaged)->metadata(), (*Damaged)->metadataOffset());
  ASSERT_TRUE(bool(DM));
  ReadStats Stats;
  ReadOptions RO;
  RO.CustomAttributes = false;
  RO.CodeBudget = Budget;
  std::string Msg = llvm::toString(readEverything(**Damaged, **DM, Stats, RO));
  EXPECT_NE(Msg.find("method body at offset 0x"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("(8 times the file): methods share or overlap bodies"), std::string::npos)
      << Msg;
  EXPECT_LE(Stats.ILBytes, Budget + LargestSize) << "reading stops at the budget";
  RO.CodeBudget = 0; // the real budget, 8 times this file, is not reached
  EXPECT_EQ(llvm::toString(readEverything(**Damaged, **DM, Stats, RO)), "");
  // The IL text shows the bodies up to the budget, then says why it shows no more.
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  text::DisassemblerOptions DO;
  DO.CodeBudget = Budget;
  llvm::consumeError(text::disassemble(OS, **Damaged, **DM, DO));
  EXPECT_NE(Text.find("not shown: the code of the methods so far adds up to more than"),
            std::string::npos);
  size_t Shown = 0;
  for (size_t P = Text.find(".maxstack"); P != std::string::npos; P = Text.find(".maxstack", P + 1))
    ++Shown;
  EXPECT_EQ(Shown, Budget / LargestSize);
}

// A field's data said to be nearly 2 GiB, in a section said to be 4 GiB long: the writer and the
// IL text would make the zeros past the file's data. Neither allocates them.
TEST_F(BadInput, HugeFieldDataIsRefusedByTheWriter) {
  ASSERT_GT(M->rowCount(TableId::ClassLayout), 0u);
  ASSERT_GT(M->rowCount(TableId::FieldRVA), 0u);
  Bytes B = Intact;
  for (uint32_t R = 1; R <= M->rowCount(TableId::ClassLayout); ++R)
    put32(B, M->rowOffset(TableId::ClassLayout, R, ClassLayoutCol::ClassSize), 0x7FFFFFF0);
  uint32_t DataRVA = M->get(TableId::FieldRVA, 1, FieldRVACol::RVA);
  const pe::Section *S = Img->sectionForRVA(DataRVA);
  ASSERT_NE(S, nullptr);
  put32(B, S->HeaderOffset + 8, 0xFFFFFFF0 - S->VirtualAddress); // VirtualSize
  std::string Msg = readAndWrite(B);
  EXPECT_NE(Msg.find("field data at offset 0x"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("the fields' data adds up to"), std::string::npos) << Msg;
  // The IL text says how many zeros follow the file's bytes instead of writing them out.
  auto Damaged = pe::Image::create(B, "damaged.dll");
  ASSERT_TRUE(bool(Damaged));
  auto DM = Module::create((*Damaged)->metadata(), (*Damaged)->metadataOffset());
  ASSERT_TRUE(bool(DM));
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::consumeError(text::disassemble(OS, **Damaged, **DM, {}));
  EXPECT_NE(Text.find(", int8["), std::string::npos);
  EXPECT_LT(Text.size(), 4 * Intact.size() + (1u << 20));
}

// Truncating the file anywhere must give an error, never a crash.
TEST_F(BadInput, TruncationAnywhere) {
  std::vector<size_t> Cuts{1,
                           2,
                           0x3C,
                           0x40,
                           Img->peHeaderOffset() + 4u,
                           Img->peHeaderOffset() + 30u,
                           size_t(M->fileOffset()),
                           size_t(M->fileOffset() + 20)};
  for (const pe::Section &S : Img->sections())
    Cuts.push_back(S.PointerToRawData + 1);
  for (size_t I = 1; I < 64; ++I)
    Cuts.push_back(Intact.size() * I / 64);
  for (size_t Cut : Cuts) {
    if (Cut >= Intact.size())
      continue;
    Bytes B(Intact.begin(), Intact.begin() + Cut);
    std::string Msg = readAll(B);
    EXPECT_FALSE(Msg.empty()) << "truncated at " << Cut << " was not detected";
  }
}

// Random damage: many copies with a few bytes changed. Each must read and be written anew, or be
// refused; the test
// fails only by crashing or hanging (the fuzz target does the same under sanitizers).
TEST_F(BadInput, RandomDamageNeverCrashes) {
  std::mt19937 Rng(12345);
  unsigned Refused = 0, Read = 0;
  uint64_t MetaStart = M->fileOffset(), MetaSize = M->bytes().size();
  for (unsigned Round = 0; Round < 400; ++Round) {
    Bytes B = Intact;
    unsigned Changes = 1 + Rng() % 4;
    for (unsigned C = 0; C < Changes; ++C) {
      // Mostly in the metadata and headers, where the structures are.
      uint64_t Off = (Rng() % 4 == 0) ? Rng() % 0x400 : MetaStart + Rng() % MetaSize;
      if (Off < B.size())
        B[Off] = uint8_t(Rng());
    }
    (readAndWrite(B).empty() ? Read : Refused)++;
    std::string Raw;
    llvm::raw_string_ostream OS(Raw);
    llvm::consumeError(text::rawDump(OS, B));
  }
  EXPECT_EQ(Read + Refused, 400u);
  EXPECT_GT(Refused, 0u);
}

} // namespace
