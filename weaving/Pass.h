//===- weaving/Pass.h - What a pass is and what it may ask ------*- C++ -*-===//
//
// A pass transforms method bodies. It sees the module through two contexts, which the offline
// weaver implements over the metadata editor and the runtime profiler over the runtime's metadata
// interfaces, so a pass never knows which mode it runs in:
//
//  - ModuleContext, in the serial phases (beginModule, endModule): read the module, find or add
//    references, add types with fields and methods and give the new methods bodies.
//  - MethodContext, in runOnMethod, which runs for many methods at once on several threads: the
//    body and its method's facts, references and strings by value, new locals. The tokens it
//    hands out are provisional; the weaver replaces them with real ones afterwards, taking the
//    requests of the methods in row order, so the output is the same whatever the thread count.
//    Signature blobs given to it may contain only real tokens (those of the module or made in
//    beginModule).
//
// After every method of a batch has run, finishMethod is called for each of them in row order
// with the real tokens in place (for numbering things across methods, such as coverage counters).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_PASS_H
#define WEFT_WEAVING_PASS_H

#include "il/MethodBody.h"
#include "metadata/AssemblyCache.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Signature.h"
#include "support/AtomicFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace weft::passes {

using metadata::Token;

/// The options a pass was given (`--pass name:k=v,k=v` or a spec rule's "options").
class PassOptions {
public:
  PassOptions() = default;
  PassOptions(std::vector<std::pair<std::string, std::string>> Values, std::string BaseDir,
              std::string Rule)
      : Values(std::move(Values)), BaseDir(std::move(BaseDir)), Rule(std::move(Rule)) {}
  bool has(llvm::StringRef Key) const;
  llvm::StringRef get(llvm::StringRef Key, llvm::StringRef Default = "") const;
  /// A path option, made relative to the spec file's directory.
  std::string path(llvm::StringRef Key) const;
  llvm::ArrayRef<std::pair<std::string, std::string>> values() const { return Values; }
  /// The rule that gave them, for messages ("rules[0] 'name'" or "--pass").
  llvm::StringRef rule() const { return Rule; }
  /// An error naming the rule.
  llvm::Error error(const llvm::Twine &What) const;

private:
  std::vector<std::pair<std::string, std::string>> Values;
  std::string BaseDir, Rule;
};

/// The module, in the serial phases.
class ModuleContext {
public:
  virtual ~ModuleContext() = default;
  virtual const metadata::Module &module() const = 0;
  /// The assembly's simple name (the module's name without extension if it has no manifest).
  virtual llvm::StringRef assemblyName() const = 0;

