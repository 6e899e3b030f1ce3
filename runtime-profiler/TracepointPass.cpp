//===- runtime-profiler/TracepointPass.cpp --------------------------------===//
#include "runtime-profiler/TracepointPass.h"
#include "runtime-profiler/Recorder.h"

#include "weaving/Arguments.h"
#include "weaving/Emit.h"
#include "weaving/Returns.h"

using namespace llvm;
using namespace weft::metadata;
using namespace weft::passes;

namespace weft::prof {

namespace {

class TracepointPass final : public Pass {
public:
  TracepointPass(const Recorder &R, SlotFor Slots) : R(R), Slots(std::move(Slots)) {}

  Error beginModule(ModuleContext &MC) override {
    Expected<Token> Exception = MC.coreType("System", "Exception");
    if (!Exception)
      return Exception.takeError();
    ExceptionType = *Exception;
    // `unmanaged` with CallConvSuppressGCTransition: the calls make no GC transition (the
    // recorder blocks on nothing and calls nothing that collects). Without that type (older
    // runtimes), a plain unmanaged cdecl call.
    Expected<Token> NoTransition =
        MC.coreType("System.Runtime.CompilerServices", "CallConvSuppressGCTransition");
    std::vector<uint8_t> Ret;
    uint8_t Conv = SigC;
    if (NoTransition) {
      Conv = SigUnmanaged;
      Ret.push_back(uint8_t(ElementType::CModOpt));
      appendTypeDefOrRefEncoded(Ret, *NoTransition);
    } else {
      consumeError(NoTransition.takeError());
    }
    Ret.push_back(uint8_t(ElementType::Void));
    auto Sig = [&](std::vector<uint8_t> Params) {
      std::vector<uint8_t> S{Conv, uint8_t(Params.size())};
      S.insert(S.end(), Ret.begin(), Ret.end());
      S.insert(S.end(), Params.begin(), Params.end());
      return MC.standAloneSig(S);
    };
    const uint8_t I4 = uint8_t(ElementType::I4), I = uint8_t(ElementType::I);
    SlotSig = Sig({I4});
    ValueSig = Sig({I4, I4, I});
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
    std::optional<uint32_t> S = Slots(C);
    if (!S) {
      C.skip("no recorder slot is left for it");
      return Error::success();
    }
    Slot = *S;
    // A tail call ends the method's frame: the call is recorded as left before it.
    auto Leave = [&](Emitter &E) { enabled(E, [&] { callSlot(E, Recorder::leave); }); };
    Expected<SingleExit> Exit = makeSingleExit(C, /*Wrap=*/true, Leave);
    if (!Exit) {
      C.skip(toString(Exit.takeError()));
      return Error::success();
    }
    SingleExit X = *Exit;
    il::Instr *CoreFirst = B.instructions()[*Start];
    Pinned = C.addLocal({uint8_t(ElementType::Pinned), uint8_t(ElementType::Object)});

    // Entry, outside the try block.
    {
      Emitter E(B, CoreFirst);
      enabled(E, [&] {
        callSlot(E, Recorder::enter);
        for (uint32_t I = 0; I < C.signature().Params.size(); ++I)
          callValue(E, I, [&] { loadArgumentAsObject(C, E, I); });
      });
    }

    // The handler, between the body and what follows it.
    std::vector<uint8_t> ExcSig{uint8_t(ElementType::Class)};
    appendTypeDefOrRefEncoded(ExcSig, ExceptionType);
    uint32_t ExceptionLocal = C.addLocal(ExcSig);
    Emitter H(B, X.End);
    H.stloc(ExceptionLocal);
    enabled(H, [&] {
      callSlot(H, Recorder::leave);
      callValue(H, Recorder::Thrown, [&] { H.ldloc(ExceptionLocal); });
    });
    H.op(il::Opcode::Rethrow);
    size_t Catch = protectBody(B, CoreFirst, H.first(), X.End, il::RegionKind::Catch,
                               ExceptionType);

    // Exit, at the head of the epilogue.
    if (X.Epilogue) {
      Emitter E(B, X.Epilogue);
      enabled(E, [&] {
        callSlot(E, Recorder::leave);
        const TypeSig &T = C.returnType().stripped();
        if (X.ValueLocal && T.Kind != ElementType::ByRef && !C.isByRefLike(T))
          callValue(E, Recorder::ReturnValue, [&] {
            E.ldloc(*X.ValueLocal);
            boxIfValue(C, E, T);
          });
      });
      il::Instr *ExitFirst = E.first();
      for (il::Instr *I : B.instructions())
        if (I->Target == X.Epilogue && I != ExitFirst)
          I->Target = ExitFirst;
      B.Regions[Catch].HandlerEnd = ExitFirst;
    }
    return Error::success();
  }

private:
  /// `if (*flag) { Body }`.
  template <typename Fn> void enabled(Emitter &E, Fn &&Body) {
    il::Instr *Skip = E.body().create(il::Opcode::Nop);
    E.ldcI8(int64_t(reinterpret_cast<intptr_t>(R.flag(Slot))));
    E.op(il::Opcode::Conv_U);
    E.op(il::Opcode::Ldind_U1);
    E.branch(il::Opcode::Brfalse, Skip);
    Body();
    E.put(Skip);
  }
  void callSlot(Emitter &E, void (*Fn)(uint32_t)) {
    E.ldc(int32_t(Slot));
    E.ldcI8(int64_t(reinterpret_cast<intptr_t>(Fn)));
    E.op(il::Opcode::Conv_I);
    E.tok(il::Opcode::Calli, SlotSig);
  }
  /// value(slot, Index, object): the object \p Load pushes, through the pinned local.
  template <typename Fn> void callValue(Emitter &E, uint32_t Index, Fn &&Load) {
    Load();
    E.stloc(Pinned);
    E.ldc(int32_t(Slot));
    E.ldc(int32_t(Index));
    E.ldloc(Pinned);
    E.op(il::Opcode::Conv_I);
    E.ldcI8(int64_t(reinterpret_cast<intptr_t>(&Recorder::value)));
    E.op(il::Opcode::Conv_I);
    E.tok(il::Opcode::Calli, ValueSig);
    E.op(il::Opcode::Ldnull);
    E.stloc(Pinned);
  }

  const Recorder &R;
  SlotFor Slots;
  Token ExceptionType = 0, SlotSig = 0, ValueSig = 0;
  // Of the method being woven (one at a time: the profiler weaves a module's methods in turn).
  uint32_t Slot = 0, Pinned = 0;
};

} // namespace

std::unique_ptr<Pass> makeTracepointPass(const Recorder &R, SlotFor Slots) {
  return std::make_unique<TracepointPass>(R, std::move(Slots));
}

} // namespace weft::prof
