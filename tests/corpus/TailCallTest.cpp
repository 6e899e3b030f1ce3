//===- tests/corpus/TailCallTest.cpp - Tail calls survive every pass -------===//
//
// C# emits no `tail.` prefix, so the corpus programs are given some through the API: every call
// that is followed by `ret`, lies in no protected region and passes nothing that may point into
// the caller's frame becomes a tail call. The result runs with the program's expected output;
// woven with each built-in pass, and with all of them, it still verifies, runs the same, and has
// exactly as many tail calls, each followed by its `ret`. The F# programs come with tail calls of
// their own (FSharpTailCalls recurses millions of calls deep through them), which count too.
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "il/CallShapes.h"
#include "il/Encoder.h"
#include "il/MethodBody.h"
#include "il/Prefixes.h"
#include "il/StackDepth.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"
#include "weaving/ModuleWriter.h"
#include "weaving/Returns.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace llvm;
using namespace weft;
using test::expectedOutput;
using namespace weft::metadata;
using il::Opcode;

namespace {

/// Whether a parameter of this type may carry a pointer into the caller's frame.
bool mayPointIntoFrame(const Module &M, const TypeSig &T0) {
  const TypeSig &T = T0.stripped();
  switch (T.Kind) {
  case ElementType::ByRef:
  case ElementType::Ptr:
  case ElementType::FnPtr:
  case ElementType::TypedByRef:
  case ElementType::I:
  case ElementType::U: return true;
  case ElementType::GenericInst: return mayPointIntoFrame(M, T.Args[0]);
  case ElementType::ValueType: {
    // Span<T>, ReadOnlySpan<T> and other by-ref-like structs the corpus uses.
    Token Tk = T.TypeToken;
    StringRef Name;
    if (tokenTable(Tk) == TableId::TypeRef && M.isValidToken(Tk))
      Name = M.getString(M.get(TableId::TypeRef, tokenRow(Tk), TypeRefCol::TypeName));
    else if (tokenTable(Tk) == TableId::TypeDef && M.isValidToken(Tk))
      Name = M.getString(M.get(TableId::TypeDef, tokenRow(Tk), TypeDefCol::TypeName));
    return Name.contains("Span") || Name.contains("Ref") || Name.contains("Enumerator");
  }
  default: return false;
  }
}

/// Whether the call at \p P of \p Order may become a tail call.
bool mayBecomeTailCall(const Module &M, const std::vector<il::Instr *> &Order, size_t P,
                       const std::vector<bool> &Protected) {
  const il::Instr *I = Order[P];
  if ((I->Op != Opcode::Call && I->Op != Opcode::Callvirt) || P + 1 >= Order.size() ||
      Order[P + 1]->Op != Opcode::Ret || Protected[P] || (P > 0 && Order[P - 1]->info().isPrefix()))
    return false;
  Token T = I->Token;
  if (tokenTable(T) == TableId::MethodSpec)
    T = M.getToken(TableId::MethodSpec, tokenRow(T), MethodSpecCol::Method);
  Expected<MethodSig> S =
      tokenTable(T) == TableId::MethodDef ? methodDefSig(M, tokenRow(T))
      : tokenTable(T) == TableId::MemberRef
          ? memberRefMethodSig(M, tokenRow(T))
          : Expected<MethodSig>(createStringError(inconvertibleErrorCode(), "not a method"));
  if (!S) {
    consumeError(S.takeError());
    return false;
  }
  // An instance method called with `call` may get a pointer to a struct of the caller.
  if (S->kind() != SigDefault || (S->hasThis() && I->Op == Opcode::Call) ||
      mayPointIntoFrame(M, S->Return))
    return false;
  for (const TypeSig &A : S->Params)
    if (mayPointIntoFrame(M, A) || A.stripped().Kind == ElementType::MVar ||
        A.stripped().Kind == ElementType::Var)
      return false;
  return true;
}

/// Whether the body takes addresses of its locals or arguments or allocates on the stack.
bool takesAddresses(const il::MethodBody &B) {
  for (const il::Instr *I : B.instructions())
    if (I->Op == Opcode::Ldloca || I->Op == Opcode::Ldloca_S || I->Op == Opcode::Ldarga ||
        I->Op == Opcode::Ldarga_S || I->Op == Opcode::Localloc)
      return true;
  return false;
}

/// What a rewrite does to one method body (row \p Row): the number of changes it made.
using BodyEdit = std::function<unsigned(const Module &M, uint32_t Row, il::MethodBody &Body,
                                        il::EditorCallShapes &Shapes)>;

/// Writes \p In with each body changed by \p Edit (re-encoded only where it changed something);
/// returns the number of changes.
Expected<unsigned> rewriteBodies(StringRef In, StringRef Out, const BodyEdit &Edit) {
  auto Img = pe::Image::open(In);
  if (!Img)
    return Img.takeError();
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return M.takeError();
  Editor E(**M);
  il::EditorCallShapes Shapes(E);
  std::map<uint32_t, NewBody> Bodies;
  unsigned Changes = 0;
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::MethodDef); ++Row) {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw)
      return Raw.takeError();
    if (!*Raw)
      continue;
    auto Body = il::MethodBody::decode(**Raw);
    if (!Body)
      return Body.takeError();
    unsigned Here = Edit(**M, Row, *Body, Shapes);
    if (!Here)
      continue;
    auto Enc = il::encode(*Body, il::EncodeOptions::forMethod(Shapes, Row));
    if (!Enc)
      return Enc.takeError();
    Bodies[Row] = NewBody{std::move(Enc->Bytes), Enc->Fat};
    Changes += Here;
  }
  auto Written = writeModule(**Img, E, Bodies);
  if (!Written)
    return Written.takeError();
  if (!test::writeFile(Out, toStringRef(ArrayRef<uint8_t>(Written->Bytes))))
    return createStringError(inconvertibleErrorCode(), "cannot write " + Out);
  return Changes;
}

