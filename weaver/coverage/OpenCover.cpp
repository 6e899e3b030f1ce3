//===- weaver/coverage/OpenCover.cpp - OpenCover XML report ---------------===//
//
// CoverageSession > Summary, Modules > Module > (ModulePath, ModuleTime, ModuleName, Files >
// File, Classes > Class > (Summary, FullName, Methods > Method > (Summary, MetadataToken, Name,
// FileRef, SequencePoints, BranchPoints, MethodPoint))), as coverlet writes it: a File per source
// document (uid numbered across the session), a Class per type and document, one SequencePoint
// per line (its hits in `vc`, the branch outcomes on it in `bec`/`bev`), and a BranchPoint per
// branch outcome (`offset` the branch instruction, `offsetend` where the outcome leads). Unlike
// coverlet, `uspid` numbers the points of a module one by one (OpenCover's meaning: coverlet
// writes the line), the MethodPoint's `vc` is the method's entries, and the module's `hash` is
// its MVID.
//
//===----------------------------------------------------------------------===//
#include "weaver/coverage/CoverletFormats.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

using namespace llvm;

namespace weft::coverage {

namespace {

/// A percentage as coverlet gives it: rounded down to two decimals, 100 when there is nothing to
/// cover; written the shortest way (66.66, 50, 100).
std::string percent(uint64_t Covered, uint64_t Total) {
  if (Total == 0)
    return "100";
  // Integer arithmetic: the hundredths of a percent, rounded down.
  uint64_t Hundredths = Covered * 10000 / Total;
  std::string S = utostr(Hundredths / 100);
  if (uint64_t Frac = Hundredths % 100)
    S += Frac % 10 ? (Frac < 10 ? ".0" : ".") + utostr(Frac) : "." + utostr(Frac / 10);
  return S;
}

struct Counts {
  uint64_t Points = 0, VisitedPoints = 0, Branches = 0, VisitedBranches = 0;
  uint64_t Methods = 0, VisitedMethods = 0, Classes = 0, VisitedClasses = 0;
  uint32_t MaxComplexity = 0, MinComplexity = UINT32_MAX;
  void add(const Counts &O) {
    Points += O.Points;
    VisitedPoints += O.VisitedPoints;
    Branches += O.Branches;
    VisitedBranches += O.VisitedBranches;
    Methods += O.Methods;
    VisitedMethods += O.VisitedMethods;
    Classes += O.Classes;
    VisitedClasses += O.VisitedClasses;
    MaxComplexity = std::max(MaxComplexity, O.MaxComplexity);
    MinComplexity = std::min(MinComplexity, O.MinComplexity);
  }
};

void writeSummary(raw_ostream &OS, const Counts &C, StringRef Pad) {
  uint32_t Min = C.MinComplexity == UINT32_MAX ? 1 : C.MinComplexity;
  uint32_t Max = C.MinComplexity == UINT32_MAX ? 1 : C.MaxComplexity;
  OS << Pad << "<Summary numSequencePoints=\"" << C.Points << "\" visitedSequencePoints=\""
     << C.VisitedPoints << "\" numBranchPoints=\"" << C.Branches << "\" visitedBranchPoints=\""
     << C.VisitedBranches << "\" sequenceCoverage=\"" << percent(C.VisitedPoints, C.Points)
     << "\" branchCoverage=\"" << percent(C.VisitedBranches, C.Branches)
     << "\" maxCyclomaticComplexity=\"" << Max << "\" minCyclomaticComplexity=\"" << Min
     << "\" visitedClasses=\"" << C.VisitedClasses << "\" numClasses=\"" << C.Classes
     << "\" visitedMethods=\"" << C.VisitedMethods << "\" numMethods=\"" << C.Methods << "\" />\n";
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

struct Writer {
  raw_ostream &OS;
  uint32_t Uspid = 0; // the last point's number in the module

  /// A method of document \p FileId: its counts, or nothing when it has no lines.
  Counts method(StringRef Full, const MethodResult &R, unsigned FileId) {
    Counts C;
    if (R.Lines.empty())
      return C;
    C.Methods = 1;
    C.Points = R.Lines.size();
    C.VisitedPoints = uint64_t(count_if(R.Lines, [](auto &L) { return L.second != 0; }));
    C.VisitedMethods = C.VisitedPoints != 0;
    C.Branches = R.Branches.size();
    C.VisitedBranches =
        uint64_t(count_if(R.Branches, [](const BranchPoint &B) { return B.Hits != 0; }));
    uint32_t Complexity =
        R.Complexity ? R.Complexity : std::max<uint32_t>(1, uint32_t(R.Branches.size()));
    C.MaxComplexity = C.MinComplexity = Complexity;
    StringRef Name = R.Name;
    auto Bool = [](bool B) { return B ? "true" : "false"; };
    std::string Seq = percent(C.VisitedPoints, C.Points);
    std::string Br = percent(C.VisitedBranches, C.Branches);
    OS << "            <Method cyclomaticComplexity=\"" << Complexity << "\" nPathComplexity=\""
       << npath(R.Branches) << "\" sequenceCoverage=\"" << Seq << "\" branchCoverage=\"" << Br
       << "\" isConstructor=\"" << Bool(Name == ".ctor" || Name == ".cctor") << "\" isGetter=\""
       << Bool(Name.startswith("get_")) << "\" isSetter=\"" << Bool(Name.startswith("set_"))
       << "\" isStatic=\"" << Bool(Name == ".cctor") << "\">\n";
    writeSummary(OS, C, "              ");
    OS << "              <MetadataToken />\n"
       << "              <Name>" << xmlText(Full) << "</Name>\n"
       << "              <FileRef uid=\"" << FileId << "\" />\n";
    // One point per line; the method point repeats the first.
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
    if (R.Branches.empty()) {
      OS << "              <BranchPoints />\n";
    } else {
      OS << "              <BranchPoints>\n";
      for (const BranchPoint &B : R.Branches)
        OS << "                <BranchPoint vc=\"" << B.Hits << "\" uspid=\"" << ++Uspid
           << "\" ordinal=\"" << B.Ordinal << "\" path=\"" << B.Path << "\" offset=\"" << B.Offset
           << "\" offsetend=\"" << B.EndOffset << "\" sl=\"" << B.Line << "\" fileid=\"" << FileId
           << "\" />\n";
      OS << "              </BranchPoints>\n";
    }
    OS << "              " << MethodPoint << "\n            </Method>\n";
    return C;
  }

  /// A class in one document; counted once per (type, document), as coverlet counts it.
  Counts cls(StringRef Type, const ClassResult &Methods, unsigned FileId) {
    std::string Body;
    raw_string_ostream BodyOS(Body);
    Writer Inner{BodyOS, Uspid};
    Counts C;
    for (const auto &[Full, R] : Methods)
      C.add(Inner.method(Full, R, FileId));
    Uspid = Inner.Uspid;
    C.Classes = 1;
    C.VisitedClasses = C.VisitedMethods != 0;
    OS << "        <Class>\n";
    writeSummary(OS, C, "          ");
    OS << "          <FullName>" << xmlText(Type) << "</FullName>\n";
    if (Body.empty())
      OS << "          <Methods />\n";
    else
      OS << "          <Methods>\n" << BodyOS.str() << "          </Methods>\n";
    OS << "        </Class>\n";
    return C;
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

} // namespace

void writeOpenCover(ArrayRef<Map> Maps, const ReportOptions &O, raw_ostream &OS) {
  std::string Body;
  raw_string_ostream BodyOS(Body);
  Counts All;
  unsigned FileId = 0;
  for (const ModuleResult &M : coverletResult(Maps)) {
    BodyOS << "    <Module hash=\"" << xmlText(StringRef(M.Mvid).upper()) << "\">\n"
           << "      <ModulePath>" << xmlText(M.Assembly) << ".dll</ModulePath>\n"
           << "      <ModuleTime>" << moduleTime(O.Timestamp) << "</ModuleTime>\n"
           << "      <ModuleName>" << xmlText(M.Assembly) << "</ModuleName>\n"
           << "      <Files>\n";
    unsigned First = FileId + 1;
    for (const auto &[Doc, Classes] : M.Documents)
      BodyOS << "        <File uid=\"" << ++FileId << "\" fullPath=\"" << xmlText(Doc) << "\" />\n";
    BodyOS << "      </Files>\n      <Classes>\n";
    Writer W{BodyOS};
    unsigned Id = First;
    for (const auto &[Doc, Classes] : M.Documents) {
      for (const auto &[Type, Methods] : Classes)
        All.add(W.cls(Type, Methods, Id));
      ++Id;
    }
    BodyOS << "      </Classes>\n    </Module>\n";
  }
  OS << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<CoverageSession xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
        "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n";
  writeSummary(OS, All, "  ");
  OS << "  <Modules>\n" << BodyOS.str() << "  </Modules>\n</CoverageSession>\n";
}

} // namespace weft::coverage
