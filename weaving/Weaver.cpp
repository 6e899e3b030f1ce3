//===- weaving/Weaver.cpp - Running passes over a module ------------------===//
#include "weaving/Weaver.h"

#include "il/BodyReader.h"
#include "il/CallShapes.h"
#include "il/Encoder.h"
#include "il/ReadAll.h"
#include "il/Verifier.h"
#include "metadata/AssemblyCache.h"
#include "metadata/CustomAttribute.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Resolver.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "pe/Sha256.h"
#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"
#include "support/WorkerTeam.h"
#include "weaving/CallOperands.h"
#include "weaving/Pass.h"
#include "weaving/WovenRecord.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <optional>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

// Provisional tokens have this bit of the row set; modules with tables or a user-string heap that
// large are refused, so a real token is never taken for one.
constexpr uint32_t Provisional = 0x800000;
constexpr uint32_t BatchSize = 256;

bool usesToken(il::OperandKind K) {
  switch (K) {
  case il::OperandKind::Method:
  case il::OperandKind::Field:
  case il::OperandKind::Type:
  case il::OperandKind::Tok:
  case il::OperandKind::Sig:
  case il::OperandKind::String: return true;
  default: return false;
  }
}

std::pair<StringRef, StringRef> typeName(const Module &M, Token T) {
  if (tokenTable(T) == TableId::TypeRef && M.isValidToken(T))
    return {M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeNamespace)),
            M.getString(M.get(TableId::TypeRef, tokenRow(T), TypeRefCol::TypeName))};
  if (tokenTable(T) == TableId::TypeDef && M.isValidToken(T))
    return {M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeNamespace)),
            M.getString(M.get(TableId::TypeDef, tokenRow(T), TypeDefCol::TypeName))};
  return {};
}

/// Whether TypeDef \p Row of \p M carries [IsByRefLike].
bool carriesByRefLike(const Module &M, uint32_t Row) {
  for (uint32_t CA : M.customAttributes(makeToken(TableId::TypeDef, Row))) {
    Token Ctor = M.getToken(TableId::CustomAttribute, CA, CustomAttributeCol::Type);
    auto [Ns, Name] = typeName(M, customAttributeType(M, Ctor));
    if (Ns == "System.Runtime.CompilerServices" && Name == "IsByRefLikeAttribute")
      return true;
  }
  return false;
}

/// Whether TypeDef \p Row of \p M is a value type (extends System.ValueType, but is not
/// System.Enum, or extends System.Enum).
bool isValueTypeDefOf(const Module &M, uint32_t Row) {
  Token Extends = M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends);
  auto [Ns, Name] = typeName(M, Extends);
  if (Ns != "System")
    return false;
  auto [OwnNs, OwnName] = typeName(M, makeToken(TableId::TypeDef, Row));
  return Name == "ValueType" ? !(OwnNs == "System" && OwnName == "Enum") : Name == "Enum";
}

/// What the method contexts share: facts about the module computed once.
struct Shared {
  const Module &M;
  Editor &E;
  AssemblyResolver *Resolver;
  il::EditorCallShapes Shapes;
  NamePrinter Names;
  Token CoreScope = 0; // 0: the module is the core library
  std::mutex Lock;
  DenseMap<uint32_t, bool> ByRefLikeRefs;                // by TypeRef row
  DenseMap<uint32_t, std::optional<bool>> ValueTypeRefs; // by TypeRef row

  Shared(Editor &E, AssemblyResolver *R)
      : M(E.original()), E(E), Resolver(R), Shapes(E), Names(M) {}

  bool isValueTypeDef(uint32_t Row) const { return isValueTypeDefOf(M, Row); }

  /// Whether a TypeDef or TypeRef (original or added) names a value type, if that can be known.
  std::optional<bool> isValueType(Token T) {
    uint32_t Row = tokenRow(T);
    if (tokenTable(T) == TableId::TypeDef)
      return Row <= M.rowCount(TableId::TypeDef) ? isValueTypeDef(Row) : false; // added: classes
    if (tokenTable(T) != TableId::TypeRef || Row > M.rowCount(TableId::TypeRef) || !Resolver)
      return std::nullopt;
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = ValueTypeRefs.find(Row);
      if (It != ValueTypeRefs.end())
        return It->second;
    }
    std::optional<bool> Result;
    if (std::optional<ResolvedType> RT = Resolver->resolveTypeRef(M, Row))
      Result = isValueTypeDefOf(*RT->M, RT->Row);
    std::lock_guard<std::mutex> G(Lock);
    ValueTypeRefs[Row] = Result;
    return Result;
  }

  /// What callOperandTypes reads, from the editor (which also has the rows passes added).
  std::optional<SignatureFacts> Facts;
  void prepareFacts() {
    CellFn = [this](TableId T, uint32_t Row, unsigned Col) { return E.get(T, Row, Col); };
    BlobFn = [this](uint32_t Offset) { return E.getBlob(Offset); };
    DeclaringFn = [this](uint32_t Row) {
      return Row <= M.rowCount(TableId::MethodDef) ? M.declaringTypeOfMethod(Row) : 0;
    };
    ValueFn = [this](Token T) { return isValueType(T); };
    Facts = SignatureFacts{CellFn, BlobFn, DeclaringFn, ValueFn};
  }
  std::function<uint32_t(TableId, uint32_t, unsigned)> CellFn;
  std::function<ArrayRef<uint8_t>(uint32_t)> BlobFn;
  std::function<uint32_t(uint32_t)> DeclaringFn;
  std::function<std::optional<bool>(Token)> ValueFn;

  bool typeRefIsByRefLike(uint32_t Row) {
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = ByRefLikeRefs.find(Row);
      if (It != ByRefLikeRefs.end())
        return It->second;
    }
    bool Result = false;
    std::optional<ResolvedType> RT;
    if (Resolver)
      RT = Resolver->resolveTypeRef(M, Row);
    if (RT) {
      Result = carriesByRefLike(*RT->M, RT->Row);
    } else {
      // Unresolved: the by-ref-like types of the core library a signature may name.
      auto [Ns, Name] = typeName(M, makeToken(TableId::TypeRef, Row));
      Result = Ns == "System" &&
               (Name == "Span`1" || Name == "ReadOnlySpan`1" || Name == "TypedReference" ||
                Name == "ArgIterator" || Name == "RuntimeArgumentHandle");
    }
    std::lock_guard<std::mutex> G(Lock);
    ByRefLikeRefs[Row] = Result;
    return Result;
  }
};

