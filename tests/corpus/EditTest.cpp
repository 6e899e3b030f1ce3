//===- tests/corpus/EditTest.cpp - Edits through the API run --------------===//
//
// Every method of a corpus program gets `nop; ldstr "enter T::M"; call Console.WriteLine` at its
// start and `ldstr "leave T::M"; call Console.WriteLine` before each `ret` (branches to the ret
// now go to the new code, so short branches over it may have to become long). The program must
// pass the verifier and run with exactly its expected output once the enter/leave lines are
// taken out, and with those lines present.
//
//===----------------------------------------------------------------------===//
#include "il/CallShapes.h"
#include "il/Encoder.h"
#include "il/MethodBody.h"
#include "il/Verifier.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "support/Format.h"
#include "tests/support/Env.h"
#include "weaving/ModuleWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using namespace weft::metadata;

namespace {

struct Woven {
  std::vector<uint8_t> Bytes;
  unsigned Methods = 0, Lengthened = 0;
};

// The MemberRef of System.Console::WriteLine(string), found or added.
Token writeLine(Editor &E) {
  const Module &M = E.original();
  Token Console = 0, Runtime = 0;
  for (uint32_t R = 1; R <= M.rowCount(TableId::AssemblyRef); ++R) {
    StringRef Name = M.getString(M.get(TableId::AssemblyRef, R, AssemblyRefCol::Name));
    if (Name == "System.Console")
      Console = makeToken(TableId::AssemblyRef, R);
    if (Name == "System.Runtime")
      Runtime = makeToken(TableId::AssemblyRef, R);
  }
  if (!Console) {
    // Same version and key as System.Runtime, which every program references.
    uint32_t R = tokenRow(Runtime);
    AssemblyRefInfo Info;
    Info.Name = "System.Console";
    Info.Version[0] = uint16_t(M.get(TableId::AssemblyRef, R, AssemblyRefCol::MajorVersion));
    Info.Version[1] = uint16_t(M.get(TableId::AssemblyRef, R, AssemblyRefCol::MinorVersion));
    Info.PublicKeyOrToken =
        M.getBlob(M.get(TableId::AssemblyRef, R, AssemblyRefCol::PublicKeyOrToken));
    Console = E.assemblyRef(Info);
  }
  Token Type = E.typeRef(Console, "System", "Console");
  return E.memberRef(Type, "WriteLine", std::vector<uint8_t>{0x00, 0x01, 0x01, 0x0E});
}

Expected<Woven> weave(const std::string &Path) {
  auto Img = pe::Image::open(Path);
  if (!Img)
    return Img.takeError();
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return M.takeError();
  Editor E(**M);
  Token Call = writeLine(E);
  il::EditorCallShapes Shapes(E);
  NamePrinter Names(**M);
  std::map<uint32_t, NewBody> Bodies;
  Woven Out;
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::MethodDef); ++Row) {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw)
      return Raw.takeError();
    if (!*Raw)
      continue;
    std::string Name;
    raw_string_ostream OS(Name);
    if (uint32_t T = (*M)->declaringTypeOfMethod(Row)) {
      Names.typeDefName(OS, T);
      OS << "::";
    }
    OS << (*M)->getString((*M)->get(TableId::MethodDef, Row, MethodDefCol::Name));
    Expected<Token> Enter = E.userString("enter " + OS.str());
    Expected<Token> Leave = E.userString("leave " + OS.str());
    if (!Enter || !Leave)
      return Enter ? Leave.takeError() : Enter.takeError();

    auto Body = il::MethodBody::decode(**Raw);
    if (!Body)
      return Body.takeError();
    il::Instr *First = Body->instructions().front();
    Body->insertBefore(First, Body->create(il::Opcode::Nop));
    Body->insertBefore(First, Body->createToken(il::Opcode::Ldstr, *Enter));
    Body->insertBefore(First, Body->createToken(il::Opcode::Call, Call));
    std::vector<il::Instr *> Rets;
    for (il::Instr *I : Body->instructions())
      if (I->Op == il::Opcode::Ret)
        Rets.push_back(I);
    for (il::Instr *Ret : Rets) {
      il::Instr *Load = Body->createToken(il::Opcode::Ldstr, *Leave);
      Body->retarget(Ret, Load);
      Body->insertBefore(Ret, Load);
      Body->insertBefore(Ret, Body->createToken(il::Opcode::Call, Call));
    }
    auto Encoded = il::encode(*Body, il::EncodeOptions::forMethod(Shapes, Row));
    if (!Encoded)
      return Encoded.takeError();
    Out.Lengthened += Encoded->BranchesLengthened;
    ++Out.Methods;
    Bodies[Row] = NewBody{std::move(Encoded->Bytes), Encoded->Fat};
  }
  auto Written = writeModule(**Img, E, Bodies);
  if (!Written)
    return Written.takeError();
  Out.Bytes = std::move(Written->Bytes);
  return std::move(Out);
}

