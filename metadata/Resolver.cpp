//===- metadata/Resolver.cpp ----------------------------------------------===//
#include "metadata/Resolver.h"

#include "pe/Image.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <algorithm>

using namespace llvm;

namespace weft::metadata {

namespace {
// Type forwarders may form chains (and, in broken files, loops); this many hops are followed.
constexpr unsigned MaxForwarding = 8;
constexpr uint16_t FieldStatic = 0x10;

// Compares version folder names ("10.0.2" < "10.0.12") part by part, numerically.
bool versionLess(StringRef A, StringRef B) {
  SmallVector<StringRef, 6> PA, PB;
  A.split(PA, '.');
  B.split(PB, '.');
  for (size_t I = 0; I < std::min(PA.size(), PB.size()); ++I) {
    unsigned long long NA = 0, NB = 0;
    bool OA = !PA[I].take_while(isDigit).getAsInteger(10, NA);
    bool OB = !PB[I].take_while(isDigit).getAsInteger(10, NB);
    if (OA && OB && NA != NB)
      return NA < NB;
    if (PA[I] != PB[I])
      return PA[I] < PB[I];
  }
  return PA.size() < PB.size();
}
} // namespace

struct AssemblyResolver::Loaded {
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<Module> Mod;
};

AssemblyResolver::AssemblyResolver(std::vector<std::string> SearchDirs, AssemblyResolver *Fallback)
    : Fallback(Fallback) {
  // A folder the fallback already searches is left to it, so that what it opened is shared.
  for (std::string &D : SearchDirs) {
    bool Shared = false;
    for (AssemblyResolver *F = Fallback; F && !Shared; F = F->Fallback)
      Shared = std::find(F->Dirs.begin(), F->Dirs.end(), D) != F->Dirs.end();
    if (!Shared)
      addSearchDir(D);
  }
}
AssemblyResolver::~AssemblyResolver() = default;

void AssemblyResolver::addSearchDir(StringRef Dir) {
  if (std::find(Dirs.begin(), Dirs.end(), Dir) == Dirs.end())
    Dirs.push_back(Dir.str());
}

std::vector<std::string> AssemblyResolver::searchDirsFor(StringRef AssemblyPath,
                                                         ArrayRef<std::string> Extra,
                                                         bool Frameworks) {
  StringRef Own = sys::path::parent_path(AssemblyPath);
  std::vector<std::string> Dirs{Own.empty() ? std::string(".") : Own.str()};
  Dirs.insert(Dirs.end(), Extra.begin(), Extra.end());
  if (Frameworks)
    for (std::string &D : sharedFrameworkDirs())
      Dirs.push_back(std::move(D));
  return Dirs;
}

std::vector<std::string> AssemblyResolver::sharedFrameworkDirs() {
  std::string Root;
  if (Optional<std::string> Env = sys::Process::GetEnv("DOTNET_ROOT"))
    Root = *Env;
  if (Root.empty() || !sys::fs::is_directory(Root)) {
    ErrorOr<std::string> Dotnet = sys::findProgramByName("dotnet");
    if (!Dotnet)
      return {};
    SmallString<256> Real;
    if (sys::fs::real_path(*Dotnet, Real))
      return {};
    Root = sys::path::parent_path(Real).str();
  }
  SmallString<256> Shared(Root);
  sys::path::append(Shared, "shared");
  std::vector<std::string> Out;
  std::error_code EC;
  std::vector<std::string> Frameworks;
  for (sys::fs::directory_iterator It(Shared, EC), End; It != End && !EC; It.increment(EC))
    Frameworks.push_back(It->path());
  std::sort(Frameworks.begin(), Frameworks.end(), [](const std::string &A, const std::string &B) {
    // The core framework first: every other one builds on it.
    bool CA = StringRef(A).endswith("Microsoft.NETCore.App");
    bool CB = StringRef(B).endswith("Microsoft.NETCore.App");
    return CA != CB ? CA : A < B;
  });
  for (const std::string &F : Frameworks) {
    std::string Best;
    for (sys::fs::directory_iterator It(F, EC), End; It != End && !EC; It.increment(EC)) {
      StringRef Name = sys::path::filename(It->path());
      if (Best.empty() || versionLess(sys::path::filename(Best), Name))
        Best = It->path();
    }
    if (!Best.empty())
      Out.push_back(Best);
  }
  return Out;
}

const Module *AssemblyResolver::findAssembly(StringRef Name) {
  if (const Module *Own = findOwnAssembly(Name))
    return Own;
  return Fallback ? Fallback->findAssembly(Name) : nullptr;
}

const Module *AssemblyResolver::findOwnAssembly(StringRef Name) {
  std::lock_guard<std::mutex> G(Lock);
  std::string Key = Name.lower();
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second ? It->second->Mod.get() : nullptr;
  std::unique_ptr<Loaded> L;
  for (const std::string &Dir : Dirs) {
    for (const char *Ext : {".dll", ".exe", ".winmd"}) {
      SmallString<256> Path(Dir);
      sys::path::append(Path, Name + Ext);
      if (!sys::fs::exists(Path))
        continue;
      Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Path);
      if (!Img) {
        consumeError(Img.takeError());
        continue;
      }
      if (!(*Img)->isManaged())
        continue;
      Expected<std::unique_ptr<Module>> Mod =
          Module::create((*Img)->metadata(), (*Img)->metadataOffset());
      if (!Mod) {
        consumeError(Mod.takeError());
        continue;
      }
      L = std::make_unique<Loaded>();
      L->Image = std::move(*Img);
      L->Mod = std::move(*Mod);
      break;
    }
    if (L)
      break;
  }
  const Module *Result = L ? L->Mod.get() : nullptr;
  Cache[Key] = std::move(L);
  return Result;
}

