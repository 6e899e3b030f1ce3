//===- weaver/passes/Trace.cpp - trace ------------------------------------===//
//
// A probe built into the module, needing no user assembly: each woven method counts its calls and
// the time spent in it (inclusive, from Stopwatch timestamps), and at process exit the module
// writes a Chrome trace-event JSON file (one complete event per method that ran, its duration the
// method's total time; Perfetto and chrome://tracing open it) and a summary table next to it.
//
//   [constructor prefix up to the base constructor call]
//   start = Stopwatch.GetTimestamp()
//   .try { body; every ret: stloc v; leave EXIT }
//   finally { Interlocked.Add(ref Ticks[K], GetTimestamp() - start);
//             Interlocked.Increment(ref Calls[K]) }
//   EXIT: ldloc v; ret
//
// A tail call moves out of the try block to a stub after the epilogue (weaver/passes/Returns.h),
// so the time counted ends at the call: the callee's time is its own.
//
// The counters live in the type `<weft>.Trace`, whose static constructor also registers the
// writer for AppDomain.ProcessExit; `<weft>.Trace::Flush()` writes the files at any time.
//
//===----------------------------------------------------------------------===//
#include "weaver/passes/Builtins.h"
#include "weaver/passes/Emit.h"
#include "weaver/passes/Returns.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

std::vector<uint8_t> methodSig(bool HasThis, uint8_t Return, std::vector<uint8_t> Params,
                               unsigned Count) {
  std::vector<uint8_t> Sig{uint8_t(HasThis ? SigHasThis : SigDefault)};
  appendCompressed(Sig, Count);
  Sig.push_back(Return);
  Sig.insert(Sig.end(), Params.begin(), Params.end());
  return Sig;
}

std::vector<uint8_t> classSig(Token T) {
  std::vector<uint8_t> Sig{uint8_t(ElementType::Class)};
  appendTypeDefOrRefEncoded(Sig, T);
  return Sig;
}

/// Escapes a method name for a JSON string (names may hold quotes in generic arguments).
std::string jsonEscaped(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (uint8_t(C) < 0x20)
      continue;
    Out += C;
  }
  return Out;
}

class Trace final : public Pass {
public:
  explicit Trace(const PassOptions &O) : Options(O) {}

