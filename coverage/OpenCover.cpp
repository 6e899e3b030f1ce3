//===- coverage/OpenCover.cpp - OpenCover XML report ----------------------===//
//
// CoverageSession > Summary, Modules > Module > (ModulePath, ModuleTime, ModuleName, Files >
// File, Classes > Class > (Summary, FullName, Methods > Method > (Summary, MetadataToken, Name,
// FileRef, SequencePoints, BranchPoints, MethodPoint))), made from coverlet's result and shaped
// as coverlet's OpenCoverReporter writes it: a File per source document (uid numbered across the
// session), a Class per class of a document, a Method per method with lines (a method without
// lines still counts in its class's summary), one SequencePoint per line (its hits in `vc`, the
// method's outcomes on it in `bec`/`bev`), a BranchPoint per outcome the method holds (`offset`
// the branch instruction, `offsetend` where the outcome leads), and summaries as coverlet's:
// a method's complexity its outcomes (at least 1), a class's the range of its methods', the
// session's the range of the modules' sums. Unlike coverlet, `uspid` numbers the points of a
// module one by one (OpenCover's meaning: coverlet writes the line), `nPathComplexity` is
// OpenCover's (coverlet repeats the cyclomatic complexity), the MethodPoint's `vc` is the
// method's entries, and the module's `hash` is its MVID.
//
//===----------------------------------------------------------------------===//
#include "coverage/CoverletFormats.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

using namespace llvm;

namespace weft::coverage {

namespace {

/// What a Summary element states.
struct Summary {
  uint64_t Points = 0, VisitedPoints = 0, Branches = 0, VisitedBranches = 0;
  uint64_t MaxComplexity = 1, MinComplexity = 1;
  uint64_t Classes = 0, VisitedClasses = 0, Methods = 0, VisitedMethods = 0;
  void setLinesAndBranches(const Figures &F) {
    Points = F.Lines;
    VisitedPoints = F.LinesCovered;
    Branches = F.Branches;
    VisitedBranches = F.BranchesCovered;
  }
};

void writeSummary(raw_ostream &OS, const Summary &C, StringRef Pad) {
  OS << Pad << "<Summary numSequencePoints=\"" << C.Points << "\" visitedSequencePoints=\""
     << C.VisitedPoints << "\" numBranchPoints=\"" << C.Branches << "\" visitedBranchPoints=\""
     << C.VisitedBranches << "\" sequenceCoverage=\"" << coverletPercent(C.VisitedPoints, C.Points)
     << "\" branchCoverage=\"" << coverletPercent(C.VisitedBranches, C.Branches)
     << "\" maxCyclomaticComplexity=\"" << C.MaxComplexity << "\" minCyclomaticComplexity=\""
     << C.MinComplexity << "\" visitedClasses=\"" << C.VisitedClasses << "\" numClasses=\""
     << C.Classes << "\" visitedMethods=\"" << C.VisitedMethods << "\" numMethods=\"" << C.Methods
     << "\" />\n";
}

/// OpenCover's n-path complexity: the product of the outcome counts of the method's branch
/// instructions (0 without branches).
uint32_t npath(const std::vector<BranchPoint> &Branches) {
  if (Branches.empty())
    return 0;
  std::map<uint32_t, uint64_t> PerInstruction;
  for (const BranchPoint &B : Branches)
    ++PerInstruction[B.Offset];
  uint64_t N = 1;
  for (const auto &[Offset, Outcomes] : PerInstruction) {
    N *= Outcomes;
    if (N > INT32_MAX)
      return INT32_MAX;
  }
  return uint32_t(N);
}

/// The largest and smallest of the complexities of \p Methods (1 for none), as coverlet's class
/// summary states them.
std::pair<uint64_t, uint64_t> complexityRange(const ClassResult &Methods) {
  uint64_t Max = 0, Min = UINT64_MAX;
  for (const auto &[Name, R] : Methods) {
    Max = std::max(Max, R.complexity());
    Min = std::min(Min, R.complexity());
  }
  return Methods.empty() ? std::make_pair<uint64_t, uint64_t>(1, 1) : std::make_pair(Max, Min);
}

struct Writer {
  raw_ostream &OS;
  uint32_t Uspid = 0; // the last point's number in the module

