//===- passes/trace/Trace.cpp - trace -------------------------------------===//
//
// A probe built into the module, needing no user assembly: every woven method reports its entry
// and exit to the trace runtime (passes/trace/runtime, C#), which keeps per-thread counts,
// inclusive and exclusive times and a timeline of the calls, and writes them as Chrome trace
// events (Perfetto opens them) and a summary table.
//
//   [constructor prefix up to the base constructor call]
//   buffer = <weft>.Trace::Enter(<weft>.Trace::Base + K)
//   .try { body; every ret: stloc v; leave EXIT }
//   finally { <weft>.Trace::Exit(buffer) }
//   EXIT: ldloc v; ret
//
// A tail call moves out of the try block to a stub after the epilogue (weaving/Returns.h),
// so the time counted ends at the call: the callee's time is its own.
//
// Enter and Exit are methods of the hidden type that the JIT inlines: they write the call's entry
// (its id) and exit (-1) into the thread's buffer, kept in a thread-static field (the runtime
// gives each thread its buffer once, Arrive), and call the runtime's Slow when the room they were
// given is used up; Slow reads the clock (see TraceRuntime.cs). Summary mode (without
// instantiations) has Push(K) and Pop(stack) in their place, which count the call and keep the
// thread's stack that the runtime samples, finding the thread's block through the runtime's
// stack map (from the address of a local; the thread-static field where the map has no record
// of the thread); with instantiations, it calls the runtime's Push and Pop through their
// addresses.
//
// The runtime's bytes travel in the module as a base64 string. The static constructor of the
// hidden type `<weft>.Trace` loads them once per process (the AppDomain keeps the loaded runtime
// for the other woven modules), registers the module's method names and takes the addresses of
// the runtime's functions; until it has, and if it cannot, Enter and Leave are functions of the
// hidden type that do nothing, and the program runs as it would. `<weft>.Trace::Flush()` writes
// the files at any time.
//
//===----------------------------------------------------------------------===//
#include "metadata/Module.h"
#include "passes/Builtins.h"
#include "pe/Image.h"
#include "weaving/EmbeddedRuntime.h"
#include "weaving/Emit.h"
#include "weaving/Returns.h"
#include "weaving/StackMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

/// The trace runtime, as the build compiled it.
const uint8_t RuntimeImage[] = {
#include "trace/runtime/TraceRuntimeImage.inc"
};

std::vector<uint8_t> methodSig(bool HasThis, uint8_t Return, std::vector<uint8_t> Params,
                               unsigned Count) {
  std::vector<uint8_t> Sig{uint8_t(HasThis ? SigHasThis : SigDefault)};
  appendCompressed(Sig, Count);
  Sig.push_back(Return);
  Sig.insert(Sig.end(), Params.begin(), Params.end());
  return Sig;
}

std::vector<uint8_t> classSig(Token T, ElementType Kind = ElementType::Class) {
  std::vector<uint8_t> Sig{uint8_t(Kind)};
  appendTypeDefOrRefEncoded(Sig, T);
  return Sig;
}