  Error beginModule(ModuleContext &MC) override {
    auto Core = [&](StringRef Ns, StringRef N) { return MC.coreType(Ns, N); };
    Expected<Token> Object = Core("System", "Object");
    Expected<Token> Stopwatch = Core("System.Diagnostics", "Stopwatch");
    Expected<Token> Interlocked =
        MC.frameworkType("System.Threading", "System.Threading", "Interlocked");
    Expected<Token> AppDomain = Core("System", "AppDomain");
    Expected<Token> EventHandler = Core("System", "EventHandler");
    Expected<Token> EventArgs = Core("System", "EventArgs");
    Expected<Token> String = Core("System", "String");
    Expected<Token> Split = Core("System", "StringSplitOptions");
    Expected<Token> Builder = Core("System.Text", "StringBuilder");
    Expected<Token> Environment = Core("System", "Environment");
    Expected<Token> File = Core("System.IO", "File");
    for (Expected<Token> *T : {&Object, &Stopwatch, &Interlocked, &AppDomain, &EventHandler,
                               &EventArgs, &String, &Split, &Builder, &Environment, &File})
      if (!*T)
        return T->takeError();
    ObjectType = *Object;

    const uint8_t I8 = uint8_t(ElementType::I8), Str = uint8_t(ElementType::String),
                  Void = uint8_t(ElementType::Void), Obj = uint8_t(ElementType::Object);
    GetTimestamp = MC.memberRef(*Stopwatch, "GetTimestamp", methodSig(false, I8, {}, 0));
    // Stopwatch.Frequency is a static readonly field.
    Frequency = MC.memberRef(*Stopwatch, "Frequency", {uint8_t(SigField), I8});
    InterlockedAdd = MC.memberRef(*Interlocked, "Add",
                                  methodSig(false, I8, {uint8_t(ElementType::ByRef), I8, I8}, 2));
    InterlockedIncrement = MC.memberRef(*Interlocked, "Increment",
                                        methodSig(false, I8, {uint8_t(ElementType::ByRef), I8}, 1));
    {
      std::vector<uint8_t> Sig{uint8_t(SigDefault), 0};
      std::vector<uint8_t> Ret = classSig(*AppDomain);
      Sig.insert(Sig.end(), Ret.begin(), Ret.end());
      CurrentDomain = MC.memberRef(*AppDomain, "get_CurrentDomain", Sig);
    }
    AddProcessExit = MC.memberRef(*AppDomain, "add_ProcessExit",
                                  methodSig(true, Void, classSig(*EventHandler), 1));
    HandlerCtor = MC.memberRef(*EventHandler, ".ctor",
                               methodSig(true, Void, {Obj, uint8_t(ElementType::I)}, 2));
    {
      std::vector<uint8_t> P{uint8_t(ElementType::Char), uint8_t(ElementType::ValueType)};
      appendTypeDefOrRefEncoded(P, *Split);
      std::vector<uint8_t> Sig{uint8_t(SigHasThis), 2, uint8_t(ElementType::SZArray), Str};
      Sig.insert(Sig.end(), P.begin(), P.end());
      StringSplit = MC.memberRef(*String, "Split", Sig);
    }
    BuilderCtor = MC.memberRef(*Builder, ".ctor", methodSig(true, Void, {}, 0));
    BuilderType = *Builder;
    {
      std::vector<uint8_t> Ret = classSig(*Builder);
      auto Append = [&](uint8_t Param) {
        std::vector<uint8_t> Sig{uint8_t(SigHasThis), 1};
        Sig.insert(Sig.end(), Ret.begin(), Ret.end());
        Sig.push_back(Param);
        return MC.memberRef(*Builder, "Append", Sig);
      };
      AppendString = Append(Str);
      AppendInt64 = Append(I8);
    }
    ObjectToString = MC.memberRef(*Object, "ToString", methodSig(true, Str, {}, 0));
    GetEnv = MC.memberRef(*Environment, "GetEnvironmentVariable", methodSig(false, Str, {Str}, 1));
    WriteAllText = MC.memberRef(*File, "WriteAllText", methodSig(false, Void, {Str, Str}, 2));
    StringConcat = MC.memberRef(*String, "Concat", methodSig(false, Str, {Str, Str}, 2));

    // The hidden type: counters, the static constructor, the exit handler and Flush.
    std::string Name = "Trace";
    if (MC.module().findTypeDef("<weft>", Name))
      Name += "'";
    Type = MC.addType(0x00100181, "<weft>", Name, ObjectType); // public abstract sealed
    std::vector<uint8_t> Int64Array{uint8_t(SigField), uint8_t(ElementType::SZArray), I8};
    Expected<Token> C = MC.addField(Type, 0x0016, "Calls", Int64Array); // public static
    Expected<Token> T = MC.addField(Type, 0x0016, "Ticks", Int64Array);
    if (!C || !T)
      return C ? T.takeError() : C.takeError();
    Calls = *C;
    Ticks = *T;
    // private static specialname rtspecialname .cctor; public static Flush;
    // private static OnExit(object, EventArgs)
    Expected<Token> Cctor = MC.addMethod(Type, 0x1891, 0, ".cctor", methodSig(false, Void, {}, 0));
    Expected<Token> Flush = MC.addMethod(Type, 0x0096, 0, "Flush", methodSig(false, Void, {}, 0));
    std::vector<uint8_t> OnExitParams{Obj};
    std::vector<uint8_t> EA = classSig(*EventArgs);
    OnExitParams.insert(OnExitParams.end(), EA.begin(), EA.end());
    Expected<Token> OnExit =
        MC.addMethod(Type, 0x0091, 0, "OnExit", methodSig(false, Void, OnExitParams, 2));
    if (!Cctor || !Flush || !OnExit) {
      consumeError(Cctor.takeError());
      consumeError(Flush.takeError());
      return OnExit.takeError();
    }
    CctorMethod = *Cctor;
    FlushMethod = *Flush;
    OnExitMethod = *OnExit;
    return Error::success();
  }

