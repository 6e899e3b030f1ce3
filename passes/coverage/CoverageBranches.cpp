//===- passes/coverage/CoverageBranches.cpp - Branch points as coverlet counts -===//
#include "passes/coverage/CoverageBranches.h"

#include "metadata/CustomAttribute.h"
#include "metadata/Signature.h"
#include "passes/coverage/CoverageJumps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <string>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

using il::Opcode;

constexpr StringLiteral CompilerGeneratedAttribute =
    "System.Runtime.CompilerServices.CompilerGeneratedAttribute";

/// Reads a compressed unsigned integer of a signature blob.
bool readCompressed(ArrayRef<uint8_t> &B, uint32_t &V) {
  if (B.empty())
    return false;
  uint8_t B0 = B[0];
  if ((B0 & 0x80) == 0) {
    V = B0;
    B = B.drop_front(1);
  } else if ((B0 & 0xC0) == 0x80 && B.size() >= 2) {
    V = (uint32_t(B0 & 0x3F) << 8) | B[1];
    B = B.drop_front(2);
  } else if ((B0 & 0xE0) == 0xC0 && B.size() >= 4) {
    V = (uint32_t(B0 & 0x1F) << 24) | (uint32_t(B[1]) << 16) | (uint32_t(B[2]) << 8) | B[3];
    B = B.drop_front(4);
  } else {
    return false;
  }
  return true;
}

/// A TypeDefOrRefEncoded value as a token.
Token typeDefOrRef(uint32_t Coded) {
  static const TableId Tables[] = {TableId::TypeDef, TableId::TypeRef, TableId::TypeSpec};
  if ((Coded & 3) == 3)
    return 0;
  return makeToken(Tables[Coded & 3], Coded >> 2);
}

/// The names of types and members as coverlet's Cecil spells them (FullName), as far as its
/// rules look at them.
class Names {
public:
  explicit Names(const Module &M) : M(M) {}

  /// "Ns.Type", nested "Ns.Outer/Inner", a generic instance "Ns.Type`1<Arg>".
  std::string type(Token T, unsigned Depth = 0) const {
    if (!M.isValidToken(T) || Depth > 32)
      return "";
    uint32_t Row = tokenRow(T);
    switch (tokenTable(T)) {
    case TableId::TypeDef: {
      std::string Name = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)).str();
      if (uint32_t Outer = M.enclosingType(Row))
        return type(makeToken(TableId::TypeDef, Outer), Depth + 1) + "/" + Name;
      return qualify(M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)), Name);
    }
    case TableId::TypeRef: {
      std::string Name = M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName)).str();
      Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
      if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope))
        return type(Scope, Depth + 1) + "/" + Name;
      return qualify(M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)), Name);
    }
    case TableId::TypeSpec: {
      ArrayRef<uint8_t> B = M.getBlob(M.get(TableId::TypeSpec, Row, TypeSpecCol::Signature));
      return sigType(B, Depth + 1);
    }
    default: return "";
    }
  }

  /// The name of the assembly (or module) a type is from, as Cecil's TypeReference.Scope.Name.
  std::string scope(Token T, unsigned Depth = 0) const {
    if (!M.isValidToken(T) || Depth > 32)
      return "";
    switch (tokenTable(T)) {
    case TableId::TypeDef:
      return M.rowCount(TableId::Module)
                 ? M.getString(M.get(TableId::Module, 1, ModuleCol::Name)).str()
                 : "";
    case TableId::TypeRef: {
      Token S = M.getToken(TableId::TypeRef, tokenRow(T), TypeRefCol::ResolutionScope);
      if (!M.isValidToken(S))
        return "";
      switch (tokenTable(S)) {
      case TableId::AssemblyRef:
        return M.getString(M.get(TableId::AssemblyRef, tokenRow(S), AssemblyRefCol::Name)).str();
      case TableId::ModuleRef:
        return M.getString(M.get(TableId::ModuleRef, tokenRow(S), ModuleRefCol::Name)).str();
      case TableId::TypeRef: return scope(S, Depth + 1);
      default: return scope(makeToken(TableId::TypeDef, 1), Depth + 1);
      }
    }
    case TableId::TypeSpec: {
      // A generic instance is from where its generic type is.
      ArrayRef<uint8_t> B =
          M.getBlob(M.get(TableId::TypeSpec, tokenRow(T), TypeSpecCol::Signature));
      uint32_t Coded;
      if (B.size() >= 2 && B[0] == uint8_t(ElementType::GenericInst)) {
        B = B.drop_front(2);
        if (readCompressed(B, Coded))
          return scope(typeDefOrRef(Coded), Depth + 1);
      }
      return "";
    }
    default: return "";
    }
  }

  /// Whether the type row carries [CompilerGenerated] itself.
  bool compilerGenerated(uint32_t TypeRow) const {
    return TypeRow && markedGenerated(makeToken(TableId::TypeDef, TypeRow));
  }
  /// Whether a method or type carries [CompilerGenerated] itself.
  bool markedGenerated(Token Parent) const {
    for (uint32_t Row : M.customAttributes(Parent)) {
      Token Ctor = M.getToken(TableId::CustomAttribute, Row, CustomAttributeCol::Type);
      if (type(customAttributeType(M, Ctor)) == CompilerGeneratedAttribute)
        return true;
    }
    return false;
  }

  /// Whether the type or a type enclosing it carries [CompilerGenerated].
  bool compilerGeneratedOrEnclosed(uint32_t TypeRow) const {
    for (unsigned Depth = 0; TypeRow && Depth < 64; TypeRow = M.enclosingType(TypeRow), ++Depth)
      if (compilerGenerated(TypeRow))
        return true;
    return false;
  }

  /// Whether the type row lists an interface whose name \p Pred accepts.
  bool implements(uint32_t TypeRow, function_ref<bool(StringRef)> Pred) const {
    for (uint32_t Row : M.interfaceImpls(TypeRow))
      if (Pred(type(M.getToken(TableId::InterfaceImpl, Row, InterfaceImplCol::Interface))))
        return true;
    return false;
  }

  struct Member {
    StringRef Name;
    Token Parent = 0; // the declaring type (TypeDef, TypeRef or TypeSpec), 0 if none
    ArrayRef<uint8_t> Sig;
    uint32_t FieldRow = 0; // a field: its Field row, when it is defined in this module
    bool IsDefinition = false;
  };

  /// A method operand (MethodDef, MemberRef, MethodSpec of either).
  std::optional<Member> method(Token T) const {
    if (!M.isValidToken(T))
      return std::nullopt;
    uint32_t Row = tokenRow(T);
    switch (tokenTable(T)) {
    case TableId::MethodDef:
      return Member{M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)),
                    makeToken(TableId::TypeDef, M.declaringTypeOfMethod(Row)),
                    M.getBlob(M.get(TableId::MethodDef, Row, MethodDefCol::Signature)), 0, true};
    case TableId::MemberRef:
      return Member{M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)),
                    M.getToken(TableId::MemberRef, Row, MemberRefCol::Class),
                    M.getBlob(M.get(TableId::MemberRef, Row, MemberRefCol::Signature)), 0, false};
    case TableId::MethodSpec:
      return method(M.getToken(TableId::MethodSpec, Row, MethodSpecCol::Method));
    default: return std::nullopt;
    }
  }

  /// A field operand: a Field row, or a MemberRef (resolved to the Field row when its type is
  /// this module's, as Cecil's Resolve does).
  std::optional<Member> field(Token T) const {
    if (!M.isValidToken(T))
      return std::nullopt;
    uint32_t Row = tokenRow(T);
    if (tokenTable(T) == TableId::Field)
      return Member{M.getString(M.get(TableId::Field, Row, FieldCol::Name)),
                    makeToken(TableId::TypeDef, M.declaringTypeOfField(Row)),
                    M.getBlob(M.get(TableId::Field, Row, FieldCol::Signature)), Row, true};
    if (tokenTable(T) != TableId::MemberRef)
      return std::nullopt;
    Member F{M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)),
             M.getToken(TableId::MemberRef, Row, MemberRefCol::Class),
             M.getBlob(M.get(TableId::MemberRef, Row, MemberRefCol::Signature)), 0, false};
    if (uint32_t Owner = localType(F.Parent))
      for (uint32_t I : M.typeFields(Owner)) {
        uint32_t FieldRow = M.field(I);
        if (M.getString(M.get(TableId::Field, FieldRow, FieldCol::Name)) == F.Name) {
          F.FieldRow = FieldRow;
          break;
        }
      }
    return F;
  }

  /// The TypeDef row of \p T, or of the generic type it instantiates, if it is this module's.
  uint32_t localType(Token T) const {
    if (!M.isValidToken(T))
      return 0;
    if (tokenTable(T) == TableId::TypeDef)
      return tokenRow(T);
    if (tokenTable(T) == TableId::TypeSpec) {
      ArrayRef<uint8_t> B =
          M.getBlob(M.get(TableId::TypeSpec, tokenRow(T), TypeSpecCol::Signature));
      uint32_t Coded;
      if (B.size() >= 2 && B[0] == uint8_t(ElementType::GenericInst)) {
        B = B.drop_front(2);
        if (readCompressed(B, Coded) && tokenTable(typeDefOrRef(Coded)) == TableId::TypeDef)
          return tokenRow(typeDefOrRef(Coded));
      }
    }
    return 0;
  }

  /// The type of a field signature (FIELD, custom modifiers, type).
  std::string fieldType(ArrayRef<uint8_t> Sig) const {
    if (Sig.empty() || Sig[0] != 0x06)
      return "";
    Sig = Sig.drop_front();
    return sigType(Sig, 0);
  }

  /// The return type of a method signature.
  std::string returnType(ArrayRef<uint8_t> Sig) const {
    if (Sig.empty())
      return "";
    uint8_t Conv = Sig[0];
    Sig = Sig.drop_front();
    uint32_t N;
    if ((Conv & 0x10) && !readCompressed(Sig, N))
      return "";
    if (!readCompressed(Sig, N))
      return "";
    return sigType(Sig, 0);
  }

  /// The number of parameters of a method signature.
  static uint32_t paramCount(ArrayRef<uint8_t> Sig) {
    if (Sig.empty())
      return 0;
    uint8_t Conv = Sig[0];
    Sig = Sig.drop_front();
    uint32_t N = 0;
    if ((Conv & 0x10) && !readCompressed(Sig, N))
      return 0;
    return readCompressed(Sig, N) ? N : 0;
  }