struct Request {
  enum Kind : uint8_t { TypeRef, MemberRef, TypeSpec, MethodSpec, UserString } K;
  Token Parent = 0;
  std::string A, B;
  std::vector<uint8_t> Blob;
};

class OfflineMethodContext final : public MethodContext {
public:
  /// \p Head is the method's signature checked whole, its parameters kept (methodDefSig) or not
  /// (methodDefSigHead).
  OfflineMethodContext(Shared &S, uint32_t MethodRow, il::MethodBody B, MethodSig Head)
      : S(S), OwnBody(std::move(B)), Head(std::move(Head)) {
    Row = MethodRow;
    TypeRow = S.M.declaringTypeOfMethod(Row);
    Body = &OwnBody;
  }

  const MethodSig &signature() const override {
    if (Head.Params.size() == Head.ParamCount) // decoded whole, or without parameters
      return Head;
    if (!Whole) {
      Expected<MethodSig> Sig = methodDefSig(S.M, Row);
      if (Sig) {
        Whole = std::move(*Sig);
      } else { // not expected: the head was decoded with the same checks
        SignatureFailure = toString(Sig.takeError());
        Whole = Head;
        Whole->Params.resize(Head.ParamCount);
      }
    }
    return *Whole;
  }
  const TypeSig &returnType() const override { return Head.Return; }

  /// Takes the types of the method's locals from its local signature, whose bytes after the
  /// count are kept as they are (new locals are appended to them).
  Error readLocals() {
    Token LT = OwnBody.LocalVarSigToken;
    if (!LT)
      return Error::success();
    if (tokenTable(LT) != TableId::StandAloneSig || !S.M.isValidToken(LT))
      return createStringError(inconvertibleErrorCode(),
                               "local signature token " + hex(LT) + " is not a StandAloneSig");
    ArrayRef<uint8_t> Blob =
        S.M.getBlob(S.M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature));
    uint32_t Count = 0;
    unsigned N =
        Blob.size() > 1 && Blob[0] == SigLocal ? decodeCompressed(Blob.drop_front(), Count) : 0;
    if (!N)
      return createStringError(inconvertibleErrorCode(),
                               "local signature " + hex(LT) + " is not a LOCAL_SIG");
    OriginalLocals = Count;
    LocalTypes.reserve(Blob.size() + 16); // with room for the locals a pass adds
    LocalTypes.assign(Blob.begin() + 1 + N, Blob.end());
    return Error::success();
  }

  const Module &module() const override { return S.M; }
  /// Made when first asked for (most methods never are): only this method's thread asks.
  const std::string &displayName() const override {
    if (Name.empty()) {
      raw_string_ostream OS(Name);
      if (TypeRow) {
        S.Names.typeDefName(OS, TypeRow);
        OS << "::";
      }
      OS << S.M.getString(S.M.get(TableId::MethodDef, Row, MethodDefCol::Name));
    }
    return Name;
  }
  bool declaringTypeIsValueType() const override { return TypeRow && S.isValueTypeDef(TypeRow); }
  TypeSig declaringTypeSig() const override {
    TypeSig Own(declaringTypeIsValueType() ? ElementType::ValueType : ElementType::Class);
    Own.TypeToken = makeToken(TableId::TypeDef, TypeRow);
    size_t N = S.M.genericParams(Own.TypeToken).size();
    if (!N)
      return Own;
    TypeSig Inst(ElementType::GenericInst);
    Inst.Args.push_back(Own);
    for (size_t I = 0; I < N; ++I) {
      TypeSig V(ElementType::Var);
      V.Number = uint32_t(I);
      Inst.Args.push_back(V);
    }
    return Inst;
  }
  bool isByRefLike(const TypeSig &T0) const override {
    const TypeSig &T = T0.stripped();
    switch (T.Kind) {
    case ElementType::Ptr:
    case ElementType::FnPtr:
    case ElementType::ByRef:
    case ElementType::TypedByRef: return true;
    case ElementType::GenericInst: return isByRefLike(T.Args[0]);
    case ElementType::ValueType:
      if (tokenTable(T.TypeToken) == TableId::TypeDef)
        return carriesByRefLike(S.M, tokenRow(T.TypeToken));
      if (tokenTable(T.TypeToken) == TableId::TypeRef)
        return S.typeRefIsByRefLike(tokenRow(T.TypeToken));
      return false;
    case ElementType::Var:
    case ElementType::MVar: {
      // A parameter that allows ref structs (`allows ref struct`) cannot be boxed.
      Token Owner = T.Kind == ElementType::Var ? makeToken(TableId::TypeDef, TypeRow) : token();
      for (uint32_t GP : S.M.genericParams(Owner))
        if (S.M.get(TableId::GenericParam, GP, GenericParamCol::Number) == T.Number)
          return S.M.get(TableId::GenericParam, GP, GenericParamCol::Flags) & 0x20;
      return false;
    }
    default: return false;
    }
  }

  Token typeRef(Token Scope, StringRef Ns, StringRef N) override {
    return request(TableId::TypeRef, {Request::TypeRef, Scope, Ns.str(), N.str(), {}});
  }
  Token memberRef(Token Parent, StringRef N, ArrayRef<uint8_t> Sig) override {
    return request(TableId::MemberRef, {Request::MemberRef, Parent, N.str(), "", Sig.vec()});
  }
  Token typeSpec(ArrayRef<uint8_t> Sig) override {
    return request(TableId::TypeSpec, {Request::TypeSpec, 0, "", "", Sig.vec()});
  }
  Token methodSpec(Token Method, ArrayRef<uint8_t> Inst) override {
    return request(TableId::MethodSpec, {Request::MethodSpec, Method, "", "", Inst.vec()});
  }
  Token userString(StringRef Utf8) override {
    Token T = request(TableId::Module, {Request::UserString, 0, Utf8.str(), "", {}});
    return (UserStringTokenType << 24) | (T & 0xFFFFFF);
  }
  Token coreScope() const override { return S.CoreScope; }
  Expected<std::vector<TypeSig>> callOperandTypes(const il::Instr &Call,
                                                  Token Constrained) override {
    return passes::callOperandTypes(*S.Facts, Call, Constrained);
  }

  uint32_t addLocal(ArrayRef<uint8_t> Type) override {
    if (!LocalsRead) {
      LocalsRead = true;
      if (Error Err = readLocals())
        Failure = toString(std::move(Err));
    }
    if (LocalTypes.capacity() - LocalTypes.size() < Type.size())
      LocalTypes.reserve(LocalTypes.size() + Type.size() + 16); // room for a few more
    LocalTypes.insert(LocalTypes.end(), Type.begin(), Type.end());
    LocalSignature.clear(); // made again with this one
    return OriginalLocals + AddedLocals++;
  }
  uint32_t localCount() const override {
    if (!LocalsRead) {
      if (Token LT = OwnBody.LocalVarSigToken; LT && S.M.isValidToken(LT)) {
        ArrayRef<uint8_t> Blob =
            S.M.getBlob(S.M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature));
        uint32_t Count = 0;
        if (Blob.size() > 1 && decodeCompressed(Blob.drop_front(), Count))
          return Count;
      }
      return 0;
    }
    return OriginalLocals + AddedLocals;
  }
  void skip(const Twine &Reason) override {
    Skipped = true;
    SkipReason = Reason.str();
  }
  void note(const Twine &What) override { Notes.push_back(What.str()); }

  /// Turns the requests into rows (in order) and puts the real tokens into the body.
  Error resolve() {
    std::vector<Token> Real(Requests.size());
    auto Map = [&](Token T) {
      if ((T & Provisional) && (T & 0x7FFFFF) < Real.size())
        return Real[T & 0x7FFFFF];
      return T;
    };
    for (size_t I = 0; I < Requests.size(); ++I) {
      Request &Q = Requests[I];
      switch (Q.K) {
      case Request::TypeRef: Real[I] = S.E.typeRef(Map(Q.Parent), Q.A, Q.B); break;
      case Request::MemberRef: Real[I] = S.E.memberRef(Map(Q.Parent), Q.A, Q.Blob); break;
      case Request::TypeSpec: Real[I] = S.E.typeSpec(Q.Blob); break;
      case Request::MethodSpec: Real[I] = S.E.methodSpec(Map(Q.Parent), Q.Blob); break;
      case Request::UserString: {
        Expected<Token> T = S.E.userString(Q.A);
        if (!T)
          return T.takeError();
        Real[I] = *T;
        break;
      }
      }
    }
    if (!Requests.empty()) {
      auto Fix = [&](uint32_t &T) {
        if (!(T & Provisional))
          return;
        uint32_t Index = T & 0x7FFFFF;
        if (Index < Requests.size() && (T >> 24) == HandedOut[Index])
          T = Real[Index];
      };
      for (il::Instr *I : OwnBody.instructions())
        if (I->OriginalOffset == il::NoOffset && usesToken(I->info().Operand))
          Fix(I->Token);
      for (il::ExceptionRegion &R : OwnBody.Regions)
        Fix(R.CatchType);
    }
    Requests.clear();
    HandedOut.clear();
    Index.clear();
    if (AddedLocals) {
      makeLocalSignature();
      OwnBody.LocalVarSigToken = S.E.standAloneSig(LocalSignature);
      LocalSignature = {};
      OriginalLocals += AddedLocals;
      AddedLocals = 0;
    }
    return Error::success();
  }

  /// The blob of the local signature with the locals added, made once they are all added: on
  /// the method's own thread after the pass (runOne), so that the serial step (resolve) only
  /// looks it up.
  void makeLocalSignature() {
    if (!AddedLocals || !LocalSignature.empty())
      return;
    LocalSignature.reserve(1 + 4 + LocalTypes.size());
    LocalSignature.push_back(uint8_t(SigLocal));
    appendCompressed(LocalSignature, OriginalLocals + AddedLocals);
    LocalSignature.insert(LocalSignature.end(), LocalTypes.begin(), LocalTypes.end());
  }

  bool Skipped = false;
  bool Changed = false;
  std::string SkipReason;
  std::vector<std::string> Notes;
  std::optional<std::string> Failure;
  /// Set by signature() if the whole signature failed to decode after its head had not.
  mutable std::optional<std::string> SignatureFailure;