/// `tail.` before every call of \p Body that may become a tail call; returns how many.
unsigned addTailCallsTo(const Module &M, uint32_t Row, il::MethodBody &Body,
                        il::EditorCallShapes &Shapes) {
  if (takesAddresses(Body))
    return 0;
  std::vector<il::Instr *> Order = Body.instructions();
  std::vector<bool> Protected = passes::protectedPositions(Body);
  std::optional<il::CallShape> Own = Shapes.shapeOf(makeToken(TableId::MethodDef, Row));
  if (!Own)
    return 0;
  analysis::StackInfo Stack = analysis::analyzeStack(Body, Shapes, Own->ReturnsValue);
  // A tail call hands the frame over: nothing but its arguments may be on the stack, and it
  // returns a value exactly when the method does.
  auto OnlyArguments = [&](size_t P) {
    int Pop = 0, Push = 0;
    return analysis::stackEffect(*Order[P], Shapes, Own->ReturnsValue, Pop, Push) &&
           Stack.DepthIn[P] == Pop && (Push == 1) == Own->ReturnsValue;
  };
  unsigned Added = 0;
  for (size_t P = 0; P < Order.size(); ++P)
    if (mayBecomeTailCall(M, Order, P, Protected) && OnlyArguments(P)) {
      il::Instr *Tail = Body.create(Opcode::Tail);
      Body.retarget(Order[P], Tail);
      Body.insertBefore(Order[P], Tail);
      ++Added;
    }
  return Added;
}

/// Every `tail.` prefix of \p Body taken out; returns how many.
unsigned removeTailCallsFrom(const Module &, uint32_t, il::MethodBody &Body,
                             il::EditorCallShapes &) {
  std::vector<il::Instr *> Order = Body.instructions();
  unsigned Removed = 0;
  for (size_t P = 0; P + 1 < Order.size(); ++P)
    if (Order[P]->Op == Opcode::Tail) {
      Body.remove(Order[P]); // what pointed at the prefix points at its call
      ++Removed;
    }
  return Removed;
}

/// Writes \p In with `tail.` before every call that may become a tail call; returns how many.
Expected<unsigned> addTailCalls(StringRef In, StringRef Out) {
  return rewriteBodies(In, Out, addTailCallsTo);
}

