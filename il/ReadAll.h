//===- il/ReadAll.h - Decode everything in a module -------------*- C++ -*-===//
//
// Reads a module completely: every table (validated when the module was created), every
// signature blob, custom attribute, marshalling descriptor, constant and permission set, the debug
// directory and ReadyToRun header, and every method body with its instructions, exception clauses
// and the tokens its instructions use. The reader sweep, `weft info`, the fuzz targets and the
// benchmark all use it, so "read fully" means one thing.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_READALL_H
#define WEFT_IL_READALL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
class AssemblyResolver;
} // namespace weft::metadata
namespace weft::il {
struct RawMethodBody;
class MethodBody;
} // namespace weft::il

namespace weft {

class WorkerTeam;

struct ReadStats {
  uint64_t Signatures = 0;
  uint64_t CustomAttributes = 0;
  /// Custom attributes using an enum whose definition the resolver did not find (read as int32).
  uint64_t UnresolvedEnumAttributes = 0;
  uint64_t MethodsWithBody = 0;
  uint64_t ILBytes = 0;
  uint64_t Instructions = 0;
  uint64_t ExceptionClauses = 0;
};

struct ReadOptions {
  /// Decode custom attributes (needs the resolver for enums in other assemblies).
  bool CustomAttributes = true;
  metadata::AssemblyResolver *Resolver = nullptr;
  /// The most IL code to read over all methods; 0 for il::methodCodeBudget of the file's size.
  uint64_t CodeBudget = 0;
  /// Threads for the method bodies, which are read in parallel (the error, if any, is the one
  /// reading them in order would give); may be null.
  WorkerTeam *Team = nullptr;
  /// Methods (MethodDef rows) whose bodies and signatures the caller decodes anyway: of a method
  /// with an IL body, only the body's header is read here (for the code budget); the caller
  /// checks the rest with checkMethodBody once it has decoded the body, and decodes the
  /// signature itself, so that each is decoded once.
  llvm::function_ref<bool(uint32_t Row)> DecodedLater;
};

/// Decodes everything; the first malformed item is the error (naming what and where).
llvm::Error readEverything(const pe::Image &Image, const metadata::Module &M, ReadStats &Stats,
                           const ReadOptions &Options = {});

/// What readEverything checks of a method body beyond what il::MethodBody::decode does (which
/// refuses branches and clauses off instruction boundaries): the local variable signature, every
/// token operand, the clauses' catch types and kinds. \p Body was decoded from \p Raw.
llvm::Error checkMethodBody(const metadata::Module &M, const il::RawMethodBody &Raw,
                            const il::MethodBody &Body);

} // namespace weft

#endif