private:
  static std::string qualify(StringRef Ns, StringRef Name) {
    return Ns.empty() ? Name.str() : (Ns + "." + Name).str();
  }

  /// Reads one type of a signature blob and names it.
  std::string sigType(ArrayRef<uint8_t> &B, unsigned Depth) const {
    if (B.empty() || Depth > 32)
      return "";
    auto E = ElementType(B[0]);
    B = B.drop_front();
    uint32_t V = 0;
    switch (E) {
    case ElementType::CModReqd:
    case ElementType::CModOpt:
      if (!readCompressed(B, V))
        return "";
      return sigType(B, Depth + 1);
    case ElementType::Class:
    case ElementType::ValueType:
      return readCompressed(B, V) ? type(typeDefOrRef(V), Depth + 1) : "";
    case ElementType::SZArray: return sigType(B, Depth + 1) + "[]";
    case ElementType::ByRef: return sigType(B, Depth + 1) + "&";
    case ElementType::Ptr: return sigType(B, Depth + 1) + "*";
    case ElementType::Var:
    case ElementType::MVar: return readCompressed(B, V) ? "!" + std::to_string(V) : "";
    case ElementType::GenericInst: {
      if (B.empty())
        return "";
      B = B.drop_front(); // CLASS or VALUETYPE
      uint32_t Count;
      if (!readCompressed(B, V) || !readCompressed(B, Count))
        return "";
      std::string S = type(typeDefOrRef(V), Depth + 1) + "<";
      for (uint32_t I = 0; I < Count && !B.empty(); ++I)
        S += (I ? "," : "") + sigType(B, Depth + 1);
      return S + ">";
    }
    default:
      if (const char *Name = primitiveFullName(E))
        return Name;
      return "";
    }
  }

  const Module &M;
};

/// The instructions of the compiler's code in order, with the facts coverlet's rules ask of them
/// in the forms they have after Cecil's SimplifyMacros (ldloc.0 is ldloc 0, brtrue.s is brtrue).
class Code {
public:
  explicit Code(const il::MethodBody &B) {
    for (const il::Instr *I : B.instructions())
      if (I->OriginalOffset != il::NoOffset) {
        IndexOf[I] = Ins.size();
        Ins.push_back(I);
      }
  }

