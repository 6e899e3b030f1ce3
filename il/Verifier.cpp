//===- il/Verifier.cpp - Is this module well formed? ----------------------===//
#include "il/Verifier.h"

#include "il/BodyReader.h"
#include "il/CallShapes.h"
#include "il/MethodBody.h"
#include "il/Prefixes.h"
#include "il/StackDepth.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace weft::il;
using namespace weft::metadata;

namespace weft::analysis {

bool operandTokenAllowed(OperandKind K, TableId T) {
  switch (K) {
  case OperandKind::Method:
    return T == TableId::MethodDef || T == TableId::MemberRef || T == TableId::MethodSpec;
  case OperandKind::Field: return T == TableId::Field || T == TableId::MemberRef;
  case OperandKind::Type:
    return T == TableId::TypeDef || T == TableId::TypeRef || T == TableId::TypeSpec;
  case OperandKind::Tok:
    return T == TableId::TypeDef || T == TableId::TypeRef || T == TableId::TypeSpec ||
           T == TableId::MethodDef || T == TableId::MemberRef || T == TableId::MethodSpec ||
           T == TableId::Field;
  case OperandKind::Sig: return T == TableId::StandAloneSig;
  default: return false;
  }
}

namespace {

std::string methodName(const Module &M, uint32_t Row) {
  std::string S;
  raw_string_ostream OS(S);
  NamePrinter P(M);
  if (uint32_t T = M.declaringTypeOfMethod(Row)) {
    P.typeDefName(OS, T);
    OS << "::";
  }
  writeId(OS, M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)));
  return OS.str();
}

// A block of a method body: [Begin, End) positions in the instruction order.
struct Block {
  uint32_t Begin, End;
  enum Kind { Try, Catch, FilterCode, Finally, Fault } K;
  uint32_t Region;
  bool contains(uint32_t I) const { return I >= Begin && I < End; }
  bool isHandler() const { return K != Try; }
};

const char *blockName(Block::Kind K) {
  switch (K) {
  case Block::Try: return "try block";
  case Block::Catch: return "catch handler";
  case Block::FilterCode: return "filter";
  case Block::Finally: return "finally handler";
  case Block::Fault: return "fault handler";
  }
  return "block";
}

std::string values(int N) { return std::to_string(N) + (N == 1 ? " value" : " values"); }

bool fallsThrough(const Instr &I) {
  switch (I.info().Flow) {
  case FlowKind::Branch:
  case FlowKind::Return:
  case FlowKind::Throw: return false;
  default: return true;
  }
}

} // namespace

namespace {

/// Checks one method body, one rule family per step. Positions are indices in the body's order.
class BodyChecker {
public:
  BodyChecker(const Module &M, uint32_t Row, const MethodBody &Body, uint16_t DeclaredMaxStack,
              const CallShapeSource &Shapes, std::vector<Diagnostic> &Out, const Editor *Edits)
      : M(M), Row(Row), Body(Body), Order(Body.instructions()), DeclaredMaxStack(DeclaredMaxStack),
        Shapes(Shapes), Out(Out), Edits(Edits), MethodToken(makeToken(TableId::MethodDef, Row)),
        Name(methodName(M, Row)), Own(Shapes.shapeOf(MethodToken)) {
    IndexOf.reserve(Order.size());
    for (uint32_t K = 0; K < Order.size(); ++K)
      IndexOf[Order[K]] = K;
  }

