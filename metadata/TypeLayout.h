//===- metadata/TypeLayout.h - Sizes of field data --------------*- C++ -*-===//
//
// A field with an RVA (static data such as array initialisers) points at bytes whose count the
// file does not store: it is the size of the field's type, a primitive or a value type with an
// explicit size (`.size`) or with fields of known sizes.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_TYPELAYOUT_H
#define WEFT_METADATA_TYPELAYOUT_H

#include "metadata/Module.h"

#include "llvm/Support/Error.h"

namespace weft::metadata {

/// The number of bytes of data a field with an RVA has.
llvm::Expected<uint32_t> fieldDataSize(const Module &M, uint32_t FieldRow);

} // namespace weft::metadata

#endif
