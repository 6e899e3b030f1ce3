//===- tests/support/PtrTablesImage.h - An assembly with *Ptr tables -*- C++ -*-===//
//
// Makes, from an assembly a compiler wrote, an equivalent one whose metadata is laid out the way
// edit-and-continue and some obfuscators lay it out: the uncompressed "#-" table stream, with
// FieldPtr, MethodPtr, ParamPtr, EventPtr and PropertyPtr tables (ECMA-335 II.24.2.6, II.22). In
// the Field, MethodDef, Param, Event and Property tables, the runs of rows that belong to one
// type (or method, or event or property map) are stored in reverse order, and the *Ptr tables
// list the rows in their original order, so that a type's members (and a method's parameters) are
// found only through the *Ptr tables: a reader that takes a member list as rows of the member
// table itself gets other types' members, with their names, signatures and bodies.
//
// Tokens name stored rows, so every reference to a moved row follows it: the other tables'
// columns, the tokens in method bodies and the entry point. Tables that must stay sorted by a
// column naming a moved row are sorted again. The PDB, which numbers methods by row too, is left
// behind (the debug directory is removed). The new metadata goes into a section of its own; the
// rest of the file is the input's.
//
// This is a test oracle: it takes the cells out of the input with weft's reader, but lays out the
// tables, the stream, the metadata root and the file itself, without weft's metadata writer.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_PTRTABLESIMAGE_H
#define WEFT_TESTS_SUPPORT_PTRTABLESIMAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace weft::test {

struct PtrTablesImage {
  std::vector<uint8_t> Bytes;
  /// The row in the new file of each Field and MethodDef row of the input (index 0 unused).
  std::vector<uint32_t> FieldRow, MethodRow;
};

/// Reads the IL-only, unsigned assembly at \p Path and makes its "#-" twin.
llvm::Expected<PtrTablesImage> makePtrTablesImage(llvm::StringRef Path);

} // namespace weft::test

#endif