  size_t size() const { return Ins.size(); }
  /// Instruction \p I; past either end, a fault (coverlet's rule then throws, and coverlet skips
  /// the branch it was looking at) and a nop.
  const il::Instr &at(ptrdiff_t I) const {
    if (I < 0 || size_t(I) >= Ins.size()) {
      Fault = true;
      return Dummy;
    }
    return *Ins[size_t(I)];
  }
  Opcode op(ptrdiff_t I) const { return simple(at(I).Op); }
  uint32_t offset(ptrdiff_t I) const { return at(I).OriginalOffset; }
  /// The position of \p I, or -1 if it is not original code.
  ptrdiff_t indexOf(const il::Instr *I) const {
    auto It = IndexOf.find(I);
    return It == IndexOf.end() ? -1 : ptrdiff_t(It->second);
  }
  /// The position of the instruction at original offset \p Offset, or -1.
  ptrdiff_t atOffset(uint32_t Offset) const {
    auto It =
        llvm::partition_point(Ins, [&](const il::Instr *I) { return I->OriginalOffset < Offset; });
    return It != Ins.end() && (*It)->OriginalOffset == Offset ? It - Ins.begin() : -1;
  }

  /// The macro-free form of an opcode.
  static Opcode simple(Opcode Op) {
    unsigned O = unsigned(Op);
    if (O >= unsigned(Opcode::Br_S) && O <= unsigned(Opcode::Blt_Un_S))
      return Opcode(O - unsigned(Opcode::Br_S) + unsigned(Opcode::Br));
    switch (Op) {
    case Opcode::Ldarg_0:
    case Opcode::Ldarg_1:
    case Opcode::Ldarg_2:
    case Opcode::Ldarg_3:
    case Opcode::Ldarg_S: return Opcode::Ldarg;
    case Opcode::Ldloc_0:
    case Opcode::Ldloc_1:
    case Opcode::Ldloc_2:
    case Opcode::Ldloc_3:
    case Opcode::Ldloc_S: return Opcode::Ldloc;
    case Opcode::Stloc_0:
    case Opcode::Stloc_1:
    case Opcode::Stloc_2:
    case Opcode::Stloc_3:
    case Opcode::Stloc_S: return Opcode::Stloc;
    case Opcode::Ldarga_S: return Opcode::Ldarga;
    case Opcode::Starg_S: return Opcode::Starg;
    case Opcode::Ldloca_S: return Opcode::Ldloca;
    case Opcode::Leave_S: return Opcode::Leave;
    case Opcode::Ldc_I4_M1:
    case Opcode::Ldc_I4_0:
    case Opcode::Ldc_I4_1:
    case Opcode::Ldc_I4_2:
    case Opcode::Ldc_I4_3:
    case Opcode::Ldc_I4_4:
    case Opcode::Ldc_I4_5:
    case Opcode::Ldc_I4_6:
    case Opcode::Ldc_I4_7:
    case Opcode::Ldc_I4_8:
    case Opcode::Ldc_I4_S: return Opcode::Ldc_I4;
    default: return Op;
    }
  }
  /// The value an ldc.i4 form pushes.
  static int64_t ldcValue(const il::Instr &I) {
    unsigned O = unsigned(I.Op);
    if (O >= unsigned(Opcode::Ldc_I4_M1) && O <= unsigned(Opcode::Ldc_I4_8))
      return int64_t(O) - int64_t(unsigned(Opcode::Ldc_I4_0));
    return I.Int;
  }
  /// The local an ldloc or stloc form names.
  static uint32_t localIndex(const il::Instr &I) {
    switch (I.Op) {
    case Opcode::Ldloc_0:
    case Opcode::Stloc_0: return 0;
    case Opcode::Ldloc_1:
    case Opcode::Stloc_1: return 1;
    case Opcode::Ldloc_2:
    case Opcode::Stloc_2: return 2;
    case Opcode::Ldloc_3:
    case Opcode::Stloc_3: return 3;
    default: return I.Index;
    }
  }

  mutable bool Fault = false;

private:
  std::vector<const il::Instr *> Ins;
  DenseMap<const il::Instr *, size_t> IndexOf;
  il::Instr Dummy;
};

bool isRelational(Opcode Op) {
  switch (Op) {
  case Opcode::Blt:
  case Opcode::Bgt:
  case Opcode::Ble:
  case Opcode::Bge:
  case Opcode::Blt_Un:
  case Opcode::Bgt_Un:
  case Opcode::Ble_Un:
  case Opcode::Bge_Un: return true;
  default: return false;
  }
}

class Analysis {
public:
  Analysis(const Module &M, uint32_t MethodRow, uint32_t TypeRow, const il::MethodBody &B,
           ArrayRef<pdb::SequencePoint> Points, CoverletRules Rules)
      : M(M), N(M), MethodRow(MethodRow), TypeRow(TypeRow), B(B), C(B), Rules(Rules) {
    for (const pdb::SequencePoint &P : Points) {
      AnyPoint.insert({P.ILOffset, true});
      if (!P.isHidden())
        Visible.push_back(&P);
    }
    // Only points at an instruction count (Cecil finds a point by its instruction).
    llvm::erase_if(Visible,
                   [&](const pdb::SequencePoint *P) { return C.atOffset(P->ILOffset) < 0; });
    llvm::stable_sort(Visible, [](const pdb::SequencePoint *A, const pdb::SequencePoint *B) {
      return A->ILOffset < B->ILOffset;
    });
    for (const pdb::SequencePoint *P : Visible)
      VisibleAt.insert({P->ILOffset, true});
  }

  std::vector<BranchOutcome> run();

private:
  // --- what kind of method ---
  bool isMoveNext() const {
    return M.getString(M.get(TableId::MethodDef, MethodRow, MethodDefCol::Name)) == "MoveNext" &&
           Names::paramCount(
               M.getBlob(M.get(TableId::MethodDef, MethodRow, MethodDefCol::Signature))) == 0;
  }
  bool isAsyncStateMachineMoveNext() const {
    return isMoveNext() && N.compilerGeneratedOrEnclosed(TypeRow) &&
           N.implements(TypeRow, [](StringRef I) {
             return I == "System.Runtime.CompilerServices.IAsyncStateMachine";
           });
  }
  bool isAsyncIteratorMoveNext() const {
    return N.implements(TypeRow, [](StringRef I) {
      return I.startswith("System.Collections.Generic.IAsyncEnumerator`1<");
    });
  }
  bool isEnumeratorMoveNext() const {
    return isMoveNext() && N.compilerGenerated(TypeRow) &&
           N.implements(TypeRow, [](StringRef I) { return I == "System.Collections.IEnumerator"; });
  }
  /// `ldarg.0; ldfld <>1__state; stloc.0` at the start.
  bool hasStatePrologue() const {
    if (C.size() < 3 || C.op(0) != Opcode::Ldarg || C.op(1) != Opcode::Ldfld)
      return false;
    std::optional<Names::Member> F = N.field(C.at(1).Token);
    return F && F->Name == "<>1__state" && C.op(2) == Opcode::Stloc &&
           Code::localIndex(C.at(2)) == 0;
  }

