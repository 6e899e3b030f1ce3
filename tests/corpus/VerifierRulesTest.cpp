//===- tests/corpus/VerifierRulesTest.cpp - Bad bodies, one per rule -------===//
//
// The methods of tests/bad-bodies' Rules class get bodies built in the instruction graph, each
// breaking one rule of ECMA-335 III.1/III.2 that CoreCLR enforces. `weft verify` must name every
// one of them (and nothing else), and the program, run on CoreCLR, shows what the runtime makes
// of each: an InvalidProgramException for every rule but the two the JIT tolerates (values left
// on the stack at leave and endfinally, which those instructions discard) and one that is not
// run because it takes the runtime down (constrained. before a call of an instance method).
//
//===----------------------------------------------------------------------===//
#include "il/Encoder.h"
#include "il/MethodBody.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"
#include "weaving/Emit.h"
#include "weaving/ModuleWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using namespace weft::metadata;
using il::Opcode;

namespace {

/// The tokens the bad bodies use.
struct Tokens {
  Token Id = 0, Nop = 0, Field = 0, Object = 0, Int32 = 0, ToString = 0, GetHashCode = 0;
};

/// A body being built: instructions go at the end.
struct Builder {
  il::MethodBody &B;
  const Tokens &T;
  passes::Emitter E{B, nullptr};
  il::Instr *op(Opcode Op) { return E.op(Op); }
  il::Instr *tok(Opcode Op, Token Tk) { return E.tok(Op, Tk); }
  il::Instr *ldc(int32_t V) { return E.ldc(V); }
  il::Instr *prefix(Opcode Op, int64_t Value) { return place(B.create(Op, Value)); }
  il::Instr *place(il::Instr *I) {
    B.insertBefore(nullptr, I);
    return I;
  }
  /// A clause over [TryStart, HandlerStart) with the handler [HandlerStart, HandlerEnd).
  void region(il::RegionKind K, il::Instr *TryStart, il::Instr *HandlerStart, il::Instr *HandlerEnd,
              il::Instr *FilterStart = nullptr) {
    il::ExceptionRegion R;
    R.Kind = K;
    R.TryStart = TryStart;
    R.TryEnd = FilterStart ? FilterStart : HandlerStart;
    R.HandlerStart = HandlerStart;
    R.HandlerEnd = HandlerEnd;
    R.FilterStart = FilterStart;
    R.CatchType = K == il::RegionKind::Catch ? T.Object : 0;
    B.Regions.push_back(R);
  }
};

struct Rule {
  const char *Method;
  std::function<void(Builder &)> Build;
  const char *Message; // what weft verify says about it
  const char *Runtime; // what CoreCLR does with it; null: not run
};

// Each body breaks the rule its method is named after (and, where that rule cannot be broken
// alone, what goes with it: a tail call in a try block is followed by a ret in it).
std::vector<Rule> rules() {
  return {
      {"TailCallNotFollowedByRet",
       [](Builder &X) {
         X.ldc(1);
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Id);
         X.op(Opcode::Nop);
         X.op(Opcode::Ret);
       },
       "the tail call call is not followed by ret", "InvalidProgramException"},
      {"TailCallInTryBlock",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ldc_I4_0);
         il::Instr *Try = X.ldc(1);
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Id);
         X.op(Opcode::Ret);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.op(Opcode::Ret);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "a tail call inside a try block", "InvalidProgramException"},
      {"TailCallInCatchHandler",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ldc_I4_0);
         il::Instr *Try = X.op(Opcode::Ldnull);
         X.op(Opcode::Throw);
         il::Instr *H = X.op(Opcode::Pop);
         X.ldc(1);
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Id);
         X.op(Opcode::Ret);
         X.place(Out);
         X.op(Opcode::Ret);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "a tail call inside a catch handler", "InvalidProgramException"},
      {"TailCallInFilter",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.op(Opcode::Ldnull);
         X.op(Opcode::Throw);
         il::Instr *F = X.op(Opcode::Pop);
         X.ldc(1);
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Id);
         X.op(Opcode::Endfilter);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.region(il::RegionKind::Filter, Try, H, Out, F);
       },
       "a tail call inside a filter", "InvalidProgramException"},
      {"TailCallWithValuesBeneath",
       [](Builder &X) {
         X.ldc(1);
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Nop);
         X.op(Opcode::Ret);
       },
       "a tail call with 1 value on the stack beneath its arguments", "InvalidProgramException"},
      {"TailCallOfVoidMethod",
       [](Builder &X) {
         X.op(Opcode::Tail);
         X.tok(Opcode::Call, X.T.Nop);
         X.op(Opcode::Ret);
       },
       "a tail call of a method that returns nothing from one that returns a value",
       "InvalidProgramException"},
      {"ConstrainedCallOfInstanceMethod",
       [](Builder &X) {
         X.tok(Opcode::Ldsflda, X.T.Field);
         X.tok(Opcode::Constrained, X.T.Int32);
         X.tok(Opcode::Call, X.T.ToString);
         X.op(Opcode::Ret);
       },
       "constrained. before call of an instance method", nullptr},
      {"VolatileBeforeAdd",
       [](Builder &X) {
         X.ldc(1);
         X.ldc(2);
         X.op(Opcode::Volatile);
         X.op(Opcode::Add);
         X.op(Opcode::Ret);
       },
       "the prefix volatile. cannot precede add", "InvalidProgramException"},
      {"ReadonlyBeforeLdelem",
       [](Builder &X) {
         X.ldc(1);
         X.tok(Opcode::Newarr, X.T.Int32);
         X.ldc(0);
         X.op(Opcode::Readonly);
         X.op(Opcode::Ldelem_I4);
         X.op(Opcode::Ret);
       },
       "the prefix readonly. cannot precede ldelem.i4", "InvalidProgramException"},
      {"UnalignedBeforeLdsfld",
       [](Builder &X) {
         X.prefix(Opcode::Unaligned, 1);
         X.tok(Opcode::Ldsfld, X.T.Field);
         X.op(Opcode::Ret);
       },
       "the prefix unaligned. cannot precede ldsfld", "InvalidProgramException"},
      {"UnalignedByThree",
       [](Builder &X) {
         X.tok(Opcode::Ldsflda, X.T.Field);
         X.prefix(Opcode::Unaligned, 3);
         X.op(Opcode::Ldind_I4);
         X.op(Opcode::Ret);
       },
       "the alignment must be 1, 2 or 4", "InvalidProgramException"},
      {"BranchToPrefixedInstruction",
       [](Builder &X) {
         il::Instr *Load = X.B.create(Opcode::Ldind_I4);
         X.tok(Opcode::Ldsflda, X.T.Field);
         X.tok(Opcode::Ldsflda, X.T.Field);
         X.op(Opcode::Pop);
         X.E.branch(Opcode::Br_S, Load);
         X.op(Opcode::Volatile);
         X.place(Load);
         X.op(Opcode::Ret);
       },
       "branch to an instruction that follows the prefix volatile.", "InvalidProgramException"},
      {"PrefixEndsTheCode",
       [](Builder &X) {
         X.op(Opcode::Ret);
         X.op(Opcode::Volatile);
       },
       "the prefix volatile. ends the code", "InvalidProgramException"},
      {"RegionStartsAfterPrefix",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ldc_I4_0);
         X.tok(Opcode::Ldsflda, X.T.Field);
         X.op(Opcode::Volatile);
         il::Instr *Try = X.op(Opcode::Ldind_I4);
         X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.op(Opcode::Ret);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "an exception region starts or ends right after this prefix", "InvalidProgramException"},
      {"TryEnteredWithValues",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         X.ldc(1);
         il::Instr *Try = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "the try block is entered with 1 value on the stack", "InvalidProgramException"},
      {"LeaveWithValues",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.ldc(1);
         X.E.branch(Opcode::Leave_S, Out);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "leave.s with 1 value on the stack; it must hold nothing", "ran"},
      {"EndfinallyWithValues",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.E.branch(Opcode::Leave_S, Out);
         il::Instr *H = X.ldc(1);
         X.op(Opcode::Endfinally);
         X.place(Out);
         X.region(il::RegionKind::Finally, Try, H, Out);
       },
       "endfinally with 1 value on the stack; it must hold nothing", "ran"},
      {"EndfilterWithTwoValues",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.op(Opcode::Ldnull);
         X.op(Opcode::Throw);
         il::Instr *F = X.op(Opcode::Pop);
         X.ldc(1);
         X.ldc(1);
         X.op(Opcode::Endfilter);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.region(il::RegionKind::Filter, Try, H, Out, F);
       },
       "endfilter with 2 values on the stack; it must hold exactly the filter's result",
       "InvalidProgramException"},
      {"RetWithExtraValue",
       [](Builder &X) {
         X.ldc(1);
         X.ldc(2);
         X.op(Opcode::Ret);
       },
       "ret with 2 values on the stack; it must hold exactly the return value",
       "InvalidProgramException"},
      {"LocallocWithExtraValue",
       [](Builder &X) {
         X.ldc(1);
         X.ldc(8);
         X.op(Opcode::Localloc);
         X.op(Opcode::Pop);
         X.op(Opcode::Pop);
         X.op(Opcode::Ret);
       },
       "localloc with 2 values on the stack; it must hold exactly the size",
       "InvalidProgramException"},
      {"LocallocInHandler",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.E.branch(Opcode::Leave_S, Out);
         il::Instr *H = X.ldc(8);
         X.op(Opcode::Localloc);
         X.op(Opcode::Pop);
         X.op(Opcode::Endfinally);
         X.place(Out);
         X.region(il::RegionKind::Finally, Try, H, Out);
       },
       "localloc inside a finally handler", "InvalidProgramException"},
      {"JmpWithValues",
       [](Builder &X) {
         X.ldc(1);
         X.tok(Opcode::Jmp, X.T.Nop);
       },
       "jmp with 1 value on the stack; it must hold nothing", "InvalidProgramException"},
      {"JmpInTryBlock",
       [](Builder &X) {
         il::Instr *Out = X.B.create(Opcode::Ret);
         il::Instr *Try = X.tok(Opcode::Jmp, X.T.Nop);
         il::Instr *H = X.op(Opcode::Pop);
         X.E.branch(Opcode::Leave_S, Out);
         X.place(Out);
         X.region(il::RegionKind::Catch, Try, H, Out);
       },
       "jmp inside a try block", "InvalidProgramException"},
      {"ArglistInFixedMethod",
       [](Builder &X) {
         X.op(Opcode::Arglist);
         X.op(Opcode::Pop);
         X.op(Opcode::Ret);
       },
       "arglist in a method that does not take a variable argument list",
       "InvalidProgramException"},
  };
}