const Module *AssemblyResolver::assemblyOfScope(const Module &M, Token Scope) {
  if (tokenTable(Scope) == TableId::AssemblyRef && tokenRow(Scope))
    return findAssembly(
        M.getString(M.get(TableId::AssemblyRef, tokenRow(Scope), AssemblyRefCol::Name)));
  return &M;
}

std::optional<ResolvedType> AssemblyResolver::findType(const Module &M, StringRef Namespace,
                                                       StringRef Name, unsigned Depth) {
  if (uint32_t Row = M.findTypeDef(Namespace, Name))
    return ResolvedType{&M, Row};
  if (Depth >= MaxForwarding)
    return std::nullopt;
  if (uint32_t Row = M.findExportedType(Namespace, Name)) {
    Token Impl = M.getToken(TableId::ExportedType, Row, ExportedTypeCol::Implementation);
    if (tokenTable(Impl) == TableId::AssemblyRef)
      if (const Module *Target = assemblyOfScope(M, Impl))
        if (Target != &M)
          return findType(*Target, Namespace, Name, Depth + 1);
  }
  return std::nullopt;
}

std::optional<ResolvedType> AssemblyResolver::findNested(const ResolvedType &Outer,
                                                         StringRef Name) {
  for (uint32_t Nested : Outer.M->nestedTypes(Outer.Row))
    if (Nested <= Outer.M->rowCount(TableId::TypeDef) &&
        Outer.M->getString(Outer.M->get(TableId::TypeDef, Nested, TypeDefCol::TypeName)) == Name)
      return ResolvedType{Outer.M, Nested};
  return std::nullopt;
}

std::optional<ResolvedType> AssemblyResolver::resolveTypeRef(const Module &M, uint32_t Row) {
  return resolveTypeRefImpl(M, Row, 0);
}

std::optional<ResolvedType> AssemblyResolver::resolveTypeRefImpl(const Module &M, uint32_t Row,
                                                                 unsigned Depth) {
  if (Row == 0 || Row > M.rowCount(TableId::TypeRef) || Depth > MaxForwarding)
    return std::nullopt;
  StringRef Name = M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName));
  StringRef Ns = M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace));
  Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
  if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope)) {
    std::optional<ResolvedType> Outer = resolveTypeRefImpl(M, tokenRow(Scope), Depth + 1);
    return Outer ? findNested(*Outer, Name) : std::nullopt;
  }
  const Module *Target = assemblyOfScope(M, Scope);
  if (!Target)
    return std::nullopt;
  return findType(*Target, Ns, Name, 0);
}

