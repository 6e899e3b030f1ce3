//===- tests/support/OtherUser.cpp ----------------------------------------===//
#include "tests/support/OtherUser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::test {

std::optional<OtherUser> otherUser(std::string *WhyNot) {
  if (::geteuid() != 0) {
    *WhyNot = "the tests run as uid " + std::to_string(::geteuid()) +
              ", not as root, and cannot act as another user";
    return std::nullopt;
  }
  if (!sys::findProgramByName("setpriv")) {
    *WhyNot = "setpriv (util-linux) is not installed";
    return std::nullopt;
  }
  // The first uid from 64000 up that no account and no group uses.
  for (uid_t Id = 64000; Id < 65000; ++Id)
    if (!::getpwuid(Id) && !::getgrgid(Id))
      return OtherUser{Id, gid_t(Id)};
  *WhyNot = "every uid from 64000 to 64999 is taken";
  return std::nullopt;
}

CommandResult runAs(const OtherUser &U, StringRef Program, ArrayRef<std::string> Args,
                    ArrayRef<std::string> Env, unsigned TimeoutSeconds) {
  std::vector<std::string> All{"--reuid=" + std::to_string(U.Uid),
                               "--regid=" + std::to_string(U.Gid), "--clear-groups", "--"};
  if (!Program.contains('/')) {
    ErrorOr<std::string> Found = sys::findProgramByName(Program);
    All.push_back(Found ? *Found : Program.str());
  } else {
    All.push_back(Program.str());
  }
  All.insert(All.end(), Args.begin(), Args.end());
  return run("setpriv", All, Env, TimeoutSeconds);
}

CommandResult shellAs(const OtherUser &U, const std::string &Script, unsigned TimeoutSeconds) {
  return runAs(U, "/bin/sh", {"-c", Script}, {}, TimeoutSeconds);
}

SharedFolder::SharedFolder(StringRef Name, bool Shared) {
  const char *Tmp = std::getenv("TMPDIR");
  SmallString<256> Model(Tmp && *Tmp ? Tmp : "/tmp");
  sys::path::append(Model, "weft-test-" + Name + "-XXXXXX");
  std::string Buf(Model.str());
  if (char *Made = ::mkdtemp(Buf.data())) {
    Path = Made;
    ::chmod(Path.c_str(), Shared ? 01777 : 0755);
  }
}

SharedFolder::~SharedFolder() {
  if (!Path.empty())
    removeTree(Path);
}

static std::optional<std::string> variable(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? std::optional<std::string>(V) : std::nullopt;
}

static void restore(const char *Name, const std::optional<std::string> &Value) {
  if (Value)
    ::setenv(Name, Value->c_str(), 1);
  else
    ::unsetenv(Name);
}

TempFolderOfItsOwn::TempFolderOfItsOwn(StringRef Name)
    : SharedFolder(Name, /*Shared=*/true), OldTmp(variable("TMPDIR")),
      OldRuntime(variable("XDG_RUNTIME_DIR")) {
  ::setenv("TMPDIR", path().c_str(), 1);
  ::unsetenv("XDG_RUNTIME_DIR");
}

TempFolderOfItsOwn::~TempFolderOfItsOwn() {
  restore("TMPDIR", OldTmp);
  restore("XDG_RUNTIME_DIR", OldRuntime);
}

std::string SharedFolder::operator/(StringRef Name) const {
  SmallString<256> P(Path);
  sys::path::append(P, Name);
  return std::string(P);
}

} // namespace weft::test
