//===- tests/corpus/IlasmTest.cpp - weft's IL text through Microsoft's ilasm -===//
//
// `weft dump` writes IL text that Microsoft's ilasm (the NuGet package of the installed runtime's
// version, tests/support/IlTools.h) assembles again, to an assembly with the same methods and IL:
//  - every corpus program, whatever its language (all that corpusPrograms() lists): the text
//    assembles (-exe or -dll as the program is), the result passes `weft verify`, dumps to the
//    same text as the program (compared as below), and runs on CoreCLR with the program's
//    expected output;
//  - a set of framework assemblies (with WEFT_ILASM_ALL=1, every assembly of
//    Microsoft.NETCore.App): the text assembles (-dll, -pe64 for a PE32+ image) within a time
//    limit, the result verifies (ilasm cannot make a strong-name signature, so the one problem
//    allowed is that signature) and dumps to the same text. The time ilasm took is printed.
//
// The dumps are compared line by line after these changes, which docs/il-text.md explains:
//  - what the original's comments say ILAsm does is done to the original's text: `.pack 0` and
//    `.size 0` for an explicit layout without them, `A_<index>` names for unnamed parameters
//    (in the method's header and where its body names the argument);
//  - comment lines are dropped (they say what the text cannot, which the reassembly no longer
//    lacks, such as the flags of a ReadyToRun image);
//  - the custom attributes of one owner are sorted: ilasm keeps the CustomAttribute table sorted
//    by owner only, so it does not keep their order.
//
//===----------------------------------------------------------------------===//
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Golden.h"
#include "tests/support/IlTools.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <gtest/gtest.h>
#include <map>

using namespace llvm;
using namespace weft;
using test::expectedOutput;

namespace {

using Lines = std::vector<std::string>;

Lines splitLines(StringRef Text) {
  SmallVector<StringRef, 0> Parts;
  Text.split(Parts, '\n');
  return Lines(Parts.begin(), Parts.end());
}

std::string joinLines(const Lines &L) { return join(L.begin(), L.end(), "\n"); }

size_t indentOf(StringRef Line) { return Line.size() - Line.ltrim(' ').size(); }

// --- reading `.method` lines ----------------------------------------------------------------

// Calls \p Visit(Index, Char, Depth) for each character outside single-quoted names, with the
// depth of (), <> and [] it is at.
template <typename F> void scanOutsideQuotes(StringRef S, F Visit) {
  int Depth = 0;
  bool Quoted = false;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (Quoted) {
      if (C == '\\')
        ++I;
      else if (C == '\'')
        Quoted = false;
      continue;
    }
    if (C == '\'') {
      Quoted = true;
      continue;
    }
    if (C == ')' || C == '>' || C == ']')
      --Depth;
    Visit(I, C, Depth);
    if (C == '(' || C == '<' || C == '[')
      ++Depth;
  }
}

// The parameter list of a `.method` line: the parenthesised group at depth 0 that the
// implementation flags follow (`) cil managed`, `) runtime managed`, `) flags(0x2000) cil ...`).
// [Open, Close) holds what is between the parentheses.
bool parameterList(StringRef Line, size_t &Open, size_t &Close) {
  bool Found = false;
  size_t LastOpen = 0;
  scanOutsideQuotes(Line, [&](size_t I, char C, int Depth) {
    if (Depth != 0)
      return;
    if (C == '(')
      LastOpen = I;
    if (C != ')')
      return;
    StringRef After = Line.substr(I + 1);
    if (After.startswith(" cil ") || After.startswith(" native ") || After.startswith(" optil ") ||
        After.startswith(" runtime ") || After.startswith(" flags(")) {
      Open = LastOpen + 1;
      Close = I;
      Found = true;
    }
  });
  return Found;
}

// Splits a parameter list at its top-level commas.
Lines splitParameters(StringRef List) {
  Lines Out;
  size_t Start = 0;
  scanOutsideQuotes(List, [&](size_t I, char C, int Depth) {
    if (C == ',' && Depth == 0) {
      Out.push_back(List.slice(Start, I).trim().str());
      Start = I + 1;
    }
  });
  if (!List.trim().empty())
    Out.push_back(List.substr(Start).trim().str());
  return Out;
}

// --- applying what the comments say ILAsm does ---------------------------------------------

