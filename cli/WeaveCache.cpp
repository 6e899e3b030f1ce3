//===- cli/WeaveCache.cpp -------------------------------------------------===//
#include "cli/WeaveCache.h"

#include "support/AtomicFile.h"
#include "pe/Sha256.h"
#include "support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <elf.h>
#include <link.h>
#include <optional>

using namespace llvm;

namespace weft::cli {

namespace {

constexpr StringLiteral EntryHeader = "weft-cache 1";

std::string digestHex(ArrayRef<uint8_t> Bytes) { return pe::sha256Hex(Bytes); }

/// The digest of the file at \p Path, or "" when it cannot be read.
std::string fileDigest(StringRef Path) {
  Expected<std::string> D = pe::fileSha256Hex(Path);
  if (!D) {
    consumeError(D.takeError());
    return "";
  }
  return *D;
}

Error copyFile(StringRef From, StringRef To) {
  auto Buf = MemoryBuffer::getFile(From, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createFileError(From, errorCodeToError(Buf.getError()));
  return writeFileAtomically(To, arrayRefFromStringRef((*Buf)->getBuffer()));
}

/// An entry's description: its files by role and its dependencies with their digests.
struct Entry {
  std::vector<std::pair<std::string, std::string>> Files; // role, name in the entry
  std::vector<std::pair<std::string, std::string>> Dependencies; // digest, path
};

std::optional<Entry> parseEntry(StringRef Text) {
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty() || Lines.front() != EntryHeader)
    return std::nullopt;
  Entry E;
  for (StringRef L : ArrayRef<StringRef>(Lines).drop_front()) {
    SmallVector<StringRef, 3> F;
    L.split(F, '\t');
    if (F.size() == 3 && F[0] == "file")
      E.Files.emplace_back(F[1].str(), F[2].str());
    else if (F.size() == 3 && F[0] == "dep")
      E.Dependencies.emplace_back(F[1].str(), F[2].str());
    else
      return std::nullopt;
  }
  return E;
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

void CacheKey::addText(StringRef Label, StringRef Text) {
  raw_string_ostream OS(Material);
  OS << Label << ' ' << Text.size() << '\n' << Text << '\n';
}

Error CacheKey::addFile(StringRef Label, StringRef Path) {
  if (!sys::fs::exists(Path)) {
    addText(Label, "(missing)");
    return Error::success();
  }
  std::string D = fileDigest(Path);
  if (D.empty())
    return createFileError(Path, plainError("cannot be read for the weaving cache"));
  addText(Label, D);
  return Error::success();
}

std::string CacheKey::hex() const { return digestHex(arrayRefFromStringRef(Material)); }

Expected<bool> WeaveCache::restore(StringRef Key,
                                   function_ref<std::string(StringRef Role)> OutputFor,
                                   std::vector<std::string> &Dependencies) {
  SmallString<256> Folder(Dir);
  sys::path::append(Folder, Key);
  SmallString<256> Desc(Folder);
  sys::path::append(Desc, "entry");
  auto Buf = MemoryBuffer::getFile(Desc, /*IsText=*/true);
  if (!Buf)
    return false;
  std::optional<Entry> E = parseEntry((*Buf)->getBuffer());
  if (!E)
    return false; // not an entry this weft wrote: woven again, and kept anew
  for (const auto &[Digest, Path] : E->Dependencies)
    if (fileDigest(Path) != Digest)
      return false;
  for (const auto &[Role, Name] : E->Files) {
    SmallString<256> From(Folder);
    sys::path::append(From, Name);
    if (Error Err = copyFile(From, OutputFor(Role))) {
      consumeError(std::move(Err)); // an entry removed under us: a miss
      return false;
    }
  }
  for (const auto &Dep : E->Dependencies)
    Dependencies.push_back(Dep.second);
  return true;
}

Error WeaveCache::store(StringRef Key, ArrayRef<CachedFile> Files,
                        ArrayRef<std::string> Dependencies) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createFileError(Dir, errorCodeToError(EC));
  SmallString<256> Temp(Dir);
  sys::path::append(Temp, "tmp-" + Key.str() + "-" + std::to_string(sys::Process::getProcessId()));
  sys::fs::remove_directories(Temp);
  if (std::error_code EC = sys::fs::create_directory(Temp))
    return createFileError(Temp, errorCodeToError(EC));
  std::string Text = EntryHeader.str() + "\n";
  for (size_t I = 0; I < Files.size(); ++I) {
    SmallString<256> To(Temp);
    sys::path::append(To, "f" + std::to_string(I));
    if (Error E = copyFile(Files[I].Path, To)) {
      sys::fs::remove_directories(Temp);
      return E;
    }
    Text += "file\t" + Files[I].Role + "\tf" + std::to_string(I) + "\n";
  }
  for (const std::string &D : Dependencies)
    Text += "dep\t" + fileDigest(D) + "\t" + D + "\n";
  SmallString<256> Desc(Temp);
  sys::path::append(Desc, "entry");
  if (Error E = writeFileAtomically(Desc, arrayRefFromStringRef(Text))) {
    sys::fs::remove_directories(Temp);
    return E;
  }
  // An entry of the same key from another build, or one whose dependencies have changed, gives
  // way: renamed aside first (a rename over a folder that is not empty fails), then removed.
  SmallString<256> Final(Dir);
  sys::path::append(Final, Key);
  if (sys::fs::exists(Final)) {
    SmallString<256> Old(Temp);
    Old += ".old";
    if (!sys::fs::rename(Final, Old))
      sys::fs::remove_directories(Old);
  }
  if (sys::fs::rename(Temp, Final))
    sys::fs::remove_directories(Temp); // another build kept it first
  return Error::success();
}

std::string weftBuildIdentity() {
  std::string Id;
  dl_iterate_phdr(noteBuildId, &Id);
  return std::string("weft " WEFT_VERSION " ") + (Id.empty() ? "no-build-id" : Id);
}

std::string cacheDirFrom(StringRef Option) {
  if (!Option.empty())
    return Option.str();
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_CACHE_DIR"))
    return *Env;
  return "";
}

} // namespace weft::cli