private:
  Token request(TableId T, Request Q) {
    std::string Key;
    raw_string_ostream OS(Key);
    OS << unsigned(Q.K) << ':' << Q.Parent << ':' << Q.A << '\0' << Q.B << '\0';
    OS.write(reinterpret_cast<const char *>(Q.Blob.data()), Q.Blob.size());
    auto [It, New] = Index.try_emplace(OS.str(), uint32_t(Requests.size()));
    if (New) {
      Requests.push_back(std::move(Q));
      HandedOut.push_back(Q.K == Request::UserString ? UserStringTokenType : uint32_t(T));
    }
    uint32_t Table = Q.K == Request::UserString ? UserStringTokenType : uint32_t(T);
    return (Table << 24) | Provisional | It->second;
  }

  Shared &S;
  il::MethodBody OwnBody;
  MethodSig Head;
  mutable std::optional<MethodSig> Whole; // the signature with its parameters, once asked for
  mutable std::string Name;
  std::vector<Request> Requests;
  std::vector<uint32_t> HandedOut; // the table byte of each provisional token
  StringMap<uint32_t> Index;
  bool LocalsRead = false;
  uint32_t OriginalLocals = 0, AddedLocals = 0;
  std::vector<uint8_t> LocalTypes; // the encoded types of all locals, old and added
  std::vector<uint8_t> LocalSignature; // made by makeLocalSignature
};