  /// A method with lines of document \p FileId.
  void method(StringRef Full, const MethodResult &R, unsigned FileId) {
    Figures F;
    F.add(R);
    Summary S;
    S.setLinesAndBranches(F);
    S.MaxComplexity = S.MinComplexity = R.complexity();
    S.Methods = 1;
    S.VisitedMethods = F.MethodsCovered;
    StringRef Name = R.Name;
    auto Bool = [](bool B) { return B ? "true" : "false"; };
    OS << "            <Method cyclomaticComplexity=\"" << R.complexity() << "\" nPathComplexity=\""
       << npath(R.Branches) << "\" sequenceCoverage=\"" << coverletPercent(F.LinesCovered, F.Lines)
       << "\" branchCoverage=\"" << coverletPercent(F.BranchesCovered, F.Branches)
       << "\" isConstructor=\"" << Bool(Name == ".ctor" || Name == ".cctor") << "\" isGetter=\""
       << Bool(Name.startswith("get_")) << "\" isSetter=\"" << Bool(Name.startswith("set_"))
       << "\" isStatic=\"" << Bool(Name == ".cctor") << "\">\n";
    writeSummary(OS, S, "              ");
    OS << "              <MetadataToken />\n"
       << "              <Name>" << xmlText(Full) << "</Name>\n"
       << "              <FileRef uid=\"" << FileId << "\" />\n";
    std::string MethodPoint = sequencePoints(R, FileId);
    branchPoints(R, FileId);
    OS << "              " << MethodPoint << "\n            </Method>\n";
  }

  /// One point per line; returns the method point, which repeats the first.
  std::string sequencePoints(const MethodResult &R, unsigned FileId) {
    std::string MethodPoint;
    OS << "              <SequencePoints>\n";
    unsigned Ordinal = 0;
    for (const auto &[Line, Hits] : R.Lines) {
      unsigned Bec = 0, Bev = 0;
      for (const BranchPoint &B : R.Branches)
        if (B.Line == Line) {
          ++Bec;
          Bev += B.Hits != 0;
        }
      auto Offset = R.Offsets.find(Line);
      std::string Where;
      raw_string_ostream W(Where);
      W << "ordinal=\"" << Ordinal << "\" offset=\""
        << (Offset == R.Offsets.end() ? 0 : Offset->second) << "\" sl=\"" << Line
        << "\" sc=\"1\" el=\"" << Line << "\" ec=\"2\" bec=\"" << Bec << "\" bev=\"" << Bev
        << "\" fileid=\"" << FileId << '"';
      ++Uspid;
      OS << "                <SequencePoint vc=\"" << Hits << "\" uspid=\"" << Uspid << "\" "
         << Where << " />\n";
      if (Ordinal++ == 0)
        MethodPoint = ("<MethodPoint xsi:type=\"SequencePoint\" vc=\"" + Twine(R.Entered) +
                       "\" uspid=\"" + Twine(Uspid) + "\" " + Where + " />")
                          .str();
    }
    OS << "              </SequencePoints>\n";
    return MethodPoint;
  }

  void branchPoints(const MethodResult &R, unsigned FileId) {
    if (R.Branches.empty()) {
      OS << "              <BranchPoints />\n";
      return;
    }
    OS << "              <BranchPoints>\n";
    for (const BranchPoint &B : R.Branches)
      OS << "                <BranchPoint vc=\"" << B.Hits << "\" uspid=\"" << ++Uspid
         << "\" ordinal=\"" << B.Ordinal << "\" path=\"" << B.Path << "\" offset=\"" << B.Offset
         << "\" offsetend=\"" << B.EndOffset << "\" sl=\"" << B.Line << "\" fileid=\"" << FileId
         << "\" />\n";
    OS << "              </BranchPoints>\n";
  }