/// Writes \p In with every `tail.` prefix taken out; returns how many.
Expected<unsigned> removeTailCalls(StringRef In, StringRef Out) {
  return rewriteBodies(In, Out, removeTailCallsFrom);
}

/// The tail calls of every body of \p Path; -1 if one is not followed by its ret.
int countTailCalls(StringRef Path) {
  auto Img = pe::Image::open(Path);
  if (!Img) {
    consumeError(Img.takeError());
    return -1;
  }
  auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    consumeError(M.takeError());
    return -1;
  }
  int Count = 0;
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::MethodDef); ++Row) {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw || !*Raw) {
      if (!Raw)
        consumeError(Raw.takeError());
      continue;
    }
    auto Body = il::MethodBody::decode(**Raw);
    if (!Body) {
      consumeError(Body.takeError());
      return -1;
    }
    const std::vector<il::Instr *> &Order = Body->instructions();
    for (size_t P = 0; P < Order.size(); ++P) {
      if (!il::isTailCall(Order, P))
        continue;
      if (P + 1 >= Order.size() || Order[P + 1]->Op != Opcode::Ret)
        return -1;
      ++Count;
    }
  }
  return Count;
}

// Exceptions prints stack traces, whose frames tail calls remove; Varargs calls through vararg
// signatures; CallHeavy is the benchmark (its calls are covered by the others).
std::vector<std::string> programs() {
  std::vector<std::string> Out;
  for (std::string &P : test::corpusPrograms())
    if (P != "Exceptions" && P != "Varargs" && P != "CallHeavy")
      Out.push_back(P);
  return Out;
}

using Param = std::tuple<std::string, unsigned>;
class TailCalls : public ::testing::TestWithParam<Param> {};

