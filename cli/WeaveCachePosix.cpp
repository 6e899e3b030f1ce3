//===- cli/WeaveCachePosix.cpp - The weaving cache's folder: POSIX --------===//
#include "cli/WeaveCache.h"

#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::cli {

namespace {

/// No assembly or PDB reaches 4 GiB (PE32 and metadata offsets are 32-bit): a record larger is
/// not what weft wrote, and is not read.
constexpr uint64_t MaxRecord = uint64_t(1) << 32;

std::error_code lastError() { return std::error_code(errno, std::generic_category()); }

/// A file descriptor, closed when this goes.
class Descriptor {
public:
  explicit Descriptor(int N = -1) : N(N) {}
  Descriptor(Descriptor &&O) noexcept : N(O.N) { O.N = -1; }
  Descriptor &operator=(Descriptor &&) = delete;
  ~Descriptor() {
    if (N >= 0)
      ::close(N);
  }
  int get() const { return N; }
  explicit operator bool() const { return N >= 0; }

private:
  int N;
};

/// Everything left in the open file \p F, to \p Sink in pieces.
Error readAll(int F, StringRef Name, uint64_t Max, function_ref<Error(StringRef)> Sink) {
  static thread_local std::vector<char> Piece(256 << 10);
  uint64_t Total = 0;
  while (true) {
    ssize_t N = ::read(F, Piece.data(), Piece.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errnoError(Name, errno);
    if (N == 0)
      return Error::success();
    if ((Total += uint64_t(N)) > Max)
      return createFileError(Name, plainError("larger than " + Twine(Max) + " bytes"));
    if (Error E = Sink(StringRef(Piece.data(), size_t(N))))
      return E;
  }
}

Error writeAll(int F, StringRef Bytes, StringRef Name) {
  while (!Bytes.empty()) {
    ssize_t N = ::write(F, Bytes.data(), Bytes.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errnoError(Name, errno);
    Bytes = Bytes.drop_front(size_t(N));
  }
  return Error::success();
}

std::string octal(unsigned Mode) {
  char Text[16];
  std::snprintf(Text, sizeof Text, "%04o", Mode);
  return Text;
}

/// Why a file or folder of the cache, as \p St describes it, may hold what another user put
/// there; none if only this user (or root) can have written it.
std::optional<std::string> othersReach(const struct stat &St) {
  if (St.st_uid != ::geteuid() && St.st_uid != 0)
    return "owned by another user (uid " + std::to_string(St.st_uid) + ")";
  if (St.st_mode & (S_IWGRP | S_IWOTH))
    return "writable by other users (mode " + octal(St.st_mode & 07777) + ")";
  return std::nullopt;
}

/// The file \p Name of the open folder \p Folder, read whole: never through a symbolic link,
/// never what is not a regular file. \p Check says why its owner or mode cannot be trusted.
Error readMember(int Folder, StringRef Name, uint64_t Max,
                 function_ref<std::optional<std::string>(const struct stat &)> Check,
                 function_ref<Error(StringRef)> Sink) {
  Descriptor F(
      ::openat(Folder, Name.str().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!F && errno == ELOOP)
    return createFileError(Name, plainError("is a symbolic link, not a regular file"));
  if (!F)
    return errnoError(Name, errno);
  struct stat St;
  if (::fstat(F.get(), &St) != 0)
    return errnoError(Name, errno);
  if (!S_ISREG(St.st_mode))
    return createFileError(Name,
                           plainError("is " + fileKindName(St.st_mode) + ", not a regular file"));
  if (std::optional<std::string> Why = Check(St))
    return createFileError(Name, plainError("is " + *Why));
  if (uint64_t(St.st_size) > Max)
    return createFileError(Name, plainError("larger than " + Twine(Max) + " bytes"));
  return readAll(F.get(), Name, Max, Sink);
}

/// Makes the folder \p Dir (and the folders above it) if it is missing, the last with \p Mode.
Error makeFolder(StringRef Dir, unsigned Mode) {
  if (sys::fs::is_directory(Dir))
    return Error::success();
  StringRef Parent = sys::path::parent_path(Dir);
  if (!Parent.empty())
    if (std::error_code EC = sys::fs::create_directories(Parent))
      return createFileError(Parent, errorCodeToError(EC));
  if (::mkdir(Dir.str().c_str(), Mode) != 0 && errno != EEXIST)
    return errnoError(Dir, errno);
  return Error::success();
}

unsigned currentUmask() {
  mode_t M = ::umask(077);
  ::umask(M);
  return M;
}

int noteBuildId(dl_phdr_info *Info, size_t, void *Out) {
  if (Info->dlpi_name && *Info->dlpi_name)
    return 0; // a shared library; the executable comes first and has no name
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type != PT_NOTE)
      continue;
    const char *At = reinterpret_cast<const char *>(Info->dlpi_addr + P.p_vaddr);
    const char *End = At + P.p_memsz;
    while (At + sizeof(ElfW(Nhdr)) <= End) {
      const auto *N = reinterpret_cast<const ElfW(Nhdr) *>(At);
      const char *Name = At + sizeof(ElfW(Nhdr));
      const char *Desc = Name + alignTo(N->n_namesz, 4);
      if (Desc + N->n_descsz > End)
        break;
      if (N->n_type == NT_GNU_BUILD_ID && N->n_namesz == 4 && StringRef(Name, 3) == "GNU") {
        *static_cast<std::string *>(Out) =
            toHex(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Desc), N->n_descsz), true);
        return 1;
      }
      At = Desc + alignTo(N->n_descsz, 4);
    }
  }
  return 1;
}