  void run() {
    countLocals();
    checkOperands();
    checkStack();
    collectBlocks();
    checkNesting();
    checkPlacement();
    checkBranches();
    checkFallThrough();
    checkPrefixes();
    checkBoundaries();
  }

private:
  void report(const Instr *I, const Twine &What) {
    Out.push_back({MethodToken, I ? I->OriginalOffset : 0xFFFFFFFF, Name, What.str()});
  }
  void report(uint32_t K, const Twine &What) {
    report(K < Order.size() ? Order[K] : nullptr, What);
  }
  uint32_t pos(const Instr *I) const {
    if (!I)
      return uint32_t(Order.size());
    auto It = IndexOf.find(I);
    return It == IndexOf.end() ? uint32_t(Order.size()) : It->second;
  }
  bool validToken(Token T) const {
    if (!Edits)
      return M.isValidToken(T);
    unsigned Table = T >> 24;
    return Table < metadata::MaxTables && tokenRow(T) >= 1 &&
           tokenRow(T) <= Edits->rowCount(TableId(Table));
  }
  bool returnsValue() const { return Own && Own->ReturnsValue; }

  /// The number of locals, from the local signature (which may be one the editor added).
  void countLocals() {
    Token LT = Body.LocalVarSigToken;
    if (!LT)
      return;
    if (tokenTable(LT) != TableId::StandAloneSig || !validToken(LT)) {
      report(nullptr, "local variable signature token " + hex(LT) + " is not a StandAloneSig row");
      return;
    }
    Expected<std::vector<TypeSig>> L = [&] {
      if (Edits) {
        uint32_t B = Edits->get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
        return decodeLocalsSig(Edits->getBlob(B), 0);
      }
      uint32_t B = M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
      return decodeLocalsSig(M.getBlob(B), M.blobFileOffset(B), &M);
    }();
    if (L)
      Locals = uint32_t(L->size());
    else
      report(nullptr, toString(L.takeError()));
  }

  /// Locals, arguments, tokens and strings each instruction names.
  void checkOperands() {
    uint32_t Args = Own ? Own->Params + (Own->HasThis ? 1 : 0) : 0;
    for (const Instr *I : Order) {
      const OpcodeInfo &Info = I->info();
      std::optional<uint32_t> Local = localOperand(*I), Arg = argumentOperand(*I);
      if (Local && *Local >= Locals)
        report(I, Twine(Info.Name) + " uses local " + Twine(*Local) + " but the method has " +
                      Twine(Locals) + " locals");
      if (Arg && Own && *Arg >= Args)
        report(I, Twine(Info.Name) + " uses argument " + Twine(*Arg) + " but the method has " +
                      Twine(Args) + " arguments");
      if (I->Op == Opcode::Arglist && Own && !varargMethod())
        report(I, "arglist in a method that does not take a variable argument list");
      checkToken(*I);
    }
  }

  static std::optional<uint32_t> localOperand(const Instr &I) {
    switch (I.Op) {
    case Opcode::Ldloc_0:
    case Opcode::Ldloc_1:
    case Opcode::Ldloc_2:
    case Opcode::Ldloc_3: return uint32_t(I.Op) - uint32_t(Opcode::Ldloc_0);
    case Opcode::Stloc_0:
    case Opcode::Stloc_1:
    case Opcode::Stloc_2:
    case Opcode::Stloc_3: return uint32_t(I.Op) - uint32_t(Opcode::Stloc_0);
    case Opcode::Ldloc_S:
    case Opcode::Ldloca_S:
    case Opcode::Stloc_S:
    case Opcode::Ldloc:
    case Opcode::Ldloca:
    case Opcode::Stloc: return I.Index;
    default: return std::nullopt;
    }
  }

  static std::optional<uint32_t> argumentOperand(const Instr &I) {
    switch (I.Op) {
    case Opcode::Ldarg_0:
    case Opcode::Ldarg_1:
    case Opcode::Ldarg_2:
    case Opcode::Ldarg_3: return uint32_t(I.Op) - uint32_t(Opcode::Ldarg_0);
    case Opcode::Ldarg_S:
    case Opcode::Ldarga_S:
    case Opcode::Starg_S:
    case Opcode::Ldarg:
    case Opcode::Ldarga:
    case Opcode::Starg: return I.Index;
    default: return std::nullopt;
    }
  }

  bool varargMethod() const {
    ArrayRef<uint8_t> Sig = M.getBlob(M.get(TableId::MethodDef, Row, MethodDefCol::Signature));
    return !Sig.empty() && (Sig[0] & SigKindMask) == SigVarArg;
  }

