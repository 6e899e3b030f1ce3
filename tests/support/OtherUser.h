//===- tests/support/OtherUser.h - A second, unprivileged user --*- C++ -*-===//
//
// What weft refuses from other users of the machine (cache entries, control requests, watched
// files) is tested by acting as one. When the tests run as root (CI does), the other user is a
// uid and gid no account of the machine uses, taken on with setpriv for one command: no account
// is made, so the machine is left as it was. Run as anyone else, the tests that need the other
// user skip and say why.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_OTHERUSER_H
#define WEFT_TESTS_SUPPORT_OTHERUSER_H

#include "tests/support/Env.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <sys/types.h>

namespace weft::test {

struct OtherUser {
  uid_t Uid = 0;
  gid_t Gid = 0;
};

/// The other user, or nullopt with the reason in \p WhyNot (not root, no setpriv).
std::optional<OtherUser> otherUser(std::string *WhyNot);

/// Runs \p Program with \p Args as \p U (no supplementary groups, the environment's HOME and
/// TMPDIR kept), capturing what it prints, as run() does.
CommandResult runAs(const OtherUser &U, llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
                    llvm::ArrayRef<std::string> Env = {}, unsigned TimeoutSeconds = 60);

/// Runs \p Script with `sh -c` as \p U.
CommandResult shellAs(const OtherUser &U, const std::string &Script, unsigned TimeoutSeconds = 60);

/// A fresh folder in the machine's temporary folder that both users reach (mode 0755, or 01777
/// with \p Shared, as /tmp is), removed with what it holds when this goes. The build tree may lie
/// where the other user cannot enter (a clone under /root), so tests the other user acts in use
/// this rather than scratchDir().
class SharedFolder {
public:
  explicit SharedFolder(llvm::StringRef Name, bool Shared = false);
  ~SharedFolder();
  SharedFolder(const SharedFolder &) = delete;
  SharedFolder &operator=(const SharedFolder &) = delete;
  const std::string &path() const { return Path; }
  /// \p Name inside the folder.
  std::string operator/(llvm::StringRef Name) const;

private:
  std::string Path;
};

/// Gives this test process (and so the programs and the weft it starts) a temporary folder of
/// its own, shared as /tmp is, and no XDG runtime folder, until this goes: the .NET runtime's
/// diagnostics sockets and weft's control folders are made there, not in the machine's /tmp
/// (where the other user may try its luck all the same).
class TempFolderOfItsOwn : public SharedFolder {
public:
  explicit TempFolderOfItsOwn(llvm::StringRef Name);
  ~TempFolderOfItsOwn();

private:
  std::optional<std::string> OldTmp, OldRuntime;
};

} // namespace weft::test

/// Skips the test, saying why, when there is no other user to act as.
#define WEFT_NEEDS_OTHER_USER(Var)                                                                 \
  std::string Var##WhyNot;                                                                         \
  std::optional<::weft::test::OtherUser> Var = ::weft::test::otherUser(&Var##WhyNot);              \
  if (!Var)                                                                                        \
  GTEST_SKIP() << "no second user to act as: " << Var##WhyNot

#endif
