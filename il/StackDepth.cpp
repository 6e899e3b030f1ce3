//===- il/StackDepth.cpp --------------------------------------------------===//
#include "il/StackDepth.h"

#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace weft::il;

namespace weft::analysis {

bool stackEffect(const Instr &I, const CallShapeSource &Shapes, bool ReturnsValue, int &Pop,
                 int &Push) {
  const OpcodeInfo &Info = I.info();
  Pop = Info.Pop;
  Push = Info.Push;
  if (Pop != VarStack && Push != VarStack)
    return true;
  switch (I.Op) {
  case Opcode::Ret:
    Pop = ReturnsValue ? 1 : 0;
    Push = 0;
    return true;
  case Opcode::Call:
  case Opcode::Callvirt:
  case Opcode::Newobj:
  case Opcode::Calli: {
    std::optional<CallShape> S = Shapes.shapeOf(I.Token);
    if (!S)
      return false;
    if (I.Op == Opcode::Newobj) {
      Pop = int(S->Params);
      Push = 1;
    } else {
      Pop = int(S->Params) + (S->HasThis ? 1 : 0) + (I.Op == Opcode::Calli ? 1 : 0);
      Push = S->ReturnsValue ? 1 : 0;
    }
    return true;
  }
  default: Pop = Push = 0; return true;
  }
}

StackInfo analyzeStack(const MethodBody &Body, const CallShapeSource &Shapes, bool ReturnsValue) {
  StackInfo Info;
  analyzeStack(Body, Shapes, ReturnsValue, Info);
  return Info;
}

void analyzeStack(const MethodBody &Body, const CallShapeSource &Shapes, bool ReturnsValue,
                  StackInfo &Info, uint32_t Stamp) {
  const std::vector<Instr *> &Order = Body.instructions();
  Info.MaxStack = 0;
  Info.Problems.clear();
  Info.DepthIn.assign(Order.size(), -1);
  if (!Stamp)
    Stamp = Body.number();
  auto Label = [&](uint32_t K) {
    return Order[K]->OriginalOffset != NoOffset ? "IL_" + hexstr(Order[K]->OriginalOffset, true, 4)
                                                : "instruction " + std::to_string(K);
  };

  std::vector<uint32_t> &Work = Info.Work;
  Work.clear();
  auto Merge = [&](uint32_t From, const Instr *To, int Depth) {
    if (!To) {
      Info.Problems.push_back({From, "branch to the end of the code"});
      return;
    }
    if (!MethodBody::numbered(To, Stamp)) {
      Info.Problems.push_back({From, "branch to an instruction that is not in the body"});
      return;
    }
    uint32_t K = To->Pos;
    if (Info.DepthIn[K] < 0) {
      Info.DepthIn[K] = Depth;
      Info.MaxStack = std::max<uint32_t>(Info.MaxStack, Depth);
      Work.push_back(K);
    } else if (Info.DepthIn[K] != Depth) {
      Info.Problems.push_back({K, "the stack holds " + std::to_string(Info.DepthIn[K]) +
                                      " values on one path into " + Label(K) + " and " +
                                      std::to_string(Depth) + " on another"});
    }
  };
  auto Start = [&](const Instr *I, int Depth) {
    if (MethodBody::numbered(I, Stamp))
      Merge(I->Pos, I, Depth);
  };

  if (!Order.empty())
    Start(Order.front(), 0);
  for (const ExceptionRegion &R : Body.Regions) {
    bool TakesException = R.Kind == RegionKind::Catch || R.Kind == RegionKind::Filter;
    Start(R.HandlerStart, TakesException ? 1 : 0);
    if (R.Kind == RegionKind::Filter)
      Start(R.FilterStart, 1);
  }

  // Each instruction is reached once: a run of code is followed while control falls through,
  // and only branch targets wait in the worklist.
  while (!Work.empty()) {
    uint32_t K = Work.back();
    Work.pop_back();
    for (;;) {
      const Instr &I = *Order[K];
      const OpcodeInfo &Op = I.info();
      int Depth = Info.DepthIn[K];
      int Pop = Op.Pop, Push = Op.Push;
      if ((Pop == VarStack || Push == VarStack) &&
          !stackEffect(I, Shapes, ReturnsValue, Pop, Push)) {
        Info.Problems.push_back({K, Label(K) + " (" + Op.Name + "): token " + hex(I.Token) +
                                        " names no method signature"});
        break;
      }
      if (Depth < Pop) {
        Info.Problems.push_back({K, Label(K) + " (" + Op.Name + ") takes " +
                                        std::to_string(Pop) + " values but the stack holds " +
                                        std::to_string(Depth)});
        break;
      }
      int After = Depth - Pop + Push;
      Info.MaxStack = std::max<uint32_t>(Info.MaxStack, After);
      switch (Op.Flow) {
      case FlowKind::Branch:
        // leave empties the stack; br keeps it.
        Merge(K, I.Target, (I.Op == Opcode::Leave || I.Op == Opcode::Leave_S) ? 0 : After);
        break;
      case FlowKind::CondBranch:
        if (I.Op == Opcode::Switch)
          for (const Instr *T : I.Targets)
            Merge(K, T, After);
        else
          Merge(K, I.Target, After);
        break;
      default: break;
      }
      if (Op.Flow == FlowKind::Branch || Op.Flow == FlowKind::Return ||
          Op.Flow == FlowKind::Throw)
        break;
      // Control falls through to the next instruction.
      if (K + 1 == Order.size()) {
        Info.Problems.push_back({K, "control falls off the end of the code after " + Label(K)});
        break;
      }
      if (Info.DepthIn[K + 1] >= 0) { // reached before: only the depths must agree
        Merge(K, Order[K + 1], After);
        break;
      }
      Info.DepthIn[K + 1] = After;
      ++K;
    }
  }
}

} // namespace weft::analysis
