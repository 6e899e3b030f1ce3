//===- cli/WeaveCache.cpp - The weaving cache's keys and records ----------===//
//
// What every system shares: the key, the two levels of records (cli/WeaveCache.h) and how they
// are written, as Bazel's remote execution API has them (an ActionResult message: its
// output_files, each a path and a digest, and its stdout_raw), so that a cache server that
// checks what it is given (bazel-remote) takes them. The folder and the server are
// WeaveCachePosix.cpp (WeaveCacheWindows.cpp) and RemoteCache.cpp.
//
//===----------------------------------------------------------------------===//
#include "cli/WeaveCache.h"

#include "pe/Sha256.h"
#include "support/AtomicFile.h"
#include "support/Error.h"
#include "support/RegularFile.h"
#include "weaving/WovenRecord.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"


using namespace llvm;

namespace weft::cli {

void CacheKey::addText(StringRef Label, StringRef Text) {
  raw_string_ostream OS(Material);
  OS << Label << ' ' << Text.size() << '\n' << Text << '\n';
}

Error CacheKey::addFile(StringRef Label, StringRef Path) {
  if (!sys::fs::exists(Path)) {
    addText(Label, "(missing)");
    return Error::success();
  }
  Expected<std::string> D = pe::regularFileSha256Hex(Path);
  if (!D)
    return D.takeError();
  addText(Label, *D);
  return Error::success();
}

std::string CacheKey::hex() const { return pe::sha256Hex(arrayRefFromStringRef(Material)); }

CacheStore::~CacheStore() = default;

namespace {

constexpr StringLiteral ManifestHeader = "weft-manifest 1\n";
constexpr StringLiteral EntryHeader = "weft-entry 1\n";
/// No assembly or PDB reaches 4 GiB (PE32 and metadata offsets are 32-bit).
constexpr uint64_t MaxFile = uint64_t(1) << 32;

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
  if (Rest.find_first_of(StringRef("/\\\0\t\n", 5)) != StringRef::npos)
    return false;
  return Role[0] == '~' || (!Rest.empty() && Rest != "." && Rest != "..");
}

//--- Protocol buffers: the few fields of ActionResult, OutputFile and Digest used here. ---

void varint(std::string &Out, uint64_t V) {
  do {
    uint8_t B = V & 0x7f;
    V >>= 7;
    Out += char(V ? B | 0x80 : B);
  } while (V);
}
void bytesField(std::string &Out, unsigned Field, StringRef Bytes) {
  varint(Out, Field << 3 | 2);
  varint(Out, Bytes.size());
  Out += Bytes;
}
void varintField(std::string &Out, unsigned Field, uint64_t V) {
  varint(Out, Field << 3);
  varint(Out, V);
}

/// The fields of a message, in order: (field, bytes of a length-delimited one or a varint's
/// value). Fields of other wire types are skipped.
struct Field {
  unsigned Number;
  StringRef Bytes;
  uint64_t Value = 0;
};
Expected<std::vector<Field>> fields(StringRef Message) {
  std::vector<Field> Out;
  size_t At = 0;
  auto Varint = [&](uint64_t &V) -> bool {
    V = 0;
    for (unsigned Shift = 0; Shift < 64; Shift += 7) {
      if (At >= Message.size())
        return false;
      uint8_t B = uint8_t(Message[At++]);
      V |= uint64_t(B & 0x7f) << Shift;
      if (!(B & 0x80))
        return true;
    }
    return false;
  };
  while (At < Message.size()) {
    uint64_t Tag, V;
    if (!Varint(Tag) || Tag >> 3 == 0 || Tag >> 3 > UINT32_MAX)
      return plainError("not a message of the cache protocol (a field's tag at byte " + Twine(At) +
                        ")");
    Field F{unsigned(Tag >> 3), {}};
    switch (Tag & 7) {
    case 0:
      if (!Varint(F.Value))
        return plainError("a varint runs past the end");
      break;
    case 1:
    case 5: {
      size_t N = (Tag & 7) == 1 ? 8 : 4;
      if (Message.size() - At < N)
        return plainError("a fixed field runs past the end");
      At += N;
      continue;
    }
    case 2:
      if (!Varint(V) || V > Message.size() - At)
        return plainError("a field's length runs past the end");
      F.Bytes = Message.substr(At, V);
      At += V;
      break;
    default:
      return plainError("a field of wire type " + Twine(Tag & 7));
    }
    Out.push_back(F);
  }
  return Out;
}

/// An ActionResult holding \p Text (its stdout_raw), \p Files (its output_files) and
/// \p Errors (its stderr_raw, when not empty).
std::string actionResult(StringRef Text,
                         ArrayRef<std::tuple<std::string, std::string, uint64_t>> Files,
                         StringRef Errors = "") {
  std::string Out;
  for (const auto &[Role, Digest, Size] : Files) {
    std::string D, F;
    bytesField(D, 1, Digest);
    varintField(D, 2, Size);
    bytesField(F, 1, Role);
    bytesField(F, 2, D);
    bytesField(Out, 2, F);
  }
  bytesField(Out, 5, Text);
  if (!Errors.empty())
    bytesField(Out, 7, Errors);
  return Out;
}

struct DecodedResult {
  std::string Text, Errors;
  std::vector<std::tuple<std::string, std::string, uint64_t>> Files; // role, digest, size
};
Expected<DecodedResult> decodeResult(StringRef Bytes) {
  Expected<std::vector<Field>> Top = fields(Bytes);
  if (!Top)
    return Top.takeError();
  DecodedResult R;
  for (const Field &F : *Top) {
    if (F.Number == 5)
      R.Text = F.Bytes.str();
    if (F.Number == 7)
      R.Errors = F.Bytes.str();
    if (F.Number != 2)
      continue;
    Expected<std::vector<Field>> File = fields(F.Bytes);
    if (!File)
      return File.takeError();
    std::string Role, Digest;
    uint64_t Size = 0;
    for (const Field &G : *File) {
      if (G.Number == 1)
        Role = G.Bytes.str();
      if (G.Number != 2)
        continue;
      Expected<std::vector<Field>> D = fields(G.Bytes);
      if (!D)
        return D.takeError();
      for (const Field &H : *D) {
        if (H.Number == 1)
          Digest = H.Bytes.str();
        if (H.Number == 2)
          Size = H.Value;
      }
    }
    if (!isRole(Role))
      return plainError("a file of the role '" + Role + "', which names no output file");
    if (!isDigest(Digest))
      return plainError("a file without a SHA-256 digest");
    if (Size > MaxFile)
      return plainError("a file larger than " + Twine(MaxFile) + " bytes");
    R.Files.emplace_back(std::move(Role), std::move(Digest), Size);
  }
  return R;
}

//--- The manifest: the dependencies of the entries under a key. ---

std::string manifestText(ArrayRef<WeaveCache::Dependency> Deps) {
  std::string Text = ManifestHeader.str();
  for (const WeaveCache::Dependency &D : Deps)
    Text += "dep\t" + D.FromOutput + "\t" + D.Absolute + "\n";
  return Text;
}

Expected<std::vector<WeaveCache::Dependency>> parseManifest(StringRef Text) {
  if (!Text.consume_front(ManifestHeader))
    return plainError("not a manifest of this weft's");
  std::vector<WeaveCache::Dependency> Deps;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    SmallVector<StringRef, 3> F;
    L.split(F, '\t');
    if (F.size() != 3 || F[0] != "dep" || F[1].empty() || !sys::path::is_absolute(F[2]))
      return plainError("a line weft does not write");
    Deps.push_back({F[1].str(), F[2].str()});
  }
  return Deps;
}

