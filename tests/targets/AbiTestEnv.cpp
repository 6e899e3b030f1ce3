//===- tests/targets/AbiTestEnv.cpp - What the ABI test needs of tests/support -===//
//
// tests/unit/ProfilerAbiTest.cpp built for another platform (tests/targets/CMakeLists.txt) needs
// two functions of tests/support/Env.h, whose file is POSIX's: these, through LLVM Support. The
// runtime is this machine's (DOTNET_ROOT), whose IIDs are the same on every platform.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace weft::test {

std::string netCoreAppDir() {
  Optional<std::string> Root = sys::Process::GetEnv("DOTNET_ROOT");
  if (!Root)
    return {};
  SmallString<256> Shared(*Root);
  sys::path::append(Shared, "shared", "Microsoft.NETCore.App");
  std::string Best;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Shared, EC), End; It != End && !EC; It.increment(EC))
    if (Best.empty() || It->path() > Best) // the newest, as far as this test cares
      Best = It->path();
  return Best;
}

std::string readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path, /*IsText=*/false);
  return B ? (*B)->getBuffer().str() : std::string();
}

} // namespace weft::test