  Error runOnMethod(MethodContext &C) override {
    std::string WhyNot;
    std::optional<size_t> Start = wrapStart(C, WhyNot);
    if (!Start) {
      C.skip(WhyNot);
      return Error::success();
    }
    il::MethodBody &B = C.body();
    // Tail calls move out of the try block: the finally block times the method up to the call.
    Expected<SingleExit> Exit = makeSingleExit(C, /*Wrap=*/true);
    if (!Exit) {
      C.skip(toString(Exit.takeError()));
      return Error::success();
    }
    SingleExit X = *Exit;
    il::Instr *CoreFirst = B.instructions()[*Start]; // after what makeSingleExit inserted
    uint32_t StartLocal = C.addLocal({uint8_t(ElementType::I8)});

    Emitter Head(B, CoreFirst);
    Head.tok(il::Opcode::Call, GetTimestamp);
    Head.stloc(StartLocal);

    // The finally block, between the body and what follows it.
    Emitter Fin(B, X.End);
    Fin.tok(il::Opcode::Ldsfld, Ticks);
    il::Instr *Index1 = Fin.ldc(0);
    Fin.tok(il::Opcode::Ldelema, C.typeToken(TypeSig(ElementType::I8)));
    Fin.tok(il::Opcode::Call, GetTimestamp);
    Fin.ldloc(StartLocal);
    Fin.op(il::Opcode::Sub);
    Fin.tok(il::Opcode::Call, InterlockedAdd);
    Fin.op(il::Opcode::Pop);
    Fin.tok(il::Opcode::Ldsfld, Calls);
    il::Instr *Index2 = Fin.ldc(0);
    Fin.tok(il::Opcode::Ldelema, C.typeToken(TypeSig(ElementType::I8)));
    Fin.tok(il::Opcode::Call, InterlockedIncrement);
    Fin.op(il::Opcode::Pop);
    Fin.op(il::Opcode::Endfinally);
    protectBody(B, CoreFirst, Fin.first(), X.End, il::RegionKind::Finally);
    // The counter index is given in row order in finishMethod.
    C.Marks = {Index1, Index2};
    return Error::success();
  }

  void finishMethod(MethodContext &C) override {
    uint32_t K = uint32_t(Names.size());
    for (il::Instr *I : C.Marks) {
      I->Op = K <= 8     ? il::Opcode(unsigned(il::Opcode::Ldc_I4_0) + K)
              : K <= 127 ? il::Opcode::Ldc_I4_S
                         : il::Opcode::Ldc_I4;
      I->Int = K;
    }
    Names.push_back(jsonEscaped(C.displayName()));
  }

  Error endModule(ModuleContext &MC) override {
    // Nothing was woven: the counters are zero-length but the type stays consistent.
    if (Error E = writeCctor(MC))
      return E;
    if (Error E = writeOnExit(MC))
      return E;
    return writeFlush(MC);
  }

private:
  Error writeCctor(ModuleContext &MC) {
    il::MethodBody B;
    Emitter E(B, nullptr);
    for (Token F : {Calls, Ticks}) {
      E.ldc(int32_t(Names.size()));
      E.tok(il::Opcode::Newarr, int64Type(MC));
      E.tok(il::Opcode::Stsfld, F);
    }
    E.tok(il::Opcode::Call, CurrentDomain);
    E.op(il::Opcode::Ldnull);
    E.tok(il::Opcode::Ldftn, OnExitMethod);
    E.tok(il::Opcode::Newobj, HandlerCtor);
    E.tok(il::Opcode::Callvirt, AddProcessExit);
    E.op(il::Opcode::Ret);
    return MC.setBody(CctorMethod, std::move(B), false);
  }

  Error writeOnExit(ModuleContext &MC) {
    il::MethodBody B;
    Emitter E(B, nullptr);
    E.tok(il::Opcode::Call, FlushMethod);
    E.op(il::Opcode::Ret);
    return MC.setBody(OnExitMethod, std::move(B), false);
  }

  Token int64Type(ModuleContext &MC) {
    if (!Int64) {
      Expected<Token> T = MC.coreType("System", "Int64");
      Int64 = T ? *T : 0;
      if (!T)
        consumeError(T.takeError());
    }
    return Int64;
  }