uint32_t methodRow(const Module &M, StringRef Type, StringRef Name) {
  uint32_t T = M.findTypeDef("", Type);
  for (uint32_t L : M.typeMethods(T)) {
    uint32_t R = M.method(L);
    if (M.getString(M.get(TableId::MethodDef, R, MethodDefCol::Name)) == Name)
      return R;
  }
  return 0;
}

Tokens tokensFor(const Module &M, Editor &E) {
  Tokens T;
  T.Id = makeToken(TableId::MethodDef, methodRow(M, "Rules", "Id"));
  T.Nop = makeToken(TableId::MethodDef, methodRow(M, "Rules", "Nop"));
  uint32_t Rules = M.findTypeDef("", "Rules");
  for (uint32_t L : M.typeFields(Rules))
    if (M.getString(M.get(TableId::Field, M.field(L), FieldCol::Name)) == "Field")
      T.Field = makeToken(TableId::Field, M.field(L));
  Token Runtime = 0;
  for (uint32_t R = 1; R <= M.rowCount(TableId::AssemblyRef); ++R)
    if (M.getString(M.get(TableId::AssemblyRef, R, AssemblyRefCol::Name)) == "System.Runtime")
      Runtime = makeToken(TableId::AssemblyRef, R);
  T.Object = E.typeRef(Runtime, "System", "Object");
  T.Int32 = E.typeRef(Runtime, "System", "Int32");
  // instance string ToString()
  T.ToString = E.memberRef(T.Object, "ToString", std::vector<uint8_t>{0x20, 0x00, 0x0E});
  return T;
}

