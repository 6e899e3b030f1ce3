//===- coverage/Lcov.cpp - LCOV tracefile ---------------------------------===//
//
// An LCOV tracefile for genhtml, Codecov and Coveralls, made from coverlet's result and written
// as coverlet's LcovReporter writes it: a record per document of each module (SF), in it for each
// method with lines, in the result's order, FN (its first line less one, and its name), FNDA (the
// hits of its first line), DA per line, BRDA per outcome it holds (line, the branch
// instruction's offset, the path, the hits: 0 rather than '-' when the line did not run); then
// the document's figures as coverlet's CoverageSummary counts them: LF/LH, BRF/BRH (every outcome,
// those of methods without lines too, which no BRDA shows) and FNF/FNH (methods with lines, and
// those with a line run). A method is named as coverlet names it (Method::reportName).
//
//===----------------------------------------------------------------------===//
#include "coverage/CoverletFormats.h"

#include <algorithm>

using namespace llvm;

namespace weft::coverage {

namespace {

/// LCOV fields are separated by commas and lines; a name must hold no line break.
std::string clean(std::string S) {
  std::replace(S.begin(), S.end(), '\n', ' ');
  std::replace(S.begin(), S.end(), '\r', ' ');
  return S;
}

void writeMethod(raw_ostream &OS, const std::string &Name, const MethodResult &R) {
  auto [First, Hits] = *R.Lines.begin();
  OS << "FN:" << int64_t(First) - 1 << ',' << clean(Name) << '\n'
     << "FNDA:" << Hits << ',' << clean(Name) << '\n';
  for (const auto &[N, H] : R.Lines)
    OS << "DA:" << N << ',' << H << '\n';
  for (const BranchPoint &B : R.Branches)
    OS << "BRDA:" << B.Line << ',' << B.Offset << ',' << B.Path << ',' << B.Hits << '\n';
}

void writeDocument(raw_ostream &OS, StringRef Path, const DocumentResult &Doc) {
  OS << "SF:" << clean(Path.str()) << '\n';
  for (const auto &[Type, Methods] : Doc)
    for (const auto &[Name, R] : Methods)
      if (!R.Lines.empty())
        writeMethod(OS, Name, R);
  Figures F = figuresOf(Doc);
  OS << "LF:" << F.Lines << "\nLH:" << F.LinesCovered << "\nBRF:" << F.Branches
     << "\nBRH:" << F.BranchesCovered << "\nFNF:" << F.Methods << "\nFNH:" << F.MethodsCovered
     << "\nend_of_record\n";
}

} // namespace

void writeLcov(ArrayRef<ModuleResult> Modules, raw_ostream &OS) {
  for (const ModuleResult &M : Modules)
    for (const auto &[Path, Doc] : M.Documents)
      writeDocument(OS, Path, Doc);
}

} // namespace weft::coverage