std::vector<uint8_t> joined(std::vector<uint8_t> A, const std::vector<uint8_t> &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

class Trace final : public Pass {
public:
  explicit Trace(const PassOptions &O) : Options(O) {}

  Error beginModule(ModuleContext &MC) override {
    if (Error E = readOptions())
      return E;
    if (Error E = referenceFramework(MC))
      return E;
    return addHiddenType(MC);
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
    Emitter Head(B, CoreFirst), Fin(B, X.End);       // the finally block goes between body and exit
    // The method's number is given in row order in finishMethod.
    C.Marks = {inlined() ? emitInlined(C, Head, Fin) : emitTiming(C, Head, Fin)};
    Fin.op(il::Opcode::Endfinally);
    protectBody(B, CoreFirst, Fin.first(), X.End, il::RegionKind::Finally);
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
    // Names hold no line breaks (they separate the names the runtime is given).
    std::string Name = C.displayName();
    std::replace(Name.begin(), Name.end(), '\n', ' ');
    Names.push_back(std::move(Name));
  }

  Error endModule(ModuleContext &MC) override {
    for (auto [Method, Body] :
         {std::pair{NoEnter, &Trace::noEnterBody}, std::pair{NoLeave, &Trace::noLeaveBody},
          std::pair{NoFlush, &Trace::noFlushBody}, std::pair{NoInstance, &Trace::noInstanceBody},
          std::pair{PushMethod, &Trace::pushBody}, std::pair{PopMethod, &Trace::popBody},
          std::pair{ArriveMethod, &Trace::arriveBody}, std::pair{NoThread, &Trace::noThreadBody},
          std::pair{SlowMethod, &Trace::slowBody}, std::pair{NoSlow, &Trace::noSlowBody},
          std::pair{FlushMethod, &Trace::flushBody}}) {
      il::MethodBody B;
      if (Method == PushMethod || (Method == PopMethod && RunMode == Timeline)) {
        // Summary mode's Push sets every local before reading it, and takes the address of
        // one it never sets: nothing to zero.
        B.InitLocals = !(Method == PushMethod && RunMode != Timeline);
        B.LocalVarSigToken = Method == PushMethod ? PushLocals : ExitLocals;
      }
      (this->*Body)(B);
      bool Returns = Method == NoEnter || Method == NoInstance || Method == ArriveMethod ||
                     Method == NoThread || Method == PushMethod;
      if (Error E = MC.setBody(Method, std::move(B), Returns))
        return E;
    }
    return writeCctor(MC);
  }

private:
  enum Mode { Timeline = 0, Summary = 1 };
  /// The deepest call the thread stack of summary mode holds (the runtime's size).
  static constexpr int32_t StackSize = 4096;
  /// Where a thread's record holds its stack: after its range and 128 module slots.
  static constexpr int32_t StackOffset = (2 + 128) * 8;

  /// The module's own code records calls (Enter and Exit, Push and Pop), except in summary mode
  /// with calls told apart by instantiation (the runtime counts those).
  bool inlined() const { return RunMode == Timeline || !Instantiations; }

  static bool isGeneric(MethodContext &C) {
    return C.signature().GenericParamCount || C.declaringTypeSig().Kind == ElementType::GenericInst;
  }

  /// The declaring type and the method as the method's own code sees them (instantiated over
  /// their own generic parameters), for ldtoken.
  static std::pair<Token, Token> instantiationTokens(MethodContext &C) {
    const Module &M = C.module();
    Token Type = C.typeToken(C.declaringTypeSig());
    Token Method = C.token();
    if (tokenTable(Type) == TableId::TypeSpec) {
      StringRef Name = M.getString(M.get(TableId::MethodDef, C.row(), MethodDefCol::Name));
      ArrayRef<uint8_t> Sig =
          M.getBlob(M.get(TableId::MethodDef, C.row(), MethodDefCol::Signature));
      Method = C.memberRef(Type, Name, Sig);
    }
    if (uint32_t N = C.signature().GenericParamCount) {
      std::vector<uint8_t> Inst{0x0A};
      appendCompressed(Inst, N);
      for (uint32_t I = 0; I < N; ++I) {
        Inst.push_back(uint8_t(ElementType::MVar));
        appendCompressed(Inst, I);
      }
      Method = C.methodSpec(Method, Inst);
    }
    return {Type, Method};
  }

  /// id = Base + K, or the id of the instantiation the call runs in (from the handles of its
  /// generic context). Returns the instruction that loads K.
  il::Instr *emitId(MethodContext &C, Emitter &Head) {
    Head.tok(il::Opcode::Ldsfld, Base);
    il::Instr *Index = Head.ldc(0);
    Head.op(il::Opcode::Add);
    if (Instantiations && isGeneric(C)) {
      auto [TypeTok, MethodTok] = instantiationTokens(C);
      Head.tok(il::Opcode::Ldtoken, TypeTok);
      Head.tok(il::Opcode::Ldtoken, MethodTok);
      Head.tok(il::Opcode::Ldsfld, InstanceFn);
      Head.tok(il::Opcode::Calli, InstanceSig);
    }
    return Index;
  }

  /// The module's own code, which the JIT inlines: buffer = Enter(id) ... finally Exit(buffer)
  /// in timeline mode, stack = Push(K) ... finally Pop(stack) in summary mode (the addresses of
  /// the thread's buffer or stack). Returns the instruction that loads K.
  il::Instr *emitInlined(MethodContext &C, Emitter &Head, Emitter &Fin) {
    uint32_t Buffer = C.addLocal({uint8_t(ElementType::I)});
    il::Instr *Index = RunMode == Timeline ? emitId(C, Head) : Head.ldc(0);
    Head.tok(il::Opcode::Call, PushMethod);
    Head.stloc(Buffer);
    Fin.ldloc(Buffer);
    Fin.tok(il::Opcode::Call, PopMethod);
    return Index;
  }

  /// Summary mode told apart by instantiation: start = Push(id) ... finally Pop(id, start),
  /// through the runtime's addresses. Returns the instruction that loads K.
  il::Instr *emitTiming(MethodContext &C, Emitter &Head, Emitter &Fin) {
    uint32_t IdLocal = C.addLocal({uint8_t(ElementType::I4)});
    uint32_t StartLocal = C.addLocal({uint8_t(ElementType::I8)});
    il::Instr *Index = emitId(C, Head);
    Head.op(il::Opcode::Dup);
    Head.stloc(IdLocal);
    Head.tok(il::Opcode::Ldsfld, EnterFn);
    Head.tok(il::Opcode::Calli, EnterSig);
    Head.stloc(StartLocal);
    Fin.ldloc(IdLocal);
    Fin.ldloc(StartLocal);
    Fin.tok(il::Opcode::Ldsfld, LeaveFn);
    Fin.tok(il::Opcode::Calli, LeaveSig);
    return Index;
  }

  Error readOptions() {
    StringRef M = Options.get("mode", "timeline");
    if (M != "timeline" && M != "summary")
      return Options.error("trace: mode must be 'timeline' or 'summary', not '" + M + "'");
    RunMode = M == "summary" ? Summary : Timeline;
    StringRef Inst = Options.get("instantiations", "false");
    if (Inst != "true" && Inst != "false")
      return Options.error("trace: instantiations must be 'true' or 'false', not '" + Inst + "'");
    Instantiations = Inst == "true";
    for (auto [Key, Value, Least] : {std::tuple{"threshold-us", &ThresholdUs, int64_t(0)},
                                     std::tuple{"buffer-mb", &BufferMb, int64_t(1)},
                                     std::tuple{"max-events", &MaxEvents, int64_t(0)}}) {
      StringRef Text = Options.get(Key, "");
      if (Text.empty())
        continue;
      int64_t Most = Value == &MaxEvents ? INT64_MAX : (int64_t(1) << 31) - 1;
      if (Text.getAsInteger(10, *Value) || *Value < Least || *Value > Most)
        return Options.error("trace: " + Twine(Key) + " must be a whole number from " +
                             Twine(Least) + ", not '" + Text + "'");
    }
    return Error::success();
  }

  /// The framework members the static constructor calls.
  Error referenceFramework(ModuleContext &MC) {
    if (Error E = Loader.reference(MC))
      return E;
    auto Core = [&](StringRef Ns, StringRef N) { return MC.coreType(Ns, N); };
    Expected<Token> Type = Core("System", "Type"),
                    MethodBase = Core("System.Reflection", "MethodBase"),
                    MethodInfo = Core("System.Reflection", "MethodInfo"),
                    Handle = Core("System", "RuntimeMethodHandle"),
                    TypeHandle = Core("System", "RuntimeTypeHandle");
    for (Expected<Token> *T : {&Type, &MethodBase, &MethodInfo, &Handle, &TypeHandle})
      if (!*T)
        return T->takeError();
    ObjectType = Loader.ObjectType;
    TypeType = *Type;
    HandleType = *Handle;
    const uint8_t I = uint8_t(ElementType::I), Str = uint8_t(ElementType::String),
                  Void = uint8_t(ElementType::Void);
    GetMethod = MC.memberRef(
        *Type, "GetMethod", joined(joined({uint8_t(SigHasThis), 1}, classSig(*MethodInfo)), {Str}));
    GetHandle =
        MC.memberRef(*MethodBase, "get_MethodHandle",
                     joined({uint8_t(SigHasThis), 0}, classSig(*Handle, ElementType::ValueType)));
    GetPointer = MC.memberRef(*Handle, "GetFunctionPointer", methodSig(true, I, {}, 0));
    // The runtime's functions, called through their addresses.
    const uint8_t I4 = uint8_t(ElementType::I4), I8 = uint8_t(ElementType::I8);
    EnterSig = MC.standAloneSig(methodSig(false, I8, {I4}, 1));
    LeaveSig = MC.standAloneSig(methodSig(false, Void, {I4, I8}, 2));
    FlushSig = MC.standAloneSig(methodSig(false, Void, {}, 0));
    FunctionSig = MC.standAloneSig(methodSig(false, I, {I4}, 1));
    RegisterSig = MC.standAloneSig(methodSig(false, I4, {Str, Str, I4, I8, I4, I8}, 6));
    InstanceParams = joined(joined({I4}, classSig(*TypeHandle, ElementType::ValueType)),
                            classSig(*Handle, ElementType::ValueType));
    InstanceSig = MC.standAloneSig(methodSig(false, I4, InstanceParams, 3));
    // The module keeps the address of the thread's buffer (timeline mode) or of its block of
    // counts (summary mode), both pinned.
    if (RunMode == Timeline) {
      ThreadSig = MC.standAloneSig(methodSig(false, I, {I4}, 1));
      PushLocals = MC.standAloneSig({uint8_t(SigLocal), 2, I, I4});
    } else {
      ThreadSig = MC.standAloneSig(methodSig(false, I, {I4, I4}, 2));
      PushLocals = MC.standAloneSig({uint8_t(SigLocal), 6, I, I, I, I, I, I4});
      MapSig = MC.standAloneSig(methodSig(false, I, {I4, I}, 2));
    }
    ExitLocals = MC.standAloneSig({uint8_t(SigLocal), 1, I4});
    SlowSig = MC.standAloneSig(methodSig(false, Void, {I, I4}, 2));
    return Error::success();
  }

  /// `<weft>.Trace`: the module's first id, the runtime's addresses, the static constructor,
  /// Flush and the functions that stand in for the runtime's until it is there.
  Error addHiddenType(ModuleContext &MC) {
    std::string Name = MC.freeTypeName("<weft>", "Trace");
    Token Type = MC.addType(0x00100181, "<weft>", Name, ObjectType); // public abstract sealed
    const uint8_t I = uint8_t(ElementType::I), I4 = uint8_t(ElementType::I4),
                  I8 = uint8_t(ElementType::I8), Void = uint8_t(ElementType::Void);
    std::vector<Expected<Token>> Made;
    // private static (initonly once set: assembly visibility keeps them plain statics)
    for (auto [Name, Kind] :
         {std::pair{"Base", I4}, std::pair{"EnterFn", I}, std::pair{"LeaveFn", I},
          std::pair{"FlushFn", I}, std::pair{"InstanceFn", I}})
      Made.push_back(MC.addField(Type, 0x0013, Name, {uint8_t(SigField), Kind})); // assembly static
    Made.push_back(MC.addMethod(Type, 0x1891, 0, ".cctor", methodSig(false, Void, {}, 0)));
    Made.push_back(MC.addMethod(Type, 0x0096, 0, "Flush", methodSig(false, Void, {}, 0)));
    Made.push_back(MC.addMethod(Type, 0x0091, 0, "NoEnter", methodSig(false, I8, {I4}, 1)));
    Made.push_back(MC.addMethod(Type, 0x0091, 0, "NoLeave", methodSig(false, Void, {I4, I8}, 2)));
    Made.push_back(MC.addMethod(Type, 0x0091, 0, "NoFlush", methodSig(false, Void, {}, 0)));
    Made.push_back(
        MC.addMethod(Type, 0x0091, 0, "NoInstance", methodSig(false, I4, InstanceParams, 3)));
    // The thread-static address and the code that uses it: Push and Pop, or in timeline mode
    // Enter and Exit (assembly static, aggressively inlined), Arrive (the slow path, never
    // inlined), which asks the runtime for the address, and the stand-in for the runtime's
    // function; without the runtime, timeline mode's address is Idle's (two zeros: no room, so
    // every record goes to Slow, which does nothing).
    bool T = RunMode == Timeline;
    Made.push_back(MC.addField(Type, 0x0011, T ? "Buffer" : "Block", {uint8_t(SigField), I}));
    Made.push_back(MC.addField(Type, 0x0013, "ThreadFn", {uint8_t(SigField), I}));
    Made.push_back(
        MC.addMethod(Type, 0x0093, 0x0100, T ? "Enter" : "Push", methodSig(false, I, {I4}, 1)));
    Made.push_back(
        MC.addMethod(Type, 0x0093, 0x0100, T ? "Exit" : "Pop", methodSig(false, Void, {I}, 1)));
    Made.push_back(MC.addMethod(Type, 0x0091, 0x0008, "Arrive", methodSig(false, I, {}, 0)));
    Made.push_back(
        MC.addMethod(Type, 0x0091, 0, "NoThread",
                     T ? methodSig(false, I, {I4}, 1) : methodSig(false, I, {I4, I4}, 2)));
    // Timeline mode's slow path (never inlined) and the runtime's address it calls.
    Made.push_back(MC.addField(Type, 0x0013, "SlowFn", {uint8_t(SigField), I}));
    Made.push_back(MC.addMethod(Type, 0x0091, 0x0008, "Slow", methodSig(false, Void, {I, I4}, 2)));
    Made.push_back(MC.addMethod(Type, 0x0091, 0, "NoSlow", methodSig(false, Void, {I, I4}, 2)));
    Made.push_back(
        MC.addField(Type, 0x0013, "Idle", {uint8_t(SigField), uint8_t(ElementType::I8)}));
    // Summary mode: the runtime's stack map, and where a thread's record keeps the module's block.
    if (!T) {
      Made.push_back(MC.addField(Type, 0x0013, "Map", {uint8_t(SigField), I}));
      Made.push_back(MC.addField(Type, 0x0013, "Slot", {uint8_t(SigField), I4}));
    }
    for (Expected<Token> &T : Made)
      if (!T)
        return T.takeError();
    Base = *Made[0];
    EnterFn = *Made[1];
    LeaveFn = *Made[2];
    FlushFn = *Made[3];
    InstanceFn = *Made[4];
    CctorMethod = *Made[5];
    FlushMethod = *Made[6];
    NoEnter = *Made[7];
    NoLeave = *Made[8];
    NoFlush = *Made[9];
    NoInstance = *Made[10];
    StackField = *Made[11];
    ThreadFn = *Made[12];
    PushMethod = *Made[13];
    PopMethod = *Made[14];
    ArriveMethod = *Made[15];
    NoThread = *Made[16];
    SlowFn = *Made[17];
    SlowMethod = *Made[18];
    NoSlow = *Made[19];
    IdleField = *Made[20];
    if (!T) {
      MapField = *Made[21];
      SlotField = *Made[22];
    }
    if (Expected<Token> Attr = MC.coreType("System", "ThreadStaticAttribute")) {
      Token Ctor = MC.memberRef(*Attr, ".ctor", methodSig(true, Void, {}, 0));
      MC.addCustomAttribute(StackField, Ctor, {1, 0, 0, 0});
    } else {
      return Attr.takeError();
    }
    return Error::success();
  }

  void noEnterBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    E.ldcI8(0);
    E.op(il::Opcode::Ret);
  }
  void noLeaveBody(il::MethodBody &B) { Emitter(B, nullptr).op(il::Opcode::Ret); }
  void noFlushBody(il::MethodBody &B) { Emitter(B, nullptr).op(il::Opcode::Ret); }
  /// Local 0 = the thread's address the module keeps, or Arrive's if it has none yet; a kept
  /// one goes on to \p Have. \p First, if given, is the load of the field (a branch target).
  void emitArrive(Emitter &E, il::Instr *Have, il::Instr *First = nullptr) {
    if (First)
      E.put(First);
    else
      E.tok(il::Opcode::Ldsfld, StackField);
    E.stloc(0);
    E.ldloc(0);
    E.branch(il::Opcode::Brtrue, Have);
    E.tok(il::Opcode::Call, ArriveMethod);
    E.stloc(0);
  }
  /// Enter(id): the id written at the buffer's head (Slow when the head is at the limit);
  /// returns the buffer's address, for Exit.
  void enterBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    il::Instr *Have = B.create(il::Opcode::Ldloc_0);
    il::Instr *Slow = B.create(il::Opcode::Ldloc_0);
    emitArrive(E, Have);
    emitWrite(
        E, [&] { E.ldloc(0); }, 1, [&] { E.ldarg(0); }, Slow, Have);
    E.ldloc(0);
    E.op(il::Opcode::Ret);
    E.put(Slow); // ldloc.0
    E.ldarg(0);
    E.tok(il::Opcode::Call, SlowMethod);
    E.ldloc(0);
    E.op(il::Opcode::Ret);
  }
  /// Exit(buffer): -1 written at the buffer's head, the same way.
  void exitBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    il::Instr *Slow = B.create(il::Opcode::Ldarg_0);
    emitWrite(
        E, [&] { E.ldarg(0); }, 0, [&] { E.ldc(-1); }, Slow);
    E.op(il::Opcode::Ret);
    E.put(Slow); // ldarg.0
    E.ldc(-1);
    E.tok(il::Opcode::Call, SlowMethod);
    E.op(il::Opcode::Ret);
  }
  /// At the buffer's address p (int32s): h = p[0]; if (h >= p[1]) goto Slow; p[h] = value;
  /// p[0] = h + 1, with h in local \p H; \p First, if given, is the first load of p (a branch
  /// target).
  template <typename LoadBuffer, typename LoadValue>
  static void emitWrite(Emitter &E, LoadBuffer Buffer, uint32_t H, LoadValue Value, il::Instr *Slow,
                        il::Instr *First = nullptr) {
    if (First)
      E.put(First);
    else
      Buffer();
    E.op(il::Opcode::Ldind_I4);
    E.stloc(H);
    E.ldloc(H);
    Buffer();
    E.ldc(4);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Ldind_I4);
    E.branch(il::Opcode::Bge, Slow);
    Buffer();
    E.ldloc(H);
    E.ldc(4);
    E.op(il::Opcode::Mul);
    E.op(il::Opcode::Add);
    Value();
    E.op(il::Opcode::Stind_I4);
    Buffer();
    E.ldloc(H);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Stind_I4);
  }
  /// Slow(buffer, value): the runtime's slow path, through its address.
  void slowBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    E.ldarg(0);
    E.ldarg(1);
    E.tok(il::Opcode::Ldsfld, SlowFn);
    E.tok(il::Opcode::Calli, SlowSig);
    E.op(il::Opcode::Ret);
  }
  void noSlowBody(il::MethodBody &B) { Emitter(B, nullptr).op(il::Opcode::Ret); }
  /// Local 0 = the block the thread's record in the runtime's stack map holds for the module
  /// (0 if none): the record of the map's entry for the stack's 64 KiB (local 3 is where the
  /// stack is), if the stack's page is in the record's range; else on to \p Slow.
  void emitFromMap(Emitter &E, il::Instr *Slow) {
    E.ldloca(5);
    E.op(il::Opcode::Conv_U);
    E.stloc(3);
    E.tok(il::Opcode::Ldsfld, MapField);
    E.stloc(4);
    E.ldloc(4);
    E.branch(il::Opcode::Brfalse, Slow);
    E.ldloc(4);
    stackmap::emitEntry(E, [&] { E.ldloc(3); });
    E.op(il::Opcode::Ldind_I);
    E.stloc(4);
    stackmap::emitCheckRange(
        E, [&] { E.ldloc(3); }, [&] { E.ldloc(4); }, Slow);
    E.ldloc(4);
    E.tok(il::Opcode::Ldsfld, SlotField);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Ldind_I);
    E.stloc(0);
  }
  /// Push(k): one call deeper on the thread's stack (method Base + k there while it fits), one
  /// more call of k in the module's counts for the thread; returns the stack's address, for Pop.
  /// The thread's block comes from the runtime's stack map where it can (emitFromMap), else from
  /// the thread-static field, and Claim (through SlowFn) then maps the stack's page.
  void pushBody(il::MethodBody &B) {
    if (RunMode == Timeline)
      return enterBody(B);
    // Locals: 0 the block, 1 the stack's address, 2 the new depth, 3 where the thread's stack
    // is, 4 its record, 5 a local whose address that is.
    Emitter E(B, nullptr);
    il::Instr *Have = B.create(il::Opcode::Ldloc_1);
    il::Instr *Slow = B.createToken(il::Opcode::Ldsfld, StackField);
    il::Instr *Claim = B.createToken(il::Opcode::Ldsfld, MapField);
    il::Instr *Claimed = B.create(il::Opcode::Ldloc_0);
    il::Instr *NoRuntime = B.createToken(il::Opcode::Ldsflda, IdleField);
    emitFromMap(E, Slow);
    E.ldloc(0);
    E.branch(il::Opcode::Brfalse, Slow);
    E.ldloc(4);
    E.ldc(StackOffset);
    E.op(il::Opcode::Add);
    E.stloc(1);
    E.branch(il::Opcode::Br, Have);
    emitArrive(E, Claim, Slow);
    E.ldloc(0);
    E.branch(il::Opcode::Brfalse, NoRuntime); // nothing is counted
    E.put(Claim); // ldsfld Map: without one (no slot, or not yet), no claim
    E.branch(il::Opcode::Brfalse, Claimed);
    E.ldloc(3);
    E.tok(il::Opcode::Ldsfld, SlotField);
    E.tok(il::Opcode::Call, SlowMethod);
    E.put(Claimed); // ldloc.0
    E.op(il::Opcode::Ldind_I);
    E.stloc(1);
    E.put(Have); // ldloc.1
    emitPushAndCount(B, E);
    E.ldloc(1);
    E.op(il::Opcode::Ret);
    E.put(NoRuntime); // ldsflda Idle: a stack of no thread, for Pop
    E.op(il::Opcode::Conv_U);
    E.op(il::Opcode::Ret);
  }
  /// With the stack's address loaded (and in local 1) and the block in local 0: depth (local
  /// 2) = stack[0] + 1; stack[depth] = Base + k while it fits; stack[0] = depth; block[1 + k]
  /// += 1.
  void emitPushAndCount(il::MethodBody &B, Emitter &E) {
    il::Instr *Skip = B.create(il::Opcode::Ldloc_1);
    E.op(il::Opcode::Ldind_I4);
    E.op(il::Opcode::Conv_I);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(2);
    E.ldloc(2);
    E.ldc(StackSize);
    E.branch(il::Opcode::Bge_Un, Skip);
    E.ldloc(1);
    E.ldloc(2);
    E.ldc(4);
    E.op(il::Opcode::Mul);
    E.op(il::Opcode::Add);
    E.tok(il::Opcode::Ldsfld, Base);
    E.ldarg(0);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Stind_I4);
    E.put(Skip); // ldloc.1
    E.ldloc(2);
    E.op(il::Opcode::Conv_I4);
    E.op(il::Opcode::Stind_I4);
    for (int I = 0; I < 2; ++I) {
      E.ldloc(0);
      E.ldarg(0);
      E.ldc(1);
      E.op(il::Opcode::Add);
      E.ldc(8);
      E.op(il::Opcode::Mul);
      E.op(il::Opcode::Add);
    }
    E.op(il::Opcode::Ldind_I8);
    E.ldcI8(1);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Stind_I8);
  }
  /// Pop(stack): one call less deep.
  void popBody(il::MethodBody &B) {
    if (RunMode == Timeline)
      return exitBody(B);
    Emitter E(B, nullptr);
    E.ldarg(0);
    E.ldarg(0);
    E.op(il::Opcode::Ldind_I4);
    E.ldc(1);
    E.op(il::Opcode::Sub);
    E.op(il::Opcode::Stind_I4);
    E.op(il::Opcode::Ret);
  }
  /// Arrive(), the thread's first call of a woven method of the module: from the runtime, the
  /// address of the thread's buffer (timeline mode) or of the module's counts for the thread
  /// (summary mode: a block whose first 8 bytes hold the address of the thread's stack, then a
  /// count per method).
  void arriveBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    E.tok(il::Opcode::Ldsfld, Base);
    if (RunMode != Timeline)
      E.ldc(int32_t(Names.size()));
    E.tok(il::Opcode::Ldsfld, ThreadFn);
    E.tok(il::Opcode::Calli, ThreadSig);
    // Idle's address is not kept: the thread asks again once the runtime is there (a woven
    // method run while the static constructor loads it, from an assembly-load handler, say).
    il::Instr *Done = B.create(il::Opcode::Ret);
    if (RunMode == Timeline) {
      E.op(il::Opcode::Dup);
      E.tok(il::Opcode::Ldsflda, IdleField);
      E.op(il::Opcode::Conv_U);
      E.branch(il::Opcode::Beq, Done);
    }
    E.op(il::Opcode::Dup);
    E.tok(il::Opcode::Stsfld, StackField);
    E.put(Done);
  }
  /// Without the runtime: Idle's address in timeline mode (no room: every record goes to Slow,
  /// which does nothing), none in summary mode (Push and Pop do nothing).
  void noThreadBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    if (RunMode == Timeline) {
      E.tok(il::Opcode::Ldsflda, IdleField);
      E.op(il::Opcode::Conv_U);
    } else {
      E.ldc(0);
      E.op(il::Opcode::Conv_I);
    }
    E.op(il::Opcode::Ret);
  }
  void noInstanceBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    E.ldarg(0); // the generic method's own id
    E.op(il::Opcode::Ret);
  }
  void flushBody(il::MethodBody &B) {
    Emitter E(B, nullptr);
    E.tok(il::Opcode::Ldsfld, FlushFn);
    E.tok(il::Opcode::Calli, FlushSig);
    E.op(il::Opcode::Ret);
  }

  /// Stands the do-nothing functions in, loads the runtime (once per process), registers the
  /// module's names and takes the runtime's addresses, Push's last; an exception on the way
  /// leaves the stand-ins in place.
  Error writeCctor(ModuleContext &MC) {
    Expected<std::string> Image =
        carriedRuntime(ArrayRef<uint8_t>(RuntimeImage, sizeof RuntimeImage), "the trace runtime");
    if (!Image)
      return Image.takeError();
    std::string AllNames = join(Names, "\n");
    auto Str = [&](StringRef S) -> Expected<Token> { return MC.userString(S); };
    Expected<Token> NamesTok = Str(AllNames), FunctionName = Str("Function"),
                    File = Str(Options.get("file", "weft-trace.json"));
    for (Expected<Token> *T : {&NamesTok, &FunctionName, &File})
      if (!*T)
        return T->takeError();

    // Locals: 0 the AppDomain, 1 the runtime's type, 2 a method handle, 3 Function's address,
    // 4 the runtime's inflated bytes.
    std::vector<uint8_t> Locals{uint8_t(SigLocal), 5, uint8_t(ElementType::Object)};
    Locals =
        joined(joined(Locals, classSig(TypeType)), classSig(HandleType, ElementType::ValueType));
    Locals.push_back(uint8_t(ElementType::I));
    Locals.push_back(uint8_t(ElementType::Object));
    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(Locals);
    Emitter E(B, nullptr);
    for (auto [Field, Method] : {std::pair{EnterFn, NoEnter}, std::pair{LeaveFn, NoLeave},
                                 std::pair{FlushFn, NoFlush}, std::pair{InstanceFn, NoInstance},
                                 std::pair{ThreadFn, NoThread}, std::pair{SlowFn, NoSlow}}) {
      E.tok(il::Opcode::Ldftn, Method);
      E.tok(il::Opcode::Stsfld, Field);
    }
    // The runtime, from the AppDomain or loaded and left there.
    Expected<il::Instr *> TryFirst =
        Loader.emitLoad(MC, E, "weft.trace.runtime", *Image, "Weft.Trace.Runtime", 0, 1, 4);
    if (!TryFirst)
      return TryFirst.takeError();
    // Function's address, then the others through it.
    E.tok(il::Opcode::Ldstr, *FunctionName);
    E.tok(il::Opcode::Callvirt, GetMethod);
    E.tok(il::Opcode::Callvirt, GetHandle);
    E.stloc(2);
    E.ldloca(2);
    E.tok(il::Opcode::Call, GetPointer);
    E.stloc(3);
    auto Function = [&](int Which) {
      E.ldc(Which);
      E.ldloc(3);
      E.tok(il::Opcode::Calli, FunctionSig);
    };
    E.tok(il::Opcode::Ldstr, *NamesTok);
    E.tok(il::Opcode::Ldstr, *File);
    E.ldc(RunMode);
    E.ldcI8(ThresholdUs);
    E.ldc(int32_t(BufferMb));
    E.ldcI8(MaxEvents);
    Function(3);
    E.tok(il::Opcode::Calli, RegisterSig);
    E.tok(il::Opcode::Stsfld, Base);
    // The runtime's Push and Pop (summary mode told apart by instantiation), Slow (timeline).
    for (auto [Which, Field] :
         {std::pair{5, LeaveFn}, std::pair{2, FlushFn}, std::pair{6, InstanceFn},
          std::pair{RunMode == Timeline ? 8 : 7, ThreadFn},
          std::pair{RunMode == Timeline ? 0 : 10, SlowFn}, std::pair{4, EnterFn}}) {
      Function(Which);
      E.tok(il::Opcode::Stsfld, Field);
    }
    // Summary mode: the stack map, once the module has a slot in the threads' records.
    if (RunMode != Timeline) {
      E.tok(il::Opcode::Ldsfld, Base);
      E.tok(il::Opcode::Ldsflda, SlotField);
      E.op(il::Opcode::Conv_U);
      Function(9);
      E.tok(il::Opcode::Calli, MapSig);
      E.tok(il::Opcode::Stsfld, MapField);
    }
    // Without the runtime, the module runs untraced.
    dropExceptionsAndReturn(B, *TryFirst, ObjectType);
    return MC.setBody(CctorMethod, std::move(B), false);
  }

  PassOptions Options;
  Mode RunMode = Timeline;
  bool Instantiations = false;
  int64_t ThresholdUs = 0, BufferMb = 64, MaxEvents = 1000000;
  Token ObjectType = 0, TypeType = 0, HandleType = 0;
  Token Base = 0, EnterFn = 0, LeaveFn = 0, FlushFn = 0, InstanceFn = 0;
  Token CctorMethod = 0, FlushMethod = 0, NoEnter = 0, NoLeave = 0, NoFlush = 0, NoInstance = 0;
  RuntimeLoader Loader;
  Token GetMethod = 0, GetHandle = 0, GetPointer = 0;
  Token EnterSig = 0, LeaveSig = 0, FlushSig = 0, FunctionSig = 0, RegisterSig = 0, InstanceSig = 0,
        MapSig = 0;
  Token ThreadSig = 0, PushLocals = 0, ExitLocals = 0, SlowSig = 0;
  Token StackField = 0, ThreadFn = 0, SlowFn = 0, IdleField = 0, MapField = 0, SlotField = 0;
  Token PushMethod = 0, PopMethod = 0, ArriveMethod = 0, NoThread = 0, SlowMethod = 0, NoSlow = 0;
  std::vector<uint8_t> InstanceParams;
  /// Method names by number, filled in row order by finishMethod.
  std::vector<std::string> Names;
};

} // namespace

PassInfo tracePass() {
  return {"trace",
          "Built-in probe: a timeline of every call on every thread as Chrome trace events "
          "(Perfetto), and a table of calls, inclusive and exclusive time per method",
          {{"file", "where the timeline goes (default weft-trace.json in the current directory; "
                    "the WEFT_TRACE_FILE environment variable overrides it); the table goes "
                    "to the same path with .txt added"},
           {"mode", "timeline (default): the calls on the timeline and the table; summary: "
                    "the table only"},
           {"threshold-us", "calls shorter than this many microseconds are left off the "
                            "timeline (they still count in the table); default 0"},
           {"buffer-mb", "sixteen times the size of each thread's buffer (at least 64 KiB); "
                         "calls that find it full are dropped (and counted); default 64"},
           {"max-events", "the most calls the timeline holds (later ones are counted in the "
                          "table only); default 1000000, 0 for no limit"},
           {"instantiations", "true: calls of generic code are told apart by the exact "
                              "instantiation they run in (Box`1<System.Int32>::Get); default "
                              "false"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<Trace>(O);
          }};
}

} // namespace weft::passes
