//===- tests/cli/WeaveManyTest.cpp - weft weave with many inputs ----------===//
//
// Weaving many modules in one run:
//  - a probe assembly is opened once for all the modules of a run.
//
//===----------------------------------------------------------------------===//
#include "metadata/AssemblyCache.h"
#include "metadata/Editor.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"
#include "weaver/passes/Weaver.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

/// Weaves corpus program \p Name in process with entry-exit, its probe assembly served by \p Cache.
void weaveWithCache(StringRef Name, metadata::AssemblyCache &Cache) {
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(test::corpusDll(Name));
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  spec::PassUse Use;
  Use.Pass = "entry-exit";
  Use.Rule = "--pass entry-exit";
  Use.Options = {{"probe-assembly", test::probesDll()}, {"probe-type", "Weft.Probes.Empty"}};
  spec::Spec S = spec::Spec::forPasses({Use});
  Expected<spec::Selection> Sel = spec::select(S, **M);
  ASSERT_TRUE(bool(Sel)) << toString(Sel.takeError());
  metadata::Editor E(**M);
  passes::WeaveOptions WO;
  WO.Assemblies = &Cache;
  Expected<passes::WeaveOutcome> Out = passes::weave(**Img, E, *Sel, WO);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_GT(Out->MethodsChanged, 0u);
}

TEST(WeaveMany, AProbeAssemblyIsOpenedOncePerRun) {
  metadata::AssemblyCache Cache;
  weaveWithCache("Closures", Cache);
  ASSERT_EQ(Cache.size(), 1u);
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> First = Cache.open(test::probesDll());
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  weaveWithCache("Generics", Cache);
  EXPECT_EQ(Cache.size(), 1u);
  // Another spelling of the same file is the same entry.
  SmallString<256> Other(sys::path::parent_path(test::probesDll()));
  sys::path::append(Other, ".", sys::path::filename(test::probesDll()));
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> Again = Cache.open(Other);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(First->get(), Again->get());
  // What is no assembly is refused, naming the file, and not remembered.
  std::string Text = test::scratchDir("weave-many-cache") + "/text.dll";
  ASSERT_TRUE(test::writeFile(Text, "text"));
  Expected<std::shared_ptr<const metadata::OpenedAssembly>> Bad = Cache.open(Text);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("'" + Text + "': "), std::string::npos);
  EXPECT_EQ(Cache.size(), 1u);
}

} // namespace