TEST_P(TailCalls, StayTailCallsAndRunTheSame) {
  auto [Name, CaseIndex] = GetParam();
  test::PassCase Case = test::passCases()[CaseIndex];
  std::string Dir = test::scratchDir("tail-" + Case.Label + "-" + Name);
  std::string Tailed = Dir + "/tailed/" + Name + ".dll";
  ASSERT_FALSE(sys::fs::create_directories(Dir + "/tailed"));
  int Own = countTailCalls(test::corpusDll(Name));
  ASSERT_GE(Own, 0) << "a tail call of the compiler's is not followed by its ret";
  Expected<unsigned> Added = addTailCalls(test::corpusDll(Name), Tailed);
  ASSERT_TRUE(bool(Added)) << toString(Added.takeError());
  for (std::string To : {Dir + "/tailed", Dir})
    ASSERT_TRUE(test::copyCorpusCompanions(Name, To));
  ASSERT_FALSE(sys::fs::copy_file(test::probesDll(), Dir + "/Probes.dll"));
  ASSERT_FALSE(sys::fs::copy_file(test::replacementsDll(), Dir + "/Replacements.dll"));
  ASSERT_EQ(countTailCalls(Tailed), Own + int(*Added));
  if (CaseIndex == 0) { // once per program: the tail calls alone change nothing
    test::CommandResult Run = test::run("dotnet", {Tailed}, {}, 300);
    EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
    EXPECT_EQ(Run.Out, expectedOutput(Name));
  }

  std::string Woven = Dir + "/" + Name + ".dll";
  std::vector<std::string> Args{"weave", Tailed, "-o", Woven, "--verify-each"};
  for (std::string &A : Case.Args(Name))
    Args.push_back(std::move(A));
  test::CommandResult W = test::run(test::weftTool(), Args);
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", Woven});
  EXPECT_EQ(V.ExitCode, 0) << V.Err.substr(0, 3000);
  EXPECT_EQ(countTailCalls(Woven), Own + int(*Added))
      << "every tail call is still one, with its ret";
  test::CommandResult Run =
      test::run("dotnet", {Woven},
                {"WEFT_PROBE_LOG=" + Dir + "/probe.log", "WEFT_TRACE_FILE=" + Dir + "/trace.json",
                 "WEFT_COVERAGE_FILE=" + Dir + "/hits.txt"},
                300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  EXPECT_EQ(Run.Out, expectedOutput(Name));
  RecordProperty("TailCalls", Own + int(*Added));
}

// The programs must give the passes tail calls of every kind to keep: in try-free methods and in
// methods with regions, to static methods, virtual methods and generic instantiations.
TEST(TailCalls, TheCorpusGetsManyOfThem) {
  unsigned Total = 0;
  for (const std::string &Name : programs()) {
    std::string Dir = test::scratchDir("tail-count-" + Name);
    Expected<unsigned> Added = addTailCalls(test::corpusDll(Name), Dir + "/" + Name + ".dll");
    ASSERT_TRUE(bool(Added)) << toString(Added.takeError());
    Total += *Added;
  }
  EXPECT_GT(Total, 150u);
  RecordProperty("TailCalls", int(Total));
  llvm::outs() << Total << " tail calls given to " << programs().size() << " programs\n";
}

// FSharpTailCalls recurses millions of calls deep through its `tail.` calls: without them it dies
// of a stack overflow, so its runs above (woven with every pass) show the prefixes still work.
TEST(TailCalls, TheFSharpRecursionOverflowsWithoutThem) {
  std::string Name = "FSharpTailCalls";
  std::string Dir = test::scratchDir("tail-removed");
  std::string Out = Dir + "/" + Name + ".dll";
  Expected<unsigned> Removed = removeTailCalls(test::corpusDll(Name), Out);
  ASSERT_TRUE(bool(Removed)) << toString(Removed.takeError());
  EXPECT_GT(*Removed, 10u);
  EXPECT_EQ(countTailCalls(Out), 0);
  ASSERT_TRUE(test::copyCorpusCompanions(Name, Dir));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  EXPECT_NE(Run.ExitCode, 0);
  EXPECT_NE(Run.Err.find("Stack overflow"), std::string::npos) << Run.Err.substr(0, 2000);
  EXPECT_NE(Run.Out, expectedOutput(Name));
}

// A plugin's exit code goes through beforeEachExit, which keeps the tail calls: the example
// plugin prints a line before every ret and every tail call.
TEST(TailCalls, PluginExitCodeKeepsThem) {
  std::string Name = "Generics";
  std::string Dir = test::scratchDir("tail-plugin");
  std::string Tailed = Dir + "/tailed.dll", Out = Dir + "/" + Name + ".dll";
  Expected<unsigned> Added = addTailCalls(test::corpusDll(Name), Tailed);
  ASSERT_TRUE(bool(Added)) << toString(Added.takeError());
  ASSERT_GT(*Added, 0u);
  test::CommandResult W =
      test::run(test::weftTool(), {"weave", Tailed, "-o", Out, "--load", WEFT_HELLO_PLUGIN,
                                   "--pass", "hello:exit=true", "--verify-each"});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_EQ(countTailCalls(Out), int(*Added));
  SmallString<256> Config(sys::path::parent_path(test::corpusDll(Name)));
  sys::path::append(Config, Name + ".runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/" + Name + ".runtimeconfig.json"));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  std::string Rest;
  unsigned Enter = 0, Leave = 0;
  SmallVector<StringRef, 0> Lines;
  StringRef(Run.Out).split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    Enter += Lines[I].startswith("hello: enter ");
    Leave += Lines[I].startswith("hello: leave ");
    if (!Lines[I].startswith("hello: "))
      Rest += Lines[I].str() + (I + 1 < Lines.size() ? "\n" : "");
  }
  EXPECT_EQ(Rest, expectedOutput(Name));
  EXPECT_GT(Leave, 0u);
  EXPECT_LE(Leave, Enter);
}

INSTANTIATE_TEST_SUITE_P(Corpus, TailCalls,
                         ::testing::Combine(::testing::ValuesIn(programs()),
                                            ::testing::Range(0u,
                                                             unsigned(test::passCases().size()))),
                         [](const auto &Info) {
                           return std::get<0>(Info.param) + "_" +
                                  test::passCases()[std::get<1>(Info.param)].Label;
                         });

} // namespace