  // --- operands ---
  std::optional<Names::Member> fieldOf(ptrdiff_t I) const { return N.field(C.at(I).Token); }
  /// The field of an ldfld/stfld at \p I if its declaring type is [CompilerGenerated] (coverlet's
  /// IsCompilerGeneratedField).
  std::optional<Names::Member> generatedField(ptrdiff_t I) const {
    std::optional<Names::Member> F = fieldOf(I);
    if (!F || !F->FieldRow)
      return std::nullopt;
    if (!N.compilerGenerated(M.declaringTypeOfField(F->FieldRow)))
      return std::nullopt;
    // What the definition says.
    F->Sig = M.getBlob(M.get(TableId::Field, F->FieldRow, FieldCol::Signature));
    F->Name = M.getString(M.get(TableId::Field, F->FieldRow, FieldCol::Name));
    return F;
  }
  std::string generatedFieldType(const Names::Member &F) const { return N.fieldType(F.Sig); }
  bool isTypeOperand(ptrdiff_t I, StringRef Name) const {
    Token T = C.at(I).Token;
    return tokenTable(T) != TableId::TypeSpec && N.type(T) == Name;
  }
  /// A call's method named \p Name declared by a type whose name \p Type accepts.
  bool calls(ptrdiff_t I, StringRef Name, function_ref<bool(StringRef)> Type) const {
    std::optional<Names::Member> Me = N.method(C.at(I).Token);
    return Me && Me->Name == Name && Type(N.type(Me->Parent));
  }
  bool isDisposeAsync(ptrdiff_t I) const {
    std::optional<Names::Member> Me = N.method(C.at(I).Token);
    return C.op(I) == Opcode::Callvirt && Me && Me->Name == "DisposeAsync" &&
           N.returnType(Me->Sig) == "System.Threading.Tasks.ValueTask";
  }
  bool isDispatchInfoThrow(ptrdiff_t I) const {
    std::optional<Names::Member> Me = N.method(C.at(I).Token);
    return C.op(I) == Opcode::Callvirt && Me && Me->Name == "Throw" &&
           N.type(Me->Parent) == "System.Runtime.ExceptionServices.ExceptionDispatchInfo" &&
           N.returnType(Me->Sig) == "System.Void" && Names::paramCount(Me->Sig) == 0;
  }

  // --- the rules that leave a branch out ---
  bool prologueBranch(ptrdiff_t I) const;
  bool awaiterCheck(ptrdiff_t I) const;
  bool expressionBreakpoint(ptrdiff_t I) const;
  bool cachedDelegate(ptrdiff_t I) const;
  bool catchBookkeeping(ptrdiff_t I);
  bool rethrowCheck(ptrdiff_t I) const;
  bool awaitForeach(ptrdiff_t I) const;
  bool awaitUsing(ptrdiff_t I) const;
  bool asyncTryFinally(ptrdiff_t I) const;
  bool asyncIteratorCheck(ptrdiff_t I) const;
  bool combinedTokens(ptrdiff_t I) const;
  bool inFilter(ptrdiff_t I) const;
  bool inHiddenFinally(ptrdiff_t I) const;
  bool relationalPattern(ptrdiff_t I) const;
  bool stringPatternOr(ptrdiff_t I) const;
  bool skipped(ptrdiff_t I, bool AsyncMoveNext, bool Prologue, bool AsyncIterator);

  // --- where outcomes lead and how they are counted ---
  uint32_t endOf(ptrdiff_t I) const;
  std::vector<uint32_t> statementsPassed(ptrdiff_t I) const;
  const pdb::SequencePoint *closestPoint(uint32_t Offset) const;
  bool countable(ptrdiff_t I, bool AsyncMoveNext) const;
  bool inRegion(uint32_t Offset) const;
  void markBypasses(std::vector<BranchOutcome> &Out) const;
  /// Makes a taken jump's hits a sum of counters (CoverageJumps.h).
  void countJumps(BranchOutcome &O) const;
  /// Whether control falls into instruction \p I from the one before it.
  bool fallsIn(ptrdiff_t I) const {
    if (I <= 0)
      return false;
    il::FlowKind F = C.at(I - 1).info().Flow;
    return F != il::FlowKind::Branch && F != il::FlowKind::Return && F != il::FlowKind::Throw;
  }
  const Module &M;
  Names N;
  uint32_t MethodRow, TypeRow;
  const il::MethodBody &B;
  Code C;
  CoverletRules Rules;
  mutable std::optional<JumpCounts> Jumps; // made for the first jump counted when taken
  std::vector<const pdb::SequencePoint *> Visible;
  DenseMap<uint32_t, bool> AnyPoint;  // offsets with a point, hidden or not
  DenseMap<uint32_t, bool> VisibleAt; // offsets with a visible point
  std::optional<std::vector<uint32_t>> CatchBranches;
  bool CatchBranchesFault = false;
};

bool Analysis::prologueBranch(ptrdiff_t I) const {
  // A branch on the state the method loaded into local 0 (at most three instructions before).
  for (ptrdiff_t J = I - 1, K = 3; K > 0 && J >= 1; --J, --K)
    if (C.op(J) == Opcode::Ldloc && Code::localIndex(C.at(J)) == 0)
      return true;
  return false;
}

