//===- passes/span/Span.cpp - span ----------------------------------------===//
//
// Runs each woven method inside an OpenTelemetry span: a System.Diagnostics.Activity started
// from the ActivitySource "Weft" (weft's version), parent Activity.Current, which the app's own
// OpenTelemetry SDK exports when it listens to the source (AddSource("Weft")):
//
//   [constructor prefix up to the base constructor call]
//   ldnull; stloc a; ldsfld Source; callvirt HasListeners(); brfalse GO
//   ldsfld Source; ldstr NAME; ldc.i4 KIND; callvirt StartActivity(string, ActivityKind)
//   dup; stloc a; brfalse GO; ldloc a; ldstr FUNCTION; ldstr NAMESPACE; ldstr FILE; ldc LINE
//   call Begin                            ; the code attributes, only when a listener records
//   GO: .try { body; every ret: stloc v; leave EXIT }
//   catch System.Exception { stloc e; ldloc a; brfalse R; ldloc a; ldloc e; call Fail; R: rethrow }
//   EXIT: ldloc a; brfalse X; ldloc a; call End; X: ldloc v; ret
//
// With no listener the method pays one test of the source's listeners (HasListeners, which the
// JIT inlines); with listeners that do not sample the method, StartActivity returns null. Fail
// sets the error status and an `exception` event (type, message, stack trace) and ends the span.
// A method returning Task or Task<T> ends its span when the task completes (Handoff: a
// continuation that records a fault or cancellation as the error status), and gives
// Activity.Current back to the span's parent as it returns; ValueTask and ValueTask<T> too, through
// AsTask when the value has not completed (the caller then gets a ValueTask over that task).
// Iterators and async iterators are left alone: the method that creates one returns before any of
// its code runs (name the method that enumerates it).
//
// The helpers live in the added type `<weft>.Spans`; each catches what a listener throws, so a
// span never changes what the woven program does. A tail call ends the span before the call.
//
// Apps without an OpenTelemetry SDK: the module carries an OTLP exporter (span-runtime, C#),
// which `<weft>.Spans`' static constructor loads when the environment names an endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); option `export: false`
// leaves it out.
//
//===----------------------------------------------------------------------===//
#include "metadata/CustomAttribute.h"
#include "metadata/Names.h"
#include "passes/Builtins.h"
#include "support/Format.h"
#include "weaving/Arguments.h"
#include "weaving/EmbeddedRuntime.h"
#include "weaving/Emit.h"
#include "weaving/InputPdb.h"
#include "weaving/Returns.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "0.0.0"
#endif

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

constexpr uint8_t Void = uint8_t(ElementType::Void), Str = uint8_t(ElementType::String),
                  Obj = uint8_t(ElementType::Object), I4 = uint8_t(ElementType::I4),
                  Bool = uint8_t(ElementType::Boolean), Cls = uint8_t(ElementType::Class),
                  Val = uint8_t(ElementType::ValueType), Inst = uint8_t(ElementType::GenericInst);

/// The exporter, as the build compiled it.
const uint8_t ExporterImage[] = {
#include "span/runtime/OtlpExporterImage.inc"
};

/// ActivityStatusCode.Error.
constexpr int32_t StatusError = 2;

/// What a method returns, as far as ending its span goes.
enum class Returns { Other, Task, ValueTask };

/// The OpenTelemetry span kinds, as System.Diagnostics.ActivityKind numbers them.
std::optional<int32_t> spanKind(StringRef S) {
  return StringSwitch<std::optional<int32_t>>(S)
      .Case("internal", 0)
      .Case("server", 1)
      .Case("client", 2)
      .Case("producer", 3)
      .Case("consumer", 4)
      .Default(std::nullopt);
}

/// Signature bytes with type tokens in them.
struct Sig {
  std::vector<uint8_t> B;
  Sig() = default;
  Sig(std::initializer_list<uint8_t> L) : B(L) {}
  Sig &t(uint8_t Kind, Token T) {
    B.push_back(Kind);
    appendTypeDefOrRefEncoded(B, T);
    return *this;
  }
  Sig &b(std::initializer_list<uint8_t> L) {
    B.insert(B.end(), L);
    return *this;
  }
};

class Span final : public Pass {
public:
  explicit Span(const PassOptions &O) : Options(O) {}

  Error beginModule(ModuleContext &MC) override {
    std::optional<int32_t> K = spanKind(Options.get("kind", "internal"));
    if (!K)
      return Options.error("kind '" + Options.get("kind") +
                           "' is none of internal, server, client, producer, consumer");
    Kind = *K;
    NameTemplate = Options.get("name", "{namespace}.{type}.{method}").str();
    StringRef ExportOption = Options.get("export", "true");
    if (ExportOption != "true" && ExportOption != "false")
      return Options.error("export '" + ExportOption + "' is neither true nor false");
    Export = ExportOption == "true";
    StringRef CodeOption = Options.get("code", "true");
    if (CodeOption != "true" && CodeOption != "false")
      return Options.error("code '" + CodeOption + "' is neither true nor false");
    CodeAttributes = CodeOption == "true";
    StringRef DepthOption = Options.get("depth", "1");
    if (DepthOption.getAsInteger(10, Depth) || Depth < 0 || Depth > 8)
      return Options.error("depth '" + DepthOption + "' is not a whole number from 0 to 8");
    for (const auto &[Key, Value] : Options.values())
      if (Key == "arguments")
        for (StringRef Name : split(Value, ','))
          if (!Name.trim().empty())
            Arguments.push_back(Name.trim().str());
    if (MC.module().findTypeDef("<weft>", "Spans"))
      return Options.error("the module already has a type <weft>.Spans (woven with span before?)");
    if (Error E = references(MC))
      return E;
    Expected<InputPdb> P = openInputPdb(MC, Options, "span", "spans have no source file and line");
    if (!P)
      return P.takeError();
    Pdb = std::move(P->Pdb);
    if (Pdb)
      indexStateMachines();
    return addHelpers(MC);
  }

