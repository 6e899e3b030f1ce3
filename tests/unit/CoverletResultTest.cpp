// The result every report is made from, as coverlet holds it (coverage/CoverletResult.cpp):
// each document's line once, the first instrumented method's with a statement on it, with the
// hits of every statement on it; outcomes held by their method even on another's line (shown on
// no line, counted); a lambda class's outcomes given to the method holding their line and the
// class removed; classes and methods in the order coverlet instruments them; and the reports
// and figures made of it.
#include "coverage/CoverletFormats.h"
#include "coverage/Threshold.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft::coverage;

namespace {

/// A method with one block per statement: (line, hits) each, and its place in coverlet's order.
Method method(std::string Type, std::string Name, uint32_t Order, uint32_t Row,
              std::vector<std::pair<uint32_t, uint64_t>> Statements) {
  Method M;
  M.Type = std::move(Type);
  M.Name = std::move(Name);
  M.Signature = "()";
  M.Order = Order;
  M.Token = "0x060000" + std::string(Row < 16 ? "0" : "") + utohexstr(Row);
  uint32_t Offset = 0;
  for (auto [Line, Hits] : Statements) {
    Block B;
    B.IL = {Offset, Offset + 4};
    B.Lines.push_back({0, Line, 5, Line, 30});
    B.Hits = Hits;
    M.Blocks.push_back(B);
    Offset += 4;
  }
  return M;
}

/// Two outcomes of a branch at \p Offset on \p Line, ordinals \p Ordinal and the next.
void branch(Method &M, uint32_t Line, uint32_t Offset, uint32_t Ordinal, uint64_t Falls,
            uint64_t Jumps) {
  for (uint32_t Path : {0u, 1u}) {
    BranchPoint P;
    P.Line = Line;
    P.Offset = Offset;
    P.EndOffset = Offset + 2 + Path * 8;
    P.Path = Path;
    P.Ordinal = Ordinal + Path;
    P.Hits = Path ? Jumps : Falls;
    M.Branches.push_back(P);
  }
}

/// class Opts { Func<K, string> Formatter { get; set; } = k => k?.ToString() ?? ""; (line 63)
/// Opts() {...} (line 10); a lambda with lines of its own (20, 21) in a display class }.
Map opts() {
  Map M;
  M.Assembly = "Opts";
  M.Mvid = "m";
  M.Documents = {"/src/Opts.cs"};
  Method Get = method("N.Opts", "get_Formatter", 0, 1, {{63, 53}});
  Method Set = method("N.Opts", "set_Formatter", 0, 2, {{63, 2}});
  Method Ctor = method("N.Opts", ".ctor", 1, 3, {{10, 37}, {63, 37}});
  branch(Ctor, 63, 20, 2, 4, 33); // the lambda's delegate-cache check
  Method Lambda = method("N.Opts/<>c", "<.ctor>b__0_0", 4, 4, {{63, 232}});
  branch(Lambda, 63, 1, 0, 1, 231); // k?.
  Method Display = method("N.Opts/<>c__DisplayClass1_0", "<Run>b__0", 2, 5, {{20, 3}, {21, 0}});
  M.Methods = {Get, Set, Ctor, Lambda, Display};
  return M;
}

std::string write(const Map &M, Format Kind) {
  std::string Out;
  raw_string_ostream OS(Out);
  ReportOptions O;
  O.Kind = Kind;
  writeReport({M}, O, OS);
  return Out;
}

TEST(CoverletResult, EachLineOnceWithItsFirstMethod) {
  std::vector<ModuleResult> R = coverletResult({opts()});
  ASSERT_EQ(R.size(), 1u);
  const DocumentResult *Doc = R[0].Documents.find("/src/Opts.cs");
  ASSERT_TRUE(Doc);
  // The lambda class gave its outcomes away and is gone; the display class keeps its own lines.
  std::vector<std::string> Classes;
  for (const auto &[Name, Methods] : *Doc)
    Classes.push_back(Name);
  EXPECT_EQ(Classes, (std::vector<std::string>{"N.Opts", "N.Opts/<>c__DisplayClass1_0"}));
  const ClassResult &Opts = *Doc->find("N.Opts");
  std::vector<std::string> Methods;
  for (const auto &[Name, M] : Opts)
    Methods.push_back(Name);
  // The getter holds line 63 (methods before constructors), the setter nothing.
  EXPECT_EQ(Methods, (std::vector<std::string>{"N.Opts::get_Formatter()", "N.Opts::.ctor()"}));
  const MethodResult &Get = *Opts.find("N.Opts::get_Formatter()");
  EXPECT_EQ(Get.Lines, (std::map<uint32_t, uint64_t>{{63, 53 + 2 + 37 + 232}}));
  ASSERT_EQ(Get.Branches.size(), 2u) << "the lambda's outcomes, on its line";
  EXPECT_EQ(Get.Branches[1].Hits, 231u);
  const MethodResult &Ctor = *Opts.find("N.Opts::.ctor()");
  EXPECT_EQ(Ctor.Lines, (std::map<uint32_t, uint64_t>{{10, 37}}));
  ASSERT_EQ(Ctor.Branches.size(), 2u) << "the cache check stays the constructor's";
  EXPECT_EQ(Ctor.Branches[0].Line, 63u);
}

TEST(CoverletResult, ReportsShowALinesOutcomesOfItsMethodAndCountAll) {
  Map M = opts();
  std::string Xml = write(M, Format::Cobertura);
  // Line 63 shows the lambda's two outcomes (its getter's), not the constructor's two.
  EXPECT_NE(Xml.find("<line number=\"63\" hits=\"324\" branch=\"True\" condition-coverage=\"100% "
                     "(2/2)\">"),
            std::string::npos)
      << Xml;
  EXPECT_EQ(Xml.find("&lt;&gt;c\""), std::string::npos) << "no lambda class";
  EXPECT_NE(Xml.find("lines-covered=\"3\" lines-valid=\"4\" branches-covered=\"4\" "
                     "branches-valid=\"4\""),
            std::string::npos)
      << Xml;
  // LCOV: each method with lines and the outcomes it holds; the document's figures.
  std::string Lcov = write(M, Format::Lcov);
  EXPECT_EQ(Lcov, "SF:/src/Opts.cs\n"
                  "FN:62,N.Opts::get_Formatter()\nFNDA:324,N.Opts::get_Formatter()\nDA:63,324\n"
                  "BRDA:63,1,0,1\nBRDA:63,1,1,231\n"
                  "FN:9,N.Opts::.ctor()\nFNDA:37,N.Opts::.ctor()\nDA:10,37\n"
                  "BRDA:63,20,0,4\nBRDA:63,20,1,33\n"
                  "FN:19,N.Opts/<>c__DisplayClass1_0::<Run>b__0()\n"
                  "FNDA:3,N.Opts/<>c__DisplayClass1_0::<Run>b__0()\nDA:20,3\nDA:21,0\n"
                  "LF:4\nLH:3\nBRF:4\nBRH:4\nFNF:3\nFNH:3\nend_of_record\n");
  std::vector<ModuleFigures> F = moduleFigures({M});
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Lines.Total, 4u);
  EXPECT_EQ(F[0].Branches.Total, 4u);
  EXPECT_EQ(F[0].Methods.Total, 3u);
}