std::optional<ResolvedType> AssemblyResolver::resolveSerializedName(const Module &Context,
                                                                    StringRef Serialized) {
  // "Ns.Outer+Inner, Assembly, Version=..."; a ',' inside [...] belongs to generic arguments.
  unsigned Brackets = 0;
  size_t Comma = StringRef::npos;
  for (size_t I = 0; I < Serialized.size(); ++I) {
    char C = Serialized[I];
    if (C == '\\') {
      ++I;
      continue;
    }
    if (C == '[')
      ++Brackets;
    else if (C == ']' && Brackets)
      --Brackets;
    else if (C == ',' && !Brackets) {
      Comma = I;
      break;
    }
  }
  StringRef TypePart = Serialized.substr(0, Comma).trim();
  StringRef AsmPart;
  if (Comma != StringRef::npos)
    AsmPart = Serialized.substr(Comma + 1).split(',').first.trim();
  if (TypePart.contains('['))
    return std::nullopt; // generic instantiations are never enums
  SmallVector<StringRef, 4> Chain;
  TypePart.split(Chain, '+');
  StringRef Outer = Chain.front();
  size_t Dot = Outer.rfind('.');
  StringRef Ns = Dot == StringRef::npos ? StringRef() : Outer.substr(0, Dot);
  StringRef Name = Dot == StringRef::npos ? Outer : Outer.substr(Dot + 1);

  auto Finish = [&](std::optional<ResolvedType> T) -> std::optional<ResolvedType> {
    for (size_t I = 1; T && I < Chain.size(); ++I)
      T = findNested(*T, Chain[I]);
    return T;
  };
  if (!AsmPart.empty()) {
    const Module *Target = findAssembly(AsmPart);
    return Target ? Finish(findType(*Target, Ns, Name, 0)) : std::nullopt;
  }
  if (auto T = Finish(findType(Context, Ns, Name, 0)))
    return T;
  for (uint32_t R = 1; R <= Context.rowCount(TableId::AssemblyRef); ++R)
    if (const Module *Target = findAssembly(
            Context.getString(Context.get(TableId::AssemblyRef, R, AssemblyRefCol::Name))))
      if (auto T = Finish(findType(*Target, Ns, Name, 0)))
        return T;
  return std::nullopt;
}

std::optional<ElementType> enumUnderlyingOfTypeDef(const Module &M, uint32_t TypeRow) {
  if (TypeRow == 0 || TypeRow > M.rowCount(TableId::TypeDef))
    return std::nullopt;
  Token Base = M.getToken(TableId::TypeDef, TypeRow, TypeDefCol::Extends);
  StringRef BaseName, BaseNs;
  if (tokenTable(Base) == TableId::TypeRef && tokenRow(Base)) {
    BaseName = M.getString(M.get(TableId::TypeRef, tokenRow(Base), TypeRefCol::TypeName));
    BaseNs = M.getString(M.get(TableId::TypeRef, tokenRow(Base), TypeRefCol::TypeNamespace));
  } else if (tokenTable(Base) == TableId::TypeDef && tokenRow(Base)) {
    BaseName = M.getString(M.get(TableId::TypeDef, tokenRow(Base), TypeDefCol::TypeName));
    BaseNs = M.getString(M.get(TableId::TypeDef, tokenRow(Base), TypeDefCol::TypeNamespace));
  }
  if (BaseName != "Enum" || BaseNs != "System")
    return std::nullopt;
  for (uint32_t I : M.typeFields(TypeRow)) {
    uint32_t F = M.field(I);
    if (M.get(TableId::Field, F, FieldCol::Flags) & FieldStatic)
      continue;
    Expected<TypeSig> S = fieldDefSig(M, F);
    if (!S) {
      consumeError(S.takeError());
      return std::nullopt;
    }
    const TypeSig &T = S->stripped();
    if (!TypeSig::isIntegral(T.Kind))
      return std::nullopt;
    return T.Kind;
  }
  return std::nullopt;
}

std::optional<ElementType> AssemblyResolver::enumUnderlyingTypeByName(const Module &Context,
                                                                      StringRef SerializedName) {
  std::string Key = SerializedName.str();
  {
    std::lock_guard<std::mutex> G(MemoLock);
    auto It = NameMemo.find({&Context, Key});
    if (It != NameMemo.end())
      return It->second;
  }
  std::optional<ElementType> Result;
  if (std::optional<ResolvedType> R = resolveSerializedName(Context, SerializedName))
    Result = enumUnderlyingType(*R);
  std::lock_guard<std::mutex> G(MemoLock);
  NameMemo[{&Context, std::move(Key)}] = Result;
  return Result;
}

std::optional<ElementType> AssemblyResolver::enumUnderlyingType(const ResolvedType &T) {
  return enumUnderlyingOfTypeDef(*T.M, T.Row);
}

std::optional<ElementType> AssemblyResolver::enumUnderlyingType(const Module &M, Token T) {
  if (tokenTable(T) == TableId::TypeDef)
    return enumUnderlyingOfTypeDef(M, tokenRow(T));
  if (tokenTable(T) != TableId::TypeRef)
    return std::nullopt;
  {
    std::lock_guard<std::mutex> G(MemoLock);
    auto It = EnumMemo.find({&M, T});
    if (It != EnumMemo.end())
      return It->second;
  }
  std::optional<ElementType> Result;
  if (std::optional<ResolvedType> R = resolveTypeRef(M, tokenRow(T)))
    Result = enumUnderlyingType(*R);
  std::lock_guard<std::mutex> G(MemoLock);
  EnumMemo[{&M, T}] = Result;
  return Result;
}

} // namespace weft::metadata
