//===- weaving/Registry.cpp - The pass registry ---------------------------===//
#include "metadata/Names.h"
#include "weaving/Pass.h"

#include "llvm/Support/Path.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

bool PassOptions::has(StringRef Key) const {
  for (const auto &[K, V] : Values)
    if (K == Key)
      return true;
  return false;
}

StringRef PassOptions::get(StringRef Key, StringRef Default) const {
  for (const auto &[K, V] : Values)
    if (K == Key)
      return V;
  return Default;
}

std::string PassOptions::path(StringRef Key) const {
  StringRef P = get(Key);
  if (P.empty() || sys::path::is_absolute(P) || BaseDir.empty())
    return P.str();
  SmallString<256> Out(BaseDir);
  sys::path::append(Out, P);
  return std::string(Out.str());
}

Error PassOptions::error(const Twine &What) const {
  return createStringError(inconvertibleErrorCode(), Rule + ": " + What);
}

bool MethodContext::isConstructor() const {
  StringRef Name = module().getString(module().get(TableId::MethodDef, Row, MethodDefCol::Name));
  return Name == ".ctor" || Name == ".cctor";
}

bool MethodContext::isStatic() const {
  return module().get(TableId::MethodDef, Row, MethodDefCol::Flags) & 0x0010;
}

Token MethodContext::typeToken(const TypeSig &T) {
  if (T.Kind == ElementType::Class || T.Kind == ElementType::ValueType)
    return T.TypeToken;
  // The primitive types by name: their TypeRef (or TypeDef in the core library itself).
  const char *Name = T.Kind == ElementType::Void || T.Kind == ElementType::TypedByRef
                         ? nullptr
                         : primitiveTypeName(T.Kind);
  if (Name) {
    if (!coreScope())
      if (uint32_t Row = module().findTypeDef("System", Name))
        return makeToken(TableId::TypeDef, Row);
    if (coreScope())
      return typeRef(coreScope(), "System", Name);
  }
  std::vector<uint8_t> Blob;
  encodeTypeSig(T, Blob);
  return typeSpec(Blob);
}

// The one call from the framework to the passes built on it (passes/Builtins.cpp defines it):
// the registry every weave uses starts with them.
PassRegistry &PassRegistry::global() {
  static PassRegistry *R = [] {
    auto *Reg = new PassRegistry;
    registerBuiltinPasses(*Reg);
    return Reg;
  }();
  return *R;
}

Error PassRegistry::add(PassInfo Info) {
  if (find(Info.Name))
    return createStringError(inconvertibleErrorCode(),
                             "a pass named '" + Info.Name + "' is already registered");
  Passes.push_back(std::move(Info));
  return Error::success();
}

const PassInfo *PassRegistry::find(StringRef Name) const {
  for (const PassInfo &P : Passes)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

std::string PassRegistry::names() const {
  std::string Out;
  for (const PassInfo &P : Passes)
    Out += (Out.empty() ? "" : ", ") + P.Name;
  return Out;
}

Expected<std::unique_ptr<Pass>> PassRegistry::create(StringRef Name,
                                                     const PassOptions &Options) const {
  const PassInfo *Info = find(Name);
  if (!Info)
    return Options.error("unknown pass '" + Name + "' (known passes: " + names() + ")");
  for (const auto &[K, V] : Options.values()) {
    bool Declared = false;
    for (const PassOptionInfo &O : Info->Options)
      Declared |= O.Name == K;
    if (!Declared) {
      std::string Known;
      for (const PassOptionInfo &O : Info->Options)
        Known += (Known.empty() ? "" : ", ") + O.Name;
      return Options.error(
          "pass '" + Name + "' has no option '" + K + "'" +
          (Known.empty() ? std::string(" (it takes none)") : " (options: " + Known + ")"));
    }
  }
  return Info->Create(Options);
}

std::string ModuleContext::freeTypeName(StringRef Namespace, StringRef Name) {
  std::string Free = Name.str();
  while (module().findTypeDef(Namespace, Free) || TakenTypeNames.count({Namespace.str(), Free}))
    Free += "'";
  TakenTypeNames.insert({Namespace.str(), Free});
  return Free;
}

} // namespace weft::passes