TEST(CoverletResult, ALambdaClassThatGaveAnOutcomeAwayGoesWithItsOwnLines) {
  // A second lambda of the same class with lines of its own and an outcome on one: no other
  // method holds that line, so the outcome stays, and goes with the class (as in coverlet).
  Map M = opts();
  Method Own = method("N.Opts/<>c", "<.ctor>b__0_1", 4, 6, {{70, 5}, {71, 5}});
  branch(Own, 70, 3, 0, 5, 0);
  M.Methods.push_back(Own);
  std::vector<ModuleResult> R = coverletResult({M});
  const DocumentResult &Doc = *R[0].Documents.find("/src/Opts.cs");
  EXPECT_FALSE(Doc.find("N.Opts/<>c"));
  ReportTotals T = reportTotals({M});
  EXPECT_EQ(T.Lines, 4u) << "lines 70 and 71 went with the class";
  EXPECT_EQ(T.Branches, 4u);
}

TEST(CoverletResult, ClassesAndMethodsInTheOrderCoverletInstrumentsThem) {
  Map M;
  M.Assembly = "Order";
  M.Mvid = "m";
  M.Documents = {"/src/a.cs"};
  // Rows: A.F, Z.G, Z.H; GetTypes puts Z (order 0) before A (order 2); H is Z's constructor.
  M.Methods = {method("A", "F", 2, 1, {{1, 1}}), method("Z", ".ctor", 1, 2, {{5, 1}}),
               method("Z", "H", 0, 3, {{9, 1}})};
  std::string Json = write(M, Format::Json);
  size_t Z = Json.find("\"Z\""), A = Json.find("\"A\""), H = Json.find("Z::H()"),
         Ctor = Json.find("Z::.ctor()");
  EXPECT_LT(Z, A) << Json;
  EXPECT_LT(H, Ctor) << Json;
}