  /// A class in one document, with the figures of all its methods (those without lines, which
  /// have no element, too).
  void cls(StringRef Type, const ClassResult &Methods, unsigned FileId) {
    Figures F = figuresOf(Methods);
    Summary S;
    S.setLinesAndBranches(F);
    std::tie(S.MaxComplexity, S.MinComplexity) = complexityRange(Methods);
    S.Classes = 1;
    S.VisitedClasses = F.MethodsCovered != 0;
    S.Methods = F.Methods;
    S.VisitedMethods = F.MethodsCovered;
    OS << "        <Class>\n";
    writeSummary(OS, S, "          ");
    OS << "          <FullName>" << xmlText(Type) << "</FullName>\n";
    if (F.Methods == 0) {
      OS << "          <Methods />\n        </Class>\n";
      return;
    }
    OS << "          <Methods>\n";
    for (const auto &[Full, R] : Methods)
      if (!R.Lines.empty())
        method(Full, R, FileId);
    OS << "          </Methods>\n        </Class>\n";
  }
};

// The UTC date and time of \p Timestamp (seconds since 1970) by the Gregorian calendar, worked
// out here so that every system writes the same (gmtime_r is POSIX's; <chrono>'s calendar is
// missing from the library clang 14 builds the fuzz targets with). Days are counted in 400-year
// eras that begin on the 1st of March, so that a leap day ends its year.
std::string moduleTime(int64_t Timestamp) {
  int64_t Days = Timestamp / 86400, Seconds = Timestamp % 86400;
  if (Seconds < 0) {
    Seconds += 86400;
    --Days;
  }
  int64_t Shifted = Days + 719468; // days since 0000-03-01
  int64_t Era = (Shifted >= 0 ? Shifted : Shifted - 146096) / 146097;
  int64_t DayOfEra = Shifted - Era * 146097;
  int64_t YearOfEra = (DayOfEra - DayOfEra / 1460 + DayOfEra / 36524 - DayOfEra / 146096) / 365;
  int64_t DayOfYear = DayOfEra - (365 * YearOfEra + YearOfEra / 4 - YearOfEra / 100);
  int64_t MonthFromMarch = (5 * DayOfYear + 2) / 153;
  unsigned Day = unsigned(DayOfYear - (153 * MonthFromMarch + 2) / 5 + 1);
  unsigned Month = unsigned(MonthFromMarch < 10 ? MonthFromMarch + 3 : MonthFromMarch - 9);
  long long Year = YearOfEra + Era * 400 + (Month <= 2 ? 1 : 0);
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%04lld-%02u-%02uT%02d:%02d:%02d", Year, Month, Day,
                int(Seconds / 3600), int(Seconds / 60 % 60), int(Seconds % 60));
  return Buf;
}

/// The session's summary: every line and outcome, the classes and the methods with lines, and
/// the largest and smallest of the modules' complexities (each the sum of its methods').
Summary sessionSummary(ArrayRef<ModuleResult> Modules) {
  Summary S;
  Figures All;
  uint64_t Max = 0, Min = UINT64_MAX;
  for (const ModuleResult &M : Modules) {
    Figures F = figuresOf(M);
    All.add(F);
    Max = std::max(Max, F.Complexity);
    Min = std::min(Min, F.Complexity);
    for (const auto &[Path, Doc] : M.Documents)
      for (const auto &[Type, Methods] : Doc) {
        ++S.Classes;
        S.VisitedClasses += figuresOf(Methods).MethodsCovered != 0;
      }
  }
  S.setLinesAndBranches(All);
  S.Methods = All.Methods;
  S.VisitedMethods = All.MethodsCovered;
  if (!Modules.empty())
    S.MaxComplexity = Max, S.MinComplexity = Min;
  return S;
}

void writeModule(raw_ostream &OS, const ModuleResult &M, const ReportOptions &O, unsigned &FileId) {
  OS << "    <Module hash=\"" << xmlText(StringRef(M.Mvid).upper()) << "\">\n"
     << "      <ModulePath>" << xmlText(M.Assembly) << ".dll</ModulePath>\n"
     << "      <ModuleTime>" << moduleTime(O.Timestamp) << "</ModuleTime>\n"
     << "      <ModuleName>" << xmlText(M.Assembly) << "</ModuleName>\n"
     << "      <Files>\n";
  unsigned First = FileId + 1;
  for (const auto &[Doc, Classes] : M.Documents)
    OS << "        <File uid=\"" << ++FileId << "\" fullPath=\"" << xmlText(Doc) << "\" />\n";
  OS << "      </Files>\n      <Classes>\n";
  Writer W{OS};
  unsigned Id = First;
  for (const auto &[Doc, Classes] : M.Documents) {
    for (const auto &[Type, Methods] : Classes)
      W.cls(Type, Methods, Id);
    ++Id;
  }
  OS << "      </Classes>\n    </Module>\n";
}

} // namespace

void writeOpenCover(ArrayRef<ModuleResult> Modules, const ReportOptions &O, raw_ostream &OS) {
  OS << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<CoverageSession xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
        "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n";
  writeSummary(OS, sessionSummary(Modules), "  ");
  OS << "  <Modules>\n";
  unsigned FileId = 0;
  for (const ModuleResult &M : Modules)
    writeModule(OS, M, O, FileId);
  OS << "  </Modules>\n</CoverageSession>\n";
}

} // namespace weft::coverage
