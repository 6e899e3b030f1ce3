//===- tests/support/MixedModeImage.h - A C++/CLI-shaped image -*- C++ -*-===//
//
// Makes, from an IL-only x86 assembly, an image shaped the way a C++/CLI compiler (MSVC /clr)
// writes a mixed-mode DLL (dotnet/runtime docs/design/coreclr/botr/mixed-mode.md, corhdr.h):
//  - the CLI header's IL-only flag is cleared and its entry point is native code (the
//    native-entry-point flag, and an RVA instead of a token): a DllMain that returns TRUE, in an
//    executable section of its own;
//  - a vtable fixup table in the CLI header, one entry per static method with a body, each a
//    32-bit slot in a writable section holding the method's token, marked to be called from
//    native code in the caller's domain (COR_VTABLE_32BIT |
//    COR_VTABLE_FROM_UNMANAGED_RETAIN_APPDOMAIN, as MSVC marks them); the loader replaces the
//    tokens with the addresses of managed stubs.
// Everything else, the metadata and the IL included, is the input's, so that weft reads and
// disassembles the result as it does the input.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_MIXEDMODEIMAGE_H
#define WEFT_TESTS_SUPPORT_MIXEDMODEIMAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace weft::test {

struct MixedModeImage {
  std::vector<uint8_t> Bytes;
  uint32_t NativeEntryPoint = 0; // RVA
  uint32_t VTableFixups = 0;     // entries
};

/// Reads the IL-only, unsigned PE32 assembly at \p Path and makes its mixed-mode twin.
llvm::Expected<MixedModeImage> makeMixedModeImage(llvm::StringRef Path);

} // namespace weft::test

#endif