constexpr StringLiteral PackSizeNote =
    "// no .pack or .size: ILAsm adds .pack 0 and .size 0 (the same layout)";
constexpr StringLiteral UnnamedNote = "// ILAsm names the unnamed parameters: ";

void applyPackSizeNotes(Lines &L) {
  for (size_t I = 0; I < L.size(); ++I) {
    if (StringRef(L[I]).ltrim(' ') != PackSizeNote)
      continue;
    std::string Indent(indentOf(L[I]), ' ');
    L[I] = Indent + ".pack 0";
    L.insert(L.begin() + I + 1, Indent + ".size 0");
  }
}

bool isArgumentOpcode(StringRef Op) {
  static const StringRef Ops[] = {"ldarg", "ldarg.s", "ldarga", "ldarga.s", "starg", "starg.s"};
  return is_contained(Ops, Op);
}

// The body of the method whose header is at \p Header names argument \p Number (as the original
// did, being unnamed) by \p Name (as the reassembly does).
void renameArgumentOperands(Lines &L, size_t Header, const std::map<std::string, std::string> &As) {
  for (size_t I = Header + 1; I < L.size(); ++I) {
    StringRef Line = StringRef(L[I]).ltrim(' ');
    if (Line.startswith("} // end of method"))
      return;
    if (!Line.startswith("IL_"))
      continue;
    StringRef Rest = Line.split(":  ").second;
    auto [Op, Operand] = Rest.split(' ');
    Operand = Operand.trim();
    auto It = As.find(Operand.str());
    if (isArgumentOpcode(Op) && It != As.end() && StringRef(L[I]).endswith(Operand))
      L[I] = L[I].substr(0, L[I].size() - Operand.size()) + It->second;
  }
}

// Gives the unnamed parameters of the method the note is in the names the note says ILAsm gives
// them: in the header, and where the body names them by number.
void applyUnnamedNote(Lines &L, size_t Note) {
  size_t Header = Note;
  while (Header > 0 && !StringRef(L[Header]).ltrim(' ').startswith(".method "))
    --Header;
  size_t Open = 0, Close = 0;
  ASSERT_TRUE(parameterList(L[Header], Open, Close)) << L[Header];
  Lines Params = splitParameters(StringRef(L[Header]).slice(Open, Close));
  bool Instance = StringRef(L[Header]).contains(" instance ");
  SmallVector<StringRef, 4> Names;
  StringRef(L[Note]).ltrim(' ').drop_front(UnnamedNote.size()).split(Names, ", ");
  std::map<std::string, std::string> ArgumentNames;
  for (StringRef Name : Names) {
    unsigned Index;
    ASSERT_FALSE(Name.drop_front(2).getAsInteger(10, Index)) << L[Note];
    ASSERT_LT(Index, Params.size()) << L[Header];
    Params[Index] += " " + Name.str();
    ArgumentNames[std::to_string(Index + (Instance ? 1 : 0))] = Name.str();
  }
  L[Header] = L[Header].substr(0, Open) + join(Params, ", ") + L[Header].substr(Close);
  renameArgumentOperands(L, Header, ArgumentNames);
}

void applyUnnamedNotes(Lines &L) {
  for (size_t I = 0; I < L.size(); ++I)
    if (StringRef(L[I]).ltrim(' ').startswith(UnnamedNote))
      applyUnnamedNote(L, I);
}

// --- what ilasm does not keep ----------------------------------------------------------------

void dropCommentLines(Lines &L) {
  erase_if(L, [](const std::string &S) { return StringRef(S).ltrim(' ').startswith("//"); });
}

// The custom attributes of one owner are the consecutive `.custom` lines at one indentation; an
// `.interfaceimpl` line and the one attribute under it are a unit of their own.
void sortAttributeRuns(Lines &L) {
  Lines Units;
  for (size_t I = 0; I < L.size(); ++I) {
    if (StringRef(L[I]).ltrim(' ').startswith(".interfaceimpl ") && I + 1 < L.size()) {
      Units.push_back(L[I] + "\n" + L[I + 1]);
      ++I;
    } else {
      Units.push_back(L[I]);
    }
  }
  auto KindOf = [](StringRef S) { return S.ltrim(' ').split(' ').first; };
  for (size_t I = 0; I < Units.size();) {
    StringRef Kind = KindOf(Units[I]);
    size_t End = I + 1;
    if (Kind == ".custom" || Kind == ".interfaceimpl")
      while (End < Units.size() && KindOf(Units[End]) == Kind &&
             indentOf(Units[End]) == indentOf(Units[I]))
        ++End;
    std::sort(Units.begin() + I, Units.begin() + End);
    I = End;
  }
  L = splitLines(joinLines(Units));
}

