//===- tests/support/Golden.cpp - Checked-in expected text ----------------===//
#include "tests/support/Golden.h"

#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace weft::test {

std::string firstDifference(StringRef Expected, StringRef Actual) {
  SmallVector<StringRef, 0> E, A;
  Expected.split(E, '\n');
  Actual.split(A, '\n');
  for (size_t I = 0; I < std::max(E.size(), A.size()); ++I) {
    StringRef L = I < E.size() ? E[I] : "<end>", R = I < A.size() ? A[I] : "<end>";
    if (L != R)
      return "line " + std::to_string(I + 1) + ":\n  expected: " + L.str() +
             "\n  actual:   " + R.str();
  }
  return "";
}

void expectGolden(StringRef Got, StringRef RelativePath, StringRef What) {
  SmallString<256> Golden(sourceDir());
  sys::path::append(Golden, "tests", "golden", RelativePath);
  if (sys::Process::GetEnv("WEFT_UPDATE_GOLDEN")) {
    sys::fs::create_directories(sys::path::parent_path(Golden));
    ASSERT_TRUE(writeFile(Golden, Got)) << "cannot write " << Golden.str();
    outs() << "updated " << Golden << '\n';
    return;
  }
  std::string Want = readFile(Golden);
  ASSERT_FALSE(Want.empty()) << "missing " << Golden.str() << " (run with WEFT_UPDATE_GOLDEN=1)";
  EXPECT_TRUE(Got == Want) << What.str() << " differs from " << Golden.str() << " at "
                           << firstDifference(Want, Got) << "\n(WEFT_UPDATE_GOLDEN=1 rewrites it)";
}

} // namespace weft::test
