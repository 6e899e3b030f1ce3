//===- passes/entry-exit/EntryExit.cpp - entry-exit -----------------------===//
//
// Calls a user's probes on entry to a method, on its normal exit and when an exception leaves it:
//
//   [constructor prefix up to the base constructor call]
//   call Enter(...)                       ; outside the try
//   .try { body; every ret: stloc v; leave EXIT }
//   catch System.Exception { stloc e; call OnException(..., e); rethrow }
//   EXIT: call Exit(..., v); ldloc v; ret
//
// A tail call stays one (weaving/Returns.h): the exit probe runs before it with a null
// return value, and with an exception probe the call moves out of the try block to a stub after
// the epilogue; exceptions the callee throws are not seen (the method's frame is gone by then).
//
// The calls go through trampolines the pass adds to the module (one static method per probe, in
// the type `<weft>.EntryExit`), which call the probe inside a try block that catches everything:
// a probe that throws does not change what the woven program does.
//
// A probe is a public static method returning void whose parameters are, in this order, any of
// those its kind accepts, each recognised by its type (docs/passes.md):
//   enter:     int32 methodToken, string methodName, System.Type[] typeArguments,
//              object instance, object[] arguments
//   exit:      int32 methodToken, string methodName, System.Type[] typeArguments,
//              object returnValue
//   exception: int32 methodToken, string methodName, System.Type[] typeArguments,
//              System.Exception exception
// typeArguments names the exact instantiation the call runs in: the declaring type's type
// arguments, then the method's, each loaded with `ldtoken !i` / `!!i` (in code the runtime shares
// between instantiations, through the generic dictionary); null outside generic code.
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "il/MethodBody.h"
#include "metadata/Names.h"
#include "passes/Builtins.h"
#include "pe/Image.h"
#include "pe/StrongName.h"
#include "weaving/Arguments.h"
#include "weaving/Emit.h"
#include "weaving/Returns.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

enum class ProbeArg : uint8_t { Token, Name, TypeArguments, Instance, Arguments, Value, Exception };

struct ProbeKind {
  const char *Option;  // the option naming the method
  const char *Default; // its default name
  std::vector<ProbeArg> Accepted;
  const char *Described;
};

const ProbeKind Kinds[3] = {
    {"enter",
     "OnEnter",
     {ProbeArg::Token, ProbeArg::Name, ProbeArg::TypeArguments, ProbeArg::Instance,
      ProbeArg::Arguments},
     "int32 methodToken, string methodName, class System.Type[] typeArguments, object instance, "
     "object[] arguments"},
    {"exit",
     "OnExit",
     {ProbeArg::Token, ProbeArg::Name, ProbeArg::TypeArguments, ProbeArg::Value},
     "int32 methodToken, string methodName, class System.Type[] typeArguments, object "
     "returnValue"},
    {"exception",
     "OnException",
     {ProbeArg::Token, ProbeArg::Name, ProbeArg::TypeArguments, ProbeArg::Exception},
     "int32 methodToken, string methodName, class System.Type[] typeArguments, class "
     "System.Exception exception"},
};

/// A probe found in the probe assembly, and its trampoline in the woven module.
struct Probe {
  bool Present = false;
  std::vector<ProbeArg> Args;
  Token Trampoline = 0;
  bool wants(ProbeArg A) const { return std::find(Args.begin(), Args.end(), A) != Args.end(); }
};

/// Whether a probe's body cannot throw: no instruction of it may (il::mayThrow: no calls,
/// allocations, field or array accesses, division or checked arithmetic) and it has no exception
/// handling.
bool cannotThrow(const pe::Image &Img, const Module &M, uint32_t Row) {
  Expected<std::optional<il::RawMethodBody>> Raw = il::readMethodDefBody(Img, M, Row);
  if (!Raw || !*Raw) {
    if (!Raw)
      consumeError(Raw.takeError());
    return false;
  }
  Expected<il::MethodBody> Body = il::MethodBody::decode(**Raw);
  if (!Body) {
    consumeError(Body.takeError());
    return false;
  }
  if (!Body->Regions.empty())
    return false;
  for (const il::Instr *I : Body->instructions())
    if (il::mayThrow(I->Op))
      return false;
  return true;
}

/// What the probe calls of one method load from.
struct Frame : SingleExit {
  uint32_t ExceptionLocal = 0;
};

class EntryExit final : public Pass {
public:
  explicit EntryExit(const PassOptions &O) : Options(O) {}