// ilasm takes a member of System.Object or System.String, whatever assembly the text names, for
// one of the core library's own (an F# program calls some through FSharp.Core's `netstandard`).
void applyCoreTypeMembers(Lines &L) {
  for (std::string &S : L)
    for (StringRef Type : {"System.Object::", "System.String::"})
      for (size_t At; (At = S.find(("[netstandard]" + Type).str())) != std::string::npos;)
        S.replace(At, 13, "[System.Runtime]");
}

std::string normaliseOriginal(StringRef Dump) {
  Lines L = splitLines(Dump);
  applyCoreTypeMembers(L);
  applyPackSizeNotes(L);
  applyUnnamedNotes(L);
  dropCommentLines(L);
  sortAttributeRuns(L);
  return joinLines(L);
}

// `ilasm -pdb` gives the methods that have no `.line` in the text sequence points of their own,
// in the text itself; those are dropped (the document is named at the first `.line` of a method
// and left out of the ones after it while it is the same).
void dropImplicitSequencePoints(Lines &L, StringRef TextPath) {
  std::string Quoted = "'" + TextPath.str() + "'";
  bool InText = false;
  erase_if(L, [&](const std::string &S) {
    StringRef Line = StringRef(S).ltrim(' ');
    if (Line.startswith(".method "))
      InText = false;
    if (!Line.startswith(".line "))
      return false;
    if (Line.endswith("'"))
      InText = Line.endswith(Quoted);
    return InText;
  });
}

std::string normaliseReassembled(StringRef Dump, StringRef TextPath = {}) {
  Lines L = splitLines(Dump);
  if (!TextPath.empty())
    dropImplicitSequencePoints(L, TextPath);
  dropCommentLines(L);
  sortAttributeRuns(L);
  return joinLines(L);
}

// --- running the tools -----------------------------------------------------------------------

struct Tools {
  std::string Ilasm, Ildasm;
  std::string Why; // why one is missing
};

const Tools &tools() {
  static Tools T = [] {
    Tools R;
    std::string Looked;
    R.Ilasm = test::ilTool("ilasm", &Looked);
    if (R.Ilasm.empty())
      R.Why = "no ilasm at " + Looked + " (the il-tools.restore test restores it)";
    R.Ildasm = test::ilTool("ildasm", &Looked);
    if (R.Ildasm.empty())
      R.Why += "no ildasm at " + Looked + " (the il-tools.restore test restores it)";
    return R;
  }();
  return T;
}

struct Reassembly {
  std::string Dir, Text, Dll;
  /// With the sequence points of the input's PDB (`weft dump --source`, `ilasm -pdb`).
  bool Source = false;
  double IlasmSeconds = 0;
};

void assembleText(StringRef In, unsigned Timeout, Reassembly &R);

// `weft dump IN -o DIR/NAME.il` (the embedded resources go beside it, where ilasm reads them),
// then ilasm with the kind and format of \p In, within \p Timeout seconds.
void reassemble(StringRef Label, StringRef In, unsigned Timeout, Reassembly &R) {
  ASSERT_FALSE(tools().Ilasm.empty()) << tools().Why;
  std::string Name = sys::path::stem(In).str();
  R.Dir = test::scratchDir("ilasm-" + Label.str());
  R.Text = R.Dir + "/" + Name + ".il";
  R.Dll = R.Dir + "/" + Name + ".dll";
  std::vector<std::string> Dump = {"dump", In.str(), "-o", R.Text};
  if (R.Source)
    Dump.push_back("--source");
  test::CommandResult D = test::run(test::weftTool(), Dump);
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  assembleText(In, Timeout, R);
}