  Error runOnMethod(MethodContext &C) override {
    if (isIterator(C)) {
      C.skip("an iterator: its code runs when it is enumerated, after it returns");
      return Error::success();
    }
    std::string WhyNot;
    std::optional<size_t> Start = wrapStart(C, WhyNot);
    if (!Start) {
      C.skip(WhyNot);
      return Error::success();
    }
    il::MethodBody &B = C.body();
    uint32_t A = C.addLocal(Sig().t(Cls, Activity).B);
    auto EndAtTailCall = [&](Emitter &E) { endIfStarted(E, A); };
    Expected<SingleExit> Exit = makeSingleExit(C, /*Wrap=*/true, EndAtTailCall);
    if (!Exit) {
      C.skip(toString(Exit.takeError()));
      return Error::success();
    }
    SingleExit X = *Exit;
    il::Instr *CoreFirst = B.instructions()[*Start];

    // Start, outside the try.
    Emitter Head(B, CoreFirst);
    emitStart(C, Head, A);

    // Fail, between the body and the exit.
    std::vector<uint8_t> ExcSig = Sig().t(Cls, ExceptionType).B;
    uint32_t Exc = C.addLocal(ExcSig);
    Emitter H(B, X.End);
    H.stloc(Exc);
    il::Instr *Rethrow = B.create(il::Opcode::Rethrow);
    H.ldloc(A);
    H.branch(il::Opcode::Brfalse, Rethrow);
    H.ldloc(A);
    H.ldloc(Exc);
    H.tok(il::Opcode::Call, FailMethod);
    H.put(Rethrow);
    protectBody(B, CoreFirst, H.first(), X.End, il::RegionKind::Catch, ExceptionType);

    // End (or hand the span to the returned task), at the head of the epilogue.
    if (X.Epilogue) {
      Emitter E(B, X.Epilogue);
      Returns R = returnKind(C);
      if (R == Returns::Other || !X.ValueLocal)
        endIfStarted(E, A);
      else
        handOff(C, E, A, *X.ValueLocal, R);
      il::Instr *First = E.first();
      for (il::Instr *I : B.instructions())
        if (I->Target == X.Epilogue && I != First)
          I->Target = First;
      // The handler ended at the epilogue; it ends where the exit code now starts.
      for (il::ExceptionRegion &Rg : B.Regions)
        if (Rg.HandlerEnd == X.Epilogue)
          Rg.HandlerEnd = First;
    }
    return Error::success();
  }

private:
  /// The references the woven code and the helpers use.
  Error references(ModuleContext &MC) {
    // System.Diagnostics.DiagnosticSource, at version 0: it binds to the one the app runs with.
    const Module &M = MC.module();
    Token DS = 0;
    for (uint32_t R = 1; R <= M.rowCount(TableId::AssemblyRef); ++R)
      if (M.getString(M.get(TableId::AssemblyRef, R, AssemblyRefCol::Name)) ==
          "System.Diagnostics.DiagnosticSource")
        DS = makeToken(TableId::AssemblyRef, R);
    if (!DS) {
      AssemblyRefInfo Info;
      Info.Name = "System.Diagnostics.DiagnosticSource";
      static const uint8_t KeyToken[] = {0xcc, 0x7b, 0x13, 0xff, 0xcd, 0x2d, 0xdd, 0x51};
      Info.PublicKeyOrToken = KeyToken;
      DS = MC.assemblyRef(Info);
    }
    auto Diag = [&](StringRef Name) { return MC.typeRef(DS, "System.Diagnostics", Name); };
    Source = Diag("ActivitySource");
    Activity = Diag("Activity");
    ActivityKind = Diag("ActivityKind");
    StatusCode = Diag("ActivityStatusCode");
    Event = Diag("ActivityEvent");
    Tags = Diag("ActivityTagsCollection");
    for (auto [Out, Ns, Name] :
         {std::tuple{&ExceptionType, "System", "Exception"},
          {&ObjectType, "System", "Object"},
          {&TypeType, "System", "Type"},
          {&DateTimeOffset, "System", "DateTimeOffset"},
          {&Int32Type, "System", "Int32"},
          {&TaskType, "System.Threading.Tasks", "Task"},
          {&TaskOfT, "System.Threading.Tasks", "Task`1"},
          {&ActionOf2, "System", "Action`2"},
          {&CancellationToken, "System.Threading", "CancellationToken"},
          {&ContinuationOptions, "System.Threading.Tasks", "TaskContinuationOptions"},
          {&Scheduler, "System.Threading.Tasks", "TaskScheduler"},
          {&AggregateType, "System", "AggregateException"}}) {
      Expected<Token> T = MC.coreType(Ns, Name);
      if (!T)
        return T.takeError();
      *Out = *T;
    }
    StartActivity =
        MC.memberRef(Source, "StartActivity",
                     Sig({SigHasThis, 2}).t(Cls, Activity).b({Str}).t(Val, ActivityKind).B);
    Dispose = MC.memberRef(Activity, "Dispose", {SigHasThis, 0, Void});
    HasListeners = MC.memberRef(Source, "HasListeners", {SigHasThis, 0, Bool});
    SetStatus = MC.memberRef(Activity, "SetStatus",
                             Sig({SigHasThis, 2}).t(Cls, Activity).t(Val, StatusCode).b({Str}).B);
    SetTag =
        MC.memberRef(Activity, "SetTag", Sig({SigHasThis, 2}).t(Cls, Activity).b({Str, Obj}).B);
    AddTag =
        MC.memberRef(Activity, "AddTag", Sig({SigHasThis, 2}).t(Cls, Activity).b({Str, Obj}).B);
    return Error::success();
  }

