//===- cli/WeaveCachePosix.cpp - The weaving cache's folder: POSIX --------===//
#include "cli/WeaveCache.h"

#include "pe/Sha256.h"
#include "support/AtomicFile.h"
#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::cli {

namespace {

constexpr StringLiteral EntryHeader = "weft-cache 2";
/// An entry's description is a few lines a file, and no assembly or PDB reaches 4 GiB (PE32 and
/// metadata offsets are 32-bit): anything larger is not what weft wrote, and is not read.
constexpr uint64_t MaxDescription = 1 << 20;
constexpr uint64_t MaxFile = uint64_t(1) << 32;

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

/// Everything left in the open file \p F.
Expected<std::string> readAll(int F, StringRef Name, uint64_t Max) {
  std::string Bytes;
  char Piece[64 << 10];
  while (true) {
    ssize_t N = ::read(F, Piece, sizeof Piece);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errnoError(Name, errno);
    if (N == 0)
      return Bytes;
    if (Bytes.size() + size_t(N) > Max)
      return createFileError(Name, plainError("larger than " + Twine(Max) + " bytes"));
    Bytes.append(Piece, size_t(N));
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

/// An entry's description: its files and its dependencies, each with its digest.
struct Entry {
  struct File {
    std::string Role, Name, Digest;
  };
  std::vector<File> Files;
  std::vector<std::pair<std::string, std::string>> Dependencies; // digest, path
};

bool isDigest(StringRef S) {
  return S.size() == 64 &&
         llvm::all_of(S, [](char C) { return isDigit(C) || (C >= 'a' && C <= 'f'); });
}

/// A role names a file directly in the output's folder: after the output's stem ("~.pdb") or by
/// its own name ("=Name.pdb"); nothing that leads elsewhere.
bool isRole(StringRef Role) {
  if (Role.size() < 1 || (Role[0] != '~' && Role[0] != '='))
    return false;
  StringRef Rest = Role.drop_front();
  if (Rest.find_first_of(StringRef("/\\\0", 3)) != StringRef::npos)
    return false;
  return Role[0] == '~' || (!Rest.empty() && Rest != "." && Rest != "..");
}

/// Parses an entry's description; nullopt for one of another format (another weft's), an error
/// for one that is this format's but not what weft writes.
Expected<std::optional<Entry>> parseEntry(StringRef Text) {
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty() || Lines.front() != EntryHeader)
    return std::nullopt;
  Entry E;
  for (StringRef L : ArrayRef<StringRef>(Lines).drop_front()) {
    SmallVector<StringRef, 4> F;
    L.split(F, '\t');
    if (F.size() == 4 && F[0] == "file") {
      if (!isRole(F[1]))
        return plainError("a file of the role '" + F[1] + "', which names no output file");
      if (F[2] != "f" + std::to_string(E.Files.size()))
        return plainError("a file named '" + F[2] + "', which weft does not write");
      if (!isDigest(F[3]))
        return plainError("a file without a SHA-256 digest");
      if (llvm::any_of(E.Files, [&](const Entry::File &Had) { return Had.Role == F[1]; }))
        return plainError("two files of the role '" + F[1] + "'");
      E.Files.push_back({F[1].str(), F[2].str(), F[3].str()});
    } else if (F.size() == 3 && F[0] == "dep" && isDigest(F[1]) && sys::path::is_absolute(F[2])) {
      E.Dependencies.emplace_back(F[1].str(), F[2].str());
    } else {
      return plainError("a line weft does not write");
    }
  }
  if (E.Files.empty())
    return plainError("no file");
  return std::optional<Entry>(std::move(E));
}

/// Removes the folder \p Name of \p Parent and the files in it, never following a symbolic
/// link (one in the folder is removed, not what it leads to). Best effort.
void removeFolderAt(int Parent, StringRef Name) {
  int D = ::openat(Parent, Name.str().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (D >= 0) {
    if (DIR *It = ::fdopendir(D)) {
      while (dirent *E = ::readdir(It))
        if (StringRef(E->d_name) != "." && StringRef(E->d_name) != "..")
          ::unlinkat(D, E->d_name, 0);
      ::closedir(It); // closes D
    } else {
      ::close(D);
    }
  }
  ::unlinkat(Parent, Name.str().c_str(), AT_REMOVEDIR);
}

/// The file \p Name of the open folder \p Folder, read whole: never through a symbolic link,
/// never what is not a regular file. \p Check says why its owner or mode cannot be trusted.
Expected<std::string>
readMember(int Folder, StringRef Name, uint64_t Max,
           function_ref<std::optional<std::string>(const struct stat &)> Check) {
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
  return readAll(F.get(), Name, Max);
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

} // namespace

Expected<WeaveCache> WeaveCache::open(StringRef Dir, bool Shared) {
  unsigned Umask = currentUmask();
  if (Error E = makeFolder(Dir, Shared ? 0777 : 0700))
    return createStringError(inconvertibleErrorCode(), "weaving cache: " + toString(std::move(E)));
  // The user names the folder: a symbolic link they made to it is followed, and what it leads
  // to is checked. Everything after goes through this descriptor.
  int F = ::open(Dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (F < 0)
    return createStringError(inconvertibleErrorCode(),
                             "weaving cache '" + Dir + "': " + lastError().message());
  WeaveCache Cache(Dir.str(), F, Shared, Umask);
  struct stat St;
  if (::fstat(F, &St) != 0)
    return createStringError(inconvertibleErrorCode(),
                             "weaving cache '" + Dir + "': " + lastError().message());
  if (Shared)
    return std::move(Cache);
  if (std::optional<std::string> Why = othersReach(St)) {
    std::string WayOut = St.st_uid != ::geteuid() && St.st_uid != 0
                             ? "use a folder of your own"
                             : "make it yours alone (chmod go-w '" + Dir.str() + "')";
    std::string Message = "weaving cache '" + Dir.str() + "' is " + *Why +
                          ": whoever can write there chooses what your builds take from it; ";
    Message += WayOut + ", or give --cache-shared (WEFT_CACHE_SHARED=1) if it is shared on purpose";
    return createStringError(inconvertibleErrorCode(), Message);
  }
  return std::move(Cache);
}

WeaveCache::WeaveCache(WeaveCache &&Other) noexcept
    : Dir(std::move(Other.Dir)), FolderFd(Other.FolderFd), Shared(Other.Shared),
      Umask(Other.Umask) {
  Other.FolderFd = -1;
}

WeaveCache::~WeaveCache() {
  if (FolderFd >= 0)
    ::close(FolderFd);
}

Error WeaveCache::refusal(StringRef Key, const Twine &Why) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, Key);
  return createStringError(inconvertibleErrorCode(),
                           "the entry '" + Path + "' is refused: " + Why + "; woven anew");
}

Expected<bool> WeaveCache::restore(StringRef Key,
                                   function_ref<std::optional<std::string>(StringRef)> OutputFor,
                                   std::vector<std::string> &Dependencies) {
  Descriptor Folder(
      ::openat(FolderFd, Key.str().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!Folder) {
    if (errno == ENOENT)
      return false;
    struct stat St;
    if (::fstatat(FolderFd, Key.str().c_str(), &St, AT_SYMLINK_NOFOLLOW) == 0)
      return refusal(Key, "it is " + fileKindName(St.st_mode) + ", not a folder");
    return refusal(Key, lastError().message());
  }
  // In a cache of one's own, what another user made or may change is not one's own entry.
  auto Check = [&](const struct stat &St) { return Shared ? std::nullopt : othersReach(St); };
  struct stat St;
  if (::fstat(Folder.get(), &St) != 0)
    return refusal(Key, lastError().message());
  if (std::optional<std::string> Why = Check(St))
    return refusal(Key, "it is " + *Why);

  if (::fstatat(Folder.get(), "entry", &St, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
    return false; // not a complete entry: none of weft's
  Expected<std::string> Text = readMember(Folder.get(), "entry", MaxDescription, Check);
  if (!Text)
    return refusal(Key, toString(Text.takeError()));
  Expected<std::optional<Entry>> E = parseEntry(*Text);
  if (!E)
    return refusal(Key, "its description holds " + toString(E.takeError()));
  if (!*E)
    return false; // another weft's entry: woven again, and kept anew
  for (const auto &[Digest, Path] : (*E)->Dependencies) {
    Expected<std::string> Now = pe::regularFileSha256Hex(Path);
    if (!Now) {
      consumeError(Now.takeError());
      return false; // a dependency gone: the weave says what is wrong with it
    }
    if (*Now != Digest)
      return false;
  }

  // The whole entry is read and checked before anything is written.
  std::vector<std::pair<std::string, std::string>> Outputs; // path, bytes
  for (const Entry::File &F : (*E)->Files) {
    std::optional<std::string> To = OutputFor(F.Role);
    if (!To)
      return refusal(Key, "it holds a file of the role '" + F.Role +
                              "', which a weave of this output does not write");
    Expected<std::string> Bytes = readMember(Folder.get(), F.Name, MaxFile, Check);
    if (!Bytes)
      return refusal(Key, toString(Bytes.takeError()));
    if (pe::sha256Hex(arrayRefFromStringRef(*Bytes)) != F.Digest)
      return refusal(Key, "'" + F.Name + "' does not have the SHA-256 the entry records");
    Outputs.emplace_back(std::move(*To), std::move(*Bytes));
  }
  for (const auto &[Path, Bytes] : Outputs)
    if (Error Err = writeFileAtomically(Path, arrayRefFromStringRef(Bytes)))
      return std::move(Err);
  for (const auto &Dep : (*E)->Dependencies)
    Dependencies.push_back(Dep.second);
  return true;
}

Error WeaveCache::store(StringRef Key, ArrayRef<CachedFile> Files,
                        ArrayRef<std::string> Dependencies) {
  // A name the description could not hold, or would refuse, is not kept.
  for (const CachedFile &F : Files)
    if (!isRole(F.Role) || StringRef(F.Role).find_first_of("\t\n") != StringRef::npos)
      return createFileError(F.Path, plainError("has a name the cache cannot keep"));
  for (const std::string &D : Dependencies)
    if (!sys::path::is_absolute(D) || StringRef(D).find_first_of("\t\n") != StringRef::npos)
      return createFileError(D, plainError("has a name the cache cannot keep"));
  std::string Text = EntryHeader.str() + "\n";
  for (const std::string &D : Dependencies) {
    // An entry that could never be used is not kept.
    Expected<std::string> Digest = pe::regularFileSha256Hex(D);
    if (!Digest)
      return Digest.takeError();
    Text += "dep\t" + *Digest + "\t" + D + "\n";
  }
  SmallString<256> Model(Dir);
  sys::path::append(Model, "tmp-XXXXXX");
  std::string Made(Model.str());
  if (!::mkdtemp(Made.data()))
    return errnoError(Model, errno);
  std::string Temp = sys::path::filename(Made).str();
  Error Written = [&]() -> Error {
    // Through the folder checked at open: the temporary folder is the one just made, and ours.
    Descriptor Folder(
        ::openat(FolderFd, Temp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat St;
    if (!Folder || ::fstat(Folder.get(), &St) != 0 || St.st_uid != ::geteuid())
      return createFileError(Made, plainError("is not the folder weft just made"));
    if (Shared && ::fchmod(Folder.get(), 0777 & ~Umask) != 0)
      return errnoError(Made, errno);
    unsigned Mode = Shared ? 0666 : 0600;
    auto Put = [&](StringRef Name, StringRef Bytes) -> Error {
      Descriptor F(::openat(Folder.get(), Name.str().c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, Mode));
      if (!F) {
        int Err = errno; // before the name's string is made
        return errnoError(Made + "/" + Name.str(), Err);
      }
      return writeAll(F.get(), Bytes, Made + "/" + Name.str());
    };
    for (size_t I = 0; I < Files.size(); ++I) {
      // An output written to a FIFO or a device is not read back (nor kept).
      Expected<int> In = openRegularFile(Files[I].Path);
      if (!In)
        return In.takeError();
      Descriptor Opened(*In);
      Expected<std::string> Bytes = readAll(Opened.get(), Files[I].Path, MaxFile);
      if (!Bytes)
        return Bytes.takeError();
      std::string Name = "f" + std::to_string(I);
      if (Error E = Put(Name, *Bytes))
        return E;
      Text += "file\t" + Files[I].Role + "\t" + Name + "\t" +
              pe::sha256Hex(arrayRefFromStringRef(*Bytes)) + "\n";
    }
    return Put("entry", Text); // last: a folder with a description is complete
  }();
  if (Written) {
    removeFolderAt(FolderFd, Temp);
    return Written;
  }
  return publish(Temp, Key);
}

/// Renames the complete entry \p Temp to \p Key. An entry of the same key from another build,
/// or one whose dependencies have changed, or whatever else has the name, gives way: a folder is
/// renamed aside first (a rename over a folder that is not empty fails), then removed.
Error WeaveCache::publish(StringRef Temp, StringRef Key) {
  if (::renameat(FolderFd, Temp.str().c_str(), FolderFd, Key.str().c_str()) == 0)
    return Error::success();
  struct stat St;
  if (::fstatat(FolderFd, Key.str().c_str(), &St, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISDIR(St.st_mode)) {
      SmallString<256> Model(Dir);
      sys::path::append(Model, "tmp-XXXXXX");
      std::string Aside(Model.str());
      if (::mkdtemp(Aside.data())) {
        std::string Name = sys::path::filename(Aside).str();
        if (::renameat(FolderFd, Key.str().c_str(), FolderFd, Name.c_str()) != 0)
          ::unlinkat(FolderFd, Name.c_str(), AT_REMOVEDIR);
        else
          removeFolderAt(FolderFd, Name);
      }
    } else {
      // A link or a file: the name goes, not what it leads to.
      ::unlinkat(FolderFd, Key.str().c_str(), 0);
    }
  }
  if (::renameat(FolderFd, Temp.str().c_str(), FolderFd, Key.str().c_str()) != 0)
    removeFolderAt(FolderFd, Temp); // another build kept it first, or the name is not ours to take
  return Error::success();
}

std::string weftBuildIdentity() {
  std::string Id;
  dl_iterate_phdr(noteBuildId, &Id);
  return std::string("weft " WEFT_VERSION " ") + (Id.empty() ? "no-build-id" : Id);
}

} // namespace weft::cli