/// The file \p Path whole; an output written to a FIFO or a device is not read back.
Expected<std::string> readRegularFile(StringRef Path, uint64_t Max) {
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!B)
    return createFileError(Path, errorCodeToError(B.getError()));
  if ((*B)->getBufferSize() > Max)
    return createFileError(Path, plainError("larger than " + Twine(Max) + " bytes"));
  return (*B)->getBuffer().str();
}

/// The second key: the first and the digest of each dependency found in this checkout.
std::string secondKey(StringRef Key, ArrayRef<std::string> Digests) {
  std::string Material = "weft-entry\n" + Key.str() + "\n";
  for (const std::string &D : Digests)
    Material += D + "\n";
  return pe::sha256Hex(arrayRefFromStringRef(Material));
}

} // namespace

std::optional<std::string> WeaveCache::digestOf(const std::string &Path) {
  {
    std::lock_guard<std::mutex> G(Lock);
    for (const auto &[P, D] : Digests)
      if (P == Path)
        return D;
  }
  Expected<std::string> D = pe::regularFileSha256Hex(Path);
  if (!D) {
    consumeError(D.takeError());
    return std::nullopt;
  }
  std::lock_guard<std::mutex> G(Lock);
  Digests.emplace_back(Path, *D);
  return *D;
}