  /// `<weft>.Spans`: the source and the helpers, with their bodies now (a runtime compiles
  /// methods while the module is in use).
  Error addHelpers(ModuleContext &MC) {
    // One type for each set of options the spec gives the pass in the module.
    Token Type = MC.addType(0x00100180, "<weft>", MC.freeTypeName("<weft>", "Spans"),
                            ObjectType); // abstract sealed beforefieldinit
    Expected<Token> F = MC.addField(Type, 0x0033, "Source", Sig({SigField}).t(Cls, Source).B);
    if (!F)
      return F.takeError();
    SourceField = *F;
    Expected<Token> DoneF =
        MC.addField(Type, 0x0033, "Done",
                    Sig({SigField}).b({Inst}).t(Cls, ActionOf2).b({2}).t(Cls, TaskType).b({Obj}).B);
    if (!DoneF)
      return DoneF.takeError();
    DoneField = *DoneF;
    if (!Arguments.empty()) { // the address of the runtime's Format, once loaded
      Expected<Token> FormatF =
          MC.addField(Type, 0x0013, "FormatFn", {uint8_t(SigField), uint8_t(ElementType::I)});
      if (!FormatF)
        return FormatF.takeError();
      FormatField = *FormatF;
    }
    struct Made {
      Token *Out;
      const char *Name;
      std::vector<uint8_t> Sig;
      Expected<bool> (Span::*Body)(ModuleContext &, il::MethodBody &, Emitter &);
    };
    std::vector<Made> Methods = {
        {&BeginMethod, "Begin",
         Sig({SigDefault, 5, Void}).t(Cls, Activity).b({Str, Str, Str, I4}).B, &Span::beginBody},
        {&FailMethod, "Fail", Sig({SigDefault, 2, Void}).t(Cls, Activity).t(Cls, ExceptionType).B,
         &Span::failBody},
        {&EndMethod, "End", Sig({SigDefault, 1, Void}).t(Cls, Activity).B, &Span::endBody},
        {&DoneMethod, "Finish", Sig({SigDefault, 2, Void}).t(Cls, TaskType).b({Obj}).B,
         &Span::finishBody},
        {&HandoffMethod, "Handoff", Sig({SigDefault, 2, Void}).t(Cls, TaskType).t(Cls, Activity).B,
         &Span::handoffBody},
        {&CctorMethod, ".cctor", {SigDefault, 0, Void}, &Span::cctorBody}};
    // The runtime (its bytes once) only where the exporter or an argument's text may need it.
    if (Export || !Arguments.empty()) {
      if (Error Err = Loader.reference(MC))
        return Err;
      Methods.push_back(
          {&RuntimeMethod, "Runtime", Sig({SigDefault, 0}).t(Cls, TypeType).B, &Span::runtimeBody});
    }
    if (!Arguments.empty()) {
      Methods.push_back({&ArgMethod, "Arg",
                         Sig({SigDefault, 3, Void}).t(Cls, Activity).b({Str, Obj}).B,
                         &Span::argBody});
      Methods.push_back(
          {&LoadFormatMethod, "LoadFormat", {SigDefault, 0, Void}, &Span::loadFormatBody});
    }
    for (Made &D : Methods) {
      uint16_t Flags = StringRef(D.Name) == ".cctor" ? 0x1891 : 0x0093; // assembly static
      Expected<Token> T = MC.addMethod(Type, Flags, 0, D.Name, D.Sig);
      if (!T)
        return T.takeError();
      *D.Out = *T;
    }
    for (Made &D : Methods) {
      il::MethodBody B;
      Emitter E(B, nullptr);
      Expected<bool> Guarded = (this->*D.Body)(MC, B, E);
      if (!Guarded)
        return Guarded.takeError();
      if (*Guarded)
        dropExceptionsAndReturn(B, E.first(), ObjectType);
      if (Error Err = MC.setBody(*D.Out, std::move(B), false))
        return Err;
    }
    return Error::success();
  }

  Token ref(ModuleContext &MC, Token Parent, StringRef Name, const Sig &S) {
    return MC.memberRef(Parent, Name, S.B);
  }

