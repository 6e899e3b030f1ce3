//===- tests/support/IlTools.h - Microsoft's ilasm and ildasm ---*- C++ -*-===//
//
// Microsoft's IL assembler and disassembler, as the il-tools.restore test puts them into the
// machine's NuGet package folder (tests/il-tools): the packages
// runtime.<rid>.Microsoft.NETCore.ILAsm and ...ILDAsm of the version of the newest installed
// Microsoft.NETCore.App, for the SDK's runtime identifier. Both are found the way the restore
// put them there; nothing is looked for at a fixed path.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_ILTOOLS_H
#define WEFT_TESTS_SUPPORT_ILTOOLS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace weft::test {

/// The runtime identifier of the installed SDK (`dotnet --info`'s "RID:"), e.g. "linux-x64".
std::string sdkRuntimeIdentifier();

/// The newest installed Microsoft.NETCore.App's version, e.g. "10.0.12".
std::string runtimeVersion();

/// The executable \p Tool ("ilasm" or "ildasm") of the restored package; empty if it is not
/// there, with the path that was looked for in \p Looked.
std::string ilTool(llvm::StringRef Tool, std::string *Looked = nullptr);

} // namespace weft::test

#endif
