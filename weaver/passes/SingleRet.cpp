//===- weaver/passes/SingleRet.cpp - single-ret ---------------------------===//
//
// One epilogue per method: every `ret` becomes a branch to it (a `leave` inside a protected
// region), the return value kept in a new local.
//
//===----------------------------------------------------------------------===//
#include "weaver/passes/Builtins.h"
#include "weaver/passes/Returns.h"

using namespace llvm;

namespace weft::passes {

namespace {

class SingleRet final : public Pass {
public:
  Error runOnMethod(MethodContext &C) override {
    unsigned Rets = 0;
    for (il::Instr *I : C.body().instructions())
      Rets += I->Op == il::Opcode::Ret;
    if (Rets == 0) {
      C.skip("it never returns");
      return Error::success();
    }
    if (Rets == 1 && C.body().instructions().back()->Op == il::Opcode::Ret) {
      C.skip("it already returns only at its end");
      return Error::success();
    }
    makeSingleExit(C, /*AlwaysLeave=*/false);
    return Error::success();
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
