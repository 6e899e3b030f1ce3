//===- runtime-profiler/LttngSink.cpp -------------------------------------===//
#include "runtime-profiler/LttngSink.h"
#include "runtime-profiler/Log.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <string>

using namespace llvm;

namespace weft::prof {

namespace {

using EnterFn = void(const char *, const char *, const char *, unsigned);
using LeaveFn = void(const char *, const char *, unsigned);
using CollectionFn = void(unsigned, const char *, double, unsigned long, unsigned long, unsigned);

class LttngSink final : public EventSink {
public:
  LttngSink(EnterFn *E, LeaveFn *Lv, CollectionFn *C) : Enter(E), Leave(Lv), Collection(C) {}
  // LTTng-UST tests whether a session enabled each event itself, at the call.
  bool wantsTracepoints() const override { return true; }
  bool wantsCollections() const override { return true; }
  void tracepoint(bool IsEnter, StringRef Method, StringRef Tracepoints, StringRef Json,
                  uint32_t Tid) override {
    std::string M = Method.str(), J = Json.str();
    if (IsEnter)
      Enter(M.c_str(), Tracepoints.str().c_str(), J.c_str(), Tid);
    else
      Leave(M.c_str(), J.c_str(), Tid);
  }
  void collection(uint32_t Generation, StringRef Reason, double Micros, uint64_t Before,
                  uint64_t After, uint32_t Tid) override {
    Collection(Generation, Reason.str().c_str(), Micros, Before, After, Tid);
  }

private:
  EnterFn *Enter;
  LeaveFn *Leave;
  CollectionFn *Collection;
};

} // namespace

std::unique_ptr<EventSink> openLttngSink(Log &L) {
  Dl_info Self{};
  if (!dladdr(reinterpret_cast<void *>(&openLttngSink), &Self) || !Self.dli_fname)
    return nullptr;
  SmallString<256> Path(sys::path::parent_path(Self.dli_fname));
  sys::path::append(Path, "libweft_lttng.so");
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    L.line("lttng: no LTTng events (" + Twine(Why ? Why : "libweft_lttng.so did not load") +
           "; it is built where LTTng-UST is installed)");
    return nullptr;
  }
  auto *E = reinterpret_cast<EnterFn *>(dlsym(H, "weft_lttng_enter"));
  auto *Lv = reinterpret_cast<LeaveFn *>(dlsym(H, "weft_lttng_leave"));
  auto *C = reinterpret_cast<CollectionFn *>(dlsym(H, "weft_lttng_collection"));
  if (!E || !Lv || !C) {
    L.line("lttng: " + Path + " lacks the provider's functions; no LTTng events");
    return nullptr;
  }
  L.line("lttng: the provider 'weft' is registered (" + Path + ")");
  return std::make_unique<LttngSink>(E, Lv, C);
}

} // namespace weft::prof
