//===- il/Verifier.h - Is this module well formed? --------------*- C++ -*-===//
//
// Checks what the runtime relies on and a rewriter can break (ECMA-335 III.1 and III.2, as CoreCLR
// enforces them): for every method body, that branches land on instructions and never on one that
// follows a prefix; the stack depth is the same on every path into an instruction, never negative
// and within max-stack; ret leaves exactly the return value, endfilter exactly its result,
// localloc exactly its size, and leave, endfinally and jmp nothing; a try block is entered with an
// empty stack; exception clauses nest and are ordered inner first, no region boundary splits a
// prefix from its instruction; leave, endfinally, endfilter, rethrow, ret, jmp and localloc appear
// only where they are allowed; control neither falls into nor out of a handler; each prefix
// precedes an instruction it applies to (a tail call is followed by ret and lies in no protected
// region; constrained. before call or ldftn names a static method; unaligned. gives 1, 2 or 4);
// tokens name rows of the tables their instruction accepts; local and argument numbers are in
// range and arglist appears only in vararg methods. For the metadata, that sorted tables are
// sorted (everything the reader validates, such as coded indices and member ranges, is checked
// when it is opened).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_VERIFIER_H
#define WEFT_IL_VERIFIER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
class Editor;
enum class TableId : uint8_t;
} // namespace weft::metadata
namespace weft::il {
class MethodBody;
class CallShapeSource;
struct RawMethodBody;
enum class OperandKind : uint8_t;
} // namespace weft::il

namespace weft::analysis {

struct Diagnostic {
  uint32_t Method = 0;            // MethodDef token, or 0 for a metadata problem
  uint32_t ILOffset = 0xFFFFFFFF; // where in the body, if anywhere
  std::string Where;              // "Ns.Type::Name" or "table X"
  std::string What;
};

struct VerifyResult {
  std::vector<Diagnostic> Problems;
  uint32_t MethodsChecked = 0;
  uint32_t MethodsWithProblems = 0;
};

/// Verifies every method body and the sorted tables of a module.
VerifyResult verifyModule(const pe::Image &Image, const metadata::Module &M);

/// Verifies one body (already decoded) of the method \p MethodRow of \p M. Appends problems.
/// With \p Edits, tokens and local signatures may also name rows the editor added.
void verifyBody(const metadata::Module &M, uint32_t MethodRow, const il::MethodBody &Body,
                uint16_t DeclaredMaxStack, const il::CallShapeSource &Shapes,
                std::vector<Diagnostic> &Out, const metadata::Editor *Edits = nullptr);

/// Whether an instruction with inline operand \p K may name a row of table \p Table (a TableId).
bool operandTokenAllowed(il::OperandKind K, metadata::TableId Table);

/// The tables that ECMA-335 (and the portable PDB format) require sorted, with their key column.
void verifySortedTables(const metadata::Module &M, std::vector<Diagnostic> &Out);

} // namespace weft::analysis

#endif
