//===- tests/support/SpanApp.cpp - tests/span-app, woven ------------------===//
#include "tests/support/SpanApp.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace weft::test {

const char *const SpanAppOutput = "order 155\ncaught boom\nslow 180\ncaught late\ncaught canceled\n"
                                  "quick 7\nslow value 30\nnumbers 1,2\nhi ann\n"
                                  "ship ann \"the\" reader Express\n";

std::string spanAppDll() {
  SmallString<256> In(binaryDir());
  sys::path::append(In, "spanapp", "bin", "SpanApp");
  sys::path::append(In, "release", "SpanApp.dll");
  return std::string(In);
}

WovenSpanApp weaveSpanApp(StringRef Name, StringRef Pass) {
  std::string In = spanAppDll();
  WovenSpanApp W;
  W.Dir = scratchDir(Name);
  W.Dll = W.Dir + "/SpanApp.dll";
  EXPECT_TRUE(sys::fs::exists(In)) << "the spanapp.build test builds " << In;
  std::string Spec = W.Dir + "/weft.json";
  EXPECT_TRUE(writeFile(Spec, R"({"version": 1, "rules": [
    {"match": {"type": "Shop"}, "passes": [)" +
                                  Pass.str() +
                                  R"(]},
    {"match": {"type": "Clerk"}, "passes": [)" +
                                  Pass.str() + R"(]}]})"));
  W.Weave = run(weftTool(), {"weave", In, "-o", W.Dll, "--spec", Spec, "--verify-each"});
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "SpanApp.runtimeconfig.json");
  EXPECT_FALSE(sys::fs::copy_file(Config, W.Dir + "/SpanApp.runtimeconfig.json"));
  return W;
}

} // namespace weft::test