  Error beginModule(ModuleContext &MC) override {
    std::string Path = Options.path("probe-assembly");
    StringRef TypeName = Options.get("probe-type");
    if (Path.empty() || TypeName.empty())
      return Options.error("entry-exit needs the options probe-assembly and probe-type");
    if (!sys::fs::exists(Path))
      return Options.error("probe assembly '" + Path + "' does not exist");
    Expected<std::shared_ptr<const OpenedAssembly>> Opened = MC.openAssembly(Path);
    if (!Opened)
      return Options.error("probe assembly: " + toString(Opened.takeError()));
    const Module &P = *(*Opened)->Mod;
    if (!P.rowCount(TableId::Assembly))
      return Options.error("'" + Path + "' is a module without an assembly manifest");
    auto [Ns, Name] = TypeName.rsplit('.');
    if (Name.empty())
      std::swap(Ns, Name);
    uint32_t TypeRow = P.findTypeDef(Ns, Name);
    if (!TypeRow)
      return Options.error("probe assembly '" + Path + "' has no type " + TypeName);

    // The probe assembly, as the woven module will reference it.
    AssemblyRefInfo Ref;
    Ref.Name = P.getString(P.get(TableId::Assembly, 1, AssemblyCol::Name));
    Ref.Culture = P.getString(P.get(TableId::Assembly, 1, AssemblyCol::Culture));
    for (unsigned I = 0; I < 4; ++I)
      Ref.Version[I] = uint16_t(P.get(TableId::Assembly, 1, AssemblyCol::MajorVersion + I));
    ArrayRef<uint8_t> Key = P.getBlob(P.get(TableId::Assembly, 1, AssemblyCol::PublicKey));
    std::string KeyToken;
    if (!Key.empty())
      KeyToken = fromHex(pe::publicKeyToken(Key));
    Ref.PublicKeyOrToken = arrayRefFromStringRef(KeyToken);
    if (Ref.Name == MC.assemblyName())
      return Options.error("the probe assembly " + Ref.Name +
                           " cannot be woven with its own probes (every probe call would call "
                           "the probes again)");
    Token ProbeType = MC.typeRef(MC.assemblyRef(Ref), Ns, Name);

    Expected<Token> Object = MC.coreType("System", "Object");
    if (!Object)
      return Object.takeError();
    Expected<Token> Exc = MC.coreType("System", "Exception");
    if (!Exc)
      return Exc.takeError();
    ExceptionType = *Exc;
    ObjectType = *Object;
    Expected<Token> Type = MC.coreType("System", "Type");
    if (!Type)
      return Type.takeError();
    TypeType = *Type;

    // Find and check each probe; add the trampoline type with one method per probe.
    std::vector<std::pair<uint32_t, unsigned>> Found; // (probe MethodDef row, kind)
    for (unsigned K = 0; K < 3; ++K) {
      StringRef Wanted = Options.get(Kinds[K].Option, Kinds[K].Default);
      bool Explicit = Options.has(Kinds[K].Option);
      if (Wanted.empty())
        continue;
      uint32_t Row = 0;
      for (uint32_t L : P.typeMethods(TypeRow)) {
        uint32_t R = P.method(L);
        if (P.getString(P.get(TableId::MethodDef, R, MethodDefCol::Name)) == Wanted)
          Row = R;
      }
      if (!Row) {
        if (Explicit)
          return Options.error("probe type " + TypeName + " has no method " + Wanted);
        continue;
      }
      if (Error E = checkProbe(P, Row, K, TypeName + "::" + Wanted))
        return E;
      Found.push_back({Row, K});
    }
    if (Found.empty())
      return Options.error("probe type " + TypeName +
                           " has none of the methods OnEnter, OnExit, "
                           "OnException (or those the options name)");
    if (llvm::any_of(Probes, [](const Probe &P) { return P.wants(ProbeArg::TypeArguments); })) {
      Expected<Token> Handle = MC.coreType("System", "RuntimeTypeHandle");
      if (!Handle)
        return Handle.takeError();
      // static class System.Type GetTypeFromHandle(valuetype System.RuntimeTypeHandle)
      std::vector<uint8_t> Sig{uint8_t(SigDefault), 1, uint8_t(ElementType::Class)};
      appendTypeDefOrRefEncoded(Sig, TypeType);
      Sig.push_back(uint8_t(ElementType::ValueType));
      appendTypeDefOrRefEncoded(Sig, *Handle);
      GetTypeFromHandle = MC.memberRef(TypeType, "GetTypeFromHandle", Sig);
    }

    // A probe that cannot throw is called directly (and the JIT may inline it); the others go
    // through a trampoline that drops what they throw.
    Token Tramp = 0;
    for (auto [Row, K] : Found) {
      Probe &Pr = Probes[K];
      std::vector<uint8_t> Sig = probeSignature(Pr.Args);
      StringRef N = P.getString(P.get(TableId::MethodDef, Row, MethodDefCol::Name));
      Token Target = MC.memberRef(ProbeType, N, Sig);
      Pr.Present = true;
      if (cannotThrow(*(*Opened)->Image, P, Row)) {
        Pr.Trampoline = Target;
        continue;
      }
      if (!Tramp) {
        std::string Hidden = MC.freeTypeName("<weft>", ("EntryExit<" + TypeName + ">").str());
        Tramp = MC.addType(0x00100180, "<weft>", Hidden, ObjectType);
      }
      // static assembly hidebysig
      Expected<Token> M = MC.addMethod(Tramp, 0x0093, 0, Kinds[K].Default, Sig);
      if (!M)
        return M.takeError();
      Pr.Trampoline = *M;
      // Its body now, not at the end of the module: a runtime compiles methods while the module
      // is in use, and never sees its end.
      if (Error Err = setTrampolineBody(MC, *M, Target, uint32_t(Pr.Args.size())))
        return Err;
    }
    return Error::success();
  }