bool Analysis::awaiterCheck(ptrdiff_t I) const {
  std::optional<Names::Member> Me = N.method(C.at(I - 1).Token);
  if (!Me || Me->Name != "get_IsCompleted")
    return false;
  std::string Type = N.type(Me->Parent);
  StringRef T(Type);
  if (!T.startswith("System.Runtime.CompilerServices.TaskAwaiter") &&
      !T.startswith("System.Runtime.CompilerServices.ValueTaskAwaiter") &&
      !T.startswith("System.Runtime.CompilerServices.ConfiguredTaskAwaitable") &&
      !T.startswith("System.Runtime.CompilerServices.ConfiguredValueTaskAwaitable"))
    return false;
  std::string Scope = N.scope(Me->Parent);
  static constexpr StringLiteral Scopes[] = {"System.Runtime", "netstandard", "mscorlib",
                                             "System.Threading.Tasks",
                                             "System.Threading.Tasks.Extensions"};
  return is_contained(Scopes, StringRef(Scope));
}

bool Analysis::expressionBreakpoint(ptrdiff_t I) const {
  // `ldc.i4.1; brtrue L; nop; L:` around a statement the debugger may stop at.
  if (I < 1 || C.op(I - 1) != Opcode::Ldc_I4 || Code::ldcValue(C.at(I - 1)) != 1)
    return false;
  if (size_t(I) + 2 >= C.size() || C.op(I + 1) != Opcode::Nop)
    return false;
  return C.at(I).Target == &C.at(I + 2);
}

bool Analysis::cachedDelegate(ptrdiff_t I) const {
  // `ldsfld <cache>; dup; brtrue` where <cache> is a lambda's (<>9__...) or a method group's
  // (<N>__Name) delegate field of a compiler-generated type, defined in this module.
  for (ptrdiff_t J = I - 1, K = 2; K > 0 && J >= 1; --J, --K) {
    if (C.op(J) != Opcode::Ldsfld)
      continue;
    // coverlet 10.0.1 looks only at a field definition; 10.1.0 resolves a reference too (a
    // field of a generic class, reached through its instance).
    std::optional<Names::Member> F = fieldOf(J);
    if (!F || !F->FieldRow || (!F->IsDefinition && Rules == CoverletRules::V10_0) ||
        !N.compilerGenerated(M.declaringTypeOfField(F->FieldRow)))
      continue;
    StringRef Name = F->Name;
    if (Name.startswith("<>9_"))
      return true;
    if (Name.consume_front("<")) {
      size_t Digits = Name.find_first_not_of("0123456789");
      if (Digits != 0 && Digits != StringRef::npos && Name.substr(Digits).startswith(">__"))
        return true;
    }
  }
  return false;
}

bool Analysis::catchBookkeeping(ptrdiff_t I) {
  // In an async method, a catch block sets a local or field to its number; after the handler,
  // `ldloc; ldc.i4 K; beq/bne.un` picks the catch's code. Found once per method: from the end of
  // each handler (or run of adjacent handlers), the first beq/bne.un within five instructions.
  if (!CatchBranches) {
    CatchBranches.emplace();
    unsigned Catches = 1;
    for (const il::ExceptionRegion &R : B.Regions) {
      if (llvm::any_of(B.Regions, [&](const il::ExceptionRegion &O) {
            return O.HandlerStart == R.HandlerEnd;
          })) {
        ++Catches;
        continue;
      }
      ptrdiff_t At = R.HandlerEnd ? C.indexOf(R.HandlerEnd) : -1;
      if (At < 0) {
        CatchBranchesFault = true;
        break;
      }
      for (unsigned K = 0; K < Catches; ++K) {
        ptrdiff_t First = At;
        for (ptrdiff_t X = 1; X <= 5; ++X) {
          if (size_t(At + X) >= C.size()) {
            CatchBranchesFault = true;
            break;
          }
          if (C.op(At + X) == Opcode::Beq || C.op(At + X) == Opcode::Bne_Un) {
            First = At + X;
            break;
          }
        }
        if (CatchBranchesFault)
          break;
        if (ptrdiff_t(C.size()) - First > 2 && C.op(First - 1) == Opcode::Ldc_I4 &&
            C.op(First - 2) == Opcode::Ldloc)
          CatchBranches->push_back(C.offset(First));
        At = First;
      }
      if (CatchBranchesFault)
        break;
    }
  }
  if (CatchBranchesFault) {
    C.Fault = true; // coverlet's search fails for every branch of the method
    return true;
  }
  return is_contained(*CatchBranches, C.offset(I));
}

bool Analysis::rethrowCheck(ptrdiff_t I) const {
  // `isinst Exception; ...; brtrue; ldarg; ldfld; throw`: the null check of `throw;` in an async
  // catch.
  bool Isinst = false;
  for (ptrdiff_t X : {2, 3})
    if (I >= X && C.op(I - X) == Opcode::Isinst && isTypeOperand(I - X, "System.Exception"))
      Isinst = true;
  return Isinst && ptrdiff_t(C.size()) - I >= 3 && C.op(I + 1) == Opcode::Ldarg &&
         C.op(I + 2) == Opcode::Ldfld && C.op(I + 3) == Opcode::Throw;
}

bool Analysis::awaitForeach(ptrdiff_t I) const {
  Opcode Op = C.op(I);
  if (Op == Opcode::Brfalse) {
    // Was the async enumerator ever made (to dispose it)?
    if (I >= 2 && C.op(I - 2) == Opcode::Ldarg && C.op(I - 1) == Opcode::Ldfld)
      if (std::optional<Names::Member> F = generatedField(I - 1))
        if (StringRef(generatedFieldType(*F))
                .startswith("System.Collections.Generic.IAsyncEnumerator"))
          return true;
    // Did the last iteration throw (an object field loaded after an awaiter's GetResult)?
    for (ptrdiff_t J = I - 1; J >= std::max<ptrdiff_t>(0, I - 3); --J) {
      if (C.op(J) != Opcode::Ldfld)
        continue;
      std::optional<Names::Member> F = generatedField(J);
      if (!F || generatedFieldType(*F) != "System.Object")
        continue;
      for (ptrdiff_t K = J - 1; K >= std::max<ptrdiff_t>(0, J - 4); --K)
        if (C.op(K) == Opcode::Call && calls(K, "GetResult", [](StringRef T) {
              return T.startswith("System.Runtime.CompilerServices") && T.contains("TaskAwait");
            }))
          return true;
    }
  }
  if (Op == Opcode::Brtrue) {
    // Is what was thrown an Exception (`ldloc; isinst Exception`)?
    for (ptrdiff_t J = I - 1; J >= std::max<ptrdiff_t>(1, I - 3); --J)
      if (C.op(J) == Opcode::Isinst && isTypeOperand(J, "System.Exception") &&
          C.op(J - 1) == Opcode::Ldloc)
        return true;
  }
  return false;
}