  // References: an equal existing row, or a new one.
  virtual Token assemblyRef(const metadata::AssemblyRefInfo &Info) = 0;
  virtual Token typeRef(Token Scope, llvm::StringRef Namespace, llvm::StringRef Name) = 0;
  virtual Token memberRef(Token Parent, llvm::StringRef Name, llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual Token typeSpec(llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual Token methodSpec(Token Method, llvm::ArrayRef<uint8_t> Instantiation) = 0;
  virtual Token standAloneSig(llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual llvm::Expected<Token> userString(llvm::StringRef Utf8) = 0;
  /// The AssemblyRef through which the module reaches the core library, or 0 if the module is the
  /// core library.
  virtual Token coreScope() const = 0;
  /// The token of a well-known type of the core library ("System", "Object"), referenced through
  /// the assembly the module already uses for it (System.Runtime, netstandard, mscorlib or
  /// System.Private.CoreLib itself).
  virtual llvm::Expected<Token> coreType(llvm::StringRef Namespace, llvm::StringRef Name) = 0;
  /// A type of another framework assembly (System.Console, ...): referenced through that
  /// assembly when the module's core library is System.Runtime, else through the core library
  /// (netstandard and mscorlib hold every framework type).
  virtual llvm::Expected<Token> frameworkType(llvm::StringRef Assembly, llvm::StringRef Namespace,
                                              llvm::StringRef Name) = 0;

  /// \p Name, or \p Name followed by as many `'` as make it a name no type of \p Namespace has
  /// in the module, counting the names taken before in this weave (a module woven before, a
  /// pass used with several sets of options, each adding its type). Takes the name.
  std::string freeTypeName(llvm::StringRef Namespace, llvm::StringRef Name);

  // Definitions: new types go at the end; members are added to the last type added.
  virtual Token addType(uint32_t Flags, llvm::StringRef Namespace, llvm::StringRef Name,
                        Token Extends) = 0;
  virtual llvm::Expected<Token> addField(Token Type, uint16_t Flags, llvm::StringRef Name,
                                         llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual llvm::Expected<Token> addMethod(Token Type, uint16_t Flags, uint16_t ImplFlags,
                                          llvm::StringRef Name, llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual void addCustomAttribute(Token Parent, Token Constructor,
                                  llvm::ArrayRef<uint8_t> Value) = 0;
  /// Gives a method added with addMethod its body (max-stack is computed).
  virtual llvm::Error setBody(Token Method, il::MethodBody Body, bool ReturnsValue) = 0;

  /// A side file written next to the output (name relative to it, such as "app.dll.map").
  virtual void addSideFile(std::string Suffix, std::string Contents) = 0;
  /// The file the module was read from, if there is one (the offline weaver's input), for
  /// passes that look for files beside it such as its PDB; empty otherwise.
  virtual llvm::StringRef inputPath() const { return {}; }
  virtual void warn(const llvm::Twine &Message) = 0;
  /// An assembly the pass reads by path (probes, replacements). The offline weaver serves it from
  /// a cache that lives for the whole run, so that weaving many modules reads it once; by default
  /// it is opened anew. Errors name the file. (Last, so that the slots plugins built before it
  /// call through are where they were.)
  virtual llvm::Expected<std::shared_ptr<const metadata::OpenedAssembly>>
  openAssembly(llvm::StringRef Path) {
    return metadata::OpenedAssembly::open(Path);
  }
  /// A side file the pass wrote to a temporary file, being too large to hold in memory: the
  /// offline weaver moves it next to the output once the output is written. By default it is
  /// read back and given to addSideFile.
  virtual void addSideFileFrom(std::string Suffix, ScratchFile File) {
    auto Text = llvm::MemoryBuffer::getFile(File.path(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!Text) {
      warn("cannot read back the side file " + Suffix + ": " + Text.getError().message());
      return;
    }
    addSideFile(std::move(Suffix), std::string((*Text)->getBuffer()));
  } /// Weaving inside a running process (the runtime profiler): its id; 0 offline. What the woven
  /// code writes is then named after the process by default, so that processes that load the
  /// same module never overwrite each other's. (After the slots above, as openAssembly is.)
  virtual uint32_t processId() const { return 0; }

private:
  std::set<std::pair<std::string, std::string>> TakenTypeNames;
};

/// One method, in runOnMethod.
class MethodContext {
public:
  virtual ~MethodContext() = default;
  virtual const metadata::Module &module() const = 0;
  uint32_t row() const { return Row; }
  Token token() const { return metadata::makeToken(metadata::TableId::MethodDef, Row); }
  il::MethodBody &body() { return *Body; }
  /// The method's signature. Decoded when first asked for: most passes need only the return type.
  virtual const metadata::MethodSig &signature() const = 0;
  /// The return type, as in signature(), without decoding the parameters.
  virtual const metadata::TypeSig &returnType() const = 0;
  /// The declaring type (a TypeDef row), 0 for a global method.
  uint32_t declaringType() const { return TypeRow; }
  /// "Namespace.Type::Method", nested types as Outer/Inner.
  virtual const std::string &displayName() const = 0;
  bool isConstructor() const;
  bool isStatic() const;
  /// Whether the declaring type is a value type (so `this` is a managed pointer).
  virtual bool declaringTypeIsValueType() const = 0;
  /// The TypeSig of the declaring type as seen from inside it: the type itself, or its generic
  /// instantiation over its own parameters (!0, !1, ...).
  virtual metadata::TypeSig declaringTypeSig() const = 0;
  /// Whether a value of \p T cannot be boxed (by-ref-like types such as Span<T>, pointers,
  /// TypedReference); unresolvable types from other assemblies count as boxable.
  virtual bool isByRefLike(const metadata::TypeSig &T) const = 0;

  // Provisional tokens (see the file comment).
  virtual Token typeRef(Token Scope, llvm::StringRef Namespace, llvm::StringRef Name) = 0;
  virtual Token memberRef(Token Parent, llvm::StringRef Name, llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual Token typeSpec(llvm::ArrayRef<uint8_t> Sig) = 0;
  virtual Token methodSpec(Token Method, llvm::ArrayRef<uint8_t> Instantiation) = 0;
  virtual Token userString(llvm::StringRef Utf8) = 0;
  /// As ModuleContext::coreScope.
  virtual Token coreScope() const = 0;
  /// A token for `box`, `ldobj` and the like of \p T: its TypeDef or TypeRef, or a TypeSpec.
  Token typeToken(const metadata::TypeSig &T);
  /// The types of the values the call instruction \p Call takes from the stack, as local
  /// variable types of this method (weaving/CallOperands.h); \p Constrained is the type
  /// token of its constrained. prefix, or 0. Fails, saying why, when a type cannot be known.
  virtual llvm::Expected<std::vector<metadata::TypeSig>> callOperandTypes(const il::Instr &Call,
                                                                          Token Constrained) = 0;

  /// A new local of type \p T (its signature bytes); returns its number.
  virtual uint32_t addLocal(llvm::ArrayRef<uint8_t> Type) = 0;
  virtual uint32_t localCount() const = 0;

  /// The pass leaves this method as it was, for \p Reason (reported with --verbose).
  virtual void skip(const llvm::Twine &Reason) = 0;
  /// Something the pass did differently for this method (reported with --verbose).
  virtual void note(const llvm::Twine &What) = 0;
  /// For the pass's own use between runOnMethod and finishMethod (freed with the method's
  /// context once it is encoded).
  std::vector<il::Instr *> Marks;
  uint32_t Number = 0;
  std::string Text;
  void *PassData = nullptr; // a plugin's (weft_api::SetMethodData)

protected:
  uint32_t Row = 0;
  uint32_t TypeRow = 0;
  il::MethodBody *Body = nullptr;
};

class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::Error beginModule(ModuleContext &) { return llvm::Error::success(); }
  /// Transforms one method; may run concurrently with other methods (but one pass instance
  /// never runs concurrently with its own beginModule, finishMethod or endModule).
  virtual llvm::Error runOnMethod(MethodContext &C) = 0;
  /// Whether runOnMethod asks every method for its whole signature (MethodContext::signature):
  /// the weave then decodes it whole where it checks it, once, rather than its head there and
  /// the whole again when asked.
  virtual bool usesSignatures() const { return false; }
  virtual void finishMethod(MethodContext &) {}
  virtual llvm::Error endModule(ModuleContext &) { return llvm::Error::success(); }
};

struct PassOptionInfo {
  std::string Name, Description;
};

struct PassInfo {
  std::string Name, Description;
  std::vector<PassOptionInfo> Options;
  std::function<llvm::Expected<std::unique_ptr<Pass>>(const PassOptions &)> Create;
};

/// Every pass, built-in or from a plugin, registered once by name.
class PassRegistry {
public:
  /// The registry of the process: the built-in passes (registered by passes/Builtins.cpp), then
  /// what plugins add.
  static PassRegistry &global();
  /// Fails if the name is taken.
  llvm::Error add(PassInfo Info);
  const PassInfo *find(llvm::StringRef Name) const;
  const std::vector<PassInfo> &all() const { return Passes; }
  /// "a, b, c": the names, for messages.
  std::string names() const;
  /// Makes a pass from a name and options, checking the options against those it declares;
  /// errors name the rule the options came from.
  llvm::Expected<std::unique_ptr<Pass>> create(llvm::StringRef Name,
                                               const PassOptions &Options) const;

private:
  std::vector<PassInfo> Passes;
};

/// Registers the built-in passes (once).
void registerBuiltinPasses(PassRegistry &R);

} // namespace weft::passes

#endif