  void checkToken(const Instr &I) {
    const OpcodeInfo &Info = I.info();
    switch (Info.Operand) {
    case OperandKind::Method:
    case OperandKind::Field:
    case OperandKind::Type:
    case OperandKind::Tok:
    case OperandKind::Sig:
      if (!operandTokenAllowed(Info.Operand, tokenTable(I.Token)) || !validToken(I.Token))
        report(&I, Twine(Info.Name) + " has token " + hex(I.Token) +
                       ", which does not name a row of a table it accepts");
      break;
    case OperandKind::String:
      if ((I.Token >> 24) != UserStringTokenType)
        report(&I, "ldstr has token " + hex(I.Token) + ", which is not a user string");
      else if (Edits && (I.Token & 0xFFFFFF) >= M.streamBytes("#US").size())
        ; // added by the editor, which wrote it well formed
      else if (Expected<UserString> S = M.getUserString(I.Token & 0xFFFFFF); !S)
        report(&I, toString(S.takeError()));
      break;
    default: break;
    }
  }

  /// Depths on every path, and the instructions that need an exact depth: ret (the return value
  /// only), endfilter (its result only), leave and endfinally (nothing), localloc (the size only),
  /// jmp (nothing).
  void checkStack() {
    Stack = analyzeStack(Body, Shapes, returnsValue());
    for (const StackProblem &P : Stack.Problems)
      report(P.Index, P.What);
    if (Stack.MaxStack > DeclaredMaxStack)
      report(nullptr, "the stack grows to " + Twine(Stack.MaxStack) + " values but .maxstack is " +
                          Twine(DeclaredMaxStack));
    for (uint32_t K = 0; K < Order.size(); ++K) {
      int Depth = Stack.DepthIn[K];
      std::optional<int> Wanted = exactDepth(Order[K]->Op);
      // Too few values is an underflow, which analyzeStack reports.
      if (Depth >= 0 && Wanted && Depth > *Wanted)
        report(K, Twine(Order[K]->info().Name) + " with " + values(Depth) +
                      " on the stack; it must hold " + stackWanted(Order[K]->Op));
    }
  }

  std::optional<int> exactDepth(Opcode Op) const {
    switch (Op) {
    case Opcode::Ret: return returnsValue() ? 1 : 0;
    case Opcode::Endfilter:
    case Opcode::Localloc: return 1;
    case Opcode::Leave:
    case Opcode::Leave_S:
    case Opcode::Endfinally:
    case Opcode::Jmp: return 0;
    default: return std::nullopt;
    }
  }

  const char *stackWanted(Opcode Op) const {
    switch (Op) {
    case Opcode::Ret: return returnsValue() ? "exactly the return value" : "nothing";
    case Opcode::Endfilter: return "exactly the filter's result";
    case Opcode::Localloc: return "exactly the size";
    default: return "nothing";
    }
  }

  /// The try blocks, handlers and filters of the exception clauses.
  void collectBlocks() {
    for (uint32_t R = 0; R < Body.Regions.size(); ++R) {
      const ExceptionRegion &E = Body.Regions[R];
      uint32_t TB = pos(E.TryStart), TE = pos(E.TryEnd), HB = pos(E.HandlerStart),
               HE = pos(E.HandlerEnd);
      auto RegionError = [&](const Twine &What) {
        report(E.TryStart, "exception clause " + Twine(R) + ": " + What);
      };
      if (TB >= TE || HB >= HE) {
        RegionError("a try block or handler is empty or ends before it starts");
        continue;
      }
      if (!(TE <= HB || HE <= TB))
        RegionError("the handler overlaps its try block");
      Blocks.push_back({TB, TE, Block::Try, R});
      Block::Kind HK = E.Kind == RegionKind::Finally ? Block::Finally
                       : E.Kind == RegionKind::Fault ? Block::Fault
                                                     : Block::Catch;
      Blocks.push_back({HB, HE, HK, R});
      if (E.Kind == RegionKind::Filter) {
        uint32_t FB = pos(E.FilterStart);
        if (FB >= HB)
          RegionError("the filter does not come before its handler");
        else
          Blocks.push_back({FB, HB, Block::FilterCode, R});
      }
      // The runtime enters a try block with nothing on the stack.
      if (TB < Stack.DepthIn.size() && Stack.DepthIn[TB] > 0)
        report(TB, "exception clause " + Twine(R) + ": the try block is entered with " +
                       values(Stack.DepthIn[TB]) + " on the stack; it must be empty");
    }
  }