std::string withoutProbeLines(StringRef Text, unsigned &Probes) {
  std::string Kept;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Lines[I].startswith("enter ") || Lines[I].startswith("leave ")) {
      ++Probes;
      continue;
    }
    Kept += Lines[I].str();
    if (I + 1 < Lines.size())
      Kept += '\n';
  }
  return Kept;
}

// Programs whose output would change for another reason: CallHeavy makes millions of calls;
// Exceptions prints line numbers, which need the updated PDB; Interop checks the last P/Invoke
// error after a call, and the probe's Console.WriteLine makes P/Invoke calls of its own that
// reset it. The F# programs are left out: their `tail.` calls must stay right before their `ret`,
// which this plain edit does not do (the passes do, through beforeEachExit: TailCallTest and
// the weaving tests run them).
std::vector<std::string> programs() {
  std::vector<std::string> Out;
  for (std::string &P : test::corpusPrograms(test::CorpusLanguage::CSharp))
    if (P != "CallHeavy" && P != "Exceptions" && P != "Interop")
      Out.push_back(P);
  return Out;
}

class EditedProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(EditedProgram, VerifiesAndRunsWithTheExtraOutput) {
  std::string Name = GetParam();
  std::string Dll = test::corpusDll(Name);
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built";
  Expected<Woven> W = weave(Dll);
  ASSERT_TRUE(bool(W)) << toString(W.takeError());
  std::string Dir = test::scratchDir("edit-" + Name);
  std::string Out = Dir + "/" + Name + ".dll";
  ASSERT_TRUE(test::writeFile(
      Out, StringRef(reinterpret_cast<const char *>(W->Bytes.data()), W->Bytes.size())));
  ASSERT_TRUE(test::copyCorpusCompanions(Name, Dir));

