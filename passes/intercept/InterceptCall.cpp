//===- passes/intercept/InterceptCall.cpp - intercept-call ----------------===//
//
// Redirects every use of one method to a user's public static replacement (InterceptMatch.h says
// which replacement fits which use):
//
//   callvirt instance string [System.Runtime]System.String::ToUpperInvariant()
//   => call string [Replacements]Weft.Replacements.Strings::ToUpperInvariant(string)
//
//   newobj instance void [System.Runtime]System.Text.StringBuilder::.ctor(string)
//   => call class System.Text.StringBuilder [Replacements]Factories::Create(string)
//
//   callvirt instance void class List`1<int32>::Add(!0)
//   => call void [Replacements]Generic::Add<int32>(class List`1<!!0>, !!0)
//
// - `call` and `callvirt`: the call goes to the replacement, the instance (if any) first. A call
//   through `constrained. T` passes what the runtime would have: the managed pointer for a value
//   type's own method, else the boxed value. `tail.` stays right before the call.
// - `newobj` of a constructor target calls the factory; `call` of a value type's constructor on
//   an address (in-place initialisation) calls the factory and stores the result there (`stobj`).
//   Other `call`s of a constructor are base or chained constructor calls, never redirected.
// - `ldftn` and `ldvirtftn` load the replacement instead: for a static target always; for an
//   instance target of a reference type when the pointer makes a delegate (the next instruction
//   is a delegate's `newobj`), which is then closed over the instance as the replacement's first
//   argument (as C# makes delegates of extension methods).
// A use that cannot be redirected is left as it is, with a note under -v that says why.
//
//===----------------------------------------------------------------------===//
#include "il/Prefixes.h"
#include "passes/Builtins.h"
#include "passes/intercept/InterceptMatch.h"
#include "support/Format.h"
#include "weaving/Emit.h"

#include <map>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

using intercept::Decision;
using intercept::Receiver;

/// Takes \p I out of the order without retargeting what pointed at it (the caller has).
void eraseFromOrder(il::MethodBody &B, il::Instr *I) {
  std::vector<il::Instr *> &Order = B.instructions();
  Order.erase(Order.begin() + B.indexOf(I));
}

std::string siteLabel(const il::Instr *I) {
  return I->OriginalOffset == il::NoOffset ? std::string("a new instruction")
                                           : "IL_" + hexstr(I->OriginalOffset, true, 4);
}

/// One use of the target in a method body.
struct Site {
  il::Instr *I;
  il::Instr *Constrained, *Tail; // the prefixes of a call
  const Decision *D;
};

class InterceptCall final : public Pass {
public:
  explicit InterceptCall(const PassOptions &O) : Match(O) {}

  Error beginModule(ModuleContext &MC) override { return Match.prepare(MC); }

  Error runOnMethod(MethodContext &C) override {
    std::vector<Site> Sites = findSites(C.body());
    if (Sites.empty()) {
      C.skip("no call to " + Match.target().Text);
      return Error::success();
    }
    std::vector<std::string> LeftAlone;
    // Spill locals, shared by the calls of this method: (type, position in the call) -> local.
    std::map<std::pair<std::vector<uint8_t>, uint32_t>, uint32_t> Spill;
    unsigned Redirected = 0;
    for (const Site &S : Sites) {
      std::string Why = redirect(C, S, Spill);
      if (Why.empty())
        ++Redirected;
      else
        LeftAlone.push_back(S.I->info().Name + std::string(" ") + S.D->Site + " at " +
                            siteLabel(S.I) + " left alone: " + Why);
    }
    if (!Redirected) {
      std::string More;
      if (LeftAlone.size() > 1)
        More = " (and " + std::to_string(LeftAlone.size() - 1) + " more)";
      C.skip("nothing of " + Match.target().Text + " could be redirected: " + LeftAlone.front() +
             More);
      return Error::success();
    }
    for (const std::string &N : LeftAlone)
      C.note(N);
    return Error::success();
  }

private:
  using SpillLocals = std::map<std::pair<std::vector<uint8_t>, uint32_t>, uint32_t>;

  /// The instructions that use the target: calls, constructions, function pointers.
  std::vector<Site> findSites(il::MethodBody &B) const {
    std::vector<Site> Sites;
    const std::vector<il::Instr *> &Order = B.instructions();
    for (size_t I = 0; I < Order.size(); ++I) {
      il::Instr *In = Order[I];
      switch (In->Op) {
      case il::Opcode::Call:
      case il::Opcode::Callvirt:
      case il::Opcode::Newobj:
      case il::Opcode::Ldftn:
      case il::Opcode::Ldvirtftn: break;
      default: continue;
      }
      const Decision *D = Match.find(In->Token);
      if (!D)
        continue;
      // A constructor's `call` on a reference type is a base or chained constructor call.
      if (Match.target().constructor() && In->Op == il::Opcode::Call &&
          !D->ValueType.value_or(false))
        continue;
      if (!Match.target().constructor() && In->Op == il::Opcode::Newobj)
        continue;
      il::Instr *Constrained = nullptr, *Tail = nullptr;
      for (size_t P = il::prefixedStart(Order, I); P < I; ++P) {
        if (Order[P]->Op == il::Opcode::Constrained)
          Constrained = Order[P];
        else if (Order[P]->Op == il::Opcode::Tail)
          Tail = Order[P];
      }
      Sites.push_back({In, Constrained, Tail, D});
    }
    return Sites;
  }

