//===- support/PortWindows.cpp - What differs between systems: Windows ----===//
#include "support/Port.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
// shellapi.h needs windows.h before it.
// clang-format off
#include <windows.h>
#include <shellapi.h>
// clang-format on

using namespace llvm;

namespace weft::port {

// Windows owns files by security descriptors, not user numbers: weft's checks of owners (private
// folders, control requests) are POSIX's and are not made here.
UserId currentUser() { return 0; }

bool isFolderOwnedBy(const char *Path, UserId User) { return false; }

uint32_t currentThreadId() { return uint32_t(::GetCurrentThreadId()); }

bool nameExists(const char *Path) {
  struct _stat64 St;
  return ::_stat64(Path, &St) == 0; // sets errno
}

int createNewFile(const char *Path) {
  return ::_open(Path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT,
                 _S_IREAD | _S_IWRITE);
}

std::string libraryPathOf(const void *Address) {
  HMODULE Module = nullptr;
  if (!::GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            reinterpret_cast<LPCWSTR>(Address), &Module))
    return {};
  wchar_t Wide[MAX_PATH];
  DWORD N = ::GetModuleFileNameW(Module, Wide, MAX_PATH);
  if (N == 0 || N == MAX_PATH)
    return {};
  std::string Path;
  if (!convertUTF16ToUTF8String(ArrayRef<UTF16>(reinterpret_cast<const UTF16 *>(Wide), N), Path))
    return {};
  return Path;
}

bool makeLibraryGlobal(const std::string &Path, std::string &Why) { return true; }

std::vector<std::string> commandLine() {
  std::vector<std::string> Argv;
  int Count = 0;
  wchar_t **Wide = ::CommandLineToArgvW(::GetCommandLineW(), &Count);
  if (!Wide)
    return Argv;
  for (int I = 0; I < Count; ++I) {
    std::string A;
    if (convertWideToUTF8(Wide[I], A))
      Argv.push_back(std::move(A));
  }
  ::LocalFree(Wide);
  return Argv;
}

std::string executablePath() { return sys::fs::getMainExecutable(nullptr, nullptr); }

void setEnvironment(const char *Name, const char *Value) { ::_putenv_s(Name, Value); }

void unsetEnvironment(const char *Name) { ::_putenv_s(Name, ""); } // "" removes it

Expected<int> runCommand(ArrayRef<std::string> Command) {
  ErrorOr<std::string> Program = sys::findProgramByName(Command[0]);
  if (!Program) {
    errs() << "weft: error: cannot run '" << Command[0] << "': " << Program.getError().message()
           << '\n';
    return 127;
  }
  SmallVector<StringRef, 16> Args(Command.begin(), Command.end());
  std::string Why;
  bool Failed = false;
  int Status = sys::ExecuteAndWait(*Program, Args, /*Env=*/None, /*Redirects=*/{},
                                   /*SecondsToWait=*/0, /*MemoryLimit=*/0, &Why, &Failed);
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             Twine("cannot start '") + Command[0] + "': " + Why);
  return Status < 0 ? 1 : Status;
}

void *loadLibraryNow(const std::string &Path, std::string &Why) {
  SmallVector<UTF16, 256> Wide;
  if (!convertUTF8ToUTF16String(Path, Wide)) {
    Why = "the path is not UTF-8";
    return nullptr;
  }
  HMODULE Module = ::LoadLibraryW(reinterpret_cast<const wchar_t *>(Wide.data()));
  if (!Module)
    Why = "LoadLibrary failed with error " + std::to_string(::GetLastError());
  return reinterpret_cast<void *>(Module);
}

void preferLargeHeapPages() {} // large pages need a privilege most users lack

} // namespace weft::port