  /// try { probe(args) } catch object { } ret
  Error setTrampolineBody(ModuleContext &MC, Token Method, Token Target, uint32_t Args) {
    il::MethodBody B;
    Emitter E(B, nullptr);
    for (uint32_t A = 0; A < Args; ++A)
      E.ldarg(A);
    E.tok(il::Opcode::Call, Target);
    dropExceptionsAndReturn(B, E.first(), ObjectType);
    return MC.setBody(Method, std::move(B), false);
  }

  Error runOnMethod(MethodContext &C) override {
    il::MethodBody &B = C.body();
    std::vector<il::Instr *> &Order = B.instructions();
    std::string WhyNot;
    std::optional<size_t> Start = wrapStart(C, WhyNot);
    if (!Start) {
      C.skip(WhyNot);
      return Error::success();
    }
    const Probe &Exc = Probes[2];
    bool Wrap = Exc.Present;
    // At a tail call the method's frame ends before the callee returns: the exit probe runs
    // before the call and sees no return value.
    auto ExitAtTailCall = [&](Emitter &E) {
      if (Probes[1].Present)
        callProbe(C, E, Probes[1], Frame());
    };
    Expected<SingleExit> Exit = makeSingleExit(C, /*Wrap=*/Wrap, ExitAtTailCall);
    if (!Exit) {
      C.skip(toString(Exit.takeError()));
      return Error::success();
    }
    Frame X;
    static_cast<SingleExit &>(X) = *Exit;
    // Nothing before the start moved; what is there now (a tail call's stores, say) begins the
    // wrapped code.
    il::Instr *CoreFirst = Order[*Start];

    // Enter, outside the try (and before the exit code of a tail call at the start).
    if (Probes[0].Present) {
      Emitter E(B, CoreFirst);
      callProbe(C, E, Probes[0], X);
    }
    if (!Wrap)
      beforeTailCalls(B, tailCalls(B), ExitAtTailCall);

    // The handler, between the body and what follows it.
    il::Instr *HandlerFirst = nullptr;
    il::Instr *TailFirst = X.End;
    if (Wrap) {
      std::vector<uint8_t> ExcSig{uint8_t(ElementType::Class)};
      appendTypeDefOrRefEncoded(ExcSig, ExceptionType);
      X.ExceptionLocal = C.addLocal(ExcSig);
      Emitter E(B, X.End);
      E.stloc(X.ExceptionLocal);
      callProbe(C, E, Exc, X);
      E.op(il::Opcode::Rethrow);
      HandlerFirst = E.first();
      TailFirst = HandlerFirst;
      // Regions that reached the end of the code (when nothing follows the body) end before it.
      for (il::ExceptionRegion &R : B.Regions) {
        if (!R.TryEnd)
          R.TryEnd = HandlerFirst;
        if (!R.HandlerEnd)
          R.HandlerEnd = HandlerFirst;
      }
      il::ExceptionRegion R;
      R.Kind = il::RegionKind::Catch;
      R.TryStart = CoreFirst;
      R.TryEnd = R.HandlerStart = HandlerFirst;
      R.HandlerEnd = X.End;
      R.CatchType = ExceptionType;
      B.Regions.push_back(R);
    }

    // Exit, at the head of the epilogue.
    if (Probes[1].Present && X.Epilogue) {
      Emitter E(B, X.Epilogue);
      callProbe(C, E, Probes[1], X);
      il::Instr *ExitFirst = E.first();
      for (il::Instr *I : B.instructions())
        if (I->Target == X.Epilogue && I != ExitFirst)
          I->Target = ExitFirst;
      if (Wrap)
        B.Regions.back().HandlerEnd = ExitFirst;
      TailFirst = HandlerFirst ? HandlerFirst : ExitFirst;
    }
    // The method's own regions that reached the end of the code end where the added code starts
    // (makeSingleExit pointed them at what follows the body, before which the code above went).
    if (X.End && TailFirst != X.End)
      for (size_t R = 0; R + (Wrap ? 1 : 0) < B.Regions.size(); ++R) {
        if (B.Regions[R].TryEnd == X.End)
          B.Regions[R].TryEnd = TailFirst;
        if (B.Regions[R].HandlerEnd == X.End)
          B.Regions[R].HandlerEnd = TailFirst;
      }
    return Error::success();
  }

private:
  Error checkProbe(const Module &P, uint32_t Row, unsigned K, const Twine &Name) {
    auto Bad = [&](const Twine &Why) {
      return Options.error("probe " + Name + " " + Why + "; a " + Kinds[K].Option +
                           " probe is a public static method returning void whose parameters "
                           "are, in this order, any of: " +
                           Kinds[K].Described);
    };
    uint32_t Flags = P.get(TableId::MethodDef, Row, MethodDefCol::Flags);
    if (!(Flags & 0x10) || (Flags & 0x7) != 6)
      return Bad("is not public and static");
    Expected<MethodSig> S = methodDefSig(P, Row);
    if (!S)
      return Bad("has a signature weft cannot read: " + toString(S.takeError()));
    if (S->Return.Kind != ElementType::Void || S->isGeneric())
      return Bad(S->isGeneric() ? "is generic" : "does not return void");
    std::vector<ProbeArg> Args;
    size_t Next = 0;
    for (const TypeSig &T : S->Params) {
      std::optional<ProbeArg> A;
      if (T.Kind == ElementType::I4)
        A = ProbeArg::Token;
      else if (T.Kind == ElementType::String)
        A = ProbeArg::Name;
      else if (T.Kind == ElementType::Object)
        A = K == 0 ? ProbeArg::Instance : ProbeArg::Value;
      else if (T.Kind == ElementType::SZArray && T.element().Kind == ElementType::Object)
        A = ProbeArg::Arguments;
      else if (T.Kind == ElementType::SZArray && isSystemClass(P, T.element(), "Type"))
        A = ProbeArg::TypeArguments;
      else if (isSystemClass(P, T, "Exception"))
        A = ProbeArg::Exception;
      const std::vector<ProbeArg> &Ok = Kinds[K].Accepted;
      auto It = A ? std::find(Ok.begin() + Next, Ok.end(), *A) : Ok.end();
      if (It == Ok.end())
        return Bad("has a parameter it does not accept, or parameters out of order");
      Next = size_t(It - Ok.begin()) + 1;
      Args.push_back(*A);
    }
    Probes[K].Args = std::move(Args);
    return Error::success();
  }