  /// Source = new ActivitySource("Weft", VERSION); Done = new Action<Task, object>(Finish);
  /// then, where the environment names an OTLP endpoint, the exporter this module carries
  /// (span-runtime/OtlpExporter.cs), once per process, as one more listener of the source.
  Expected<bool> cctorBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    Expected<Token> Weft = MC.userString("Weft");
    Expected<Token> Version = MC.userString(WEFT_VERSION);
    if (!Weft || !Version)
      return joinErrors(Weft.takeError(), Version.takeError());
    E.tok(il::Opcode::Ldstr, *Weft);
    E.tok(il::Opcode::Ldstr, *Version);
    E.tok(il::Opcode::Newobj, ref(MC, Source, ".ctor", Sig({SigHasThis, 2, Void, Str, Str})));
    E.tok(il::Opcode::Stsfld, SourceField);
    E.op(il::Opcode::Ldnull);
    E.tok(il::Opcode::Ldftn, DoneMethod);
    Token Action = MC.typeSpec(Sig({Inst}).t(Cls, ActionOf2).b({2}).t(Cls, TaskType).b({Obj}).B);
    E.tok(il::Opcode::Newobj,
          MC.memberRef(Action, ".ctor", {SigHasThis, 2, Void, Obj, uint8_t(ElementType::I)}));
    E.tok(il::Opcode::Stsfld, DoneField);
    if (!Export) {
      E.op(il::Opcode::Ret);
      return false;
    }
    if (Error Err = startExporter(MC, B, E))
      return std::move(Err);
    return false;
  }

  /// Arg(a, key, value): a string or a primitive as it is; another object as its text
  /// (span-runtime/ValueText.cs, as tracepoints write values), to the option `depth`; null,
  /// nothing.
  Expected<bool> argBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    Expected<Token> StringType = MC.coreType("System", "String");
    if (!StringType)
      return StringType.takeError();
    Token GetTypeOf = ref(MC, ObjectType, "GetType", Sig({SigHasThis, 0}).t(Cls, TypeType));
    Token IsPrimitive = ref(MC, TypeType, "get_IsPrimitive", Sig({SigHasThis, 0, Bool}));
    Token FormatSig = MC.standAloneSig({SigDefault, 2, Str, Obj, I4});
    il::Instr *Plain = B.create(il::Opcode::Ldarg_0), *Done = B.create(il::Opcode::Nop),
              *Have = B.create(il::Opcode::Ldarg_0);
    E.ldarg(2);
    E.branch(il::Opcode::Brfalse, Done);
    E.ldarg(2);
    E.tok(il::Opcode::Isinst, *StringType);
    E.branch(il::Opcode::Brtrue, Plain);
    E.ldarg(2);
    E.tok(il::Opcode::Callvirt, GetTypeOf);
    E.tok(il::Opcode::Callvirt, IsPrimitive);
    E.branch(il::Opcode::Brtrue, Plain);
    E.tok(il::Opcode::Ldsfld, FormatField);
    E.branch(il::Opcode::Brtrue, Have);
    E.tok(il::Opcode::Call, LoadFormatMethod);
    E.put(Have);
    E.ldarg(1);
    E.ldarg(2);
    E.ldc(Depth);
    E.tok(il::Opcode::Ldsfld, FormatField);
    E.tok(il::Opcode::Calli, FormatSig);
    E.tok(il::Opcode::Callvirt, SetTag);
    E.op(il::Opcode::Pop);
    E.branch(il::Opcode::Br, Done);
    E.put(Plain);
    E.ldarg(1);
    E.ldarg(2);
    E.tok(il::Opcode::Callvirt, SetTag);
    E.op(il::Opcode::Pop);
    E.put(Done);
    return true; // a failure loses the attribute, not the call
  }

  /// FormatFn = the address of Weft.Otlp.Exporter.Format, the runtime loaded once per process.
  Expected<bool> loadFormatBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    Expected<Token> MethodBase = MC.coreType("System.Reflection", "MethodBase"),
                    MethodInfo = MC.coreType("System.Reflection", "MethodInfo"),
                    Handle = MC.coreType("System", "RuntimeMethodHandle"),
                    FormatName = MC.userString("Format");
    for (Expected<Token> *T : {&MethodBase, &MethodInfo, &Handle, &FormatName})
      if (!*T)
        return T->takeError();
    std::vector<uint8_t> Locals{uint8_t(SigLocal), 1, Val};
    appendTypeDefOrRefEncoded(Locals, *Handle);
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(Locals);
    E.tok(il::Opcode::Call, RuntimeMethod);
    E.tok(il::Opcode::Ldstr, *FormatName);
    E.tok(il::Opcode::Callvirt,
          ref(MC, TypeType, "GetMethod", Sig({SigHasThis, 1}).t(Cls, *MethodInfo).b({Str})));
    E.tok(il::Opcode::Callvirt,
          ref(MC, *MethodBase, "get_MethodHandle", Sig({SigHasThis, 0}).t(Val, *Handle)));
    E.stloc(0);
    E.ldloca(0);
    E.tok(il::Opcode::Call,
          ref(MC, *Handle, "GetFunctionPointer", Sig({SigHasThis, 0, uint8_t(ElementType::I)})));
    E.tok(il::Opcode::Stsfld, FormatField);
    E.op(il::Opcode::Ret);
    return false; // Arg's handler takes what this throws
  }

  /// if (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set)
  ///   Activator.CreateInstance(<the exporter, loaded once per process>)
  /// with whatever goes wrong dropped: the app runs on, exporting nothing.
  Error startExporter(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    Expected<Token> Environment = MC.coreType("System", "Environment"),
                    Activator = MC.coreType("System", "Activator"),
                    Endpoint = MC.userString("OTEL_EXPORTER_OTLP_ENDPOINT"),
                    TracesEndpoint = MC.userString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    for (Expected<Token> *T : {&Environment, &Activator, &Endpoint, &TracesEndpoint})
      if (!*T)
        return T->takeError();
    Token GetVariable =
        ref(MC, *Environment, "GetEnvironmentVariable", Sig({SigDefault, 1, Str, Str}));
    Token Create =
        ref(MC, *Activator, "CreateInstance", Sig({SigDefault, 1, Obj}).t(Cls, TypeType));
    il::Instr *Load = B.create(il::Opcode::Nop), *Skip = B.create(il::Opcode::Nop);
    il::Instr *TryFirst = E.tok(il::Opcode::Ldstr, *Endpoint);
    E.tok(il::Opcode::Call, GetVariable);
    E.branch(il::Opcode::Brtrue, Load);
    E.tok(il::Opcode::Ldstr, *TracesEndpoint);
    E.tok(il::Opcode::Call, GetVariable);
    E.branch(il::Opcode::Brfalse, Skip);
    E.put(Load);
    E.tok(il::Opcode::Call, RuntimeMethod);
    E.tok(il::Opcode::Call, Create);
    E.op(il::Opcode::Pop);
    E.put(Skip);
    dropExceptionsAndReturn(B, TryFirst, ObjectType);
    return Error::success();
  }

  /// Runtime(): the runtime's entry type (Weft.Otlp.Exporter), loaded once per process from the
  /// one copy of its bytes the module carries; what goes wrong goes to the caller's handler.
  Expected<bool> runtimeBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    Expected<std::string> Image = carriedRuntime(
        ArrayRef<uint8_t>(ExporterImage, sizeof ExporterImage), "the span pass's runtime");
    if (!Image)
      return Image.takeError();
    std::vector<uint8_t> Locals{uint8_t(SigLocal), 3, Obj, Cls};
    appendTypeDefOrRefEncoded(Locals, TypeType);
    Locals.push_back(Obj);
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(Locals);
    Expected<il::Instr *> Loaded =
        Loader.emitLoad(MC, E, "weft.otlp.exporter", *Image, "Weft.Otlp.Exporter", 0, 1, 2);
    if (!Loaded)
      return Loaded.takeError();
    E.op(il::Opcode::Ret);
    return false;
  }

  /// a.AddTag for the code attributes: (a, function, namespace or null, file or null, line).
  /// The span is new, so AddTag, which appends without looking for the key, is enough.
  Expected<bool> beginBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    auto Tag = [&](StringRef Key, auto LoadValue) -> Error {
      Expected<Token> K = MC.userString(Key);
      if (!K)
        return K.takeError();
      E.ldarg(0);
      E.tok(il::Opcode::Ldstr, *K);
      LoadValue();
      E.tok(il::Opcode::Callvirt, AddTag);
      E.op(il::Opcode::Pop);
      return Error::success();
    };
    if (Error Err = Tag("code.function.name", [&] { E.ldarg(1); }))
      return std::move(Err);
    il::Instr *NoNamespace = B.create(il::Opcode::Nop);
    E.ldarg(2);
    E.branch(il::Opcode::Brfalse, NoNamespace);
    if (Error Err = Tag("code.namespace", [&] { E.ldarg(2); }))
      return std::move(Err);
    E.put(NoNamespace);
    il::Instr *NoFile = B.create(il::Opcode::Nop);
    E.ldarg(3);
    E.branch(il::Opcode::Brfalse, NoFile);
    if (Error Err = Tag("code.file.path", [&] { E.ldarg(3); }))
      return std::move(Err);
    if (Error Err = Tag("code.line.number", [&] {
          E.ldarg(4);
          E.tok(il::Opcode::Box, Int32Type);
        }))
      return std::move(Err);
    E.put(NoFile);
    return true;
  }

  /// a.SetStatus(Error, e.Message); a.AddEvent(new ActivityEvent("exception", default, tags of
  /// e's type, message and stack trace)); a.Dispose().
  Expected<bool> failBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(Sig({SigLocal, 2}).t(Cls, Tags).t(Val, DateTimeOffset).B);
    Token Message = ref(MC, ExceptionType, "get_Message", Sig({SigHasThis, 0, Str}));
    Token Add = ref(MC, Tags, "Add", Sig({SigHasThis, 2, Void, Str, Obj}));
    std::array<Expected<Token>, 5> S = {
        MC.userString("exception.type"), MC.userString("exception.message"),
        MC.userString("exception.stacktrace"), MC.userString("exception"), MC.userString("")};
    for (Expected<Token> &T : S)
      if (!T)
        return T.takeError();
    E.ldarg(0);
    E.ldc(StatusError);
    E.ldarg(1);
    E.tok(il::Opcode::Callvirt, Message);
    E.tok(il::Opcode::Callvirt, SetStatus);
    E.op(il::Opcode::Pop);
    E.tok(il::Opcode::Newobj, ref(MC, Tags, ".ctor", Sig({SigHasThis, 0, Void})));
    E.stloc(0);
    auto AddTag = [&](Token Key, auto LoadValue) {
      E.ldloc(0);
      E.tok(il::Opcode::Ldstr, Key);
      LoadValue();
      E.tok(il::Opcode::Callvirt, Add);
    };
    AddTag(*S[0], [&] {
      E.ldarg(1);
      E.tok(il::Opcode::Callvirt,
            ref(MC, ObjectType, "GetType", Sig({SigHasThis, 0}).t(Cls, TypeType)));
      E.tok(il::Opcode::Callvirt, ref(MC, TypeType, "get_FullName", Sig({SigHasThis, 0, Str})));
    });
    AddTag(*S[1], [&] {
      E.ldarg(1);
      E.tok(il::Opcode::Callvirt, Message);
    });
    AddTag(*S[2], [&] {
      E.ldarg(1);
      E.tok(il::Opcode::Callvirt, ref(MC, ObjectType, "ToString", Sig({SigHasThis, 0, Str})));
    });
    E.ldarg(0);
    E.tok(il::Opcode::Ldstr, *S[3]);
    E.ldloca(1); // default(DateTimeOffset): now
    E.tok(il::Opcode::Initobj, DateTimeOffset);
    E.ldloc(1);
    E.ldloc(0);
    E.tok(il::Opcode::Newobj,
          ref(MC, Event, ".ctor",
              Sig({SigHasThis, 3, Void, Str}).t(Val, DateTimeOffset).t(Cls, Tags)));
    E.tok(il::Opcode::Callvirt,
          ref(MC, Activity, "AddEvent", Sig({SigHasThis, 1}).t(Cls, Activity).t(Val, Event)));
    E.op(il::Opcode::Pop);
    E.ldarg(0);
    E.tok(il::Opcode::Callvirt, Dispose);
    return true;
  }

  /// a.Dispose(): the span ends, Activity.Current goes back to its parent.
  Expected<bool> endBody(ModuleContext &, il::MethodBody &, Emitter &E) {
    E.ldarg(0);
    E.tok(il::Opcode::Callvirt, Dispose);
    return true;
  }

  /// The continuation of a task a span waits for: (task, span). A fault fails the span with the
  /// task's first exception, a cancellation sets the error status; then the span ends.
  Expected<bool> finishBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    B.InitLocals = true;
    B.LocalVarSigToken =
        MC.standAloneSig(Sig({SigLocal, 2}).t(Cls, Activity).t(Cls, ExceptionType).B);
    Expected<Token> Canceled = MC.userString("The task was canceled.");
    if (!Canceled)
      return Canceled.takeError();
    E.ldarg(1);
    E.tok(il::Opcode::Castclass, Activity);
    E.stloc(0);
    il::Instr *NotFaulted = B.create(il::Opcode::Ldarg_0);
    il::Instr *End = B.create(il::Opcode::Ldloc_0);
    il::Instr *Done = B.create(il::Opcode::Nop);
    E.ldarg(0);
    E.tok(il::Opcode::Callvirt, ref(MC, TaskType, "get_IsFaulted", Sig({SigHasThis, 0, Bool})));
    E.branch(il::Opcode::Brfalse, NotFaulted);
    // The task's exception is an AggregateException: its first inner one is what await throws.
    E.ldarg(0);
    E.tok(il::Opcode::Callvirt,
          ref(MC, TaskType, "get_Exception", Sig({SigHasThis, 0}).t(Cls, AggregateType)));
    E.op(il::Opcode::Dup);
    E.tok(il::Opcode::Callvirt,
          ref(MC, ExceptionType, "get_InnerException", Sig({SigHasThis, 0}).t(Cls, ExceptionType)));
    E.op(il::Opcode::Dup);
    il::Instr *Have = B.create(il::Opcode::Stloc_1);
    E.branch(il::Opcode::Brtrue, Have);
    E.op(il::Opcode::Pop);
    E.op(il::Opcode::Dup);
    E.put(Have);
    E.op(il::Opcode::Pop);
    E.ldloc(0);
    E.ldloc(1);
    E.tok(il::Opcode::Call, FailMethod); // ends the span
    E.branch(il::Opcode::Br, Done);
    E.put(NotFaulted); // ldarg.0
    E.tok(il::Opcode::Callvirt, ref(MC, TaskType, "get_IsCanceled", Sig({SigHasThis, 0, Bool})));
    E.branch(il::Opcode::Brfalse, End);
    E.ldloc(0);
    E.ldc(StatusError);
    E.tok(il::Opcode::Ldstr, *Canceled);
    E.tok(il::Opcode::Callvirt, SetStatus);
    E.op(il::Opcode::Pop);
    E.put(End); // ldloc.0
    E.tok(il::Opcode::Callvirt, Dispose);
    E.put(Done);
    return true;
  }

  /// (task, span): a completed (or null) task ends the span now; otherwise the span ends when the
  /// task does, and Activity.Current goes back to the span's parent for the caller.
  Expected<bool> handoffBody(ModuleContext &MC, il::MethodBody &B, Emitter &E) {
    il::Instr *Pending = B.create(il::Opcode::Ldarg_0);
    il::Instr *Done = B.create(il::Opcode::Nop);
    E.ldarg(0);
    il::Instr *Null = B.create(il::Opcode::Ldarg_1);
    E.branch(il::Opcode::Brfalse, Null);
    E.ldarg(0);
    E.tok(il::Opcode::Callvirt, ref(MC, TaskType, "get_IsCompleted", Sig({SigHasThis, 0, Bool})));
    E.branch(il::Opcode::Brfalse, Pending);
    E.ldarg(0);
    E.ldarg(1);
    E.tok(il::Opcode::Call, DoneMethod);
    E.branch(il::Opcode::Br, Done);
    E.put(Null); // ldarg.1
    E.tok(il::Opcode::Callvirt, Dispose);
    E.branch(il::Opcode::Br, Done);
    E.put(Pending); // ldarg.0
    E.tok(il::Opcode::Ldsfld, DoneField);
    E.ldarg(1);
    E.tok(il::Opcode::Call,
          ref(MC, CancellationToken, "get_None", Sig({SigDefault, 0}).t(Val, CancellationToken)));
    E.ldc(0x80000); // ExecuteSynchronously
    E.tok(il::Opcode::Call,
          ref(MC, Scheduler, "get_Default", Sig({SigDefault, 0}).t(Cls, Scheduler)));
    E.tok(il::Opcode::Callvirt, ref(MC, TaskType, "ContinueWith",
                                    Sig({SigHasThis, 5})
                                        .t(Cls, TaskType)
                                        .b({Inst})
                                        .t(Cls, ActionOf2)
                                        .b({2})
                                        .t(Cls, TaskType)
                                        .b({Obj})
                                        .b({Obj})
                                        .t(Val, CancellationToken)
                                        .t(Val, ContinuationOptions)
                                        .t(Cls, Scheduler)));
    E.op(il::Opcode::Pop);
    E.ldarg(1);
    E.tok(il::Opcode::Callvirt,
          ref(MC, Activity, "get_Parent", Sig({SigHasThis, 0}).t(Cls, Activity)));
    E.tok(il::Opcode::Call,
          ref(MC, Activity, "set_Current", Sig({SigDefault, 1, Void}).t(Cls, Activity)));
    E.put(Done);
    return true;
  }

  /// The span's start, with its code attributes when a listener records it.
  void emitStart(MethodContext &C, Emitter &E, uint32_t A) {
    const Module &M = C.module();
    // The declaring type's name (nested types joined with '.') and namespace.
    std::string TypeName, Namespace;
    for (uint32_t T = C.declaringType(); T; T = M.enclosingType(T)) {
      StringRef N = M.getString(M.get(TableId::TypeDef, T, TypeDefCol::TypeName));
      TypeName = TypeName.empty() ? N.str() : (N + "." + TypeName).str();
      Namespace = M.getString(M.get(TableId::TypeDef, T, TypeDefCol::TypeNamespace)).str();
    }
    StringRef Method = M.getString(M.get(TableId::MethodDef, C.row(), MethodDefCol::Name));
    std::string Function =
        (Namespace.empty() ? "" : Namespace + ".") + TypeName + "." + Method.str();
    std::string Name = NameTemplate;
    // "{namespace}." goes away whole for a type in no namespace.
    std::string Dotted = Namespace.empty() ? "" : Namespace + ".";
    for (auto [Key, Value] : {std::pair<StringRef, StringRef>{"{namespace}.", Dotted},
                              {"{namespace}", Namespace},
                              {"{type}", TypeName},
                              {"{method}", Method}})
      for (size_t At; (At = Name.find(Key.str())) != std::string::npos;)
        Name.replace(At, Key.size(), Value.str());
    auto [File, Line] = sourceOf(C.row());

    // Nobody listening: one inlined test of the source's listeners, and no call.
    il::Instr *Go = C.body().create(il::Opcode::Nop);
    E.op(il::Opcode::Ldnull);
    E.stloc(A);
    E.tok(il::Opcode::Ldsfld, SourceField);
    E.tok(il::Opcode::Callvirt, HasListeners);
    E.branch(il::Opcode::Brfalse, Go);
    E.tok(il::Opcode::Ldsfld, SourceField);
    E.tok(il::Opcode::Ldstr, C.userString(Name));
    E.ldc(Kind);
    E.tok(il::Opcode::Callvirt, StartActivity);
    E.op(il::Opcode::Dup);
    E.stloc(A);
    E.branch(il::Opcode::Brfalse, Go);
    if (CodeAttributes) {
      E.ldloc(A);
      E.tok(il::Opcode::Ldstr, C.userString(Function));
      if (Namespace.empty())
        E.op(il::Opcode::Ldnull);
      else
        E.tok(il::Opcode::Ldstr, C.userString(Namespace));
      if (File.empty())
        E.op(il::Opcode::Ldnull);
      else
        E.tok(il::Opcode::Ldstr, C.userString(File));
      E.ldc(int32_t(Line));
      E.tok(il::Opcode::Call, BeginMethod);
    }
    // The arguments the option names, as the method has them (those it has not are not there).
    for (auto [Index, Name] : chosenArguments(C)) {
      E.ldloc(A);
      E.tok(il::Opcode::Ldstr, C.userString("weft.arg." + Name));
      loadArgumentAsObject(C, E, Index);
      E.tok(il::Opcode::Call, ArgMethod);
    }
    E.put(Go);
  }

  /// (parameter index, name) of each parameter the option `arguments` names.
  std::vector<std::pair<uint32_t, std::string>> chosenArguments(MethodContext &C) {
    std::vector<std::pair<uint32_t, std::string>> Out;
    if (Arguments.empty())
      return Out;
    const Module &M = C.module();
    uint32_t Count = uint32_t(C.signature().Params.size());
    for (uint32_t P : M.methodParams(C.row())) {
      uint32_t Seq = M.get(TableId::Param, P, ParamCol::Sequence);
      StringRef Name = M.getString(M.get(TableId::Param, P, ParamCol::Name));
      if (Seq >= 1 && Seq <= Count &&
          (llvm::is_contained(Arguments, Name) || llvm::is_contained(Arguments, "*")))
        Out.push_back({Seq - 1, Name.str()});
    }
    return Out;
  }

  void endIfStarted(Emitter &E, uint32_t A) {
    il::Instr *Skip = E.body().create(il::Opcode::Nop);
    E.ldloc(A);
    E.branch(il::Opcode::Brfalse, Skip);
    E.ldloc(A);
    E.tok(il::Opcode::Call, EndMethod);
    E.put(Skip);
  }

  /// The returned task (the value local \p V) ends the span: Handoff(task, a). A ValueTask that
  /// has not completed successfully becomes one over its AsTask(), which Handoff watches.
  void handOff(MethodContext &C, Emitter &E, uint32_t A, uint32_t V, Returns R) {
    il::MethodBody &B = E.body();
    il::Instr *Skip = B.create(il::Opcode::Nop);
    E.ldloc(A);
    E.branch(il::Opcode::Brfalse, Skip);
    if (R == Returns::Task) {
      E.ldloc(V);
      E.ldloc(A);
      E.tok(il::Opcode::Call, HandoffMethod);
      E.put(Skip);
      return;
    }
    const TypeSig &Ret = C.returnType().stripped();
    bool Generic = Ret.Kind == ElementType::GenericInst;
    Token VT = C.typeToken(Ret);
    std::vector<uint8_t> TaskSig;
    if (Generic)
      TaskSig = Sig({Inst}).t(Cls, TaskOfT).b({1, uint8_t(ElementType::Var), 0}).B;
    else
      TaskSig = Sig().t(Cls, TaskType).B;
    std::vector<uint8_t> AsTask{SigHasThis, 0};
    AsTask.insert(AsTask.end(), TaskSig.begin(), TaskSig.end());
    std::vector<uint8_t> Ctor{SigHasThis, 1, Void};
    Ctor.insert(Ctor.end(), TaskSig.begin(), TaskSig.end());
    il::Instr *Pending = B.create(il::Opcode::Ldloca_S);
    Pending->Index = V;
    E.ldloca(V);
    E.tok(il::Opcode::Call, C.memberRef(VT, "get_IsCompletedSuccessfully", {SigHasThis, 0, Bool}));
    E.branch(il::Opcode::Brfalse, Pending);
    E.ldloc(A);
    E.tok(il::Opcode::Call, EndMethod);
    E.branch(il::Opcode::Br, Skip);
    E.put(Pending); // ldloca V
    E.tok(il::Opcode::Call, C.memberRef(VT, "AsTask", AsTask));
    E.op(il::Opcode::Dup);
    E.ldloc(A);
    E.tok(il::Opcode::Call, HandoffMethod);
    E.tok(il::Opcode::Newobj, C.memberRef(VT, ".ctor", Ctor));
    E.stloc(V);
    E.put(Skip);
  }

  Returns returnKind(MethodContext &C) {
    const TypeSig &R = C.returnType().stripped();
    const TypeSig *Node = R.Kind == ElementType::GenericInst ? &R.Args.front() : &R;
    if (Node->Kind != ElementType::Class && Node->Kind != ElementType::ValueType)
      return Returns::Other;
    auto [Ns, Name] = typeName(C.module(), Node->TypeToken);
    if (Ns != "System.Threading.Tasks")
      return Returns::Other;
    if (Name == "Task" || Name == "Task`1")
      return Returns::Task;
    if (Name == "ValueTask" || Name == "ValueTask`1")
      return Returns::ValueTask;
    return Returns::Other;
  }

  static std::pair<StringRef, StringRef> typeName(const Module &M, Token T) {
    if (tokenTable(T) == TableId::TypeRef)
      return {M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeNamespace)),
              M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeName))};
    if (tokenTable(T) == TableId::TypeDef)
      return {M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeNamespace)),
              M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeName))};
    return {};
  }

  /// Whether the method creates an iterator or an async iterator (the compiler marks it with
  /// IteratorStateMachineAttribute or AsyncIteratorStateMachineAttribute).
  bool isIterator(MethodContext &C) {
    const Module &M = C.module();
    for (uint32_t R : M.customAttributes(C.token())) {
      Token Ctor = M.getToken(TableId::CustomAttribute, R, CustomAttributeCol::Type);
      auto [Ns, Name] = typeName(M, customAttributeType(M, Ctor));
      if (Ns == "System.Runtime.CompilerServices" &&
          (Name == "IteratorStateMachineAttribute" || Name == "AsyncIteratorStateMachineAttribute"))
        return true;
    }
    return false;
  }

  /// The file and line of the method's first statement (of its state machine's MoveNext, for
  /// an async method), from the PDB; nothing without one.
  std::pair<std::string, uint32_t> sourceOf(uint32_t Row) {
    if (!Pdb)
      return {};
    for (uint32_t R : {Row, MoveNextOf.lookup(Row)}) {
      if (!R)
        continue;
      Expected<std::vector<pdb::SequencePoint>> Points =
          pdb::methodSequencePoints(Pdb->module(), R);
      if (!Points) {
        consumeError(Points.takeError());
        continue;
      }
      for (const pdb::SequencePoint &P : *Points) {
        if (P.isHidden())
          continue;
        Expected<std::string> Doc = pdb::documentName(Pdb->module(), P.Document);
        if (!Doc) {
          consumeError(Doc.takeError());
          return {};
        }
        return {*Doc, P.StartLine};
      }
    }
    return {};
  }

  void indexStateMachines() {
    const Module &P = Pdb->module();
    for (uint32_t R = 1; R <= P.rowCount(TableId::StateMachineMethod); ++R)
      MoveNextOf[P.get(TableId::StateMachineMethod, R, StateMachineMethodCol::KickoffMethod)] =
          P.get(TableId::StateMachineMethod, R, StateMachineMethodCol::MoveNextMethod);
  }

  PassOptions Options;
  int32_t Kind = 0;
  std::string NameTemplate;
  std::vector<std::string> Arguments; // the parameters whose values become attributes
  std::unique_ptr<pdb::PortablePdb> Pdb;
  DenseMap<uint32_t, uint32_t> MoveNextOf; // kickoff method row -> MoveNext row (the PDB's)
  Token Source = 0, Activity = 0, ActivityKind = 0, StatusCode = 0, Event = 0, Tags = 0;
  Token ExceptionType = 0, ObjectType = 0, TypeType = 0, DateTimeOffset = 0, Int32Type = 0;
  Token TaskType = 0, TaskOfT = 0, ActionOf2 = 0;
  RuntimeLoader Loader;
  bool Export = true;
  bool CodeAttributes = true; // code.function.name, code.namespace, code.file.path, .line.number
  int32_t Depth = 1;          // levels of an object argument's fields in its text
  Token ArgMethod = 0, LoadFormatMethod = 0, RuntimeMethod = 0, FormatField = 0;
  Token CancellationToken = 0, ContinuationOptions = 0, Scheduler = 0, AggregateType = 0;
  Token StartActivity = 0, HasListeners = 0, SetTag = 0, AddTag = 0, SetStatus = 0, Dispose = 0,
        SourceField = 0, DoneField = 0;
  Token BeginMethod = 0, FailMethod = 0, EndMethod = 0, DoneMethod = 0, HandoffMethod = 0,
        CctorMethod = 0;
};

} // namespace

PassInfo spanPass() {
  return {"span",
          "Runs each method inside an OpenTelemetry span (an Activity of the ActivitySource "
          "'Weft'): code attributes, exceptions as the error status and an exception event, "
          "async methods ended when their task completes",
          {{"name", "the span's name: {namespace}, {type} and {method} are replaced (default "
                    "{namespace}.{type}.{method})"},
           {"kind", "internal (the default), server, client, producer or consumer"},
           {"arguments", "parameters whose values become the attributes weft.arg.NAME (names, "
                         "comma-separated or the option given once for each; * for all)"},
           {"code", "true (the default): the code attributes (function, namespace, file, line); "
                    "false: none"},
           {"depth", "levels of an object argument's fields in its attribute's text, 0 to 8 "
                     "(default 1), as tracepoints write values"},
           {"export", "true (the default): the module carries an OTLP exporter, started when "
                      "OTEL_EXPORTER_OTLP_ENDPOINT is set; false: none"},
           {"pdb", "the input's portable PDB, for the code's file and line (default: beside the "
                   "input; empty for none)"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<Span>(O);
          }};
}

} // namespace weft::passes