class OfflineModuleContext final : public ModuleContext {
public:
  OfflineModuleContext(Shared &S, WeaveOutcome &Out, const WeaveOptions &Options)
      : S(S), Out(Out), InputPath(Options.InputPath), Assemblies(Options.Assemblies),
        ProcessId(Options.ProcessId) {}
  const Module &module() const override { return S.M; }
  StringRef assemblyName() const override {
    if (S.M.rowCount(TableId::Assembly))
      return S.M.getString(S.M.get(TableId::Assembly, 1, AssemblyCol::Name));
    StringRef N = S.M.getString(S.M.get(TableId::Module, 1, ModuleCol::Name));
    return N.rsplit('.').first;
  }
  Token assemblyRef(const AssemblyRefInfo &Info) override { return S.E.assemblyRef(Info); }
  Token typeRef(Token Scope, StringRef Ns, StringRef N) override {
    return S.E.typeRef(Scope, Ns, N);
  }
  Token memberRef(Token Parent, StringRef N, ArrayRef<uint8_t> Sig) override {
    return S.E.memberRef(Parent, N, Sig);
  }
  Token typeSpec(ArrayRef<uint8_t> Sig) override { return S.E.typeSpec(Sig); }
  Token methodSpec(Token M, ArrayRef<uint8_t> I) override { return S.E.methodSpec(M, I); }
  Token standAloneSig(ArrayRef<uint8_t> Sig) override { return S.E.standAloneSig(Sig); }
  Expected<Token> userString(StringRef Utf8) override { return S.E.userString(Utf8); }
  Token coreScope() const override { return S.CoreScope; }

  Expected<Token> coreType(StringRef Ns, StringRef N) override {
    if (S.CoreScope)
      return S.E.typeRef(S.CoreScope, Ns, N);
    if (uint32_t Row = S.M.findTypeDef(Ns, N))
      return makeToken(TableId::TypeDef, Row);
    return createStringError(inconvertibleErrorCode(),
                             "the core library has no type " + Ns + "." + N);
  }
  Expected<Token> frameworkType(StringRef Assembly, StringRef Ns, StringRef N) override {
    // netstandard and mscorlib hold every framework type; System.Runtime does not.
    if (!S.CoreScope || S.E.getString(S.E.get(TableId::AssemblyRef, tokenRow(S.CoreScope),
                                              AssemblyRefCol::Name)) != "System.Runtime")
      return coreType(Ns, N);
    for (uint32_t R = 1; R <= S.E.rowCount(TableId::AssemblyRef); ++R)
      if (S.E.getString(S.E.get(TableId::AssemblyRef, R, AssemblyRefCol::Name)) == Assembly)
        return S.E.typeRef(makeToken(TableId::AssemblyRef, R), Ns, N);
    // The framework's assemblies share the core reference's version and key.
    uint32_t R = tokenRow(S.CoreScope);
    AssemblyRefInfo Info;
    Info.Name = Assembly;
    for (unsigned I = 0; I < 4; ++I)
      Info.Version[I] =
          uint16_t(S.M.get(TableId::AssemblyRef, R, AssemblyRefCol::MajorVersion + I));
    Info.PublicKeyOrToken =
        S.M.getBlob(S.M.get(TableId::AssemblyRef, R, AssemblyRefCol::PublicKeyOrToken));
    return S.E.typeRef(S.E.assemblyRef(Info), Ns, N);
  }

  Token addType(uint32_t Flags, StringRef Ns, StringRef N, Token Extends) override {
    return S.E.addTypeDef(Flags, Ns, N, Extends);
  }
  Expected<Token> addField(Token Type, uint16_t Flags, StringRef N,
                           ArrayRef<uint8_t> Sig) override {
    return S.E.addField(Type, Flags, N, Sig);
  }
  Expected<Token> addMethod(Token Type, uint16_t Flags, uint16_t ImplFlags, StringRef N,
                            ArrayRef<uint8_t> Sig) override {
    return S.E.addMethod(Type, Flags, ImplFlags, N, Sig);
  }
  void addCustomAttribute(Token Parent, Token Ctor, ArrayRef<uint8_t> Value) override {
    S.E.addCustomAttribute(Parent, Ctor, Value);
  }
  Error setBody(Token Method, il::MethodBody Body, bool ReturnsValue) override {
    il::EncodeOptions O;
    O.Shapes = &S.Shapes;
    O.ReturnsValue = ReturnsValue;
    Expected<il::EncodedBody> Enc = il::encode(Body, O);
    if (!Enc)
      return Enc.takeError();
    Out.Bodies[tokenRow(Method)] = NewBody{std::move(Enc->Bytes), Enc->Fat};
    return Error::success();
  }
  void addSideFile(std::string Suffix, std::string Contents) override {
    Out.SideFiles.emplace_back(std::move(Suffix), std::move(Contents));
  }
  void addSideFileFrom(std::string Suffix, ScratchFile File) override {
    Out.SideFilesOnDisk.emplace_back(std::move(Suffix), std::move(File));
  }
  void warn(const Twine &Message) override { Out.Warnings.push_back(Message.str()); }
  StringRef inputPath() const override { return InputPath; }
  uint32_t processId() const override { return ProcessId; }
  Expected<std::shared_ptr<const OpenedAssembly>> openAssembly(StringRef Path) override {
    if (!Assemblies)
      return ModuleContext::openAssembly(Path);
    return Assemblies->open(Path);
  }

private:
  Shared &S;
  WeaveOutcome &Out;
  StringRef InputPath;
  AssemblyCache *Assemblies;
  uint32_t ProcessId;
};

Token findCoreScope(const Module &M) {
  if (M.findTypeDef("System", "Object"))
    return 0;
  for (const char *Name : {"System.Runtime", "netstandard", "mscorlib", "System.Private.CoreLib"})
    for (uint32_t R = 1; R <= M.rowCount(TableId::AssemblyRef); ++R)
      if (M.getString(M.get(TableId::AssemblyRef, R, AssemblyRefCol::Name)) == Name)
        return makeToken(TableId::AssemblyRef, R);
  return 0xFFFFFFFF;
}

} // namespace

bool isWoven(const Module &M) { return M.findTypeDef(MarkerNamespace, MarkerName) != 0; }

namespace {

double secondsSince(std::chrono::steady_clock::time_point &Mark) {
  auto Now = std::chrono::steady_clock::now();
  double S = std::chrono::duration<double>(Now - Mark).count();
  Mark = Now;
  return S;
}

} // namespace

