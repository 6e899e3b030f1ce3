//===- coverage/Cobertura.cpp - Cobertura XML report ----------------------===//
//
// coverage > sources, packages > package (an assembly) > classes > class (a type in a document)
// > methods > method > lines > line, and the class's lines: ReportGenerator, GitLab, Azure
// DevOps and Jenkins read it. Made from coverlet's result and shaped as coverlet's
// CoberturaReporter writes it: classes and methods in the result's order, a method without lines
// left out (its outcomes still count in the rates and totals), a class's lines those of its
// methods in their order, and a line showing the outcomes on it of the method that holds it
// (condition-coverage, and a condition per branch instruction). Rates and totals are coverlet's
// CoverageSummary's: every line and outcome of the result, rounded down.
//
//===----------------------------------------------------------------------===//
#include "coverage/CoverletFormats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace llvm;

namespace weft::coverage {

namespace {

/// The directory every document is in (empty if none is common), with '/' or '\\' as the paths
/// use them.
std::string commonDirectory(const std::vector<std::string> &Paths) {
  if (Paths.empty())
    return "";
  auto IsSep = [](char C) { return C == '/' || C == '\\'; };
  size_t Len = Paths[0].size();
  for (const std::string &P : Paths) {
    size_t I = 0;
    while (I < Len && I < P.size() && P[I] == Paths[0][I])
      ++I;
    Len = I;
  }
  // Back to the last separator that every path has there.
  while (Len > 0 && !IsSep(Paths[0][Len - 1]))
    --Len;
  if (Len == 0)
    return "";
  // Keep a lone root ("/") but drop the separator after a directory name.
  return Len == 1 ? Paths[0].substr(0, 1) : Paths[0].substr(0, Len - 1);
}

/// The source documents of the maps with lines, once each.
std::vector<std::string> documents(ArrayRef<Map> Maps) {
  std::vector<std::string> Out;
  for (const Map &M : Maps)
    if (M.hasLines())
      Out.insert(Out.end(), M.Documents.begin(), M.Documents.end());
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

/// The `rate` attributes of \p F: line-rate="..." branch-rate="...".
std::string rates(const Figures &F) {
  return "line-rate=\"" + coverletRate(F.LinesCovered, F.Lines) + "\" branch-rate=\"" +
         coverletRate(F.BranchesCovered, F.Branches) + "\"";
}

/// A line of \p R: its hits and, when \p R has outcomes on it, their coverage and a condition
/// per branch instruction (in the order of the outcomes).
void writeLine(raw_ostream &OS, const MethodResult &R, uint32_t N, uint64_t Hits, StringRef Pad) {
  SmallVector<const BranchPoint *, 8> On;
  for (const BranchPoint &B : R.Branches)
    if (B.Line == N)
      On.push_back(&B);
  OS << Pad << "<line number=\"" << N << "\" hits=\"" << Hits << "\" branch=\""
     << (On.empty() ? "False\"/>\n" : "True\"");
  if (On.empty())
    return;
  auto Covered = [](ArrayRef<const BranchPoint *> Bs) {
    return uint64_t(llvm::count_if(Bs, [](const BranchPoint *B) { return B->Hits != 0; }));
  };
  uint64_t C = Covered(On);
  OS << " condition-coverage=\"" << coverletPercent(C, On.size()) << "% (" << C << '/' << On.size()
     << ")\">\n"
     << Pad << "  <conditions>\n";
  SmallVector<uint32_t, 4> Offsets;
  for (const BranchPoint *B : On)
    if (!llvm::is_contained(Offsets, B->Offset))
      Offsets.push_back(B->Offset);
  for (uint32_t Offset : Offsets) {
    SmallVector<const BranchPoint *, 8> Of;
    llvm::copy_if(On, std::back_inserter(Of),
                  [&](const BranchPoint *B) { return B->Offset == Offset; });
    OS << Pad << "    <condition number=\"" << Offset << "\" type=\""
       << (Of.size() > 2 ? "switch" : "jump") << "\" coverage=\""
       << coverletPercent(Covered(Of), Of.size()) << "%\"/>\n";
  }
  OS << Pad << "  </conditions>\n" << Pad << "</line>\n";
}

void writeMethod(raw_ostream &OS, const MethodResult &R) {
  Figures F;
  F.add(R);
  OS << "            <method name=\"" << xmlText(R.CoberturaName) << "\" signature=\""
     << xmlText(R.CoberturaSignature) << "\" " << rates(F) << " complexity=\"" << R.complexity()
     << "\">\n              <lines>\n";
  for (const auto &[N, Hits] : R.Lines)
    writeLine(OS, R, N, Hits, "                ");
  OS << "              </lines>\n            </method>\n";
}

/// A class of a document: its methods with lines, then all their lines.
void writeClass(raw_ostream &OS, StringRef File, StringRef Type, const ClassResult &Methods) {
  Figures F = figuresOf(Methods);
  OS << "        <class name=\"" << xmlText(Type) << "\" filename=\"" << xmlText(File) << "\" "
     << rates(F) << " complexity=\"" << F.Complexity << "\">\n"
     << "          <methods>\n";
  for (const auto &[Name, R] : Methods)
    if (!R.Lines.empty())
      writeMethod(OS, R);
  OS << "          </methods>\n          <lines>\n";
  for (const auto &[Name, R] : Methods)
    for (const auto &[N, Hits] : R.Lines)
      writeLine(OS, R, N, Hits, "            ");
  OS << "          </lines>\n        </class>\n";
}

} // namespace

void writeCobertura(ArrayRef<Map> Maps, ArrayRef<ModuleResult> Modules, const ReportOptions &O,
                    raw_ostream &OS) {
  std::string Source = commonDirectory(documents(Maps));
  auto FileName = [&](StringRef N) {
    if (!Source.empty() && N.startswith(Source)) {
      N = N.drop_front(Source.size());
      if (!N.empty() && (N[0] == '/' || N[0] == '\\'))
        N = N.drop_front();
    }
    return N;
  };
  Figures All;
  for (const ModuleResult &M : Modules)
    All.add(figuresOf(M));
  OS << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n"
     << "<coverage " << rates(All) << " lines-covered=\"" << All.LinesCovered << "\" lines-valid=\""
     << All.Lines << "\" branches-covered=\"" << All.BranchesCovered << "\" branches-valid=\""
     << All.Branches << "\" complexity=\"" << All.Complexity << "\" version=\""
     << xmlText(O.Version) << "\" timestamp=\"" << O.Timestamp << "\">\n"
     << "  <sources>\n";
  if (!Source.empty())
    OS << "    <source>" << xmlText(Source) << "</source>\n";
  OS << "  </sources>\n  <packages>\n";
  for (const ModuleResult &M : Modules) {
    Figures P = figuresOf(M);
    OS << "    <package name=\"" << xmlText(M.Assembly) << "\" " << rates(P) << " complexity=\""
       << P.Complexity << "\">\n      <classes>\n";
    for (const auto &[Path, Doc] : M.Documents)
      for (const auto &[Type, Methods] : Doc)
        writeClass(OS, FileName(Path), Type, Methods);
    OS << "      </classes>\n    </package>\n";
  }
  OS << "  </packages>\n</coverage>\n";
}

} // namespace weft::coverage