  /// Blocks nest or are disjoint, and a clause nested in another comes first.
  void checkNesting() {
    for (size_t A = 0; A < Blocks.size(); ++A)
      for (size_t B = A + 1; B < Blocks.size(); ++B) {
        const Block &X = Blocks[A], &Y = Blocks[B];
        bool Disjoint = X.End <= Y.Begin || Y.End <= X.Begin;
        bool XinY = Y.Begin <= X.Begin && X.End <= Y.End;
        bool YinX = X.Begin <= Y.Begin && Y.End <= X.End;
        if (!Disjoint && !XinY && !YinX)
          report(std::max(X.Begin, Y.Begin), Twine("the ") + blockName(X.K) + " of clause " +
                                                 Twine(X.Region) + " and the " + blockName(Y.K) +
                                                 " of clause " + Twine(Y.Region) +
                                                 " overlap without one containing the other");
        if (X.Region != Y.Region && !(X.Begin == Y.Begin && X.End == Y.End)) {
          const Block &Inner = XinY ? X : Y, &Outer = XinY ? Y : X;
          if ((XinY || YinX) && Inner.K == Block::Try && Inner.Region > Outer.Region)
            report(Inner.Begin, "exception clause " + Twine(Inner.Region) +
                                    " is nested in clause " + Twine(Outer.Region) +
                                    " but comes after it");
        }
      }
  }

  const Block *innermost(uint32_t K, bool HandlersOnly) const {
    const Block *Best = nullptr;
    for (const Block &B : Blocks)
      if (B.contains(K) && (!HandlersOnly || B.isHandler()) &&
          (!Best || B.End - B.Begin < Best->End - Best->Begin))
        Best = &B;
    return Best;
  }

  /// Instructions allowed only in some blocks, or in none.
  void checkPlacement() {
    for (uint32_t K = 0; K < Order.size(); ++K) {
      const Instr *I = Order[K];
      const Block *In = innermost(K, false);
      switch (I->Op) {
      case Opcode::Endfinally:
        if (!In || (In->K != Block::Finally && In->K != Block::Fault))
          report(I, "endfinally outside a finally or fault handler");
        break;
      case Opcode::Endfilter:
        if (!In || In->K != Block::FilterCode)
          report(I, "endfilter outside a filter");
        else if (K + 1 != In->End)
          report(I, "endfilter is not the last instruction of its filter");
        break;
      case Opcode::Rethrow: {
        const Block *H = innermost(K, true);
        if (!H || H->K != Block::Catch)
          report(I, "rethrow outside a catch handler");
        break;
      }
      case Opcode::Ret:
        if (In)
          report(I, Twine("ret inside a ") + blockName(In->K) + " (use leave)");
        break;
      case Opcode::Jmp:
        if (In)
          report(I, Twine("jmp inside a ") + blockName(In->K));
        break;
      case Opcode::Localloc:
        if (const Block *H = innermost(K, true))
          report(I, Twine("localloc inside a ") + blockName(H->K));
        break;
      default: break;
      }
      if (isTailCall(Order, K) && In)
        report(I, Twine("a tail call inside a ") + blockName(In->K) +
                      " (a tail. call may not leave a protected region)");
    }
  }