/// The folder's records: DIR/ac/KEY and DIR/cas/SHA256, each read through the subfolder opened
/// at the start (never through a link), written to a temporary name beside it and renamed into
/// place, so that builds sharing the folder at once never see half a record.
class LocalStore : public CacheStore {
public:
  LocalStore(std::string Dir, int Ac, int Cas, bool Shared, unsigned Umask)
      : Dir(std::move(Dir)), Folders{Descriptor(Ac), Descriptor(Cas)}, Shared(Shared),
        Umask(Umask) {}

  Expected<bool> fetch(CacheArea Area, StringRef Key,
                       function_ref<Error(StringRef)> Sink) override {
    if (!isKey(Key))
      return createStringError(inconvertibleErrorCode(), "weaving cache: '" + Key +
                                                             "' is no key of the cache");
    int Folder = folder(Area);
    struct stat St;
    if (::fstatat(Folder, Key.str().c_str(), &St, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
      return false;
    // In a cache of one's own, what another user made or may change is not one's own record.
    auto Check = [&](const struct stat &S) { return Shared ? std::nullopt : othersReach(S); };
    if (Error E = readMember(Folder, Key, MaxRecord, Check, Sink))
      return createStringError(inconvertibleErrorCode(), "weaving cache: '" + where(Area, Key) +
                                                             "' is refused: " +
                                                             toString(std::move(E)) +
                                                             "; woven anew");
    return true;
  }

  Error put(CacheArea Area, StringRef Key, StringRef Bytes) override {
    return write(Area, Key, [&](int F, StringRef Name) { return writeAll(F, Bytes, Name); });
  }

  Error putFile(CacheArea Area, StringRef Key, StringRef Path) override {
    return write(Area, Key, [&](int F, StringRef Name) -> Error {
      Expected<int> In = openRegularFile(Path);
      if (!In)
        return In.takeError();
      Descriptor Opened(*In);
      return readAll(Opened.get(), Path, MaxRecord,
                     [&](StringRef Piece) { return writeAll(F, Piece, Name); });
    });
  }

private:
  /// The record \p Key, written by \p Fill to a fresh name and renamed into place.
  Error write(CacheArea Area, StringRef Key, function_ref<Error(int, StringRef)> Fill) {
    if (!isKey(Key))
      return createStringError(inconvertibleErrorCode(), "weaving cache: '" + Key +
                                                             "' is no key of the cache");
    // Written even where a record of that name is: a blob is checked only when read, and one
    // that does not have its digest would otherwise stay (and be refused) for good.
    int Folder = folder(Area);
    static std::atomic<uint64_t> Counter{0};
    unsigned Mode = Shared ? 0666 & ~Umask : 0600;
    std::string Temp;
    int Fd = -1;
    // A name that is taken (by another build, or a link someone put there) is not used: the
    // next one is tried.
    for (int Attempt = 0; Attempt < 16 && Fd < 0; ++Attempt) {
      Temp = ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(Counter.fetch_add(1)) +
             "-" + Key.take_front(16).str();
      Fd = ::openat(Folder, Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    Mode);
      if (Fd < 0 && errno != EEXIST)
        break;
    }
    Descriptor F(Fd);
    if (!F)
      return createStringError(inconvertibleErrorCode(),
                               "weaving cache: " + toString(errnoError(where(Area, Temp), errno)));
    if (Shared)
      ::fchmod(F.get(), Mode); // as the umask allows, whatever the creating call's was
    Error Written = Fill(F.get(), where(Area, Temp));
    if (!Written && ::renameat(Folder, Temp.c_str(), Folder, Key.str().c_str()) != 0)
      Written = errnoError(where(Area, Key), errno);
    if (Written) {
      ::unlinkat(Folder, Temp.c_str(), 0);
      return createStringError(inconvertibleErrorCode(),
                               "weaving cache: " + toString(std::move(Written)));
    }
    return Error::success();
  }

public:
  std::string where(CacheArea Area, StringRef Key) const override {
    return Dir + (Area == CacheArea::Action ? "/ac/" : "/cas/") + Key.str();
  }
  std::string name() const override { return "weaving cache"; }

private:
  static bool isKey(StringRef Key) {
    return Key.size() == 64 &&
           llvm::all_of(Key, [](char C) { return isDigit(C) || (C >= 'a' && C <= 'f'); });
  }
  int folder(CacheArea Area) const {
    return Folders[Area == CacheArea::Action ? 0 : 1].get();
  }

  std::string Dir;
  Descriptor Folders[2]; // ac/, cas/
  bool Shared;
  unsigned Umask;
};

} // namespace

Expected<std::unique_ptr<CacheStore>> CacheStore::local(StringRef Dir, bool Shared) {
  unsigned Umask = currentUmask();
  // "weaving cache 'DIR' is ...", "weaving cache 'DIR': why".
  auto Failure = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(), "weaving cache '" + Dir + "'" + Why);
  };
  if (Error E = makeFolder(Dir, Shared ? 0777 : 0700))
    return createStringError(inconvertibleErrorCode(), "weaving cache: " + toString(std::move(E)));
  // The user names the folder: a symbolic link they made to it is followed, and what it leads
  // to is checked. Everything after goes through descriptors opened from it.
  Descriptor Top(::open(Dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!Top)
    return Failure(": " + lastError().message());
  struct stat St;
  if (::fstat(Top.get(), &St) != 0)
    return Failure(": " + lastError().message());
  if (!Shared)
    if (std::optional<std::string> Why = othersReach(St)) {
      std::string WayOut = St.st_uid != ::geteuid() && St.st_uid != 0
                               ? "use a folder of your own"
                               : "make it yours alone (chmod go-w '" + Dir.str() + "')";
      return Failure(" is " + *Why + ": whoever can write there chooses what your builds take "
                     "from it; " + WayOut +
                     ", or give --cache-shared (WEFT_CACHE_SHARED=1) if it is shared on purpose");
    }
  // A shared folder's records are as shared as it is: its two folders take its mode (a
  // sticky bit included) when they are made.
  unsigned TopMode = St.st_mode & 07777;
  int Sub[2];
  const char *Names[2] = {"ac", "cas"};
  for (int I = 0; I < 2; ++I) {
    if (::mkdirat(Top.get(), Names[I], 0700) == 0) {
      if (Shared)
        ::fchmodat(Top.get(), Names[I], TopMode, 0);
    } else if (errno != EEXIST) {
      return Failure(": " + std::string(Names[I]) + ": " + lastError().message());
    }
    Sub[I] = ::openat(Top.get(), Names[I], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (Sub[I] < 0) {
      std::string Why = errno == ELOOP || errno == ENOTDIR ? "is not a folder"
                                                           : lastError().message();
      if (I == 1)
        ::close(Sub[0]);
      return Failure(": " + std::string(Names[I]) + " " + Why);
    }
    if (!Shared && ::fstat(Sub[I], &St) == 0)
      if (std::optional<std::string> Why = othersReach(St)) {
        for (int K = 0; K <= I; ++K)
          ::close(Sub[K]);
        return Failure(": " + std::string(Names[I]) + " is " + *Why);
      }
  }
  return std::make_unique<LocalStore>(Dir.str(), Sub[0], Sub[1], Shared, Umask);
}

std::string weftBuildIdentity() {
  std::string Id;
  dl_iterate_phdr(noteBuildId, &Id);
  return std::string("weft " WEFT_VERSION " ") + (Id.empty() ? "no-build-id" : Id);
}

} // namespace weft::cli