  Error writeFlush(ModuleContext &MC) {
    std::string AllNames;
    for (size_t I = 0; I < Names.size(); ++I)
      AllNames += (I ? "\n" : "") + Names[I];
    auto Str = [&](StringRef S) -> Expected<Token> { return MC.userString(S); };
    Expected<Token> NamesTok = Str(AllNames),
                    Open = Str("{\"displayTimeUnit\":\"ms\",\"traceEvents\":["), Comma = Str(","),
                    EventHead = Str("{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\""),
                    TsTok = Str("\",\"ts\":"), DurTok = Str(",\"dur\":"),
                    CallsTok = Str(",\"args\":{\"calls\":"), EventEnd = Str("}}"),
                    Close = Str("]}\n"), EnvName = Str("WEFT_TRACE_FILE"),
                    Default = Str(Options.get("file", "weft-trace.json")), Tab = Str("\t"),
                    NewLine = Str("\n"), Header = Str("calls\tinclusive_us\tmethod\n"),
                    TxtSuffix = Str(".txt");
    for (Expected<Token> *T :
         {&NamesTok, &Open, &Comma, &EventHead, &TsTok, &DurTok, &CallsTok, &EventEnd, &Close,
          &EnvName, &Default, &Tab, &NewLine, &Header, &TxtSuffix})
      if (!*T)
        return T->takeError();

    // Locals: 0 sb (json), 1 names, 2 i, 3 ts, 4 dur, 5 scale, 6 written, 7 table, 8 path.
    std::vector<uint8_t> Builder = classSig(BuilderType);
    std::vector<uint8_t> Locals{uint8_t(SigLocal), 9};
    Locals.insert(Locals.end(), Builder.begin(), Builder.end());
    Locals.insert(Locals.end(),
                  {uint8_t(ElementType::SZArray), uint8_t(ElementType::String),
                   uint8_t(ElementType::I4), uint8_t(ElementType::I8), uint8_t(ElementType::I8),
                   uint8_t(ElementType::R8), uint8_t(ElementType::I4)});
    Locals.insert(Locals.end(), Builder.begin(), Builder.end());
    Locals.push_back(uint8_t(ElementType::String));

    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(Locals);
    Emitter E(B, nullptr);
    auto Append = [&](Token S, uint32_t To = 0) {
      E.ldloc(To);
      E.tok(il::Opcode::Ldstr, S);
      E.tok(il::Opcode::Callvirt, AppendString);
      E.op(il::Opcode::Pop);
    };
    il::Instr *TryFirst = E.tok(il::Opcode::Ldstr, *NamesTok);
    E.ldc('\n');
    E.ldc(0);
    E.tok(il::Opcode::Callvirt, StringSplit);
    E.stloc(1);
    E.tok(il::Opcode::Newobj, BuilderCtor);
    E.stloc(0);
    E.tok(il::Opcode::Newobj, BuilderCtor);
    E.stloc(7);
    Append(*Header, 7);
    il::Instr *Million = E.op(il::Opcode::Ldc_R8);
    Million->setFloat64(1e6);
    E.tok(il::Opcode::Ldsfld, Frequency);
    E.op(il::Opcode::Conv_R8);
    E.op(il::Opcode::Div);
    E.stloc(5);
    Append(*Open);
    E.ldc(0);
    E.stloc(2);
    il::Instr *Cond = B.create(il::Opcode::Ldloc_2);
    E.branch(il::Opcode::Br, Cond);
    // The loop over the methods.
    il::Instr *Next = B.create(il::Opcode::Ldloc_2);
    il::Instr *Loop = E.tok(il::Opcode::Ldsfld, Calls);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_I8);
    E.branch(il::Opcode::Brfalse, Next);
    E.tok(il::Opcode::Ldsfld, Ticks);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_I8);
    E.op(il::Opcode::Conv_R8);
    E.ldloc(5);
    E.op(il::Opcode::Mul);
    E.op(il::Opcode::Conv_I8);
    E.stloc(4);
    il::Instr *NoComma = B.create(il::Opcode::Ldloc_S);
    NoComma->Index = 6;
    E.ldloc(6);
    E.branch(il::Opcode::Brfalse, NoComma);
    Append(*Comma);
    B.insertBefore(nullptr, NoComma);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(6);
    // {"ph":"X",...,"name":"<name>","ts":<ts>,"dur":<dur>,"args":{"calls":<calls>}}
    E.ldloc(0);
    E.tok(il::Opcode::Ldstr, *EventHead);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.ldloc(1);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_Ref);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.tok(il::Opcode::Ldstr, *TsTok);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.ldloc(3);
    E.tok(il::Opcode::Callvirt, AppendInt64);
    E.tok(il::Opcode::Ldstr, *DurTok);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.ldloc(4);
    E.tok(il::Opcode::Callvirt, AppendInt64);
    E.tok(il::Opcode::Ldstr, *CallsTok);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.tok(il::Opcode::Ldsfld, Calls);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_I8);
    E.tok(il::Opcode::Callvirt, AppendInt64);
    E.tok(il::Opcode::Ldstr, *EventEnd);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.op(il::Opcode::Pop);
    // The table row: calls <tab> inclusive_us <tab> name.
    E.ldloc(7);
    E.tok(il::Opcode::Ldsfld, Calls);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_I8);
    E.tok(il::Opcode::Callvirt, AppendInt64);
    E.tok(il::Opcode::Ldstr, *Tab);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.ldloc(4);
    E.tok(il::Opcode::Callvirt, AppendInt64);
    E.tok(il::Opcode::Ldstr, *Tab);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.ldloc(1);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_Ref);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.tok(il::Opcode::Ldstr, *NewLine);
    E.tok(il::Opcode::Callvirt, AppendString);
    E.op(il::Opcode::Pop);
    // ts += dur
    E.ldloc(3);
    E.ldloc(4);
    E.op(il::Opcode::Add);
    E.stloc(3);
    B.insertBefore(nullptr, Next);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(2);
    B.insertBefore(nullptr, Cond);
    E.tok(il::Opcode::Ldsfld, Calls);
    E.op(il::Opcode::Ldlen);
    E.op(il::Opcode::Conv_I4);
    E.branch(il::Opcode::Blt, Loop);
    Append(*Close);
    // path = Environment.GetEnvironmentVariable("WEFT_TRACE_FILE") ?? "<default>"
    E.tok(il::Opcode::Ldstr, *EnvName);
    E.tok(il::Opcode::Call, GetEnv);
    E.op(il::Opcode::Dup);
    il::Instr *Have = B.create(il::Opcode::Stloc_S);
    Have->Index = 8;
    E.branch(il::Opcode::Brtrue, Have);
    E.op(il::Opcode::Pop);
    E.tok(il::Opcode::Ldstr, *Default);
    B.insertBefore(nullptr, Have);
    E.ldloc(8);
    E.ldloc(0);
    E.tok(il::Opcode::Callvirt, ObjectToString);
    E.tok(il::Opcode::Call, WriteAllText);
    E.ldloc(8);
    E.tok(il::Opcode::Ldstr, *TxtSuffix);
    E.tok(il::Opcode::Call, StringConcat);
    E.ldloc(7);
    E.tok(il::Opcode::Callvirt, ObjectToString);
    E.tok(il::Opcode::Call, WriteAllText);
    // A trace that cannot be written does not stop the program from exiting as it would.
    dropExceptionsAndReturn(B, TryFirst, ObjectType);
    return MC.setBody(FlushMethod, std::move(B), false);
  }

  PassOptions Options;
  Token ObjectType = 0, Type = 0, Calls = 0, Ticks = 0, Int64 = 0;
  Token CctorMethod = 0, FlushMethod = 0, OnExitMethod = 0;
  Token GetTimestamp = 0, Frequency = 0, InterlockedAdd = 0, InterlockedIncrement = 0;
  Token CurrentDomain = 0, AddProcessExit = 0, HandlerCtor = 0, StringSplit = 0;
  Token BuilderCtor = 0, AppendString = 0, AppendInt64 = 0, ObjectToString = 0, GetEnv = 0;
  Token WriteAllText = 0, StringConcat = 0, BuilderType = 0;
  /// Method names by counter index, filled in row order by finishMethod.
  std::vector<std::string> Names;
};

} // namespace

PassInfo tracePass() {
  return {"trace",
          "Built-in probe: per-method call counts and inclusive time, written at exit as a "
          "Chrome trace-event JSON file (Perfetto) and a summary table",
          {{"file", "where the trace goes (default weft-trace.json in the current directory; "
                    "the WEFT_TRACE_FILE environment variable overrides it); the table goes "
                    "to the same path with .txt added"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<Trace>(O);
          }};
}

} // namespace weft::passes