  /// Branches may not enter a block except at the start of a try, nor leave one but by leave.
  void checkBranches() {
    for (uint32_t K = 0; K < Order.size(); ++K) {
      const Instr *I = Order[K];
      if (I->info().isBranch())
        checkTarget(K, I->Target);
      else if (I->Op == Opcode::Switch)
        for (const Instr *T : I->Targets)
          checkTarget(K, T);
    }
  }

  void checkTarget(uint32_t K, const Instr *T) {
    uint32_t TK = pos(T);
    if (TK >= Order.size())
      return;
    const Instr *I = Order[K];
    bool IsLeave = I->Op == Opcode::Leave || I->Op == Opcode::Leave_S;
    for (const Block &B : Blocks) {
      bool From = B.contains(K), To = B.contains(TK);
      if (To && !From && !(B.K == Block::Try && TK == B.Begin))
        report(I, Twine("branch into the middle of a ") + blockName(B.K));
      else if (From && !To && !IsLeave)
        report(I, Twine("branch out of a ") + blockName(B.K) + " (use leave)");
      else if (From && !To && IsLeave && B.K != Block::Try && B.K != Block::Catch)
        report(I, Twine("leave out of a ") + blockName(B.K));
    }
    if (TK > 0 && Order[TK - 1]->info().isPrefix())
      report(I, Twine("branch to an instruction that follows the prefix ") +
                    Order[TK - 1]->info().Name + " (branch to the prefix)");
  }

  /// Control does not fall into or out of a handler (or filter).
  void checkFallThrough() {
    for (const Block &B : Blocks) {
      if (!B.isHandler())
        continue;
      if (B.Begin > 0 && fallsThrough(*Order[B.Begin - 1]))
        report(B.Begin - 1, Twine("control falls through into a ") + blockName(B.K));
      if (fallsThrough(*Order[B.End - 1]))
        report(B.End - 1, Twine("control falls through out of a ") + blockName(B.K));
    }
  }

  /// What may follow each prefix (ECMA-335 III.2), and what must follow a tail call.
  void checkPrefixes() {
    for (uint32_t K = 0; K < Order.size(); ++K) {
      const Instr *I = Order[K];
      if (I->info().isPrefix())
        checkPrefix(K);
      else if (isTailCall(Order, K))
        checkTailCall(K);
    }
  }

  /// A tail call hands the method's frame over: it is followed by ret, nothing but its arguments
  /// is on the stack, and it returns a value exactly when the method does.
  void checkTailCall(uint32_t K) {
    const Instr *I = Order[K];
    if (K + 1 >= Order.size() || Order[K + 1]->Op != Opcode::Ret)
      report(I, Twine("the tail call ") + I->info().Name + " is not followed by ret");
    int Pop = 0, Push = 0;
    if (!stackEffect(*I, Shapes, returnsValue(), Pop, Push))
      return; // reported with the stack
    int Depth = Stack.DepthIn[K];
    if (Depth > Pop)
      report(I, Twine("a tail call with ") + values(Depth - Pop) +
                    " on the stack beneath its arguments");
    if (Own && (Push == 1) != returnsValue())
      report(I, Twine("a tail call of a method that returns ") + (Push ? "a value" : "nothing") +
                    " from one that returns " + (returnsValue() ? "a value" : "nothing"));
  }

  void checkPrefix(uint32_t K) {
    const Instr *I = Order[K];
    if (K + 1 >= Order.size()) {
      report(I, Twine("the prefix ") + I->info().Name + " ends the code");
      return;
    }
    const Instr *Next = Order[K + 1];
    if (!prefixMayPrecede(I->Op, Next->Op)) {
      report(I, Twine("the prefix ") + I->info().Name + " cannot precede " + Next->info().Name);
      return;
    }
    if (I->Op == Opcode::Unaligned && I->Int != 1 && I->Int != 2 && I->Int != 4)
      report(I, "unaligned. " + Twine(I->Int) + ": the alignment must be 1, 2 or 4");
    if (I->Op == Opcode::Constrained && (Next->Op == Opcode::Call || Next->Op == Opcode::Ldftn)) {
      // Only a static virtual method is called (or loaded) through a constrained type.
      std::optional<CallShape> Target = Shapes.shapeOf(Next->Token);
      if (Target && Target->HasThis)
        report(I, Twine("constrained. before ") + Next->info().Name +
                      " of an instance method (only callvirt takes it then)");
    }
  }

