//===- support/Port.h - What differs between systems ------------*- C++ -*-===//
//
// The few things weft asks of the operating system that LLVM Support does not cover: users,
// threads, the process's command line, environment variables, running a command, libraries,
// private new files. One implementation per system (support/PortPosix.cpp,
// support/PortWindows.cpp), chosen by CMake; the rest of weft calls these, never the system, for
// them. Files that are wholly one system's (the atomic output, private files) have a Windows
// implementation file of their own beside them.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_PORT_H
#define WEFT_SUPPORT_PORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

/// How this system names the shared library NAME: "libNAME.so" (Linux), "NAME.dll" (Windows).
#ifdef _WIN32
#define WEFT_SHARED_LIBRARY(Name) Name ".dll"
#else
#define WEFT_SHARED_LIBRARY(Name) "lib" Name ".so"
#endif

namespace weft::port {

/// A user, as the system numbers them (uid_t on POSIX; Windows has no numbers: 0).
using UserId = uint32_t;
/// The user this process acts as (geteuid).
UserId currentUser();

/// Whether \p Path is a folder (not a link to one) that \p User owns.
bool isFolderOwnedBy(const char *Path, UserId User);

/// The calling thread's id, as the system's tools show it (Linux: gettid).
uint32_t currentThreadId();

/// Whether \p Path names something, a symbolic link not followed (lstat succeeds); when not,
/// errno says why.
bool nameExists(const char *Path);

/// Creates \p Path, a new file for writing that only its user may read (never one that exists,
/// never through a link; not inherited by what the process starts): the descriptor, or -1 with
/// errno set.
int createNewFile(const char *Path);

/// The file of the shared library (or executable) whose code holds \p Address; empty if unknown.
std::string libraryPathOf(const void *Address);

/// Makes the functions of the loaded library \p Path visible to the libraries loaded after it
/// (POSIX: opened again with RTLD_GLOBAL; Windows: a library's exports are always visible). False,
/// with the system's reason in \p Why, if it could not.
bool makeLibraryGlobal(const std::string &Path, std::string &Why);

/// This process's command line, one argument an element (Linux: /proc/self/cmdline); empty if
/// unknown.
std::vector<std::string> commandLine();
/// This process's executable, links resolved (Linux: /proc/self/exe); empty if unknown.
std::string executablePath();

/// Sets the environment variable \p Name to \p Value for this process and what it starts.
void setEnvironment(const char *Name, const char *Value);
/// Removes the environment variable \p Name.
void unsetEnvironment(const char *Name);

/// Runs \p Command (its first word found on PATH), passing on to it the signals that ask weft to
/// stop, and returns its exit status: 128 + the signal's number if a signal ended it (as shells
/// do), 127 if it could not be run (after a message on stderr). An error if it could not start.
llvm::Expected<int> runCommand(llvm::ArrayRef<std::string> Command);

/// Loads the shared library \p Path with every symbol it needs bound now (a missing one is an
/// error naming it, not a crash later) and its symbols visible to later libraries. The handle,
/// or null with the system's reason in \p Why.
void *loadLibraryNow(const std::string &Path, std::string &Why);

/// Asks that the heap of this process's main thread be given in large pages (2 MiB on x86-64
/// Linux) where the system gives them only when asked (transparent huge pages in "madvise"
/// mode), for a command about to allocate many megabytes: a first touch of each 4 KiB page costs
/// about as much as reading a megabyte of a map. Nothing is allocated or touched by asking, and
/// where the system or its C library cannot, nothing changes.
void preferLargeHeapPages();

} // namespace weft::port

#endif