/// The state of one module's weave between the writer's requests.
struct ModuleWeave::Impl {
  Impl(const pe::Image &Img, Editor &E, const spec::Selection &Sel, const WeaveOptions &Options)
      : Img(Img), E(E), M(E.original()), Sel(Sel), Options(Options), S(E, Options.Resolver),
        MC(S, Out, this->Options), Rows(M.rowCount(TableId::MethodDef)) {}

  /// The methods of the batch being woven.
  struct BatchState {
    std::vector<uint32_t> Rows; // those some pass applies to
    std::vector<std::unique_ptr<OfflineMethodContext>> Ctx;
    std::vector<char> Ran;     // by the pass just run
    std::vector<float> Micros; // its runOnMethod time, -1 where it did not run
    /// Which thread decoded each method: the later loops over the batch go the same way, so
    /// that a method's memory is made, used and freed on one thread.
    WorkerTeam::Partition Taken;
  };

  Error begin();
  Error weaveBatch(uint32_t Begin);
  Expected<std::unique_ptr<OfflineMethodContext>> makeContext(uint32_t Row,
                                                              const il::RawMethodBody &Raw);
  void runOne(size_t P, size_t I, BatchState &B, bool Always = false);
  Error settle(size_t P, BatchState &B);
  Error keepEncoded(BatchState &B);
  Expected<std::optional<BodyBytes>> body(uint32_t Row);
  Error finish();
  Expected<WovenRecord> record();
  Expected<std::optional<il::EncodedBody>> weaveMethod(uint32_t Row, const il::RawMethodBody &Raw,
                                                       ArrayRef<size_t> Also);

  Error passFailed(size_t P, Error Err) {
    std::string Msg = toString(std::move(Err));
    if (P >= Sel.Uses.size())
      return plainError("pass '" + passName(P) + "': " + Msg);
    const spec::PassUse &U = Sel.Uses[P];
    if (!StringRef(Msg).startswith(U.Rule))
      Msg = U.Rule + ": pass '" + U.Pass + "': " + Msg;
    return plainError(Msg);
  }
  /// Pass \p P's name, and its name with its options.
  const std::string &passName(size_t P) const {
    return P < Sel.Uses.size() ? Sel.Uses[P].Pass : Added[P - Sel.Uses.size()];
  }
  std::string passKey(size_t P) const {
    return P < Sel.Uses.size() ? Sel.Uses[P].key() : Added[P - Sel.Uses.size()];
  }
  /// With Options.RecordInputAs: the input's SHA-256, or what kept it from being made.
  std::future<std::pair<std::string, std::string>> InputHash;
  /// The names of the passes given by addPass, after the selection's.
  std::vector<std::string> Added;

  const pe::Image &Img;
  Editor &E;
  const Module &M;
  const spec::Selection &Sel;
  WeaveOptions Options;
  Shared S;
  WeaveOutcome Out;
  OfflineModuleContext MC;
  std::vector<std::unique_ptr<Pass>> Passes;
  std::optional<WorkerTeam> OwnTeam; // when the options give none
  WorkerTeam *Team = nullptr;
  /// Runs F(I) for I in [0, N) on the team, or here without one.
  void forEach(size_t N, function_ref<void(size_t)> F) {
    if (Team)
      Team->forEach(N, F);
    else
      for (size_t I = 0; I < N; ++I)
        F(I);
  }
  /// The same, for the methods of a batch: the first loop deals them to whichever thread is
  /// free and notes who took which; the later ones (\p First false) follow that.
  void forEachMethod(BatchState &B, bool First, function_ref<void(size_t)> F) {
    size_t N = B.Rows.size();
    if (!Team)
      for (size_t I = 0; I < N; ++I)
        F(I);
    else if (First)
      Team->forEachBalanced(N, F, B.Taken);
    else
      Team->forEachAsBefore(N, F, B.Taken);
  }
  uint32_t Rows;
  /// A pass asks every method for its whole signature (Pass::usesSignatures).
  bool WholeSignatures = false;
  uint32_t NextBatch = 1; // the first row of the next batch to weave
  bool Finished = false;
  /// The encoded bodies of the last batch woven: for row BatchBegin + K, Placed[K].
  struct PlacedBody {
    uint32_t Offset = 0, Size = 0;
    bool Present = false, Fat = false;
  };
  uint32_t BatchBegin = 0;
  std::vector<PlacedBody> Placed;
  std::vector<uint8_t> BatchBytes;
};

Error ModuleWeave::Impl::begin() {
  auto Mark = std::chrono::steady_clock::now();
  if (isWoven(M) && !Options.Force)
    return plainError("the assembly was already woven by weft (it has the type " +
                      Twine(MarkerNamespace) + "." + MarkerName +
                      "); give --force to weave it again");
  for (unsigned T = 0; T < MaxTables; ++T)
    if (M.rowCount(TableId(T)) >= Provisional)
      return plainError("table " + Twine(tableSpec(TableId(T)).Name) +
                        " has too many rows to weave");
  if (M.streamBytes("#US").size() >= Provisional)
    return plainError("the user-string heap is too large to weave");
  S.CoreScope = findCoreScope(M);
  if (S.CoreScope == 0xFFFFFFFF)
    return plainError("the module references no core library (System.Runtime, netstandard, "
                      "mscorlib or System.Private.CoreLib)");

  unsigned Threads =
      Options.Threads ? Options.Threads : hardware_concurrency().compute_thread_count();
  if (Options.Team) {
    Team = Options.Team;
  } else if (Threads > 1) {
    OwnTeam.emplace(Threads);
    Team = &*OwnTeam;
  }
  // Every weave adds names and signatures (the marker type at least): the heaps are indexed
  // side by side.
  E.indexHeaps([&](function_ref<void(unsigned)> Task) {
    if (Team && Team->size() >= 2)
      Team->forEachMember([&](unsigned K) {
        if (K < 2)
          Task(K);
      });
    else
      Task(0), Task(1);
  });

  // The passes, in the order the spec first names them.
  for (const spec::PassUse &U : Sel.Uses) {
    PassOptions PO(U.Options, U.BaseDir, U.Rule);
    Expected<std::unique_ptr<Pass>> P = PassRegistry::global().create(U.Pass, PO);
    if (!P)
      return P.takeError();
    Passes.push_back(std::move(*P));
  }
  for (size_t P = 0; P < Passes.size(); ++P)
    if (Error Err = Passes[P]->beginModule(MC))
      return passFailed(P, std::move(Err));
  WholeSignatures = llvm::any_of(Passes, [](const auto &P) { return P->usesSignatures(); });

  // After beginModule, which adds the references the method phases call through.
  S.Shapes.prepare([&](size_t N, function_ref<void(size_t)> Do) { forEach(N, Do); });
  S.prepareFacts();
  Out.MethodMicros.resize(Options.MethodTimes ? Passes.size() : 0);
  Out.RowsChanged.resize(Sel.Uses.size());
  // The input's hash, for the record, is made on a thread of its own while the methods are
  // woven, from the file read in pieces (hashing the image's mapping would bring all of it
  // into memory).
  if (Options.RecordInputAs)
    InputHash = std::async(std::launch::async, [this]() -> std::pair<std::string, std::string> {
      if (Options.InputPath.empty())
        return {pe::sha256Hex(Img.bytes()), ""};
      Expected<std::string> Hash = pe::fileSha256Hex(Options.InputPath);
      if (!Hash)
        return {"", toString(Hash.takeError())};
      return {*Hash, ""};
    });
  Out.Times.Begin += secondsSince(Mark);
  return Error::success();
}