  /// No exception region starts or ends between a prefix and its instruction.
  void checkBoundaries() {
    for (const ExceptionRegion &R : Body.Regions)
      for (const Instr *B : {R.TryStart, R.TryEnd, R.HandlerStart, R.HandlerEnd, R.FilterStart}) {
        uint32_t K = pos(B);
        if (K > 0 && K < Order.size() && Order[K - 1]->info().isPrefix())
          report(Order[K - 1], "an exception region starts or ends right after this prefix");
      }
  }

  const Module &M;
  uint32_t Row;
  const MethodBody &Body;
  const std::vector<Instr *> &Order;
  uint16_t DeclaredMaxStack;
  const CallShapeSource &Shapes;
  std::vector<Diagnostic> &Out;
  const Editor *Edits;
  Token MethodToken;
  std::string Name;
  std::optional<CallShape> Own; // the method's own signature
  DenseMap<const Instr *, uint32_t> IndexOf;
  uint32_t Locals = 0;
  StackInfo Stack;
  std::vector<Block> Blocks;
};

} // namespace

void verifyBody(const Module &M, uint32_t Row, const MethodBody &Body, uint16_t DeclaredMaxStack,
                const CallShapeSource &Shapes, std::vector<Diagnostic> &Out, const Editor *Edits) {
  BodyChecker(M, Row, Body, DeclaredMaxStack, Shapes, Out, Edits).run();
}

void verifySortedTables(const Module &M, std::vector<Diagnostic> &Out) {
  for (const SortKey &K : sortKeys()) {
    uint32_t Rows = M.rowCount(K.Table);
    for (uint32_t R = 2; R <= Rows; ++R) {
      uint32_t Prev = M.get(K.Table, R - 1, K.Primary), Cur = M.get(K.Table, R, K.Primary);
      bool Bad = Cur < Prev;
      if (!Bad && Cur == Prev && K.Secondary >= 0)
        Bad =
            M.get(K.Table, R, unsigned(K.Secondary)) < M.get(K.Table, R - 1, unsigned(K.Secondary));
      if (Bad) {
        Out.push_back({0, 0xFFFFFFFF, "table " + tableName(K.Table).str(),
                       "row " + std::to_string(R) +
                           " is out of order (the table must be sorted by " +
                           tableSpec(K.Table).Columns[K.Primary].Name + ")"});
        break;
      }
    }
  }
}

VerifyResult verifyModule(const pe::Image &Img, const Module &M) {
  VerifyResult Result;
  verifySortedTables(M, Result.Problems);
  ModuleCallShapes Shapes(M);
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    Expected<std::optional<RawMethodBody>> Raw = readMethodDefBody(Img, M, R);
    if (Raw && !*Raw)
      continue;
    ++Result.MethodsChecked;
    size_t Before = Result.Problems.size();
    if (!Raw) {
      Result.Problems.push_back({makeToken(TableId::MethodDef, R), 0xFFFFFFFF, methodName(M, R),
                                 toString(Raw.takeError())});
    } else if (Expected<MethodBody> Body = MethodBody::decode(**Raw); !Body) {
      Result.Problems.push_back({makeToken(TableId::MethodDef, R), 0xFFFFFFFF, methodName(M, R),
                                 toString(Body.takeError())});
    } else {
      verifyBody(M, R, *Body, (*Raw)->MaxStack, Shapes, Result.Problems);
    }
    if (Result.Problems.size() != Before)
      ++Result.MethodsWithProblems;
  }
  return Result;
}

} // namespace weft::analysis
