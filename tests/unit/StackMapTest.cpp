// The stack map's shape is written twice: in weaving/StackMap.h, for the code the passes emit, and
// in the trace runtime (C#), which makes the map that code reads. They must agree.
#include "tests/support/Env.h"
#include "weaving/StackMap.h"

#include <regex>
#include <string>

#include "gtest/gtest.h"

using namespace weft;

namespace {

TEST(StackMap, TheTraceRuntimeHasTheSameShape) {
  std::string Runtime =
      test::readFile(test::sourceDir() + "/passes/trace/runtime/TraceRuntime.cs");
  ASSERT_FALSE(Runtime.empty());
  std::smatch M;
  ASSERT_TRUE(std::regex_search(
      Runtime, M, std::regex("const int MapShift = ([0-9]+), MapEntries = ([0-9]+)")))
      << "TraceRuntime.cs no longer declares MapShift and MapEntries as this test reads them";
  EXPECT_EQ(std::stoi(M[1]), passes::stackmap::Shift);
  EXPECT_EQ(std::stoi(M[2]), passes::stackmap::Entries);
  // The emitted code masks with Entries - 1: a power of two.
  EXPECT_EQ(passes::stackmap::Entries & (passes::stackmap::Entries - 1), 0);
}

} // namespace