Expected<std::optional<std::string>> CacheStore::get(CacheArea Area, StringRef Key,
                                                     uint64_t Max) {
  std::string Bytes;
  Expected<bool> Found = fetch(Area, Key, [&](StringRef Piece) -> Error {
    if (Bytes.size() + Piece.size() > Max)
      return plainError("'" + where(Area, Key) + "' is larger than " + Twine(Max) +
                        " bytes: no record of weft's");
    Bytes += Piece;
    return Error::success();
  });
  if (!Found)
    return Found.takeError();
  if (!*Found)
    return std::nullopt;
  return std::optional<std::string>(std::move(Bytes));
}

Error CacheStore::putFile(CacheArea Area, StringRef Key, StringRef Path) {
  Expected<std::string> Bytes = readRegularFile(Path, MaxFile);
  if (!Bytes)
    return Bytes.takeError();
  return put(Area, Key, *Bytes);
}

struct WeaveCache::Fetched {
  ScratchFile Temp; // removed unless moved into place
  std::string To, Digest;
};

bool WeaveCache::lookup(CacheStore &S, StringRef Key, StringRef OutputFolder,
                        function_ref<std::optional<std::string>(StringRef)> OutputFor,
                        std::vector<Fetched> &Files, std::vector<std::string> &Dependencies,
                        std::vector<std::string> &Warnings,
                        std::vector<std::pair<std::string, std::string>> &Records,
                        function_ref<void(const std::string &)> Warn) {
  auto Get = [&](CacheArea A, StringRef K) -> std::optional<std::string> {
    Expected<std::optional<std::string>> R = S.get(A, K);
    if (!R) {
      Warn(toString(R.takeError()));
      return std::nullopt;
    }
    return std::move(*R);
  };
  auto Refuse = [&](CacheArea A, StringRef K, const Twine &Why) {
    Warn(S.name() + ": '" + S.where(A, K) + "' is refused: " + Why.str() + "; woven anew");
  };
  std::optional<std::string> Manifest = Get(CacheArea::Action, Key);
  if (!Manifest)
    return false;
  Expected<DecodedResult> M = decodeResult(*Manifest);
  Expected<std::vector<Dependency>> Deps =
      M ? parseManifest(M->Text) : Expected<std::vector<Dependency>>(M.takeError());
  if (!Deps) {
    Refuse(CacheArea::Action, Key, "it holds " + toString(Deps.takeError()));
    return false;
  }
  // Each dependency where this checkout has it: from the output's folder, else where it was.
  std::vector<std::string> Found, DepDigests;
  for (const Dependency &D : *Deps) {
    std::optional<std::string> Digest;
    std::string Path;
    for (const std::string &Candidate :
         {sys::path::is_absolute(D.FromOutput) ? D.FromOutput
                                                : (OutputFolder + "/" + D.FromOutput).str(),
          D.Absolute}) {
      if (sys::fs::is_regular_file(Candidate) && (Digest = digestOf(Candidate))) {
        Path = Candidate;
        break;
      }
    }
    if (!Digest)
      return false; // a dependency gone: the weave says what is wrong with it
    Found.push_back(Path);
    DepDigests.push_back(*Digest);
  }
  std::string Second = secondKey(Key, DepDigests);
  std::optional<std::string> EntryBytes = Get(CacheArea::Action, Second);
  if (!EntryBytes)
    return false;
  Expected<DecodedResult> E = decodeResult(*EntryBytes);
  if (E && !StringRef(E->Text).startswith(EntryHeader))
    E = plainError("not an entry of this weft's");
  if (E && E->Files.empty())
    E = plainError("no file");
  if (!E) {
    Refuse(CacheArea::Action, Second, "it holds " + toString(E.takeError()));
    return false;
  }
  // Each file downloaded beside where it goes, its digest taken on the way; none is moved into
  // place before every one is checked.
  for (const auto &[Role, Digest, Size] : E->Files) {
    std::optional<std::string> To = OutputFor(Role);
    if (!To) {
      Refuse(CacheArea::Action, Second,
             "it holds a file of the role '" + Role +
                 "', which a weave of this output does not write");
      return false;
    }
    int Fd;
    SmallString<256> TempPath;
    if (std::error_code EC = sys::fs::createUniqueFile(*To + ".weft-%%%%%%", Fd, TempPath)) {
      Warn(toString(createFileError(*To, errorCodeToError(EC))));
      return false;
    }
    Fetched F{ScratchFile(std::string(TempPath)), *To, Digest};
    pe::Sha256Stream Hash;
    uint64_t Got = 0;
    raw_fd_ostream Out(Fd, /*shouldClose=*/true, /*unbuffered=*/true);
    Expected<bool> Present = S.fetch(CacheArea::Content, Digest, [&](StringRef Piece) -> Error {
      if ((Got += Piece.size()) > Size)
        return plainError("it is larger than the entry says");
      Hash.update(arrayRefFromStringRef(Piece));
      Out << Piece;
      return Error::success();
    });
    Out.close();
    if (!Present) {
      Warn(toString(Present.takeError()));
      return false;
    }
    if (!*Present)
      return false; // gone from the store since (evicted): a miss
    if (Out.has_error()) {
      Warn(toString(createFileError(F.Temp.path(), errorCodeToError(Out.error()))));
      Out.clear_error();
      return false;
    }
    if (Got != Size || Hash.hex() != Digest) {
      Refuse(CacheArea::Content, Digest, "it does not have the SHA-256 it is stored under");
      return false;
    }
    Files.push_back(std::move(F));
  }
  SmallVector<StringRef, 4> Said;
  StringRef(E->Errors).split(Said, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef W : Said)
    Warnings.push_back(W.str());
  Records.emplace_back(Second, std::move(*EntryBytes));
  Records.emplace_back(Key.str(), std::move(*Manifest));
  Dependencies = std::move(Found);
  return true;
}

