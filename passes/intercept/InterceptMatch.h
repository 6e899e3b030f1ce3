//===- passes/intercept/InterceptMatch.h - intercept-call's decisions -*- C++ -*-===//
//
// What intercept-call decides once per module, before any method runs: the target it was given,
// the replacement overloads the replacement type offers, and for every token of the woven module
// that names the target (a MethodDef, a MemberRef of the target's type or of an instantiation of
// it, a MethodSpec of a generic method) which overload its sites go to, or why none fits. Sites
// then only read the table, so methods run concurrently.
//
// A replacement is a public static method. For a static target it takes the same parameters; for
// an instance target the instance comes first (the declaring type or object for a reference type,
// `ref T` for a value type); for a constructor it takes the constructor's parameters and returns
// the type. For a target of a generic type or a generic method, a generic replacement takes the
// type's arguments and then the method's as its own (`Add<T>(List<T>, T)` for `List<T>.Add`), or a
// plain one fits one instantiation (`Add(List<string>, string)`). Types are compared by their
// ILAsm names without the assembly that holds them.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PASSES_INTERCEPT_INTERCEPTMATCH_H
#define WEFT_PASSES_INTERCEPT_INTERCEPTMATCH_H

#include "metadata/Resolver.h"
#include "metadata/Signature.h"
#include "weaving/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft::passes::intercept {

/// What the target option names: "Ns.Type::Method" (a generic type with its arity, List`1; a
/// constructor as .ctor) with an optional parameter list.
struct Target {
  std::string Type, Method;
  std::optional<std::vector<std::string>> Params; // list keys
  std::string Text;
  bool constructor() const { return Method == ".ctor"; }
};

/// How an instance reaches the replacement's first parameter.
enum class Receiver : uint8_t {
  None,      // a static call (or the replacement cannot take an instance first)
  Reference, // object, or the (reference) declaring type
  Pointer,   // `ref T` for a value type T
};

/// A public static method of the replacement type with the right name.
struct Candidate {
  uint32_t Row = 0;
  metadata::MethodSig Sig;
  std::string Return;
  std::vector<std::string> Params, ListParams; // compare keys, list keys
  Receiver Instance = Receiver::None;
  /// The key of the type Instance names ("" for object); the type of a first parameter taken by
  /// value, when it could be a value type's instance.
  std::string InstanceType;
  std::string Text;        // "string Ns.Type::M(string)" for messages
  metadata::Token Ref = 0; // its MemberRef in the woven module, once a site uses it
  uint32_t arity() const { return Sig.GenericParamCount; }
};

/// What becomes of the sites of one token of the woven module.
struct Decision {
  int Candidate = -1;
  Receiver Instance = Receiver::None;         // how the call passes its instance (None: static)
  uint32_t Args = 0;                          // parameters besides the instance
  std::vector<std::vector<uint8_t>> ArgTypes; // their encoded types (for spilling)
  /// What the sites call: the replacement's MemberRef, or a MethodSpec of it.
  metadata::Token Replacement = 0;
  /// Whether the target's declaring type is a value type (nothing when that is not known).
  std::optional<bool> ValueType;
  /// The declaring type as a token for `stobj` (a constructor of a value type called in place).
  metadata::Token DeclaringType = 0;
  std::string Site; // the target as the sites name it, "System.Console::WriteLine(int32)"
  std::string Why;  // why its sites are left alone (Candidate < 0)
};

class Matcher {
public:
  explicit Matcher(const PassOptions &O);
  ~Matcher();
  /// Reads the target and the replacement assembly and decides every site token of the module.
  llvm::Error prepare(ModuleContext &MC);
  const Target &target() const { return Tgt; }
  /// The decision for a token a site carries, or null if it does not name the target.
  const Decision *find(metadata::Token T) const {
    auto It = Decisions.find(T);
    return It == Decisions.end() ? nullptr : &It->second;
  }

private:
  struct Callee;
  llvm::Error parseTarget();
  llvm::Error openReplacement(ModuleContext &MC);
  llvm::Error findCandidates();
  std::optional<Candidate> candidate(uint32_t Row, std::string &Problem) const;
  std::string candidateList() const;
  llvm::Error decideSites(ModuleContext &MC);
  std::vector<Callee> callees(ModuleContext &MC) const;
  void decide(const metadata::Module &M, const Callee &C, Decision &D);
  bool fits(const metadata::Module &M, const Candidate &Cd, const Callee &C, Decision &D,
            std::string &Mismatch) const;
  std::optional<bool> isValueType(const metadata::Module &M, metadata::Token Type);
  llvm::Expected<metadata::Token> replacementFor(ModuleContext &MC, const Callee &C,
                                                 const Decision &D);
  llvm::Expected<metadata::Token> importReplacement(ModuleContext &MC, const Candidate &Cd);
  llvm::Expected<metadata::TypeSig> importType(ModuleContext &MC, const metadata::TypeSig &T,
                                               unsigned Depth);
  llvm::Expected<metadata::Token> importTypeToken(ModuleContext &MC, metadata::Token T,
                                                  unsigned Depth);
  metadata::AssemblyRefInfo replacementAssembly();

  PassOptions Options;
  Target Tgt;
  std::string Path, TypeName, KeyToken;
  std::shared_ptr<const metadata::OpenedAssembly> Replacement;
  const metadata::Module *R = nullptr; // the replacement's module
  uint32_t TypeRow = 0;
  std::vector<Candidate> Candidates;
  std::unique_ptr<metadata::AssemblyResolver> Resolver;
  metadata::Token ReplacementType = 0;
  /// By the token a site carries; read-only once prepare is done.
  llvm::DenseMap<metadata::Token, Decision> Decisions;
};

} // namespace weft::passes::intercept

#endif
