//===- tests/support/JsonSchema.h - Checking JSON against a schema -*- C++ -*-===//
//
// The part of JSON Schema (draft 2020-12) that weft's schemas use: type, properties, required,
// additionalProperties, items, enum, const, oneOf, minimum, pattern (as a POSIX extended regular
// expression, which the simple patterns used read the same in), and $ref to "#/$defs/NAME".
// A keyword outside that part is reported as a problem of the schema, so a schema never
// silently asks for more than is checked.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_JSONSCHEMA_H
#define WEFT_TESTS_SUPPORT_JSONSCHEMA_H

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace weft::test {

/// What in \p Document breaks \p Schema, each as "/path/to/value: what" (empty if nothing).
std::vector<std::string> schemaProblems(const llvm::json::Value &Schema,
                                        const llvm::json::Value &Document);

/// The same with the schema read from \p SchemaFile and the document from \p Text; a file or
/// text that does not parse is a problem too.
std::vector<std::string> schemaProblemsInText(llvm::StringRef SchemaFile, llvm::StringRef Text);

} // namespace weft::test

#endif
