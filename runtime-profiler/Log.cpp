//===- runtime-profiler/Log.cpp -------------------------------------------===//
#include "runtime-profiler/Log.h"
#include "support/Format.h"

#include "llvm/ADT/SmallString.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace weft::prof {

Log::Log(const std::string &Path) {
  if (Path.empty())
    return;
  int F = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (F < 0) {
    line("cannot open the log file " + Twine(Path) + ": " + std::strerror(errno) +
         "; logging to stderr");
    return;
  }
  Fd = F;
  Owned = true;
}

Log::~Log() {
  if (Owned)
    ::close(Fd);
}

void Log::line(const Twine &Line) {
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

} // namespace weft::prof