// ilasm on R.Text into R.Dll, as a DLL or an EXE as \p In is, PE32+ if it is.
void assembleText(StringRef In, unsigned Timeout, Reassembly &R) {
  auto Img = pe::Image::open(In);
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  bool Dll = (*Img)->coff().Characteristics & 0x2000; // IMAGE_FILE_DLL
  std::vector<std::string> Args = {Dll ? "-dll" : "-exe", "-quiet", R.Text, "-output=" + R.Dll};
  if ((*Img)->optional().PE32Plus)
    Args.push_back("-pe64");
  if (R.Source)
    Args.push_back("-pdb"); // a portable PDB from the .line directives
  auto Start = std::chrono::steady_clock::now();
  test::CommandResult A = test::run(tools().Ilasm, Args, {}, Timeout);
  R.IlasmSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  ASSERT_EQ(A.ExitCode, 0) << "ilasm " << R.Text << " (" << R.IlasmSeconds << " s):\n"
                           << A.Out.substr(0, 3000) << A.Err.substr(0, 3000);
}

// The reassembly dumps to the text of the original, once each is normalised (see the top); with
// R.Source, the sequence points of their PDBs too.
void expectSameText(StringRef Original, const Reassembly &R) {
  std::vector<std::string> A0 = {"dump", Original.str()}, B0 = {"dump", R.Dll};
  if (R.Source) {
    A0.push_back("--source");
    B0.push_back("--source");
  }
  test::CommandResult A = test::run(test::weftTool(), A0);
  test::CommandResult B = test::run(test::weftTool(), B0);
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  ASSERT_EQ(B.ExitCode, 0) << B.Err;
  EXPECT_TRUE(A.Err.empty()) << A.Err;
  EXPECT_TRUE(B.Err.empty()) << B.Err;
  std::string Want = normaliseOriginal(A.Out);
  std::string Got = normaliseReassembled(B.Out, R.Source ? StringRef(R.Text) : StringRef());
  EXPECT_TRUE(Want == Got) << "the dumps of " << Original << " and its reassembly differ:\n"
                           << test::firstDifference(Want, Got);
}

// --- the corpus --------------------------------------------------------------------------------

class IlasmCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(IlasmCorpus, ReassembledProgramVerifiesDumpsTheSameAndRuns) {
  std::string Name = GetParam();
  std::string Dll = test::corpusDll(Name);
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  Reassembly R;
  R.Source = true;
  ASSERT_NO_FATAL_FAILURE(reassemble(Name, Dll, 120, R));
  outs() << Name << ": ilasm " << format("%.2f", R.IlasmSeconds) << " s\n";
  // Beside the reassembly before it is dumped too: weft dump finds the sizes of enums in
  // attributes (FSharp.Core's SourceConstructFlags) in the input's folder.
  ASSERT_TRUE(test::copyCorpusCompanions(Name, R.Dir));
  test::CommandResult V = test::run(test::weftTool(), {"verify", R.Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Out << V.Err;
  expectSameText(Dll, R);
  test::CommandResult Run = test::run("dotnet", {R.Dll}, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  std::string Want = expectedOutput(Name);
  EXPECT_TRUE(Run.Out == Want) << test::firstDifference(Want, Run.Out);
}

// ildasm's text of a program written on Linux has `0x%016I64x` for the `.imagebase` and
// `.stackreserve` of a PE32+ image, which ilasm rejects; weft's lines stand in for them.
std::string fixIldasmHeader(StringRef Ildasm, StringRef Weft) {
  Lines L = splitLines(Ildasm);
  Lines W = splitLines(Weft);
  for (std::string &Line : L)
    for (StringRef Directive : {".imagebase ", ".stackreserve "})
      if (StringRef(Line).startswith(Directive) && StringRef(Line).contains('%'))
        for (const std::string &Mine : W)
          if (StringRef(Mine).startswith(Directive))
            Line = StringRef(Mine).split("  //").first.str();
  return joinLines(L);
}

// Where ildasm's text is known to lose something (docs/il-text.md), the dump of weft's
// reassembly is made to lose it too: ildasm comments out the DebuggableAttribute (ilasm adds one
// only when it makes debug information), and names the attributes of a permission set by their
// types, whose names ilasm serializes anew (`Publickeytoken=`).
std::string withIldasmLosses(StringRef WeftDump, StringRef IldasmText) {
  Lines L = splitLines(WeftDump);
  if (IldasmText.contains("The following custom attribute is added automatically"))
    erase_if(L, [](const std::string &S) {
      return StringRef(S).contains(".custom instance void [") &&
             StringRef(S).contains("]System.Diagnostics.DebuggableAttribute::.ctor(");
    });
  for (std::string &S : L) {
    if (!StringRef(S).ltrim(' ').startswith(".permissionset "))
      continue;
    for (size_t At = S.find("PublicKeyToken="); At != std::string::npos;
         At = S.find("PublicKeyToken=", At))
      S.replace(At, 15, "Publickeytoken=");
  }
  return joinLines(L);
}

// ildasm names an unnamed parameter in its text by the argument's number (`A_1` for the first
// parameter of an instance method, `this` being argument 0) where ilasm, given weft's text that
// leaves it unnamed, names it by the parameter's index (`A_0`): the numbers of these names are
// left out of the comparison.
std::string withoutSyntheticNameNumbers(StringRef Dump) {
  static const Regex Synthetic("([^A-Za-z0-9_])A_[0-9]+([^A-Za-z0-9_])");
  Lines L = splitLines(Dump);
  for (std::string &S : L)
    for (std::string Before; Before != S;) {
      Before = S;
      S = Synthetic.sub("\\1A_#\\2", S);
    }
  return joinLines(L);
}

// ildasm's text of the program (with -typelist, ildasm's way of keeping the types' rows, which
// weft's text always does) reassembles to an assembly that dumps as weft's text's reassembly,
// but for what ildasm loses.
TEST_P(IlasmCorpus, IldasmTextReassemblesToTheSameDump) {
  std::string Name = GetParam();
  std::string Dll = test::corpusDll(Name);
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  ASSERT_FALSE(tools().Ildasm.empty()) << tools().Why;
  Reassembly Weft;
  ASSERT_NO_FATAL_FAILURE(reassemble("weft-" + Name, Dll, 120, Weft));
  Reassembly Ms;
  Ms.Dir = test::scratchDir("ilasm-ildasm-" + Name);
  Ms.Text = Ms.Dir + "/" + Name + ".il";
  Ms.Dll = Ms.Dir + "/" + Name + ".dll";
  test::CommandResult D = test::run(tools().Ildasm, {Dll, "-typelist", "-out=" + Ms.Text});
  ASSERT_EQ(D.ExitCode, 0) << D.Out << D.Err;
  std::string Ildasm = fixIldasmHeader(test::readFile(Ms.Text), test::readFile(Weft.Text));
  ASSERT_TRUE(test::writeFile(Ms.Text, Ildasm));
  ASSERT_NO_FATAL_FAILURE(assembleText(Dll, 120, Ms));
  ASSERT_TRUE(test::copyCorpusCompanions(Name, Weft.Dir));
  ASSERT_TRUE(test::copyCorpusCompanions(Name, Ms.Dir));
  test::CommandResult A = test::run(test::weftTool(), {"dump", Weft.Dll});
  test::CommandResult B = test::run(test::weftTool(), {"dump", Ms.Dll});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  ASSERT_EQ(B.ExitCode, 0) << B.Err;
  std::string Want =
      withoutSyntheticNameNumbers(normaliseReassembled(withIldasmLosses(A.Out, Ildasm)));
  std::string Got = withoutSyntheticNameNumbers(normaliseReassembled(B.Out));
  EXPECT_TRUE(Want == Got) << "weft's and ildasm's texts of " << Name
                           << " reassemble differently:\n"
                           << test::firstDifference(Want, Got);
}

INSTANTIATE_TEST_SUITE_P(Corpus, IlasmCorpus, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

// --- the framework -----------------------------------------------------------------------------

// A few assemblies of different kinds that keep the test to a minute or so on two cores;
// WEFT_ILASM_ALL=1 takes every assembly of the framework instead.
std::vector<std::string> frameworkAssemblies() {
  const char *All = std::getenv("WEFT_ILASM_ALL");
  if (All && StringRef(All) == "1") {
    std::vector<std::string> Names;
    for (const std::string &F : test::filesUnder(test::netCoreAppDir(), {".dll"}))
      Names.push_back(sys::path::stem(F).str());
    return Names;
  }
  return {"System.Console", "System.Collections", "System.Linq", "System.Runtime.Numerics",
          "System.Text.RegularExpressions"};
}

// ilasm cannot make a strong-name signature (it has no private key), so the reassembly of a
// signed assembly carries an empty one; verify may report that and nothing else.
void expectVerifies(StringRef Original, StringRef Reassembled) {
  test::CommandResult V = test::run(test::weftTool(), {"verify", Reassembled.str()});
  if (V.ExitCode == 0)
    return;
  auto Img = pe::Image::open(Original);
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  bool Signed = (*Img)->cli() && ((*Img)->cli()->Flags & pe::CliStrongNameSigned);
  std::string All = V.Out + V.Err;
  EXPECT_TRUE(Signed && StringRef(All).count("weft: error:") == 1 &&
              StringRef(All).contains("strong-name signature: the signature does not match") &&
              StringRef(All).contains("1 problem in 0 of"))
      << All.substr(0, 3000);
}

class IlasmFramework : public ::testing::TestWithParam<std::string> {};

TEST_P(IlasmFramework, ReassemblesInTimeVerifiesAndDumpsTheSame) {
  SmallString<256> Dll(test::netCoreAppDir());
  sys::path::append(Dll, GetParam() + ".dll");
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll;
  Reassembly R;
  ASSERT_NO_FATAL_FAILURE(reassemble(GetParam(), Dll, 300, R));
  outs() << GetParam() << ": ilasm " << format("%.2f", R.IlasmSeconds) << " s\n";
  expectVerifies(Dll, R.Dll);
  expectSameText(Dll, R);
}

INSTANTIATE_TEST_SUITE_P(Framework, IlasmFramework, ::testing::ValuesIn(frameworkAssemblies()),
                         [](const auto &Info) {
                           std::string N = Info.param;
                           std::replace(N.begin(), N.end(), '.', '_');
                           return N;
                         });

// --- the comparison's own rules, on small texts --------------------------------------------------

TEST(IlasmNormalisation, AppliesWhatTheCommentsSayIlasmDoes) {
  std::string Original =
      "  .class public explicit ansi sealed C extends X\n"
      "  {\n"
      "    // no .pack or .size: ILAsm adds .pack 0 and .size 0 (the same layout)\n"
      "    .method public hidebysig instance void M(int32 a, valuetype "
      "'S,(x)'&, class [A]B<int32,!0>) cil managed\n"
      "    {\n"
      "      // ILAsm names the unnamed parameters: A_1, A_2\n"
      "      .maxstack 8\n"
      "      IL_0000:  ldarg.s    2\n"
      "      IL_0002:  starg      3\n"
      "      IL_0006:  ldc.i4.s   2\n"
      "    } // end of method C::M\n"
      "  } // end of class C";
  std::string Want = "  .class public explicit ansi sealed C extends X\n"
                     "  {\n"
                     "    .pack 0\n"
                     "    .size 0\n"
                     "    .method public hidebysig instance void M(int32 a, valuetype "
                     "'S,(x)'& A_1, class [A]B<int32,!0> A_2) cil managed\n"
                     "    {\n"
                     "      .maxstack 8\n"
                     "      IL_0000:  ldarg.s    A_1\n"
                     "      IL_0002:  starg      A_2\n"
                     "      IL_0006:  ldc.i4.s   2\n"
                     "    } // end of method C::M\n"
                     "  } // end of class C";
  EXPECT_EQ(normaliseOriginal(Original), Want);
}

TEST(IlasmNormalisation, SortsTheAttributesOfOneOwnerOnly) {
  std::string Text = ".class C\n"
                     "{\n"
                     "  .custom b\n"
                     "  .custom a\n"
                     "  .interfaceimpl type I\n"
                     "    .custom d\n"
                     "  .interfaceimpl type I\n"
                     "    .custom c\n"
                     "  .param type T\n"
                     "    .custom f\n"
                     "    .custom e\n"
                     "  .param type U\n"
                     "    .custom g\n"
                     "}";
  std::string Want = ".class C\n"
                     "{\n"
                     "  .custom a\n"
                     "  .custom b\n"
                     "  .interfaceimpl type I\n"
                     "    .custom c\n"
                     "  .interfaceimpl type I\n"
                     "    .custom d\n"
                     "  .param type T\n"
                     "    .custom e\n"
                     "    .custom f\n"
                     "  .param type U\n"
                     "    .custom g\n"
                     "}";
  EXPECT_EQ(normaliseReassembled(Text), Want);
}

} // namespace
