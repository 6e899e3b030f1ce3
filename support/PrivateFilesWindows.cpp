//===- support/PrivateFilesWindows.cpp - Files only their user controls ---===//
//
// Windows keeps a file's owner and who may write it in its security descriptor: the owner is a
// SID, the writers are the SIDs its access control list allows to write. A file that steers weft
// (the profiler's spec) must be owned by this process's user, the machine's administrators or
// the system, as a POSIX one by its user or root, and no one else may be allowed to write it; a
// log weft appends to must be a file (not a link or a junction) owned so, and one it creates is
// its user's alone. The user numbers of the POSIX side (port::UserId) mean "this process's user"
// here. Private folders and the files made in them (the requests of `weft attach`) are POSIX's
// alone: refused.
//
//===----------------------------------------------------------------------===//
#include "support/Error.h"
#include "support/PrivateFiles.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/WindowsError.h"

#include <fcntl.h>
#include <io.h>
#include <utility>
#include <vector>
// aclapi.h and sddl.h need windows.h before them.
// clang-format off
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
// clang-format on

using namespace llvm;

namespace weft {

namespace {

Error refused(StringRef Path, const Twine &Why) { return createFileError(Path, plainError(Why)); }

Error windowsError(StringRef Path, DWORD Code) {
  return createFileError(Path, errorCodeToError(mapWindowsError(Code)));
}

Error notOnWindows(StringRef Path) {
  return refused(Path, "private folders are not supported on Windows (weft attach is POSIX's)");
}

class Handle {
public:
  explicit Handle(HANDLE H) : H(H) {}
  ~Handle() {
    if (H != INVALID_HANDLE_VALUE)
      ::CloseHandle(H);
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  HANDLE get() const { return H; }
  HANDLE release() { return std::exchange(H, INVALID_HANDLE_VALUE); }

private:
  HANDLE H;
};

/// The SIDs a file that steers weft may be owned and written by: this process's user, the
/// administrators, the system.
class TrustedSids {
public:
  TrustedSids() {
    HANDLE Token = nullptr;
    if (::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &Token)) {
      DWORD Size = 0;
      ::GetTokenInformation(Token, TokenUser, nullptr, 0, &Size);
      std::vector<BYTE> Buffer(Size);
      if (Size && ::GetTokenInformation(Token, TokenUser, Buffer.data(), Size, &Size))
        add(reinterpret_cast<TOKEN_USER *>(Buffer.data())->User.Sid);
      ::CloseHandle(Token);
    }
    for (WELL_KNOWN_SID_TYPE Kind : {WinBuiltinAdministratorsSid, WinLocalSystemSid}) {
      BYTE Sid[SECURITY_MAX_SID_SIZE];
      DWORD Size = sizeof Sid;
      if (::CreateWellKnownSid(Kind, nullptr, Sid, &Size))
        add(Sid);
    }
  }
  bool has(PSID Sid) const {
    for (const std::vector<BYTE> &S : Sids)
      if (::EqualSid(const_cast<BYTE *>(S.data()), Sid))
        return true;
    return false;
  }
  /// This process's user as SDDL ("S-1-5-21-..."), or empty.
  std::string userText() const { return Sids.empty() ? std::string() : text(Sids[0].data()); }

