//===- cli/InProcess.cpp - weft's command line in another program's process -===//
//
// libweft_inprocess.so (weft_inprocess.dll): weft_main runs a weft command line in the process
// that calls it, its output handed to a callback rather than written to stdout and stderr. The
// Weft package's MSBuild task calls it for the coverage steps of `dotnet test`, where starting
// a process costs more than the work. Plugins are not loaded there (a usage error). What a
// command does for its own process it does here too: a coverage report asks glibc to keep up to
// 64 MiB of freed heap (port::preferLargeHeapPages), which in MSBuild's process then stays so.
//
//===----------------------------------------------------------------------===//
#include "cli/Tool.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <exception>
#include <mutex>

#if defined(_WIN32)
#define WEFT_INPROCESS_EXPORT extern "C" __declspec(dllexport)
#else
#define WEFT_INPROCESS_EXPORT extern "C" __attribute__((visibility("default")))
#endif

using namespace weft::cli;

namespace {

/// Writes the caller's \p Stream (1 stdout, 2 stderr) through its callback, unbuffered, so
/// that what the two streams say stays in order.
using WriteFn = void (*)(void *Context, int Stream, const char *Data, std::size_t Size);
class CallbackStream : public llvm::raw_ostream {
public:
  CallbackStream(WriteFn Write, void *Context, int Stream)
      : raw_ostream(/*unbuffered=*/true), Write(Write), Context(Context), Stream(Stream) {}

private:
  void write_impl(const char *Data, std::size_t Size) override {
    Pos += Size;
    if (Write)
      Write(Context, Stream, Data, Size);
  }
  uint64_t current_pos() const override { return Pos; }
  WriteFn Write;
  void *Context;
  int Stream;
  uint64_t Pos = 0;
};

} // namespace

/// Runs the command line argv[0..argc) (argv[0] a program name, as main's) and returns weft's
/// exit code; what weft prints goes to \p Write (stream 1 for stdout, 2 for stderr). One run at
/// a time in a process: callers from several threads wait their turn.
WEFT_INPROCESS_EXPORT int weft_main(int argc, const char *const *argv, WriteFn Write,
                                    void *Context) {
  static std::mutex OneAtATime;
  std::lock_guard<std::mutex> Lock(OneAtATime);
  CallbackStream Out(Write, Context, 1), Err(Write, Context, 2);
  OutputRedirect Redirect(&Out, &Err);
  if (argc < 1 || !argv)
    return reportError("weft_main: no command line (argv[0] is the program's name)", CodeUsage);
  try {
    return runCommandLine(llvm::ArrayRef<const char *>(argv, argv + argc),
                          /*OwnProcess=*/false);
  } catch (const std::exception &E) {
    return reportError(llvm::Twine("internal error: ") + E.what());
  } catch (...) {
    return reportError("internal error: an unknown exception");
  }
}
