//===- coverage/CoverletResult.cpp - The result as coverlet holds it ===//
//
// coverlet.msbuild 10.0.1 makes its result so (Instrumenter.AddInstrumentationCode and
// Coverage.GetCoverageResult), and so does this:
//
// - It instruments the methods one by one (instrumentationOrder: types in Cecil's GetTypes order,
//   in each its methods before its constructors), each method's statements in IL order, and keeps
//   each document's line once: the line is the first method's with a statement on it, and its hits
//   are those of every statement on it, whatever method. It keeps one branch outcome per
//   document, line and ordinal, the first method's (the others are BranchPoint::Coincides, their
//   hits added to it), registering a method's outcomes in the order of the instructions they
//   lead to.
// - A document's classes come in the order of their first line, then the classes that hold
//   outcomes only; a class's methods likewise. A method holds its lines and its outcomes, which
//   may be on another method's line (a constructor's delegate-cache check on a property's line):
//   Cobertura and LCOV show those on no line, but count them.
// - Then each outcome of a method of a lambda class (a name with "<>c") goes to the method of
//   another class of the document that holds the outcome's line, and each class that gave one
//   away is removed from every document of every module, with its lines and its outcomes that
//   found no such method.
// - The maps of one assembly (its target frameworks) add up as coverlet's MergeWith adds results:
//   lines by number, outcomes by line, offsets, path and ordinal; what is new comes last.
//
//===----------------------------------------------------------------------===//
#include "coverage/CoverletFormats.h"

#include "llvm/ADT/STLExtras.h"

#include <set>
#include <tuple>

using namespace llvm;

namespace weft::coverage {

namespace {

uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  return B > ~uint64_t(0) - A ? ~uint64_t(0) : A + B;
}

/// One document as coverlet's instrumenter fills it: its lines and outcomes, each with the
/// method that came first.
struct DocumentLines {
  struct Line {
    const Method *Owner = nullptr;
    uint64_t Hits = 0;
    std::optional<uint32_t> Offset; // the smallest of the owner's statements on it
  };
  InsertionMap<uint32_t, Line> Lines;
  /// (line, ordinal) -> the method and its outcome.
  InsertionMap<std::pair<uint32_t, uint32_t>, std::pair<const Method *, const BranchPoint *>>
      Branches;
};

/// One map's methods instrumented as coverlet instruments them.
class Instrumented {
public:
  explicit Instrumented(const Map &M)
      : M(M), BlockMode(!M.hasLines()), Statements(M),
        DocNames(BlockMode ? std::vector<std::string>{M.Assembly} : M.Documents) {
    for (size_t I : instrumentationOrder(M))
      addMethod(M.Methods[I]);
  }
  ModuleResult result() const;

private:
  void addMethod(const Method &Me);
  void addStatement(const Method &Me, const Block &B, const SourceSpan &S);
  void addLine(const Method &Me, uint32_t Doc, uint32_t N, uint64_t Hits, uint32_t Offset);
  void addBranches(const Method &Me);
  MethodResult &holder(DocumentResult &Doc, const Method &Me) const;

