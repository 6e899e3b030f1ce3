//===- iltext/RawDump.h - Raw structures of a file --------------*- C++ -*-===//
//
// `weft dump --raw`: the headers, sections, directories, CLI header, debug directory, metadata
// root and streams, table rows and method headers of a file, with their offsets and sizes, as they
// are stored. It goes as far as the file allows: a structure that cannot be read is reported in
// place and the walk stops there, so it shows what a broken file contains.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_ILTEXT_RAWDUMP_H
#define WEFT_ILTEXT_RAWDUMP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace weft::text {

/// Writes the raw structures of the file \p Bytes. Returns the first problem found (after
/// writing everything that could be written), or success.
llvm::Error rawDump(llvm::raw_ostream &OS, llvm::ArrayRef<uint8_t> Bytes);

} // namespace weft::text

#endif