/// Method \p Row read into the instruction graph from \p Raw, its body and signature head
/// checked (the body's error first when both fail).
Expected<std::unique_ptr<OfflineMethodContext>>
ModuleWeave::Impl::makeContext(uint32_t Row, const il::RawMethodBody &Raw) {
  auto Body = il::MethodBody::decode(Raw);
  if (Body)
    if (Error E = checkMethodBody(M, Raw, *Body))
      Body = std::move(E); // the input may have been read without its bodies (DecodedLater)
  auto Sig = WholeSignatures ? methodDefSig(M, Row) : methodDefSigHead(M, Row);
  // Both taken at once (success when there is none), each error consumed.
  Error BodyErr = Body.takeError(), SigErr = Sig.takeError();
  if (BodyErr) {
    consumeError(std::move(SigErr));
    return std::move(BodyErr);
  }
  if (SigErr)
    return std::move(SigErr);
  return std::make_unique<OfflineMethodContext>(S, Row, std::move(*Body), std::move(*Sig));
}

Error ModuleWeave::Impl::weaveBatch(uint32_t Begin) {
  auto Mark = std::chrono::steady_clock::now();
  uint32_t End = std::min<uint64_t>(uint64_t(Begin) + BatchSize, uint64_t(Rows) + 1);
  NextBatch = End;
  BatchBegin = Begin;
  Placed.assign(End - Begin, PlacedBody());
  BatchBytes.clear();
  BatchState B;
  for (uint32_t R = Begin; R < End; ++R)
    if (R <= Sel.methodCount() && !Sel.passesOf(R).empty())
      B.Rows.push_back(R);
  if (B.Rows.empty())
    return Error::success();

  // Decode, and run the first pass on each method as soon as it is decoded.
  size_t N = B.Rows.size();
  B.Ctx.resize(N);
  B.Ran.assign(N, 0);
  B.Micros.assign(N, -1.0f);
  std::vector<std::optional<std::string>> Errors(N);
  forEachMethod(B, /*First=*/true, [&](size_t I) {
    uint32_t Row = B.Rows[I];
    auto Raw = il::readMethodDefBody(Img, M, Row);
    if (!Raw) {
      Errors[I] = toString(Raw.takeError());
      return;
    }
    if (!*Raw)
      return;
    Expected<std::unique_ptr<OfflineMethodContext>> C = makeContext(Row, **Raw);
    if (!C) {
      Errors[I] = toString(C.takeError());
      return;
    }
    B.Ctx[I] = std::move(*C);
    runOne(0, I, B);
  });
  for (size_t I = 0; I < N; ++I)
    if (Errors[I])
      return plainError("method 0x" + hexstr(makeToken(TableId::MethodDef, B.Rows[I]), false, 8) +
                        ": " + *Errors[I]);
  Out.Times.DecodeAndFirstPass += secondsSince(Mark);

  for (size_t P = 0; P < Passes.size(); ++P) {
    if (P > 0) {
      B.Ran.assign(N, 0);
      B.Micros.assign(N, -1.0f);
      forEachMethod(B, /*First=*/false, [&](size_t I) { runOne(P, I, B); });
      Out.Times.LaterPasses += secondsSince(Mark);
    }
    if (Error Err = settle(P, B))
      return Err;
  }
  return keepEncoded(B);
}

/// Pass \p P on method \p I of the batch, if it applies (on any thread).
void ModuleWeave::Impl::runOne(size_t P, size_t I, BatchState &B, bool Always) {
  if (P >= Passes.size() || !B.Ctx[I])
    return;
  ArrayRef<uint16_t> Uses = Sel.passesOf(B.Rows[I]);
  if (!Always && std::find(Uses.begin(), Uses.end(), uint16_t(P)) == Uses.end())
    return;
  OfflineMethodContext &C = *B.Ctx[I];
  C.Skipped = false;
  auto Start = std::chrono::steady_clock::now();
  if (Error Err = Passes[P]->runOnMethod(C))
    C.Failure = toString(std::move(Err));
  if (!C.Failure && C.SignatureFailure)
    C.Failure = *C.SignatureFailure;
  B.Micros[I] =
      std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - Start).count();
  B.Ran[I] = 1;
  C.makeLocalSignature();
}

