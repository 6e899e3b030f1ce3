//===- runtime-profiler/Log.cpp -------------------------------------------===//
#include "runtime-profiler/Log.h"
#include "support/PrivateFiles.h"

#include "llvm/Support/ConvertUTF.h"

#include <cstdio>
#include "support/Format.h"

#include "llvm/ADT/SmallString.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

Log::Log(const std::string &Path, bool MayUseStderr) : Fd(MayUseStderr ? 2 : -1) {
  if (Path.empty())
    return;
  // Appended (a process may start others that log to the same file), never through a link,
  // only to a regular file of the user's own, private to it.
  Expected<int> F = openOwnedForAppend(Path, 0600);
  if (!F) {
    line("cannot open the log file: " + toString(F.takeError()) +
         (MayUseStderr ? "; logging to stderr" : "; nothing is logged"));
    return;
  }
  Fd = *F;
  Owned = true;
}

Log::~Log() {
  if (Owned)
    ::close(Fd);
}

void Log::line(const Twine &Line) {
  if (Fd < 0)
    return;
  SmallString<256> Text;
  (Twine("weft-profiler[") + Twine(int(::getpid())) + "]: " + Line + "\n").toVector(Text);
  const char *P = Text.data();
  size_t Left = Text.size();
  while (Left) {
    ssize_t N = ::write(Fd, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    P += N;
    Left -= size_t(N);
  }
}

std::string hresultText(HRESULT Hr) { return "HRESULT 0x" + hexstr(uint32_t(Hr), false, 8); }

std::string utf8(llvm::ArrayRef<WCHAR> Text) {
  std::string Out;
  llvm::ArrayRef<llvm::UTF16> Units(reinterpret_cast<const llvm::UTF16 *>(Text.data()),
                                    Text.size());
  if (!llvm::convertUTF16ToUTF8String(Units, Out))
    Out = "<text not UTF-16>";
  return Out;
}

void appendJsonString(std::string &Out, llvm::StringRef S) {
  Out += '"';
  for (char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\r': Out += "\\r"; break;
    case '\t': Out += "\\t"; break;
    default:
      if (uint8_t(C) < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", unsigned(uint8_t(C)));
        Out += Buf;
      } else {
        Out += C;
      }
    }
  }
  Out += '"';
}

} // namespace weft::prof