  const Map &M;
  bool BlockMode;
  StatementLines Statements;
  std::vector<std::string> DocNames;
  InsertionMap<uint32_t, DocumentLines> Documents; // by index in DocNames
};

void Instrumented::addMethod(const Method &Me) {
  for (size_t K = 0; K < Me.Blocks.size(); ++K) {
    const Block &B = Me.Blocks[K];
    if (BlockMode)
      addLine(Me, 0, Me.FirstCounter + uint32_t(K) + 1, B.Hits, B.IL ? B.IL->first : 0);
    else
      for (const SourceSpan &S : B.Lines)
        addStatement(Me, B, S);
  }
  if (!BlockMode)
    addBranches(Me);
}

void Instrumented::addStatement(const Method &Me, const Block &B, const SourceSpan &S) {
  if (S.Document >= DocNames.size())
    return;
  uint32_t Offset = B.IL ? B.IL->first : 0;
  Statements.forEach(S, [&](uint32_t N, bool Counts) {
    addLine(Me, S.Document, N, Counts ? B.statementHits() : 0, Offset);
  });
}

void Instrumented::addLine(const Method &Me, uint32_t Doc, uint32_t N, uint64_t Hits,
                           uint32_t Offset) {
  DocumentLines::Line &L = Documents[Doc].Lines[N];
  if (!L.Owner)
    L.Owner = &Me;
  L.Hits = saturatingAdd(L.Hits, Hits);
  if (L.Owner == &Me)
    L.Offset = std::min(L.Offset.value_or(Offset), Offset);
}

void Instrumented::addBranches(const Method &Me) {
  // coverlet places an outcome's counter when it comes to the instruction the outcome leads to.
  std::vector<const BranchPoint *> Order;
  for (const BranchPoint &BP : Me.Branches)
    if (!BP.Coincides && BP.Document < DocNames.size())
      Order.push_back(&BP);
  llvm::stable_sort(Order, [](const BranchPoint *A, const BranchPoint *B) {
    return std::tie(A->EndOffset, A->Ordinal) < std::tie(B->EndOffset, B->Ordinal);
  });
  for (const BranchPoint *BP : Order) {
    auto &Entry = Documents[BP->Document].Branches[{BP->Line, BP->Ordinal}];
    if (!Entry.first)
      Entry = {&Me, BP};
  }
}

/// Cobertura's name and signature of a method, cut from coverlet's full name \p Full as
/// coverlet's CoberturaReporter cuts it: what follows the last ':', up to its first '(', and '('
/// with what follows the last '('.
std::pair<std::string, std::string> coberturaNames(StringRef Full) {
  StringRef Last = Full.substr(Full.rfind(':') + 1); // all of it without ':'
  size_t Open = Last.rfind('(');
  StringRef Tail = Open == StringRef::npos ? Last : Last.substr(Open + 1);
  return {Last.take_until([](char C) { return C == '('; }).str(), "(" + Tail.str()};
}

MethodResult &Instrumented::holder(DocumentResult &Doc, const Method &Me) const {
  MethodResult &R = Doc[Me.Type][Me.reportName()];
  if (R.Name.empty()) {
    R.Name = Me.Name;
    R.Signature = Me.Signature;
    if (Me.CoverletName.empty())
      R.CoberturaName = Me.Name, R.CoberturaSignature = Me.Signature;
    else
      std::tie(R.CoberturaName, R.CoberturaSignature) = coberturaNames(Me.CoverletName);
    R.Entered = Me.Blocks.empty() ? 0 : Me.Blocks[0].Hits;
  }
  return R;
}

ModuleResult Instrumented::result() const {
  ModuleResult Out;
  Out.Assembly = M.Assembly;
  Out.Mvid = M.Mvid;
  for (const auto &[Index, D] : Documents) {
    DocumentResult &Doc = Out.Documents[DocNames[Index]];
    // A method's lines mostly come one after another: its holder looked up once for them.
    const Method *Last = nullptr;
    MethodResult *LastHolder = nullptr;
    for (const auto &[N, L] : D.Lines) {
      if (L.Owner != Last)
        Last = L.Owner, LastHolder = &holder(Doc, *L.Owner);
      MethodResult &R = *LastHolder;
      R.Lines.emplace_hint(R.Lines.end(), N, L.Hits);
      if (L.Offset)
        R.Offsets[N] = *L.Offset;
    }
    Last = nullptr;
    for (const auto &[Key, Owned] : D.Branches) {
      if (Owned.first != Last)
        Last = Owned.first, LastHolder = &holder(Doc, *Owned.first);
      LastHolder->Branches.push_back(*Owned.second);
    }
  }
  return Out;
}

/// The method of another class than \p Skip in \p Doc that holds line \p Line, or null.
MethodResult *holderOfLine(DocumentResult &Doc, StringRef Skip, uint32_t Line) {
  for (auto &[Class, Methods] : Doc) {
    if (Class == Skip)
      continue;
    for (auto &[Name, R] : Methods)
      if (R.Lines.count(Line))
        return &R;
  }
  return nullptr;
}

bool lambdaClass(StringRef Class) { return Class.contains("<>c"); }

/// The methods of lambda classes that hold outcomes of their own (coverlet's
/// BranchesInCompiledGeneratedClass), by full name.
std::set<std::string> lambdaOutcomeHolders(ArrayRef<Map> Maps) {
  std::set<std::string> Out;
  for (const Map &M : Maps)
    for (const Method &Me : M.Methods)
      if (lambdaClass(Me.Type) &&
          llvm::any_of(Me.Branches, [](const BranchPoint &BP) { return !BP.Coincides; }))
        Out.insert(Me.reportName());
  return Out;
}

/// Gives the outcomes of lambda classes' methods to the methods holding their lines; adds the
/// classes that gave one away to \p Removed.
void moveLambdaOutcomes(ModuleResult &R, const std::set<std::string> &Holders,
                        std::set<std::string> &Removed) {
  for (auto &[Path, Doc] : R.Documents)
    for (auto &[Class, Methods] : Doc) {
      if (!lambdaClass(Class))
        continue;
      for (auto &[Name, Me] : Methods) {
        if (!Holders.count(Name))
          continue;
        for (size_t I = 0; I < Me.Branches.size(); ++I) {
          MethodResult *To = holderOfLine(Doc, Class, Me.Branches[I].Line);
          if (!To)
            continue;
          BranchPoint Moved = Me.Branches[I];
          To->Branches.push_back(Moved);
          Removed.insert(Class);
        }
      }
    }
}

/// Whether two outcomes are the same one (of the same method built for another framework).
bool sameOutcome(const BranchPoint &A, const BranchPoint &B) {
  return std::tie(A.Line, A.Offset, A.EndOffset, A.Path, A.Ordinal) ==
         std::tie(B.Line, B.Offset, B.EndOffset, B.Path, B.Ordinal);
}

void mergeMethod(MethodResult &To, const MethodResult &From) {
  for (const auto &[N, Hits] : From.Lines)
    To.Lines[N] = saturatingAdd(To.Lines[N], Hits);
  for (const auto &[N, Offset] : From.Offsets) {
    auto [It, New] = To.Offsets.try_emplace(N, Offset);
    It->second = std::min(It->second, Offset);
  }
  for (const BranchPoint &P : From.Branches) {
    auto It = llvm::find_if(To.Branches, [&](const BranchPoint &Q) { return sameOutcome(P, Q); });
    if (It == To.Branches.end())
      To.Branches.push_back(P);
    else
      It->Hits = saturatingAdd(It->Hits, P.Hits);
  }
  To.Entered = saturatingAdd(To.Entered, From.Entered);
}

/// Adds \p From (another target framework of the assembly) to \p To, as coverlet's MergeWith.
void mergeModule(ModuleResult &To, const ModuleResult &From) {
  for (const auto &[Path, Doc] : From.Documents) {
    DocumentResult &ToDoc = To.Documents[Path];
    for (const auto &[Class, Methods] : Doc) {
      ClassResult &ToClass = ToDoc[Class];
      for (const auto &[Name, R] : Methods) {
        if (MethodResult *Same = ToClass.find(Name))
          mergeMethod(*Same, R);
        else
          ToClass[Name] = R;
      }
    }
  }
}

} // namespace

