//===- tests/support/Weave.cpp - Weaving corpus programs in tests ---------===//
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace weft::test {

std::string helperDll(StringRef Project) {
  SmallString<256> P(binaryDir());
  sys::path::append(P, Project.lower(), "bin", Project);
  sys::path::append(P, "debug", Project + ".dll");
  return std::string(P);
}

std::vector<std::string> traceTableCalls(StringRef Table) {
  SmallVector<StringRef, 0> Lines;
  Table.split(Lines, '\n', -1, false);
  std::vector<std::string> Out;
  EXPECT_FALSE(Lines.empty()) << "the trace's table is empty";
  if (Lines.empty())
    return Out;
  EXPECT_EQ(Lines[0], "calls\tinclusive_us\texclusive_us\tmethod");
  for (StringRef L : ArrayRef<StringRef>(Lines).drop_front()) {
    SmallVector<StringRef, 4> Cells;
    L.split(Cells, '\t');
    EXPECT_EQ(Cells.size(), 4u) << L.str();
    if (Cells.size() == 4)
      Out.push_back((Cells[0] + "\t" + Cells[3]).str());
  }
  return Out;
}

std::string probesDll() { return helperDll("Probes"); }
std::string replacementsDll() { return helperDll("Replacements"); }

WovenProgram weaveCorpusProgram(StringRef Folder, StringRef Name, ArrayRef<std::string> Args) {
  WovenProgram W;
  W.Dir = scratchDir(Folder);
  W.Dll = W.Dir + "/" + Name.str() + ".dll";
  std::string In = corpusDll(Name);
  std::vector<std::string> All{"weave", In, "-o", W.Dll};
  All.insert(All.end(), Args.begin(), Args.end());
  W.Weave = run(weftTool(), All);
  copyCorpusCompanions(Name, W.Dir);
  sys::fs::copy_file(probesDll(), W.Dir + "/Probes.dll");
  sys::fs::copy_file(replacementsDll(), W.Dir + "/Replacements.dll");
  return W;
}

std::string probeOption(StringRef Type) {
  return "entry-exit:probe-assembly=" + probesDll() + ",probe-type=Weft.Probes." + Type.str();
}

bool makesManyCalls(StringRef Program) {
  return Program == "CallHeavy" || Program == "FSharpTailCalls" || Program == "compiler";
}

static std::string recorderFor(StringRef Program) {
  return probeOption(makesManyCalls(Program) ? "Empty" : "Recorder");
}

std::vector<PassCase> passCases() {
  using Args = std::vector<std::string>;
  return {
      {"single_ret",
       [](StringRef) {
         return Args{"--pass", "single-ret"};
       }},
      {"entry_exit",
       [](StringRef P) {
         return Args{"--pass", recorderFor(P)};
       }},
      {"trace",
       [](StringRef) {
         return Args{"--pass", "trace"};
       }},
      {"coverage",
       [](StringRef) {
         return Args{"--pass", "coverage"};
       }},
      {"all",
       [](StringRef P) {
         return Args{"--pass",
                     "single-ret",
                     "--pass",
                     recorderFor(P),
                     "--pass",
                     "trace",
                     "--pass",
                     "coverage",
                     "--pass",
                     "intercept-call:target=System.IO.File::ReadAllText,replacement-assembly=" +
                         replacementsDll() + ",replacement-type=Weft.Replacements.Console",
                     "--pass",
                     "span"};
       }},
  };
}

} // namespace weft::test