bool Analysis::awaitUsing(ptrdiff_t I) const {
  Opcode Op = C.op(I);
  if (Op == Opcode::Brfalse) {
    // Skip DisposeAsync() when the resource is null: the value tested is loaded again and
    // disposed right after, and a compiler-generated field was stored before a leave just before.
    bool Disposed = false;
    if (C.op(I - 1) == Opcode::Ldfld) {
      std::optional<Names::Member> F = generatedField(I - 1);
      if (!F)
        return false;
      ptrdiff_t Last = std::min<ptrdiff_t>(I + 2, ptrdiff_t(C.size()) - 2);
      for (ptrdiff_t J = I + 1; J <= Last && !Disposed; ++J)
        if (C.op(J) == Opcode::Ldfld) {
          std::optional<Names::Member> G = generatedField(J);
          Disposed = G && G->FieldRow == F->FieldRow && isDisposeAsync(J + 1);
        }
    } else if (C.op(I - 1) == Opcode::Ldloc && C.op(I + 1) == Opcode::Ldloc &&
               isDisposeAsync(I + 2)) {
      Disposed = true;
    }
    if (Disposed)
      for (ptrdiff_t J = I - 1; J >= std::max<ptrdiff_t>(1, I - 4); --J)
        if (C.op(J) == Opcode::Leave && C.op(J - 1) == Opcode::Stfld && generatedField(J - 1))
          return true;
    return false;
  }
  if (Op == Opcode::Beq || Op == Opcode::Bne_Un) {
    // After ExceptionDispatchInfo.Throw(): `ldfld <generated>; ...; ldc.i4; beq`.
    if (I < 1 || C.op(I - 1) != Opcode::Ldc_I4)
      return false;
    for (ptrdiff_t J = I - 2; J >= std::max<ptrdiff_t>(1, I - 5); --J) {
      if (C.op(J) != Opcode::Ldfld || !generatedField(J))
        continue;
      for (ptrdiff_t K = J - 1; K >= std::max<ptrdiff_t>(0, J - 4); --K)
        if (C.op(K) == Opcode::Callvirt && calls(K, "Throw", [](StringRef T) {
              return T == "System.Runtime.ExceptionServices.ExceptionDispatchInfo";
            }))
          return true;
    }
  }
  return false;
}

bool Analysis::asyncTryFinally(ptrdiff_t I) const {
  // The exception-object check of an async try/finally: `ldarg.0; ldfld <>s__N (object or
  // Exception); [stloc; ldloc;] brfalse/brtrue`. (coverlet's other pattern here compares with
  // ldc.i4.1, a form it has expanded by then, so it never applies.)
  if (B.Regions.empty() || I < 2)
    return false;
  Opcode Op = C.op(I);
  if (Op != Opcode::Brfalse && Op != Opcode::Brtrue)
    return false;
  ptrdiff_t Load = -1;
  if (C.op(I - 1) == Opcode::Ldfld)
    Load = I - 1;
  else if (I >= 4 && C.op(I - 1) == Opcode::Ldloc && C.op(I - 2) == Opcode::Stloc &&
           C.op(I - 3) == Opcode::Ldfld)
    Load = I - 3;
  if (Load < 1)
    return false;
  std::optional<Names::Member> F = generatedField(Load);
  if (!F)
    return false;
  std::string Type = generatedFieldType(*F);
  return (Type == "System.Object" || Type == "System.Exception") && F->Name.startswith("<>s__") &&
         C.op(Load - 1) == Opcode::Ldarg;
}

bool Analysis::asyncIteratorCheck(ptrdiff_t I) const {
  Opcode Op = C.op(I);
  if (Op == Opcode::Switch) {
    // The state dispatch: a switch on `ldarg.0; ldfld <>1__state` (within five instructions).
    for (ptrdiff_t J = I - 1; J >= std::max<ptrdiff_t>(1, I - 5); --J) {
      if (C.op(J) != Opcode::Ldfld)
        continue;
      std::optional<Names::Member> F = fieldOf(J);
      if (F && F->IsDefinition && N.compilerGenerated(M.declaringTypeOfField(F->FieldRow)) &&
          F->Name.endswith("__state") && C.op(J - 1) == Opcode::Ldarg)
        return true;
    }
  }
  if (Op == Opcode::Brfalse && I >= 2 && C.op(I - 1) == Opcode::Ldfld &&
      C.op(I - 2) == Opcode::Ldarg) {
    std::optional<Names::Member> F = generatedField(I - 1);
    return F && F->Name.endswith("__disposeMode");
  }
  return false;
}

bool Analysis::combinedTokens(ptrdiff_t I) const {
  if (C.op(I) != Opcode::Brfalse || I < 2 || C.op(I - 1) != Opcode::Ldfld ||
      C.op(I - 2) != Opcode::Ldarg)
    return false;
  std::optional<Names::Member> F = fieldOf(I - 1);
  if (!F)
    return false;
  ArrayRef<uint8_t> Sig =
      F->FieldRow ? M.getBlob(M.get(TableId::Field, F->FieldRow, FieldCol::Signature)) : F->Sig;
  return N.fieldType(Sig) == "System.Threading.CancellationTokenSource" &&
         F->Name.endswith("x__combinedTokens");
}

bool Analysis::inFilter(ptrdiff_t I) const {
  uint32_t Offset = C.offset(I);
  for (const il::ExceptionRegion &R : B.Regions) {
    if (R.Kind != il::RegionKind::Filter)
      continue;
    ptrdiff_t Start = C.indexOf(R.FilterStart), End = Start;
    if (Start < 0)
      continue;
    while (size_t(End) < C.size() && C.op(End) != Opcode::Endfilter)
      ++End;
    if (size_t(End) >= C.size()) {
      C.Fault = true;
      return true;
    }
    if (Offset >= C.offset(Start) && Offset <= C.offset(End))
      return true;
  }
  return false;
}