  /// Redirects one site; the reason it cannot, or empty.
  std::string redirect(MethodContext &C, const Site &S, SpillLocals &Spill) {
    const Decision &D = *S.D;
    if (D.Candidate < 0)
      return D.Why;
    switch (S.I->Op) {
    case il::Opcode::Newobj: S.I->Op = il::Opcode::Call; break;
    case il::Opcode::Ldftn:
    case il::Opcode::Ldvirtftn: return redirectPointer(C, S);
    case il::Opcode::Call:
      if (Match.target().constructor())
        return redirectInPlace(C, S);
      [[fallthrough]];
    default:
      if (std::string Why = redirectCall(C, S, Spill); !Why.empty())
        return Why;
      S.I->Op = il::Opcode::Call;
      break;
    }
    S.I->Token = D.Replacement;
    return {};
  }

  std::string redirectCall(MethodContext &C, const Site &S, SpillLocals &Spill) {
    const Decision &D = *S.D;
    il::MethodBody &B = C.body();
    bool Virtual = S.I->Op == il::Opcode::Callvirt;
    if (D.Instance == Receiver::Pointer && Virtual && !S.Constrained)
      // A value type's method reached through a boxed instance: the replacement wants the
      // managed pointer the box would have to give up.
      return "it calls a value type's method on a boxed instance";
    if (!S.Constrained)
      return {};
    // `constrained. T` may only precede callvirt (or a static method's call), and the static
    // call that replaces it takes no prefix. The prefix stood for "the instance is a T&: call T's
    // own method on it, or box it": the replacement gets what the runtime would have passed, the
    // pointer itself (a value type's method, `ref T`) or the boxed value, which for a reference
    // type T is the reference the pointer holds.
    if (D.Instance == Receiver::Reference) {
      Emitter E(B, S.I);
      std::vector<uint32_t> Locals(D.Args);
      for (uint32_t K = 0; K < D.Args; ++K) {
        auto [It, New] = Spill.try_emplace({D.ArgTypes[K], K}, 0);
        if (New)
          It->second = C.addLocal(D.ArgTypes[K]);
        Locals[K] = It->second;
      }
      for (uint32_t K = D.Args; K-- > 0;)
        E.stloc(Locals[K]);
      E.tok(il::Opcode::Ldobj, S.Constrained->Token);
      E.tok(il::Opcode::Box, S.Constrained->Token);
      for (uint32_t K = 0; K < D.Args; ++K)
        E.ldloc(Locals[K]);
      if (S.Tail) { // `tail.` must stay right before the call, which must stay before its ret
        B.retarget(S.Tail, E.first());
        eraseFromOrder(B, S.Tail);
        E.op(il::Opcode::Tail);
      }
    }
    // What branched to the prefix now reaches the code that replaces it, or the call.
    B.remove(S.Constrained);
    return {};
  }

  /// `call T::.ctor(args)` on the address of a value type: the factory's result is stored there.
  std::string redirectInPlace(MethodContext &C, const Site &S) {
    if (!S.D->DeclaringType)
      return "the constructed value type is not known";
    Emitter(C.body(), nextOf(C.body(), S.I)).tok(il::Opcode::Stobj, S.D->DeclaringType);
    S.I->Token = S.D->Replacement;
    return {};
  }

  /// ldftn and ldvirtftn: the replacement's pointer, for a static target or a delegate.
  std::string redirectPointer(MethodContext &C, const Site &S) {
    const Decision &D = *S.D;
    il::MethodBody &B = C.body();
    if (D.Instance != Receiver::None) {
      if (D.Instance == Receiver::Pointer)
        return "a delegate cannot be closed over a value type's instance by reference";
      if (!makesDelegate(C, nextOf(B, S.I)))
        return "the pointer to an instance method is not used to make a delegate";
    }
    if (S.I->Op == il::Opcode::Ldvirtftn) {
      // ldvirtftn takes the instance again (`dup; ldvirtftn`): ldftn does not.
      Emitter(B, S.I).op(il::Opcode::Pop);
      S.I->Op = il::Opcode::Ldftn;
    }
    S.I->Token = D.Replacement;
    return {};
  }

  /// Whether \p I is `newobj` of a delegate's constructor (object, native int).
  static bool makesDelegate(MethodContext &C, const il::Instr *I) {
    if (!I || I->Op != il::Opcode::Newobj)
      return false;
    Expected<std::vector<TypeSig>> T = C.callOperandTypes(*I, 0);
    if (!T) {
      consumeError(T.takeError());
      return false;
    }
    const std::vector<TypeSig> &P = *T;
    return P.size() == 2 && P[0].Kind == ElementType::Object && P[1].Kind == ElementType::I;
  }

  static il::Instr *nextOf(il::MethodBody &B, const il::Instr *I) {
    const std::vector<il::Instr *> &Order = B.instructions();
    size_t At = B.indexOf(I);
    return At + 1 < Order.size() ? Order[At + 1] : nullptr;
  }

  intercept::Matcher Match;
};

} // namespace

PassInfo interceptCallPass() {
  return {"intercept-call",
          "Redirects the uses of one method (calls, constructions, delegates) to a user's public "
          "static replacement (same parameters, the instance first for an instance method)",
          {{"target", "the method: Namespace.Type::Method (a generic type as Type`1, a "
                      "constructor as .ctor), optionally with ILAsm parameter types "
                      "(Namespace.Type::Method(string)) to pick one overload"},
           {"replacement-assembly", "the assembly holding the replacement (.dll), relative to "
                                    "the spec file"},
           {"replacement-type", "the type holding the replacement (Namespace.Type)"},
           {"replacement-method", "the replacement's name (default: the target's; Create for a "
                                  "constructor)"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<InterceptCall>(O);
          }};
}

} // namespace weft::passes