  test::CommandResult V = test::run(test::weftTool(), {"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Err.substr(0, 3000);
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  unsigned Probes = 0;
  std::string Rest = withoutProbeLines(Run.Out, Probes);
  SmallString<256> Expected(test::sourceDir());
  sys::path::append(Expected, "corpus", Name, "expected.txt");
  EXPECT_TRUE(Rest == test::readFile(Expected)) << "output besides the probe lines differs";
  EXPECT_GT(Probes, 2u);
  EXPECT_EQ(StringRef(Run.Out).substr(0, 6), "enter ") << "the entry point prints first";
  RecordProperty("BranchesLengthened", int(W->Lengthened));
  outs() << Name << ": " << W->Methods << " methods edited, " << W->Lengthened
         << " short branches became long, " << Probes << " probe lines printed\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, EditedProgram, ::testing::ValuesIn(programs()),
                         [](const auto &Info) { return Info.param; });

// Somewhere in the corpus an inserted call must push a short branch out of reach.
TEST(Edits, SomeShortBranchesMustBecomeLong) {
  unsigned Total = 0;
  for (const char *Name : {"BigMethod", "Switches", "Linq"}) {
    Expected<Woven> W = weave(test::corpusDll(Name));
    ASSERT_TRUE(bool(W)) << toString(W.takeError());
    Total += W->Lengthened;
  }
  EXPECT_GT(Total, 0u);
}

// Rows added to a large table are held after the module's own (nothing copied); a later set
// on an original row is held on its own, and a set in another column makes the editor hold every
// row. Either way each row reads back as it was made, and the written metadata holds the same
// rows.
TEST(Edits, AddedRowsReadBackBeforeAndAfterACellIsSet) {
  const test::LoadedAssembly &A = test::frameworkAssembly("System.Linq.dll");
  const Module &M = *A.Module;
  Editor E(M);
  uint32_t Methods = M.rowCount(TableId::MethodDef), Types = M.rowCount(TableId::TypeDef);
  Token Object = E.typeRef(makeToken(TableId::AssemblyRef, 1), "System", "Object");
  Token Type = E.addTypeDef(0x00100180, "<edit>", "Added", Object);
  std::vector<uint8_t> VoidSig{0, 0, 1};
  Expected<Token> First = E.addMethod(Type, 0x0096, 0, "First", VoidSig);
  Expected<Token> Second = E.addMethod(Type, 0x0096, 0, "Second", VoidSig);
  ASSERT_TRUE(First && Second);
  ASSERT_EQ(E.rowCount(TableId::MethodDef), Methods + 2);
  EXPECT_EQ(tokenRow(*Second), Methods + 2);
  auto Name = [&](const Editor &Ed, TableId T, uint32_t Row, unsigned Col) {
    return Ed.getString(Ed.get(T, Row, Col)).str();
  };
  for (uint32_t R : {1u, Methods / 2, Methods})
    EXPECT_EQ(Name(E, TableId::MethodDef, R, MethodDefCol::Name),
              M.getString(M.get(TableId::MethodDef, R, MethodDefCol::Name)).str());
  EXPECT_EQ(Name(E, TableId::MethodDef, Methods + 1, MethodDefCol::Name), "First");
  EXPECT_EQ(Name(E, TableId::MethodDef, Methods + 2, MethodDefCol::Name), "Second");

  // Set cells of original rows: the column held on its own, then every row held from the set
  // in another column on, the added ones kept.
  E.set(TableId::MethodDef, 2, MethodDefCol::RVA, 0);
  EXPECT_EQ(E.get(TableId::MethodDef, 2, MethodDefCol::RVA), 0u);
  EXPECT_EQ(E.get(TableId::MethodDef, 3, MethodDefCol::RVA),
            M.get(TableId::MethodDef, 3, MethodDefCol::RVA));
  E.set(TableId::MethodDef, 1, MethodDefCol::Flags, 0x0091);
  Expected<Token> Third = E.addMethod(Type, 0x0096, 0, "Third", VoidSig);
  ASSERT_TRUE(bool(Third));
  EXPECT_EQ(E.get(TableId::MethodDef, 1, MethodDefCol::Flags), 0x0091u);
  EXPECT_EQ(E.get(TableId::MethodDef, 2, MethodDefCol::RVA), 0u);
  EXPECT_EQ(Name(E, TableId::MethodDef, Methods + 2, MethodDefCol::Name), "Second");
  EXPECT_EQ(Name(E, TableId::MethodDef, Methods + 3, MethodDefCol::Name), "Third");
  EXPECT_EQ(E.get(TableId::TypeDef, Types + 1, TypeDefCol::MethodList), Methods + 1);

  Expected<std::vector<uint8_t>> Bytes = E.serialize();
  ASSERT_TRUE(bool(Bytes)) << toString(Bytes.takeError());
  Expected<std::unique_ptr<Module>> Out = Module::create(*Bytes, 0);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  const Module &W = **Out;
  ASSERT_EQ(W.rowCount(TableId::MethodDef), Methods + 3);
  ASSERT_EQ(W.rowCount(TableId::TypeDef), Types + 1);
  for (uint32_t R = 1; R <= Methods + 3; ++R) {
    for (unsigned C = 0; C < tableSpec(TableId::MethodDef).NumColumns; ++C) {
      if (C == MethodDefCol::Name || C == MethodDefCol::Signature)
        continue; // heap offsets: the written heaps may be laid out anew
      ASSERT_EQ(W.get(TableId::MethodDef, R, C), E.get(TableId::MethodDef, R, C))
          << "row " << R << " column " << C;
    }
  }
  EXPECT_EQ(W.getString(W.get(TableId::MethodDef, Methods + 3, MethodDefCol::Name)), "Third");
  EXPECT_EQ(W.getString(W.get(TableId::TypeDef, Types + 1, TypeDefCol::TypeName)), "Added");
  EXPECT_EQ(W.get(TableId::MethodDef, 1, MethodDefCol::Flags), 0x0091u);
}

/// The metadata \p Edit makes of System.Linq, by an editor that holds every row (materializeAll)
/// if \p HoldAll, and by one that leaves what it can in the module.
std::vector<uint8_t> editedLinq(function_ref<void(Editor &, const Module &)> Edit, bool HoldAll) {
  const Module &M = *test::frameworkAssembly("System.Linq.dll").Module;
  Editor E(M);
  if (HoldAll)
    E.materializeAll();
  Edit(E, M);
  Expected<std::vector<uint8_t>> Bytes = E.serialize();
  if (!Bytes) {
    ADD_FAILURE() << toString(Bytes.takeError());
    return {};
  }
  return std::move(*Bytes);
}

// Attributes on methods from the first to the last, a generic parameter on a method in the
// middle (to which attributes and constraints after it refer), RVAs set in the module's rows: the
// editor merges the added rows among the module's and writes the RVAs over its copied rows, and
// the metadata must be what it writes holding every row and sorting them all.
TEST(Edits, RowsLeftInTheModuleWriteAsWhenEveryRowIsHeld) {
  auto Edit = [](Editor &E, const Module &M) {
    uint32_t Methods = M.rowCount(TableId::MethodDef);
    Token Ctor = M.getToken(TableId::CustomAttribute, 1, CustomAttributeCol::Type);
    for (uint32_t R : {1u, Methods / 3, Methods / 2, Methods / 2, Methods})
      E.addCustomAttribute(makeToken(TableId::MethodDef, R), Ctor, {1, 0, 0, 0});
    E.addRow(TableId::GenericParam,
             {0, 0, makeToken(TableId::MethodDef, Methods / 2), E.string("TAdded")});
    for (uint32_t R = 1; R <= Methods; R += 3)
      E.set(TableId::MethodDef, R, MethodDefCol::RVA, 0x2000 + R);
  };
  std::vector<uint8_t> Kept = editedLinq(Edit, false), Held = editedLinq(Edit, true);
  ASSERT_FALSE(Kept.empty());
  EXPECT_TRUE(Kept == Held);

  const Module &M = *test::frameworkAssembly("System.Linq.dll").Module;
  Expected<std::unique_ptr<Module>> Out = Module::create(Kept, 0);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  const Module &W = **Out;
  EXPECT_EQ(W.rowCount(TableId::CustomAttribute), M.rowCount(TableId::CustomAttribute) + 5);
  EXPECT_EQ(W.rowCount(TableId::GenericParam), M.rowCount(TableId::GenericParam) + 1);
  uint32_t Previous = 0;
  for (uint32_t R = 1; R <= W.rowCount(TableId::CustomAttribute); ++R) {
    uint32_t Parent = W.get(TableId::CustomAttribute, R, CustomAttributeCol::Parent);
    ASSERT_LE(Previous, Parent) << "attribute row " << R;
    Previous = Parent;
  }
  EXPECT_EQ(W.get(TableId::MethodDef, 4, MethodDefCol::RVA), 0x2004u);
}

// A set that puts a sorted table's own rows out of order: the rows added are then sorted with
// every row held, as before.
TEST(Edits, AddedRowsAmongRowsOutOfOrderAreSortedWithAllRows) {
  auto Edit = [](Editor &E, const Module &M) {
    Token Ctor = M.getToken(TableId::CustomAttribute, 1, CustomAttributeCol::Type);
    uint32_t Methods = M.rowCount(TableId::MethodDef);
    E.set(TableId::CustomAttribute, 1, CustomAttributeCol::Parent,
          makeToken(TableId::MethodDef, Methods));
    E.addCustomAttribute(makeToken(TableId::MethodDef, 1), Ctor, {1, 0, 0, 0});
  };
  std::vector<uint8_t> Kept = editedLinq(Edit, false), Held = editedLinq(Edit, true);
  ASSERT_FALSE(Kept.empty());
  EXPECT_TRUE(Kept == Held);
}

} // namespace