  static std::string text(const void *Sid) {
    LPSTR Text = nullptr;
    if (!::ConvertSidToStringSidA(const_cast<void *>(Sid), &Text))
      return "an unknown SID";
    std::string Out = Text;
    ::LocalFree(Text);
    return Out;
  }

private:
  void add(PSID Sid) {
    const BYTE *Bytes = static_cast<const BYTE *>(Sid);
    Sids.emplace_back(Bytes, Bytes + ::GetLengthSid(Sid));
  }
  std::vector<std::vector<BYTE>> Sids;
};

/// Who a file's access control list names, for messages: "DOMAIN\name (S-1-...)".
std::string sidName(PSID Sid) {
  std::string Text = TrustedSids::text(Sid);
  char Name[256], Domain[256];
  DWORD NameSize = sizeof Name, DomainSize = sizeof Domain;
  SID_NAME_USE Use;
  if (!::LookupAccountSidA(nullptr, Sid, Name, &NameSize, Domain, &DomainSize, &Use))
    return Text;
  return (Domain[0] ? std::string(Domain) + "\\" : std::string()) + Name + " (" + Text + ")";
}

/// What lets a holder change a file's bytes, or who may.
constexpr ACCESS_MASK WriteRights = FILE_WRITE_DATA | FILE_APPEND_DATA | WRITE_DAC | WRITE_OWNER |
                                    GENERIC_WRITE | GENERIC_ALL;

/// Refuses the file open as \p H if an untrusted SID owns it or, with \p CheckWriters, if its
/// access control list allows anyone untrusted to write it.
Error checkSecurity(StringRef Path, HANDLE H, bool CheckWriters) {
  PSID Owner = nullptr;
  PACL Dacl = nullptr;
  PSECURITY_DESCRIPTOR Descriptor = nullptr;
  DWORD Rc = ::GetSecurityInfo(H, SE_FILE_OBJECT,
                               OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &Owner,
                               nullptr, &Dacl, nullptr, &Descriptor);
  if (Rc != ERROR_SUCCESS)
    return windowsError(Path, Rc);
  struct Freer {
    PSECURITY_DESCRIPTOR D;
    ~Freer() { ::LocalFree(D); }
  } Free{Descriptor};
  TrustedSids Trusted;
  if (!Owner || !Trusted.has(Owner))
    return refused(Path, "is owned by another user (" +
                             (Owner ? sidName(Owner) : std::string("no owner")) + ")");
  if (!CheckWriters)
    return Error::success();
  if (!Dacl)
    return refused(Path, "may be written by anyone: it has no access control list");
  BYTE OwnerRights[SECURITY_MAX_SID_SIZE];
  DWORD Size = sizeof OwnerRights;
  bool HaveOwnerRights = ::CreateWellKnownSid(WinCreatorOwnerRightsSid, nullptr, OwnerRights, &Size);
  for (DWORD I = 0; I < Dacl->AceCount; ++I) {
    void *Ace = nullptr;
    if (!::GetAce(Dacl, I, &Ace))
      continue;
    const ACE_HEADER *Header = static_cast<const ACE_HEADER *>(Ace);
    // Deny entries only take away; inherit-only ones are for the folder's new files.
    if (Header->AceType != ACCESS_ALLOWED_ACE_TYPE || (Header->AceFlags & INHERIT_ONLY_ACE))
      continue;
    ACCESS_ALLOWED_ACE *Allowed = static_cast<ACCESS_ALLOWED_ACE *>(Ace);
    PSID Sid = &Allowed->SidStart;
    if (!(Allowed->Mask & WriteRights) || Trusted.has(Sid) ||
        (HaveOwnerRights && ::EqualSid(Sid, OwnerRights)))
      continue;
    return refused(Path, "may be written by other users: its access control list lets " +
                             sidName(Sid) + " write it (icacls shows and changes who may)");
  }
  return Error::success();
}

/// Refuses what is not a regular file: a folder, a link or junction (opened as itself), a device.
Error checkRegular(StringRef Path, HANDLE H, uint64_t *Size) {
  BY_HANDLE_FILE_INFORMATION Info;
  if (::GetFileType(H) != FILE_TYPE_DISK)
    return refused(Path, "is not a file on disk (a device or a pipe)");
  if (!::GetFileInformationByHandle(H, &Info))
    return windowsError(Path, ::GetLastError());
  if (Info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    return refused(Path, "is a symbolic link or a junction");
  if (Info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    return refused(Path, "is a folder");
  if (Size)
    *Size = (uint64_t(Info.nFileSizeHigh) << 32) | Info.nFileSizeLow;
  return Error::success();
}

/// Opens \p Path itself (a link or junction as such, a folder too, to say what it is).
Expected<HANDLE> openItself(StringRef Path, DWORD Access, DWORD Disposition,
                            SECURITY_ATTRIBUTES *Security = nullptr) {
  SmallVector<UTF16, 260> Wide;
  if (!convertUTF8ToUTF16String(Path, Wide))
    return refused(Path, "is not a valid UTF-8 path");
  Wide.push_back(0);
  HANDLE H = ::CreateFileW(reinterpret_cast<LPCWSTR>(Wide.data()), Access,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, Security,
                           Disposition, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS,
                           nullptr);
  if (H == INVALID_HANDLE_VALUE)
    return windowsError(Path, ::GetLastError());
  return H;
}

} // namespace

Error checkPrivateFolder(StringRef Path, port::UserId, bool) { return notOnWindows(Path); }

Expected<int> createPrivateFile(StringRef Path, unsigned) { return notOnWindows(Path); }

Expected<std::string> readOwnedFile(StringRef Path, port::UserId, uint64_t MaxBytes) {
  Expected<HANDLE> Opened = openItself(Path, GENERIC_READ | READ_CONTROL, OPEN_EXISTING);
  if (!Opened)
    return Opened.takeError();
  Handle H(*Opened);
  uint64_t Size = 0;
  if (Error E = checkRegular(Path, H.get(), &Size))
    return std::move(E);
  if (Error E = checkSecurity(Path, H.get(), /*CheckWriters=*/true))
    return std::move(E);
  if (Size > MaxBytes)
    return refused(Path, "is " + Twine(Size) + " bytes, more than the " + Twine(MaxBytes) +
                             " weft reads");
  std::string Text(size_t(Size), '\0');
  size_t Got = 0;
  while (Got < Text.size()) {
    DWORD N = 0;
    DWORD Want = DWORD(std::min<size_t>(Text.size() - Got, 1 << 20));
    if (!::ReadFile(H.get(), Text.data() + Got, Want, &N, nullptr))
      return windowsError(Path, ::GetLastError());
    if (N == 0)
      break; // shortened while read: what is there
    Got += N;
  }
  Text.resize(Got);
  return Text;
}

Expected<int> openOwnedForAppend(StringRef Path, unsigned) {
  // A file made here is this user's alone (with the system and the administrators, who may
  // read anything anyway): a protected list, not the folder's inherited one.
  TrustedSids Trusted;
  std::string Sddl = "D:P(A;;FA;;;SY)(A;;FA;;;BA)";
  if (std::string User = Trusted.userText(); !User.empty())
    Sddl += "(A;;FA;;;" + User + ")";
  SECURITY_ATTRIBUTES Security{sizeof(SECURITY_ATTRIBUTES), nullptr, FALSE};
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorA(
          Sddl.c_str(), SDDL_REVISION_1, &Security.lpSecurityDescriptor, nullptr))
    return windowsError(Path, ::GetLastError());
  Expected<HANDLE> Opened =
      openItself(Path, FILE_APPEND_DATA | READ_CONTROL | SYNCHRONIZE, OPEN_ALWAYS, &Security);
  ::LocalFree(Security.lpSecurityDescriptor);
  if (!Opened)
    return Opened.takeError();
  Handle H(*Opened);
  if (Error E = checkRegular(Path, H.get(), nullptr))
    return std::move(E);
  if (Error E = checkSecurity(Path, H.get(), /*CheckWriters=*/false))
    return std::move(E);
  int Fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(H.get()), _O_WRONLY | _O_APPEND | _O_BINARY);
  if (Fd < 0)
    return refused(Path, "could not be given a descriptor");
  H.release();
  return Fd;
}

} // namespace weft