class VerifierRules : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string In = test::helperDll("BadBodies");
    ASSERT_TRUE(sys::fs::exists(In)) << In << " was not built (badbodies.build)";
    auto Img = pe::Image::open(In);
    ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
    auto M = Module::create((*Img)->metadata(), (*Img)->metadataOffset());
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    Editor E(**M);
    Tokens T = tokensFor(**M, E);
    ASSERT_TRUE(T.Id && T.Nop && T.Field);
    std::map<uint32_t, NewBody> Bodies;
    for (const Rule &R : rules()) {
      uint32_t Row = methodRow(**M, "Rules", R.Method);
      ASSERT_NE(Row, 0u) << R.Method;
      il::MethodBody B;
      B.MaxStack = 8;
      Builder X{B, T};
      R.Build(X);
      // No shapes: max-stack stays as given, so a bad body encodes as it is.
      auto Enc = il::encode(B, il::EncodeOptions{});
      ASSERT_TRUE(bool(Enc)) << R.Method << ": " << toString(Enc.takeError());
      Bodies[Row] = NewBody{std::move(Enc->Bytes), Enc->Fat};
    }
    auto Written = writeModule(**Img, E, Bodies);
    ASSERT_TRUE(bool(Written)) << toString(Written.takeError());
    Dir = new std::string(test::scratchDir("verifier-rules"));
    Dll = new std::string(*Dir + "/BadBodies.dll");
    ASSERT_TRUE(test::writeFile(*Dll, toStringRef(ArrayRef<uint8_t>(Written->Bytes))));
    SmallString<256> Config(sys::path::parent_path(In));
    sys::path::append(Config, "BadBodies.runtimeconfig.json");
    ASSERT_FALSE(sys::fs::copy_file(Config, *Dir + "/BadBodies.runtimeconfig.json"));
  }
  static std::string *Dir, *Dll;
};
std::string *VerifierRules::Dir, *VerifierRules::Dll;