/// What follows pass \p P on a batch, serially in row order: failures and skips reported,
/// provisional tokens made real, finishMethod; with --verify-each, every changed body verified.
Error ModuleWeave::Impl::settle(size_t P, BatchState &B) {
  auto Mark = std::chrono::steady_clock::now();
  for (float F : B.Micros)
    if (F >= 0) {
      Out.Times.PassSeconds += F / 1e6;
      if (Options.MethodTimes)
        Out.MethodMicros[P].push_back(F);
    }
  for (size_t I = 0; I < B.Rows.size(); ++I) {
    if (!B.Ran[I])
      continue;
    OfflineMethodContext &C = *B.Ctx[I];
    if (C.Failure)
      return plainError("pass '" + passKey(P) + "' failed on " + C.displayName() + ": " +
                        *C.Failure);
    if (C.Skipped) {
      Out.Skipped.push_back(passName(P) + ": " + C.displayName() + ": " + C.SkipReason);
      B.Ran[I] = 0;
      C.Notes.clear();
      continue;
    }
    for (std::string &N : C.Notes)
      Out.Notes.push_back(passName(P) + ": " + C.displayName() + ": " + N);
    C.Notes.clear();
    C.Changed = true;
    if (P < Out.RowsChanged.size())
      Out.RowsChanged[P].push_back(B.Rows[I]);
    if (Error Err = C.resolve())
      return plainError("pass '" + passKey(P) + "' on " + C.displayName() + ": " +
                        toString(std::move(Err)));
    Passes[P]->finishMethod(C);
    C.Marks.clear();
    C.Text.clear(); // its memory goes with the context, on the thread that made it
  }
  Out.Times.Serial += secondsSince(Mark);
  if (!Options.VerifyEach)
    return Error::success();
  std::vector<std::vector<analysis::Diagnostic>> Problems(B.Rows.size());
  forEach(B.Rows.size(), [&](size_t I) {
    if (B.Ran[I])
      analysis::verifyBody(M, B.Rows[I], B.Ctx[I]->body(), 0xFFFF, S.Shapes, Problems[I], &E);
  });
  for (size_t I = 0; I < B.Rows.size(); ++I)
    if (!Problems[I].empty()) {
      const analysis::Diagnostic &D = Problems[I].front();
      std::string At;
      if (D.ILOffset != il::NoOffset)
        At = " at IL_" + hexstr(D.ILOffset, false, 4) + " (original offset)";
      return plainError("--verify-each: pass '" + passKey(P) + "' produced bad IL in " +
                        B.Ctx[I]->displayName() + At + ": " + D.What);
    }
  return Error::success();
}

/// Encodes what changed into the batch's bytes (and its remaps into the outcome). Each method's
/// context, and its encoding once copied into the batch, is freed on the thread that made them:
/// memory freed on another thread goes back to the maker's allocator arena under its lock, and
/// slows that thread's own allocations.
Error ModuleWeave::Impl::keepEncoded(BatchState &B) {
  ArrayRef<uint32_t> Batch = B.Rows;
  auto Mark = std::chrono::steady_clock::now();
  struct Encoding {
    std::optional<il::EncodedBody> Body;
    std::vector<uint32_t> AddedRuns;
    uint32_t LocalSignature = 0;
    std::optional<std::string> Error;
  };
  std::vector<Encoding> Encoded(Batch.size());
  forEachMethod(B, /*First=*/false, [&](size_t I) {
    std::unique_ptr<OfflineMethodContext> C = std::move(B.Ctx[I]);
    if (!C || !C->Changed)
      return;
    il::EncodeOptions EO = il::EncodeOptions::forMethod(S.Shapes, Batch[I]);
    EO.OffsetMap = Options.KeepRemaps;
    Encoding &Out = Encoded[I];
    Expected<il::EncodedBody> Enc = il::encode(C->body(), EO);
    if (!Enc) {
      Out.Error = "cannot encode " + C->displayName() + ": " + toString(Enc.takeError());
      return;
    }
    Out.Body = std::move(*Enc);
    if (!Options.KeepRemaps)
      return;
    Out.LocalSignature = tokenRow(C->body().LocalVarSigToken);
    bool InRun = false;
    for (const il::Instr *In : C->body().instructions()) {
      bool Added = In->OriginalOffset == il::NoOffset;
      if (Added && !InRun)
        Out.AddedRuns.push_back(In->Offset);
      InRun = Added;
    }
  });
  // Where each body goes in the batch's bytes; then each is copied there on its own thread.
  uint32_t Size = 0;
  for (size_t I = 0; I < Batch.size(); ++I) {
    Encoding &E = Encoded[I];
    if (E.Error)
      return plainError(*E.Error);
    if (!E.Body)
      continue;
    ++Out.MethodsChanged;
    Out.BranchesLengthened += E.Body->BranchesLengthened;
    PlacedBody &P = Placed[Batch[I] - BatchBegin];
    P.Present = true;
    P.Fat = E.Body->Fat;
    P.Offset = Size;
    P.Size = uint32_t(E.Body->Bytes.size());
    Size += P.Size;
    if (!Options.KeepRemaps)
      continue;
    metadata::pdb::BodyRemap &R = Out.Remaps[Batch[I]];
    R.OffsetMap = std::move(E.Body->OffsetMap);
    R.LocalSignature = E.LocalSignature;
    R.AddedRuns = std::move(E.AddedRuns);
  }
  BatchBytes.resize(Size);
  forEachMethod(B, /*First=*/false, [&](size_t I) {
    if (Encoding &E = Encoded[I]; E.Body) {
      const PlacedBody &P = Placed[Batch[I] - BatchBegin];
      std::copy(E.Body->Bytes.begin(), E.Body->Bytes.end(), BatchBytes.begin() + P.Offset);
      E = Encoding();
    }
  });
  Out.Times.Encode += secondsSince(Mark);
  return Error::success();
}

Expected<std::optional<il::EncodedBody>>
ModuleWeave::Impl::weaveMethod(uint32_t Row, const il::RawMethodBody &Raw, ArrayRef<size_t> Also) {
  if (Row == 0 || Row > Sel.methodCount() || (Sel.passesOf(Row).empty() && Also.empty()))
    return std::nullopt;
  Expected<std::unique_ptr<OfflineMethodContext>> Made = makeContext(Row, Raw);
  if (!Made)
    return Made.takeError();
  BatchState B;
  B.Rows = {Row};
  B.Ctx.push_back(std::move(*Made));
  for (size_t P = 0; P < Passes.size(); ++P) {
    bool Asked = is_contained(Also, P);
    if (P >= Sel.Uses.size() && !Asked)
      continue;
    B.Ran.assign(1, 0);
    B.Micros.assign(1, -1.0f);
    runOne(P, 0, B, Asked);
    if (Error Err = settle(P, B))
      return std::move(Err);
  }
  OfflineMethodContext &C = *B.Ctx[0];
  if (!C.Changed)
    return std::nullopt;
  il::EncodeOptions EO = il::EncodeOptions::forMethod(S.Shapes, Row);
  EO.OffsetMap = true;
  Expected<il::EncodedBody> Enc = il::encode(C.body(), EO);
  if (!Enc)
    return plainError("cannot encode " + C.displayName() + ": " + toString(Enc.takeError()));
  return std::move(*Enc);
}

