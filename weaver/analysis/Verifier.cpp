//===- weaver/analysis/Verifier.cpp - Is this module well formed? ---------===//
#include "weaver/analysis/Verifier.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "support/Format.h"
#include "weaver/analysis/StackDepth.h"
#include "weaver/il/BodyReader.h"
#include "weaver/il/CallShapes.h"
#include "weaver/il/MethodBody.h"

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

bool fallsThrough(const Instr &I) {
  switch (I.info().Flow) {
  case FlowKind::Branch:
  case FlowKind::Return:
  case FlowKind::Throw: return false;
  default: return true;
  }
}

} // namespace

void verifyBody(const Module &M, uint32_t Row, const MethodBody &Body, uint16_t DeclaredMaxStack,
                const CallShapeSource &Shapes, std::vector<Diagnostic> &Out, const Editor *Edits) {
  Token MethodToken = makeToken(TableId::MethodDef, Row);
  std::string Name = methodName(M, Row);
  const std::vector<Instr *> &Order = Body.instructions();
  auto Report = [&](const Instr *I, const Twine &What) {
    Out.push_back({MethodToken, I ? I->OriginalOffset : 0xFFFFFFFF, Name, What.str()});
  };

  auto ValidToken = [&](Token T) {
    if (!Edits)
      return M.isValidToken(T);
    unsigned Table = T >> 24;
    return Table < metadata::MaxTables && tokenRow(T) >= 1 &&
           tokenRow(T) <= Edits->rowCount(TableId(Table));
  };
  // The method's own signature and locals.
  std::optional<CallShape> Own = Shapes.shapeOf(MethodToken);
  uint32_t Args = Own ? Own->Params + (Own->HasThis ? 1 : 0) : 0;
  uint32_t Locals = 0;
  if (Body.LocalVarSigToken) {
    Token LT = Body.LocalVarSigToken;
    if (tokenTable(LT) != TableId::StandAloneSig || !ValidToken(LT)) {
      Report(nullptr, "local variable signature token " + hex(LT) + " is not a StandAloneSig row");
    } else if (Edits) {
      uint32_t Blob = Edits->get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
      Expected<std::vector<TypeSig>> L = decodeLocalsSig(Edits->getBlob(Blob), 0);
      if (L)
        Locals = uint32_t(L->size());
      else
        Report(nullptr, toString(L.takeError()));
    } else {
      uint32_t Blob = M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
      Expected<std::vector<TypeSig>> L =
          decodeLocalsSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
      if (L)
        Locals = uint32_t(L->size());
      else
        Report(nullptr, toString(L.takeError()));
    }
  }

  DenseMap<const Instr *, uint32_t> IndexOf;
  for (uint32_t K = 0; K < Order.size(); ++K)
    IndexOf[Order[K]] = K;
  auto Pos = [&](const Instr *I) -> uint32_t {
    if (!I)
      return uint32_t(Order.size());
    auto It = IndexOf.find(I);
    return It == IndexOf.end() ? uint32_t(Order.size()) : It->second;
  };

  // Operands: locals, arguments, tokens, strings.
  for (const Instr *I : Order) {
    const OpcodeInfo &Info = I->info();
    uint32_t Local = 0xFFFFFFFF, Arg = 0xFFFFFFFF;
    switch (I->Op) {
    case Opcode::Ldloc_0:
    case Opcode::Stloc_0: Local = 0; break;
    case Opcode::Ldloc_1:
    case Opcode::Stloc_1: Local = 1; break;
    case Opcode::Ldloc_2:
    case Opcode::Stloc_2: Local = 2; break;
    case Opcode::Ldloc_3:
    case Opcode::Stloc_3: Local = 3; break;
    case Opcode::Ldloc_S:
    case Opcode::Ldloca_S:
    case Opcode::Stloc_S:
    case Opcode::Ldloc:
    case Opcode::Ldloca:
    case Opcode::Stloc: Local = I->Index; break;
    case Opcode::Ldarg_0: Arg = 0; break;
    case Opcode::Ldarg_1: Arg = 1; break;
    case Opcode::Ldarg_2: Arg = 2; break;
    case Opcode::Ldarg_3: Arg = 3; break;
    case Opcode::Ldarg_S:
    case Opcode::Ldarga_S:
    case Opcode::Starg_S:
    case Opcode::Ldarg:
    case Opcode::Ldarga:
    case Opcode::Starg: Arg = I->Index; break;
    default: break;
    }
    if (Local != 0xFFFFFFFF && Local >= Locals)
      Report(I, Twine(Info.Name) + " uses local " + Twine(Local) + " but the method has " +
                    Twine(Locals) + " locals");
    if (Arg != 0xFFFFFFFF && Own && Arg >= Args)
      Report(I, Twine(Info.Name) + " uses argument " + Twine(Arg) + " but the method has " +
                    Twine(Args) + " arguments");
    switch (Info.Operand) {
    case OperandKind::Method:
    case OperandKind::Field:
    case OperandKind::Type:
    case OperandKind::Tok:
    case OperandKind::Sig:
      if (!operandTokenAllowed(Info.Operand, tokenTable(I->Token)) || !ValidToken(I->Token))
        Report(I, Twine(Info.Name) + " has token " + hex(I->Token) +
                      ", which does not name a row of a table it accepts");
      break;
    case OperandKind::String:
      if ((I->Token >> 24) != UserStringTokenType)
        Report(I, "ldstr has token " + hex(I->Token) + ", which is not a user string");
      else if (Edits && (I->Token & 0xFFFFFF) >= M.streamBytes("#US").size())
        ; // added by the editor, which wrote it well formed
      else if (Expected<UserString> S = M.getUserString(I->Token & 0xFFFFFF); !S)
        Report(I, toString(S.takeError()));
      break;
    default: break;
    }
  }

  // Stack depths.
  StackInfo Stack = analyzeStack(Body, Shapes, Own && Own->ReturnsValue);
  for (const StackProblem &P : Stack.Problems)
    Report(P.Index < Order.size() ? Order[P.Index] : nullptr, P.What);
  if (Stack.MaxStack > DeclaredMaxStack)
    Report(nullptr, "the stack grows to " + Twine(Stack.MaxStack) + " values but .maxstack is " +
                        Twine(DeclaredMaxStack));

  // Exception regions: blocks, nesting, order.
  std::vector<Block> Blocks;
  for (uint32_t R = 0; R < Body.Regions.size(); ++R) {
    const ExceptionRegion &E = Body.Regions[R];
    uint32_t TB = Pos(E.TryStart), TE = Pos(E.TryEnd), HB = Pos(E.HandlerStart),
             HE = Pos(E.HandlerEnd);
    auto RegionError = [&](const Twine &What) {
      Report(E.TryStart, "exception clause " + Twine(R) + ": " + What);
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
      uint32_t FB = Pos(E.FilterStart);
      if (FB >= HB)
        RegionError("the filter does not come before its handler");
      else
        Blocks.push_back({FB, HB, Block::FilterCode, R});
    }
  }
  for (size_t A = 0; A < Blocks.size(); ++A)
    for (size_t B = A + 1; B < Blocks.size(); ++B) {
      const Block &X = Blocks[A], &Y = Blocks[B];
      bool Disjoint = X.End <= Y.Begin || Y.End <= X.Begin;
      bool XinY = Y.Begin <= X.Begin && X.End <= Y.End;
      bool YinX = X.Begin <= Y.Begin && Y.End <= X.End;
      if (!Disjoint && !XinY && !YinX)
        Report(Order[std::max(X.Begin, Y.Begin)],
               Twine("the ") + blockName(X.K) + " of clause " + Twine(X.Region) + " and the " +
                   blockName(Y.K) + " of clause " + Twine(Y.Region) +
                   " overlap without one containing the other");
      // A clause whose try block lies inside another clause's block must come first.
      if (X.Region != Y.Region && !(X.Begin == Y.Begin && X.End == Y.End)) {
        const Block &Inner = XinY ? X : Y, &Outer = XinY ? Y : X;
        if ((XinY || YinX) && Inner.K == Block::Try && Inner.Region > Outer.Region)
          Report(Order[Inner.Begin], "exception clause " + Twine(Inner.Region) +
                                         " is nested in clause " + Twine(Outer.Region) +
                                         " but comes after it");
      }
    }

  // Where instructions may be, and what may flow where.
  auto Innermost = [&](uint32_t I, bool HandlersOnly) -> const Block * {
    const Block *Best = nullptr;
    for (const Block &B : Blocks)
      if (B.contains(I) && (!HandlersOnly || B.isHandler()) &&
          (!Best || B.End - B.Begin < Best->End - Best->Begin))
        Best = &B;
    return Best;
  };
  for (uint32_t K = 0; K < Order.size(); ++K) {
    const Instr *I = Order[K];
    const Block *In = Innermost(K, false);
    switch (I->Op) {
    case Opcode::Endfinally:
      if (!In || (In->K != Block::Finally && In->K != Block::Fault))
        Report(I, "endfinally outside a finally or fault handler");
      break;
    case Opcode::Endfilter:
      if (!In || In->K != Block::FilterCode)
        Report(I, "endfilter outside a filter");
      else if (K + 1 != In->End)
        Report(I, "endfilter is not the last instruction of its filter");
      break;
    case Opcode::Rethrow: {
      const Block *H = Innermost(K, true);
      if (!H || H->K != Block::Catch)
        Report(I, "rethrow outside a catch handler");
      break;
    }
    case Opcode::Ret:
      if (In)
        Report(I, Twine("ret inside a ") + blockName(In->K) + " (use leave)");
      break;
    default: break;
    }
    // Branches may not enter a block except at the start of a try, nor leave one but by leave.
    auto CheckTarget = [&](const Instr *T) {
      uint32_t TK = Pos(T);
      if (TK >= Order.size())
        return;
      bool IsLeave = I->Op == Opcode::Leave || I->Op == Opcode::Leave_S;
      for (const Block &B : Blocks) {
        bool From = B.contains(K), To = B.contains(TK);
        if (To && !From && !(B.K == Block::Try && TK == B.Begin))
          Report(I, Twine("branch into the middle of a ") + blockName(B.K));
        else if (From && !To && !IsLeave)
          Report(I, Twine("branch out of a ") + blockName(B.K) + " (use leave)");
        else if (From && !To && IsLeave && B.K != Block::Try && B.K != Block::Catch)
          Report(I, Twine("leave out of a ") + blockName(B.K));
      }
    };
    if (I->info().isBranch())
      CheckTarget(I->Target);
    else if (I->Op == Opcode::Switch)
      for (const Instr *T : I->Targets)
        CheckTarget(T);
  }
  // Control does not fall into or out of a handler (or filter).
  for (const Block &B : Blocks) {
    if (!B.isHandler())
      continue;
    if (B.Begin > 0 && fallsThrough(*Order[B.Begin - 1]))
      Report(Order[B.Begin - 1], Twine("control falls through into a ") + blockName(B.K));
    if (fallsThrough(*Order[B.End - 1]))
      Report(Order[B.End - 1], Twine("control falls through out of a ") + blockName(B.K));
  }
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