TEST_F(VerifierRules, WeftVerifyNamesEachBadBodyAndNothingElse) {
  test::CommandResult V = test::run(test::weftTool(), {"verify", *Dll, "--max-errors", "1000"});
  EXPECT_EQ(V.ExitCode, 1);
  SmallVector<StringRef, 0> Lines;
  StringRef(V.Err).split(Lines, '\n', -1, false);
  for (const Rule &R : rules()) {
    std::string Where = ("Rules::" + StringRef(R.Method) + " (").str();
    bool Named = false;
    for (StringRef L : Lines)
      Named |= L.contains(Where) && L.contains(R.Message);
    EXPECT_TRUE(Named) << R.Method << ": expected '" << R.Message << "' in\n" << V.Err;
  }
  for (StringRef L : Lines) {
    if (!L.startswith("weft: error:"))
      continue;
    bool Known = false;
    for (const Rule &R : rules())
      Known |= L.contains(("Rules::" + StringRef(R.Method) + " (").str());
    EXPECT_TRUE(Known) << "a method with a good body was reported: " << L;
  }
}

TEST_F(VerifierRules, CoreClrRejectsWhatTheVerifierNames) {
  std::vector<std::string> Args{*Dll};
  std::string Expected;
  for (const Rule &R : rules())
    if (R.Runtime) {
      Args.push_back(R.Method);
      Expected += std::string(R.Method) + ": " + R.Runtime + "\n";
    }
  test::CommandResult Run = test::run("dotnet", Args, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  EXPECT_EQ(Run.Out, Expected);
}

} // namespace