bool WeaveCache::restore(StringRef Key, StringRef OutputFolder,
                         function_ref<std::optional<std::string>(StringRef)> OutputFor,
                         std::vector<std::string> &Dependencies, std::string &From,
                         std::vector<std::string> &Warnings,
                         function_ref<void(const std::string &)> Warn) {
  for (CacheStore *S : {Local.get(), Remote.get()}) {
    if (!S)
      continue;
    std::vector<Fetched> Files;
    std::vector<std::pair<std::string, std::string>> Records;
    std::vector<std::string> Deps, Said;
    if (!lookup(*S, Key, OutputFolder, OutputFor, Files, Deps, Said, Records, Warn))
      continue;
    for (Fetched &F : Files)
      if (Error E = F.Temp.keepAs(F.To)) {
        Warn(toString(std::move(E)));
        return false;
      }
    // What the server gave, kept in the folder for the next build on this machine: the files
    // from where they now are, then the records that name them.
    if (S == Remote.get() && Local) {
      Error E = Error::success();
      for (const Fetched &F : Files)
        if ((E = Local->putFile(CacheArea::Content, F.Digest, F.To)))
          break;
      for (const auto &[K, Bytes] : Records)
        if (!E)
          E = Local->put(CacheArea::Action, K, Bytes);
      if (E)
        Warn(toString(std::move(E)));
    }
    for (std::string &D : Deps)
      Dependencies.push_back(std::move(D));
    Warnings = std::move(Said);
    From = S == Remote.get() ? "remote cache" : "weaving cache";
    std::lock_guard<std::mutex> G(Lock);
    ++(S == Remote.get() ? Count.Remote : Count.Local);
    return true;
  }
  return false;
}