  /// Whether \p T is `class System.<Name>` referenced from the probe assembly \p P.
  static bool isSystemClass(const Module &P, const TypeSig &T, StringRef Name) {
    if (T.Kind != ElementType::Class || tokenTable(T.TypeToken) != TableId::TypeRef)
      return false;
    uint32_t Row = tokenRow(T.TypeToken);
    return P.getString(P.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)) == "System" &&
           P.getString(P.get(TableId::TypeRef, Row, TypeRefCol::TypeName)) == Name;
  }

  std::vector<uint8_t> probeSignature(const std::vector<ProbeArg> &Args) const {
    std::vector<uint8_t> Sig{uint8_t(SigDefault)};
    appendCompressed(Sig, uint32_t(Args.size()));
    Sig.push_back(uint8_t(ElementType::Void));
    for (ProbeArg A : Args)
      switch (A) {
      case ProbeArg::Token: Sig.push_back(uint8_t(ElementType::I4)); break;
      case ProbeArg::Name: Sig.push_back(uint8_t(ElementType::String)); break;
      case ProbeArg::Instance:
      case ProbeArg::Value: Sig.push_back(uint8_t(ElementType::Object)); break;
      case ProbeArg::Arguments:
        Sig.push_back(uint8_t(ElementType::SZArray));
        Sig.push_back(uint8_t(ElementType::Object));
        break;
      case ProbeArg::TypeArguments:
        Sig.push_back(uint8_t(ElementType::SZArray));
        Sig.push_back(uint8_t(ElementType::Class));
        appendTypeDefOrRefEncoded(Sig, TypeType);
        break;
      case ProbeArg::Exception:
        Sig.push_back(uint8_t(ElementType::Class));
        appendTypeDefOrRefEncoded(Sig, ExceptionType);
        break;
      }
    return Sig;
  }

  /// Calls probe \p P with the arguments it takes.
  void callProbe(MethodContext &C, Emitter &E, const Probe &P, const Frame &X) {
    for (ProbeArg A : P.Args)
      loadProbeArg(C, E, A, X);
    E.tok(il::Opcode::Call, P.Trampoline);
  }

  void loadProbeArg(MethodContext &C, Emitter &E, ProbeArg A, const Frame &X) {
    switch (A) {
    case ProbeArg::Token: E.ldc(int32_t(C.token())); return;
    case ProbeArg::Name: E.tok(il::Opcode::Ldstr, C.userString(C.displayName())); return;
    case ProbeArg::Instance:
      if (C.isStatic()) {
        E.op(il::Opcode::Ldnull);
      } else if (!C.declaringTypeIsValueType()) {
        E.ldarg(0);
      } else {
        TypeSig Own = C.declaringTypeSig();
        if (C.isByRefLike(Own)) {
          E.op(il::Opcode::Ldnull);
        } else {
          Token Tk = C.typeToken(Own);
          E.ldarg(0);
          E.tok(il::Opcode::Ldobj, Tk);
          E.tok(il::Opcode::Box, Tk);
        }
      }
      return;
    case ProbeArg::Arguments: {
      uint32_t N = uint32_t(C.signature().Params.size());
      E.ldc(int32_t(N));
      E.tok(il::Opcode::Newarr, C.typeToken(TypeSig(ElementType::Object)));
      for (uint32_t I = 0; I < N; ++I) {
        E.op(il::Opcode::Dup);
        E.ldc(int32_t(I));
        loadArgumentAsObject(C, E, I);
        E.op(il::Opcode::Stelem_Ref);
      }
      return;
    }
    case ProbeArg::Value: {
      const TypeSig &R = C.returnType().stripped();
      if (!X.ValueLocal || R.Kind == ElementType::ByRef || C.isByRefLike(R)) {
        E.op(il::Opcode::Ldnull);
        return;
      }
      E.ldloc(*X.ValueLocal);
      boxIfValue(C, E, R);
      return;
    }
    case ProbeArg::Exception: E.ldloc(X.ExceptionLocal); return;
    case ProbeArg::TypeArguments: loadTypeArguments(C, E); return;
    }
  }

  /// The exact instantiation the code runs in, as a System.Type[]: the declaring type's type
  /// arguments (!0, !1, ...), then the method's (!!0, ...); null outside generic code.
  void loadTypeArguments(MethodContext &C, Emitter &E) {
    const Module &M = C.module();
    uint32_t OfType =
        C.declaringType()
            ? uint32_t(M.genericParams(makeToken(TableId::TypeDef, C.declaringType())).size())
            : 0;
    uint32_t OfMethod = C.signature().GenericParamCount;
    if (!OfType && !OfMethod) {
      E.op(il::Opcode::Ldnull);
      return;
    }
    E.ldc(int32_t(OfType + OfMethod));
    E.tok(il::Opcode::Newarr, TypeType);
    for (uint32_t I = 0; I < OfType + OfMethod; ++I) {
      TypeSig Param(I < OfType ? ElementType::Var : ElementType::MVar);
      Param.Number = I < OfType ? I : I - OfType;
      E.op(il::Opcode::Dup);
      E.ldc(int32_t(I));
      E.tok(il::Opcode::Ldtoken, C.typeToken(Param));
      E.tok(il::Opcode::Call, GetTypeFromHandle);
      E.op(il::Opcode::Stelem_Ref);
    }
  }

  PassOptions Options;
  Probe Probes[3];
  Token ExceptionType = 0, ObjectType = 0, TypeType = 0;
  Token GetTypeFromHandle = 0; // made when a probe takes typeArguments
};

} // namespace

PassInfo entryExitPass() {
  return {"entry-exit",
          "Calls a user's static probes on method entry (token, name, this, arguments), normal "
          "exit (return value) and exception (rethrown unchanged)",
          {{"probe-assembly", "the probe assembly (.dll), relative to the spec file"},
           {"probe-type", "the type holding the probes (Namespace.Type)"},
           {"enter", "the entry probe's name (default OnEnter; empty for none)"},
           {"exit", "the exit probe's name (default OnExit; empty for none)"},
           {"exception", "the exception probe's name (default OnException; empty for none)"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<EntryExit>(O);
          }};
}

} // namespace weft::passes