bool Analysis::inHiddenFinally(ptrdiff_t I) const {
  // A finally block without a visible statement is the compiler's (a `using`, a `foreach`, a
  // `lock`): its branches are not the user's.
  uint32_t Offset = C.offset(I);
  for (const il::ExceptionRegion &R : B.Regions) {
    if (R.Kind != il::RegionKind::Finally)
      continue;
    ptrdiff_t Start = C.indexOf(R.HandlerStart);
    if (Start < 0)
      continue;
    uint32_t From = C.offset(Start), To;
    if (R.HandlerEnd) {
      To = R.HandlerEnd->OriginalOffset;
    } else {
      ptrdiff_t E = Start;
      while (size_t(E) < C.size() && C.op(E) != Opcode::Endfinally)
        ++E;
      To = size_t(E) < C.size() ? C.offset(E) : C.offset(ptrdiff_t(C.size()) - 1);
    }
    if (Offset < From || Offset >= To)
      continue;
    if (llvm::none_of(Visible, [&](const pdb::SequencePoint *P) {
          return P->ILOffset >= From && P->ILOffset < To;
        }))
      return true;
  }
  return false;
}

bool Analysis::stringPatternOr(ptrdiff_t I) const {
  // coverlet 10.1.0: `call String.op_Equality (or Equals); brtrue L` followed, past nops, by an
  // unconditional branch, as `x is "a" or "b"` compiles.
  if (Rules == CoverletRules::V10_0 || I < 1 ||
      (C.op(I) != Opcode::Brtrue && C.op(I) != Opcode::Brtrue_S))
    return false;
  if (C.op(I - 1) != Opcode::Call && C.op(I - 1) != Opcode::Callvirt)
    return false;
  std::optional<Names::Member> Me = N.method(C.at(I - 1).Token);
  if (!Me || (Me->Name != "op_Equality" && Me->Name != "Equals") ||
      N.type(Me->Parent) != "System.String")
    return false;
  size_t Next = size_t(I) + 1;
  while (Next < C.size() && C.op(Next) == Opcode::Nop)
    ++Next;
  return Next < C.size() && C.at(Next).info().Flow == il::FlowKind::Branch;
}

bool Analysis::relationalPattern(ptrdiff_t I) const {
  // `x is >= A and <= B`: a compare-and-branch to `ldc.i4.0; br` (the pattern's false).
  if (!isRelational(C.op(I)))
    return false;
  ptrdiff_t T = C.indexOf(C.at(I).Target);
  if (T < 0 || C.op(T) != Opcode::Ldc_I4 || Code::ldcValue(C.at(T)) != 0 ||
      size_t(T) + 1 >= C.size())
    return false;
  return C.at(T + 1).info().Flow == il::FlowKind::Branch;
}

bool Analysis::skipped(ptrdiff_t I, bool AsyncMoveNext, bool Prologue, bool AsyncIterator) {
  if (Prologue && (prologueBranch(I) || awaiterCheck(I)))
    return true;
  if (expressionBreakpoint(I) || cachedDelegate(I))
    return true;
  if (AsyncMoveNext && (catchBookkeeping(I) || rethrowCheck(I) || awaitForeach(I) ||
                        awaitUsing(I) || asyncTryFinally(I)))
    return true;
  if (AsyncIterator && asyncIteratorCheck(I))
    return true;
  return combinedTokens(I) || inFilter(I) || inHiddenFinally(I) || relationalPattern(I) ||
         stringPatternOr(I);
}

uint32_t Analysis::endOf(ptrdiff_t I) const {
  // Through unconditional branches (a `br` to itself ends the walk).
  for (size_t Steps = 0; Steps <= C.size() && C.op(I) == Opcode::Br; ++Steps) {
    ptrdiff_t T = C.indexOf(C.at(I).Target);
    if (T < 0)
      break;
    I = T;
  }
  return C.offset(I);
}

std::vector<uint32_t> Analysis::statementsPassed(ptrdiff_t I) const {
  // The `br`s endOf walks through, those a visible statement starts at.
  std::vector<uint32_t> Out;
  for (size_t Steps = 0; Steps <= C.size() && C.op(I) == Opcode::Br; ++Steps) {
    ptrdiff_t T = C.indexOf(C.at(I).Target);
    if (T < 0)
      break;
    if (is_contained(Out, C.offset(I)))
      break; // a loop of `br`s (a broken body)
    if (VisibleAt.count(C.offset(I)))
      Out.push_back(C.offset(I));
    I = T;
  }
  return Out;
}

const pdb::SequencePoint *Analysis::closestPoint(uint32_t Offset) const {
  if (Visible.empty())
    return nullptr;
  auto It = llvm::partition_point(
      Visible, [&](const pdb::SequencePoint *P) { return P->ILOffset < Offset; });
  if (It != Visible.end() && (*It)->ILOffset == Offset)
    return *It;
  return It == Visible.begin() ? Visible.front() : *std::prev(It);
}

bool Analysis::countable(ptrdiff_t I, bool AsyncMoveNext) const {
  const il::Instr &In = C.at(I);
  if (In.Op != Opcode::Nop)
    return true;
  // `ldc.i4.1; brtrue L; nop; L:` with a point at the nop: an expression breakpoint's nop.
  if (I >= 2 && C.op(I - 2) == Opcode::Ldc_I4 && Code::ldcValue(C.at(I - 2)) == 1 &&
      C.op(I - 1) == Opcode::Brtrue && size_t(I) + 1 < C.size() &&
      C.at(I - 1).Target == &C.at(I + 1) && AnyPoint.count(In.OriginalOffset))
    return false;
  if (!AsyncMoveNext)
    return true;
  // Code after ExceptionDispatchInfo.Throw() (an async catch's `throw;`) is never reached.
  auto PreviousNotNop = [&](ptrdiff_t J) {
    for (--J; J >= 0 && C.op(J) == Opcode::Nop; --J)
      ;
    return J;
  };
  ptrdiff_t P = PreviousNotNop(I);
  if (P >= 0 && isDispatchInfoThrow(P))
    return false;
  for (ptrdiff_t J = I - 1; J >= 0; --J) {
    const il::Instr *T = C.at(J).Target;
    if (T && (T->OriginalOffset == In.OriginalOffset ||
              (size_t(J) + 1 < C.size() && T->OriginalOffset == C.offset(J + 1)))) {
      ptrdiff_t Q = PreviousNotNop(J);
      return !(Q >= 0 && isDispatchInfoThrow(Q));
    }
  }
  return true;
}