std::vector<ModuleResult> coverletResult(ArrayRef<Map> Maps) {
  std::set<std::string> Holders = lambdaOutcomeHolders(Maps), Removed;
  std::vector<ModuleResult> PerMap;
  for (const Map &M : Maps) {
    PerMap.push_back(Instrumented(M).result());
    moveLambdaOutcomes(PerMap.back(), Holders, Removed);
  }
  std::map<std::string, ModuleResult> ByAssembly;
  for (ModuleResult &R : PerMap) {
    for (auto &[Path, Doc] : R.Documents)
      for (const std::string &Class : Removed)
        Doc.erase(Class);
    auto [It, New] = ByAssembly.try_emplace(R.Assembly, std::move(R));
    if (!New)
      mergeModule(It->second, R);
  }
  std::vector<ModuleResult> Out;
  for (auto &[Name, Module] : ByAssembly)
    Out.push_back(std::move(Module));
  return Out;
}

void Figures::add(const MethodResult &R) {
  uint64_t Run = uint64_t(llvm::count_if(R.Lines, [](auto &L) { return L.second != 0; }));
  Lines += R.Lines.size();
  LinesCovered += Run;
  Branches += R.Branches.size();
  BranchesCovered +=
      uint64_t(llvm::count_if(R.Branches, [](const BranchPoint &B) { return B.Hits != 0; }));
  if (!R.Lines.empty()) {
    ++Methods;
    MethodsCovered += Run != 0;
  }
  Complexity += R.complexity();
}

void Figures::add(const Figures &O) {
  Lines += O.Lines;
  LinesCovered += O.LinesCovered;
  Branches += O.Branches;
  BranchesCovered += O.BranchesCovered;
  Methods += O.Methods;
  MethodsCovered += O.MethodsCovered;
  Complexity += O.Complexity;
}

Figures figuresOf(const ClassResult &Class) {
  Figures F;
  for (const auto &[Name, R] : Class)
    F.add(R);
  return F;
}

Figures figuresOf(const DocumentResult &Document) {
  Figures F;
  for (const auto &[Name, Class] : Document)
    F.add(figuresOf(Class));
  return F;
}

Figures figuresOf(const ModuleResult &Module) {
  Figures F;
  for (const auto &[Path, Document] : Module.Documents)
    F.add(figuresOf(Document));
  return F;
}

} // namespace weft::coverage
