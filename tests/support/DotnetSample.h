//===- tests/support/DotnetSample.h - A sample run with dotnet and the package -*- C++ -*-===//
//
// A folder of samples in the repository, copied to a scratch folder and run with `dotnet` the
// way users run it: the Weft package that package/pack.sh made (the package.pack step) restored
// from the build tree, with coverlet's packages from NuGet, into the packages folder the suite's
// samples share (test::packageRestoreArgs). Reports are read with tests/support/CoverageFigures.h.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_DOTNETSAMPLE_H
#define WEFT_TESTS_SUPPORT_DOTNETSAMPLE_H

#include "tests/support/CoverageFigures.h"
#include "tests/support/Env.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace weft::test {

class DotnetSample {
public:
  /// The repository's folder \p From (relative to its root) copied to the scratch folder
  /// \p Name/sample; \p Version is the Weft package's.
  DotnetSample(llvm::StringRef From, llvm::StringRef Name, llvm::StringRef Version);

  /// The sample's copy, and a path in it.
  const std::string &dir() const { return Dir; }
  std::string path(llvm::StringRef Relative) const;
  /// The scratch folder the copy is in, for what the tests write beside it.
  const std::string &root() const { return Root; }

  /// `dotnet VERB ARGS...` run in the sample's folder \p In (relative; "" for its root), with
  /// the package's restore properties; standard output and error together in Out.
  CommandResult dotnet(std::vector<std::string> Args, llvm::StringRef In = "") const;

private:
  std::string Root, Dir, Version;
};

/// The figures of weft's LCOV report at \p Path (empty, with Error set, when it is not there).
CoverageFigures weftLcovFile(const std::string &Path);
/// The figures of every coverlet JSON report in the folder \p Dir and the folders under it
/// (coverage*.json), added up: the target frameworks of one run, or the test projects of a
/// solution.
CoverageFigures coverletJsonFiles(const std::string &Dir);

/// weft's report and coverlet's agree (a gtest failure saying where not): the same lines and
/// branch outcomes, each hit as often; \p What names the run. Reports of fewer than 20 lines or
/// 10 outcomes are no comparison.
void expectSameAsCoverlet(const CoverageFigures &Weft, const CoverageFigures &Coverlet,
                          llvm::StringRef What);

} // namespace weft::test

#endif
