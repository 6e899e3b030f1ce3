//===- passes/single-ret/SingleRet.cpp - single-ret -----------------------===//
//
// One epilogue per method: every `ret` becomes a branch to it (a `leave` inside a protected
// region), the return value kept in a new local. The `ret` of a tail call stays where it is: the
// call must be followed by it.
//
//===----------------------------------------------------------------------===//
#include "il/Prefixes.h"
#include "passes/Builtins.h"
#include "weaving/Returns.h"

using namespace llvm;

namespace weft::passes {

namespace {

class SingleRet final : public Pass {
public:
  Error runOnMethod(MethodContext &C) override {
    const std::vector<il::Instr *> &Order = C.body().instructions();
    unsigned Rets = 0;
    for (size_t I = 0; I < Order.size(); ++I)
      Rets += Order[I]->Op == il::Opcode::Ret && !il::isTailCallReturn(Order, I);
    if (Rets == 0) {
      C.skip("it never returns but through tail calls, if at all");
      return Error::success();
    }
    if (Rets == 1 && Order.back()->Op == il::Opcode::Ret &&
        !il::isTailCallReturn(Order, Order.size() - 1)) {
      C.skip("it already returns only at its end");
      return Error::success();
    }
    return makeSingleExit(C, /*Wrap=*/false).takeError();
  }
};

} // namespace

PassInfo singleRetPass() {
  return {"single-ret",
          "One epilogue per method: every ret becomes a branch (or leave) to it, the return "
          "value kept in a new local",
          {},
          [](const PassOptions &) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<SingleRet>();
          }};
}

} // namespace weft::passes