TEST(CoverletResult, TargetFrameworksAddUpAsCoverletMergesResults) {
  Map Net10 = opts(), Net9 = opts();
  // The other framework's constructor runs a statement of line 11 as well.
  Net9.Methods[2].Blocks.push_back(Net9.Methods[2].Blocks[0]);
  Net9.Methods[2].Blocks.back().Lines[0].StartLine =
      Net9.Methods[2].Blocks.back().Lines[0].EndLine = 11;
  std::vector<ModuleResult> R = coverletResult({Net10, Net9});
  ASSERT_EQ(R.size(), 1u);
  const ClassResult &Opts = *R[0].Documents.find("/src/Opts.cs")->find("N.Opts");
  const MethodResult &Ctor = *Opts.find("N.Opts::.ctor()");
  EXPECT_EQ(Ctor.Lines, (std::map<uint32_t, uint64_t>{{10, 74}, {11, 37}}));
  ASSERT_EQ(Ctor.Branches.size(), 2u);
  EXPECT_EQ(Ctor.Branches[1].Hits, 66u);
  EXPECT_EQ(Opts.find("N.Opts::get_Formatter()")->Lines.at(63), 2u * 324);
}

TEST(CoverletResult, MethodsKeyedAndShownByCoverletsNames) {
  Map M;
  M.Assembly = "Names";
  M.Mvid = "m";
  M.Documents = {"/src/n.cs"};
  // Two op_Explicit that differ only in what they return: one name of weft's, two of coverlet's.
  Method ToInt = method("N.J", "op_Explicit", 0, 1, {{5, 2}});
  ToInt.CoverletName = "System.Int32 N.J::op_Explicit(N.J)";
  Method ToLong = method("N.J", "op_Explicit", 0, 2, {{9, 1}});
  ToLong.CoverletName = "System.Int64 N.J::op_Explicit(N.J)";
  Method In = method("N.J", "Read", 0, 3, {{12, 1}});
  In.CoverletName = "System.Int32 N.J::Read(System.Int32& "
                    "modreq(System.Runtime.InteropServices.InAttribute))";
  M.Methods = {ToInt, ToLong, In};
  std::vector<ModuleResult> R = coverletResult({M});
  const ClassResult &J = *R[0].Documents.find("/src/n.cs")->find("N.J");
  EXPECT_EQ(J.size(), 3u);
  EXPECT_TRUE(J.find("System.Int64 N.J::op_Explicit(N.J)"));
  // Cobertura's name and signature, cut from coverlet's name as coverlet cuts it (after the last
  // '(' of a signature with a modifier).
  std::string Xml = write(M, Format::Cobertura);
  EXPECT_NE(Xml.find("<method name=\"op_Explicit\" signature=\"(N.J)\""), std::string::npos);
  EXPECT_NE(Xml.find("<method name=\"Read\" "
                     "signature=\"(System.Runtime.InteropServices.InAttribute))\""),
            std::string::npos)
      << Xml;
}

} // namespace
