//===- cli/MapsReadAhead.cpp - Coverage maps read while the tests run -----===//
#include "cli/MapsReadAhead.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

using namespace llvm;

namespace weft::cli {

namespace {

/// Which file a path named when it was looked at: a file replaced (a new weave) or rewritten
/// since is another.
struct FileIdentity {
  sys::fs::UniqueID Id;
  uint64_t Size = 0;
  sys::TimePoint<> Modified;
  bool operator==(const FileIdentity &O) const {
    return Id == O.Id && Size == O.Size && Modified == O.Modified;
  }
};

std::optional<FileIdentity> identityOf(const std::string &Path) {
  sys::fs::file_status St;
  if (sys::fs::status(Path, St) || St.type() != sys::fs::file_type::regular_file)
    return std::nullopt;
  return FileIdentity{St.getUniqueID(), St.getSize(), St.getLastModificationTime()};
}

/// A map being read or read.
struct Entry {
  FileIdentity File;
  uint64_t Order = 0;
  bool Done = false;
  std::optional<coverage::Map> Map; // when it read and its file did not change meanwhile
};

/// The maps read ahead in this process, by file. Never destroyed: a reading thread may outlive
/// the process's static objects.
struct ReadAhead {
  static constexpr uint64_t Budget = uint64_t(64) << 20; // of the maps' text
  /// How long a map read waits to be taken (the tests between weave and report may take that
  /// long); then it is dropped, and a report after that reads the file.
  static constexpr std::chrono::minutes Kept{30};
  std::mutex Lock;
  std::condition_variable Read;
  std::map<sys::fs::UniqueID, std::shared_ptr<Entry>> Entries;
  uint64_t Held = 0, Next = 0;

  /// Makes room for \p Size more bytes, the oldest maps read dropped first; false when there
  /// is none (the maps still being read are kept).
  bool makeRoom(uint64_t Size) {
    while (Held + Size > Budget) {
      auto Oldest = Entries.end();
      for (auto It = Entries.begin(); It != Entries.end(); ++It)
        if (It->second->Done && (Oldest == Entries.end() || It->second->Order < Oldest->second->Order))
          Oldest = It;
      if (Oldest == Entries.end())
        return false;
      Held -= Oldest->second->File.Size;
      Entries.erase(Oldest);
    }
    return true;
  }
};

ReadAhead &readAhead() {
  static ReadAhead *Ahead = new ReadAhead;
  return *Ahead;
}

/// Reads the map at \p Path into \p E, if the file is still the one \p E names.
void readInto(const std::string &Path, Entry &E) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return;
  Expected<coverage::Map> M = coverage::readMap((*Buf)->getBuffer());
  if (!M) {
    consumeError(M.takeError());
    return;
  }
  std::optional<FileIdentity> After = identityOf(Path);
  if (After && *After == E.File)
    E.Map = std::move(*M);
}

} // namespace

void readMapsAhead(std::vector<std::string> Paths) {
  ReadAhead &A = readAhead();
  std::vector<std::pair<std::string, std::shared_ptr<Entry>>> Work;
  {
    std::lock_guard<std::mutex> G(A.Lock);
    for (std::string &Path : Paths) {
      std::optional<FileIdentity> File = identityOf(Path);
      if (!File || !A.makeRoom(File->Size))
        continue;
      auto E = std::make_shared<Entry>();
      E->File = *File;
      E->Order = A.Next++;
      if (auto Old = A.Entries.find(File->Id); Old != A.Entries.end())
        A.Held -= Old->second->File.Size;
      A.Entries[File->Id] = E;
      A.Held += File->Size;
      Work.emplace_back(std::move(Path), std::move(E));
    }
  }
  if (Work.empty())
    return;
  auto ReadAll = [Work] {
    ReadAhead &A = readAhead();
    for (const auto &[Path, E] : Work) {
      readInto(Path, *E); // E is this thread's until Done
      std::lock_guard<std::mutex> G(A.Lock);
      E->Done = true;
      A.Read.notify_all();
    }
    // What no report took in time is dropped: a process that made no report (the tests did not
    // run, or another process reported) does not keep the maps.
    std::unique_lock<std::mutex> G(A.Lock);
    auto Held = [&](const std::shared_ptr<Entry> &E) {
      auto It = A.Entries.find(E->File.Id);
      return It != A.Entries.end() && It->second == E ? It : A.Entries.end();
    };
    auto AllTaken = [&] {
      return llvm::all_of(Work, [&](const auto &W) { return Held(W.second) == A.Entries.end(); });
    };
    A.Read.wait_for(G, ReadAhead::Kept, AllTaken);
    for (const auto &[Path, E] : Work)
      if (auto It = Held(E); It != A.Entries.end()) {
        A.Held -= E->File.Size;
        A.Entries.erase(It);
      }
  };
  try {
    std::thread(ReadAll).detach();
  } catch (const std::system_error &) {
    // No thread: nothing is read ahead, and the report reads the maps.
    std::lock_guard<std::mutex> G(A.Lock);
    for (const auto &[Path, E] : Work) {
      E->Done = true;
      auto It = A.Entries.find(E->File.Id);
      if (It != A.Entries.end() && It->second == E) {
        A.Held -= E->File.Size;
        A.Entries.erase(It);
      }
    }
  }
}

std::optional<coverage::Map> takeMapReadAhead(const std::string &Path) {
  std::optional<FileIdentity> File = identityOf(Path);
  if (!File)
    return std::nullopt;
  ReadAhead &A = readAhead();
  std::unique_lock<std::mutex> G(A.Lock);
  auto It = A.Entries.find(File->Id);
  if (It == A.Entries.end())
    return std::nullopt;
  std::shared_ptr<Entry> E = It->second;
  A.Read.wait(G, [&] { return E->Done; });
  It = A.Entries.find(File->Id); // the wait let others in
  if (It != A.Entries.end() && It->second == E) {
    A.Held -= E->File.Size;
    A.Entries.erase(It);
    A.Read.notify_all(); // the thread that read it waits for its maps to be taken
  }
  if (!(E->File == *File))
    return std::nullopt;
  return std::move(E->Map);
}

} // namespace weft::cli
