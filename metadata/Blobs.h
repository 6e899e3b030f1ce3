//===- metadata/Blobs.h - Marshalling, constants, permission sets -*- C++ -*-===//
//
// The smaller blob kinds, decoded and written in ILAsm syntax in one step: marshalling descriptors
// (II.23.4), constant values (II.22.9) and declarative security permission sets (II.22.11). Each
// writer checks the blob completely and fails, writing nothing useful, on a malformed one; the
// caller then falls back to the raw bytes.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_BLOBS_H
#define WEFT_METADATA_BLOBS_H

#include "metadata/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace weft::metadata {

class AssemblyResolver;
class NamePrinter;

/// Writes a FieldMarshal descriptor as the inside of `marshal(...)`, e.g. `lpwstr`, `int32[+1]`.
llvm::Error writeMarshal(llvm::raw_ostream &OS, llvm::ArrayRef<uint8_t> Blob, uint64_t FileOffset);

/// Writes a Constant row's value as ILAsm does after `=`: `int32(0x00000005)`, `"text"`,
/// `nullref`, `float64(1.5)`.
llvm::Error writeConstant(llvm::raw_ostream &OS, uint8_t ElementType, llvm::ArrayRef<uint8_t> Blob,
                          uint64_t FileOffset);

/// The ILAsm name of a security action (`demand`, `reqmin`, ...), or null.
const char *securityActionName(uint16_t Action);

/// Writes a DeclSecurity permission set: the binary form (starting with '.') as
/// `{'Type, Assembly' = {property bool 'X' = bool(true)}}`; the XML form as `bytearray (...)`.
llvm::Error writePermissionSet(llvm::raw_ostream &OS, const Module &M, llvm::ArrayRef<uint8_t> Blob,
                               uint64_t FileOffset, const NamePrinter &Names,
                               AssemblyResolver *Resolver);

} // namespace weft::metadata

#endif