void WeaveCache::store(StringRef Key, StringRef OutputFolder, ArrayRef<CachedFile> Files,
                       ArrayRef<std::string> Dependencies, ArrayRef<std::string> Warnings,
                       function_ref<void(const std::string &)> Warn) {
  std::vector<Dependency> Deps;
  std::vector<std::string> DepDigests;
  for (const std::string &D : Dependencies) {
    // An entry that could never be used is not kept.
    std::optional<std::string> Digest = digestOf(D);
    if (!Digest || StringRef(D).find_first_of("\t\n") != StringRef::npos)
      return Warn("'" + D + "' cannot be kept as a dependency: the output is not kept");
    std::string FromOutput = passes::pathFrom(OutputFolder, D);
    Deps.push_back({FromOutput, D});
    DepDigests.push_back(*Digest);
  }
  std::vector<std::tuple<std::string, std::string, uint64_t>> Listed;
  std::vector<std::pair<std::string, std::string>> Blobs; // digest, bytes
  for (const CachedFile &F : Files) {
    if (!isRole(F.Role))
      return Warn("'" + F.Path + "' has a name the cache cannot keep");
    Expected<std::string> Bytes = readRegularFile(F.Path, MaxFile);
    if (!Bytes)
      return Warn(toString(Bytes.takeError()));
    std::string Digest = pe::sha256Hex(arrayRefFromStringRef(*Bytes));
    Listed.emplace_back(F.Role, Digest, Bytes->size());
    Blobs.emplace_back(std::move(Digest), std::move(*Bytes));
  }
  std::string Second = secondKey(Key, DepDigests);
  std::string Entry = actionResult(EntryHeader, Listed, join(Warnings, "\n"));
  std::string Manifest = actionResult(manifestText(Deps), {});
  for (CacheStore *S : {Local.get(), Remote.get()}) {
    if (!S || !S->writes())
      continue;
    // The blobs before the records that name them, the manifest last: a reader that finds a
    // manifest finds what it leads to.
    Error E = Error::success();
    for (const auto &[Digest, Bytes] : Blobs)
      if ((E = S->put(CacheArea::Content, Digest, Bytes)))
        break;
    if (!E)
      E = S->put(CacheArea::Action, Second, Entry);
    if (!E)
      E = S->put(CacheArea::Action, Key, Manifest);
    if (E)
      Warn(toString(std::move(E)));
  }
}

WeaveCache::Counts WeaveCache::counts() const {
  std::lock_guard<std::mutex> G(Lock);
  return Count;
}

/// \p Option if given, else the environment variable \p Name, else nothing.
static std::string optionOrEnv(StringRef Option, const char *Name) {
  if (!Option.empty())
    return Option.str();
  return sys::Process::GetEnv(Name).getValueOr("");
}

std::string cacheDirFrom(StringRef Option) { return optionOrEnv(Option, "WEFT_CACHE_DIR"); }

static bool envTrue(const char *Name) {
  Optional<std::string> Env = sys::Process::GetEnv(Name);
  return Env && (*Env == "1" || StringRef(*Env).equals_insensitive("true"));
}

bool cacheSharedFrom(bool Option) { return Option || envTrue("WEFT_CACHE_SHARED"); }

std::string remoteCacheFrom(StringRef Option) { return optionOrEnv(Option, "WEFT_REMOTE_CACHE"); }

bool remoteReadOnlyFrom(bool Option) { return Option || envTrue("WEFT_REMOTE_CACHE_READ_ONLY"); }

} // namespace weft::cli