Expected<std::optional<BodyBytes>> ModuleWeave::Impl::body(uint32_t Row) {
  if (Row > Rows) {
    // A method a pass added (its body was given to the module context).
    auto It = Out.Bodies.find(Row);
    if (It == Out.Bodies.end())
      return std::nullopt;
    return BodyBytes{It->second.Bytes, It->second.Fat};
  }
  if (Row < BatchBegin)
    return plainError("method row " + Twine(Row) + " was asked for after a later one");
  while (Row >= NextBatch)
    if (Error Err = weaveBatch(NextBatch))
      return std::move(Err);
  const PlacedBody &P = Placed[Row - BatchBegin];
  if (!P.Present)
    return std::nullopt;
  return BodyBytes{ArrayRef<uint8_t>(BatchBytes).slice(P.Offset, P.Size), P.Fat};
}

Error ModuleWeave::Impl::finish() {
  if (Finished)
    return Error::success();
  Finished = true;
  while (NextBatch <= Rows)
    if (Error Err = weaveBatch(NextBatch))
      return Err;
  Placed.clear();
  BatchBytes = {};
  auto Mark = std::chrono::steady_clock::now();
  for (size_t P = 0; P < Passes.size(); ++P)
    if (Error Err = Passes[P]->endModule(MC))
      return passFailed(P, std::move(Err));
  uint32_t Marker = M.findTypeDef(MarkerNamespace, MarkerName);
  if (!Marker) {
    Expected<Token> Object = MC.coreType("System", "Object");
    if (!Object)
      return Object.takeError();
    // abstract sealed: a static class nobody can use.
    Marker = tokenRow(E.addTypeDef(0x00000180, MarkerNamespace, MarkerName, *Object));
  }
  // A marker an older weft added has no fields to hold the record (and no more can be added to
  // it): the module is woven without one.
  if (Options.RecordInputAs) {
    Expected<WovenRecord> R = record();
    if (!R)
      return R.takeError();
    if (Error Err = writeWovenRecord(E, Marker, *R))
      Out.Warnings.push_back("no record of this weave is kept: " + toString(std::move(Err)));
  }
  Out.Times.End += secondsSince(Mark);
  return Error::success();
}

Expected<WovenRecord> ModuleWeave::Impl::record() {
  WovenRecord R;
  R.Input = *Options.RecordInputAs;
  auto [Hash, Problem] = InputHash.get();
  if (!Problem.empty())
    return plainError("the input's hash for the weave's record: " + Problem);
  R.InputSha256 = std::move(Hash);
  for (size_t P = 0; P < Sel.Uses.size(); ++P)
    R.Passes.push_back({Sel.Uses[P].key(), Out.RowsChanged[P]});
  return R;
}

ModuleWeave::ModuleWeave(std::unique_ptr<Impl> I) : I(std::move(I)) {}
ModuleWeave::~ModuleWeave() = default;

Expected<std::unique_ptr<ModuleWeave>> ModuleWeave::start(const pe::Image &Img, Editor &E,
                                                          const spec::Selection &Sel,
                                                          const WeaveOptions &Options) {
  auto State = std::make_unique<Impl>(Img, E, Sel, Options);
  if (Error Err = State->begin())
    return std::move(Err);
  return std::unique_ptr<ModuleWeave>(new ModuleWeave(std::move(State)));
}

Expected<std::optional<BodyBytes>> ModuleWeave::body(uint32_t Row) { return I->body(Row); }
Error ModuleWeave::finish() { return I->finish(); }
WeaveOutcome &ModuleWeave::outcome() { return I->Out; }
Expected<std::optional<il::EncodedBody>>
ModuleWeave::weaveMethod(uint32_t Row, const il::RawMethodBody &Raw, ArrayRef<size_t> Also) {
  return I->weaveMethod(Row, Raw, Also);
}

Expected<size_t> ModuleWeave::addPass(std::unique_ptr<Pass> P, std::string Name) {
  size_t N = I->Passes.size();
  I->Passes.push_back(std::move(P));
  I->Added.push_back(std::move(Name));
  if (I->Options.MethodTimes)
    I->Out.MethodMicros.resize(I->Passes.size());
  if (Error Err = I->Passes[N]->beginModule(I->MC)) {
    I->Passes.pop_back();
    I->Added.pop_back();
    return I->passFailed(N, std::move(Err));
  }
  I->WholeSignatures |= I->Passes[N]->usesSignatures();
  return N;
}

Error writeSideFiles(WeaveOutcome &Woven, StringRef OutputPath) {
  for (const auto &[Suffix, Contents] : Woven.SideFiles)
    if (Error E = writeFileAtomically((OutputPath + Suffix).str(), arrayRefFromStringRef(Contents)))
      return E;
  for (auto &[Suffix, File] : Woven.SideFilesOnDisk)
    if (Error E = File.keepAs((OutputPath + Suffix).str()))
      return E;
  return Error::success();
}

Expected<WeaveOutcome> weave(const pe::Image &Img, Editor &E, const spec::Selection &Sel,
                             const WeaveOptions &Options) {
  Expected<std::unique_ptr<ModuleWeave>> W = ModuleWeave::start(Img, E, Sel, Options);
  if (!W)
    return W.takeError();
  uint32_t Rows = E.original().rowCount(TableId::MethodDef);
  std::map<uint32_t, NewBody> Bodies;
  for (uint32_t Row = 1; Row <= Rows; ++Row) {
    Expected<std::optional<BodyBytes>> B = (*W)->body(Row);
    if (!B)
      return B.takeError();
    if (*B)
      Bodies[Row] = NewBody{(*B)->Bytes.vec(), (*B)->Fat};
  }
  if (Error Err = (*W)->finish())
    return std::move(Err);
  WeaveOutcome Out = std::move((*W)->outcome());
  Bodies.merge(Out.Bodies); // the bodies of the methods passes added
  Out.Bodies = std::move(Bodies);
  return std::move(Out);
}

} // namespace weft::passes