bool Analysis::inRegion(uint32_t Offset) const {
  auto Off = [](const il::Instr *I) { return I ? I->OriginalOffset : ~uint32_t(0); };
  for (const il::ExceptionRegion &R : B.Regions) {
    if (R.TryStart && Offset >= Off(R.TryStart) && Offset < Off(R.TryEnd))
      return true;
    if (R.HandlerStart && Offset >= Off(R.HandlerStart) && Offset < Off(R.HandlerEnd))
      return true;
    if (R.FilterStart && R.HandlerStart && Offset >= Off(R.FilterStart) &&
        Offset < Off(R.HandlerStart))
      return true;
  }
  return false;
}

std::vector<BranchOutcome> Analysis::run() {
  std::vector<BranchOutcome> Out;
  if (!C.size())
    return Out;
  bool AsyncMoveNext = isAsyncStateMachineMoveNext();
  bool Prologue = AsyncMoveNext && hasStatePrologue();
  bool AsyncIterator = AsyncMoveNext && isAsyncIteratorMoveNext();
  // An iterator's MoveNext starts with its state dispatch: a switch, or (one yield) two branches.
  bool SkipFirst = isEnumeratorMoveNext(), SkipSecond = false;
  uint32_t Ordinal = 0;
  for (ptrdiff_t I = 0; size_t(I) < C.size(); ++I) {
    if (C.at(I).info().Flow != il::FlowKind::CondBranch)
      continue;
    if (SkipFirst) {
      SkipFirst = false;
      SkipSecond = C.op(I) != Opcode::Switch;
      continue;
    }
    if (SkipSecond) {
      SkipSecond = false;
      continue;
    }
    C.Fault = false;
    bool Skip = skipped(I, AsyncMoveNext, Prologue, AsyncIterator);
    if (Skip || C.Fault)
      continue;
    const pdb::SequencePoint *Point = closestPoint(C.offset(I));
    if (size_t(I) + 1 >= C.size())
      return Out;
    std::vector<std::pair<uint32_t, ptrdiff_t>> Paths; // (path, the instruction it goes to)
    Paths.push_back({0, I + 1});
    bool IsSwitch = C.op(I) == Opcode::Switch;
    if (IsSwitch) {
      if (C.at(I).Targets.empty())
        return Out;
      uint32_t Path = 1;
      for (const il::Instr *T : C.at(I).Targets)
        Paths.push_back({Path++, C.indexOf(T)});
    } else {
      Paths.push_back({1, C.indexOf(C.at(I).Target)});
    }
    if (llvm::any_of(Paths, [](auto &P) { return P.second < 0; }))
      continue; // a target added by an earlier pass: not the compiler's branch
    for (const auto &PathTo : Paths) {
      uint32_t Path = PathTo.first;
      ptrdiff_t To = PathTo.second;
      BranchOutcome O;
      O.Offset = C.offset(I);
      O.EndOffset = endOf(To);
      O.Path = Path;
      O.Ordinal = Ordinal++;
      // Without a line (no visible point), or leading where coverlet counts nothing, the outcome
      // is no branch point (its ordinal is used all the same).
      ptrdiff_t End = C.atOffset(O.EndOffset);
      if (!Point || End < 0 || !countable(End, AsyncMoveNext))
        continue;
      O.Document = Point->Document;
      O.Line = Point->StartLine;
      // A jump to where code also falls in, outside exception regions, gets a counter of its own
      // in coverlet (on the jump), so only the jumps count.
      O.Taken = Path > 0 && fallsIn(End) && !inRegion(O.Offset) && !inRegion(O.EndOffset);
      if (O.Taken) {
        countJumps(O);
        O.Past = statementsPassed(To);
      }
      Out.push_back(O);
    }
  }
  markBypasses(Out);
  return Out;
}

void Analysis::countJumps(BranchOutcome &O) const {
  if (!Jumps)
    Jumps.emplace(B);
  if (std::optional<EdgeCount> Count = Jumps->taken(O.Offset, O.Path)) {
    // The first run is the branch's own, which the outcome's offset names.
    O.MoreRuns.assign(Count->Runs.begin() + 1, Count->Runs.end());
    O.LessArrivals = std::move(Count->Arrivals);
    return;
  }
  // The counters cannot tell (another arm of a switch jumps there too): a counter on the jump.
  O.OwnCounter = true;
}

void Analysis::markBypasses(std::vector<BranchOutcome> &Out) const {
  // coverlet places its counters instruction by instruction, each instruction's outcomes in
  // ordinal order: an outcome that counts arrivals puts a counter before the instruction, which
  // branches to the instruction are then sent to; a taken jump's counter sends control on to
  // where branches are sent at that moment: the statement's counter, or the instruction itself
  // while no counter is there yet.
  DenseMap<uint32_t, bool> CounterThere; // end offset -> an arrivals counter is there already
  for (BranchOutcome &O : Out) {
    bool &There = CounterThere[O.EndOffset];
    if (!O.Taken)
      There = true;
    else if (!There && !VisibleAt.count(O.EndOffset))
      O.Bypasses = true;
  }
}

} // namespace

bool compilerGenerated(const Module &M, Token Parent) { return Names(M).markedGenerated(Parent); }

std::vector<uint32_t> coverletTypeOrder(const Module &M) {
  uint32_t Rows = M.rowCount(TableId::TypeDef);
  std::vector<std::vector<uint32_t>> Nested(Rows + 1);
  std::vector<uint32_t> Stack;
  for (uint32_t Row = Rows; Row >= 1; --Row) {
    uint32_t Outer = M.enclosingType(Row);
    if (Outer && Outer <= Rows && Outer != Row)
      Nested[Outer].push_back(Row); // in reverse row order, as the stack wants them
    else
      Stack.push_back(Row);
  }
  std::vector<uint32_t> Order(Rows + 1, 0);
  std::vector<bool> Seen(Rows + 1, false);
  for (uint32_t Next = 0; !Stack.empty();) {
    uint32_t Row = Stack.back();
    Stack.pop_back();
    if (Seen[Row])
      continue; // a cycle of nesting (a broken file): once is enough
    Seen[Row] = true;
    Order[Row] = Next++;
    Stack.insert(Stack.end(), Nested[Row].begin(), Nested[Row].end());
  }
  return Order;
}

std::vector<BranchOutcome> coverletBranches(const Module &M, uint32_t MethodRow, uint32_t TypeRow,
                                            const il::MethodBody &B,
                                            ArrayRef<pdb::SequencePoint> Points,
                                            CoverletRules Rules) {
  return Analysis(M, MethodRow, TypeRow, B, Points, Rules).run();
}

} // namespace weft::passes
