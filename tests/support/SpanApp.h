//===- tests/support/SpanApp.h - tests/span-app, woven ----------*- C++ -*-===//
//
// The span tests weave tests/span-app (built by the spanapp.build test): its types Shop and
// Store.Clerk, with a span pass of the options each test gives.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_SPANAPP_H
#define WEFT_TESTS_SUPPORT_SPANAPP_H

#include "tests/support/Env.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace weft::test {

struct WovenSpanApp {
  std::string Dir, Dll;
  CommandResult Weave;
};

/// The program as built (unwoven).
std::string spanAppDll();

/// tests/span-app with Shop and Store.Clerk woven by \p Pass, an entry of a spec's "passes"
/// (JSON), into a scratch folder \p Name with the spec (weft.json) beside it.
WovenSpanApp weaveSpanApp(llvm::StringRef Name, llvm::StringRef Pass);

/// What the program prints (without "listen": then it also prints the spans it heard).
extern const char *const SpanAppOutput;

} // namespace weft::test

#endif
