//===- tests/corpus/InterceptTest.cpp - intercept-call on real programs ---===//
//
// The intercept-call pass on the corpus, with the replacements of tests/replacements, run by the
// real runtime:
//  - System.Console::WriteLine redirected in every program: every line printed through
//    WriteLine(string) gets the replacement's prefix, the other overloads are left alone and
//    named in the notes;
//  - instance targets: a reference type's method (the instance as the first parameter), a call
//    through `constrained.` with an argument, an interface of the program itself (MethodDef
//    tokens, `constrained. !!T`), a value type's method (the instance by reference);
//  - every kind of use, in tests/intercept-sites: constructions (newobj of a class, a generic
//    class and a value type, a value type initialised in place), a generic type's method by a
//    generic replacement and one instantiation's by a plain one, instantiations of generic
//    methods, delegates made with ldftn of static and instance methods and with ldvirtftn; what
//    cannot be redirected is left alone with a note per use;
//  - a target no program calls changes no method body and adds no reference;
//  - the same bytes whatever the thread count; paths relative to the spec file;
//  - bad options: exit 1, a message naming the rule and the problem, no output file.
//
//===----------------------------------------------------------------------===//
#include "il/BodyReader.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using test::expectedOutput;
using test::replacementsDll;
using Woven = test::WovenProgram;

/// Weaves corpus program \p Name with --verify-each into a scratch folder of its own.
static Woven weaveProgram(StringRef Label, StringRef Name, std::vector<std::string> Args) {
  Args.insert(Args.begin(), {"--verify-each", "-v"});
  return test::weaveCorpusProgram(("intercept-" + Label + "-" + Name).str(), Name, Args);
}

namespace {

std::string intercept(StringRef Target, StringRef Type, StringRef More = "") {
  return ("intercept-call:target=" + Target + ",replacement-assembly=" + replacementsDll() +
          ",replacement-type=Weft.Replacements." + Type + More)
      .str();
}

std::vector<std::string> lines(StringRef Text) {
  SmallVector<StringRef, 0> Parts;
  Text.split(Parts, '\n');
  return std::vector<std::string>(Parts.begin(), Parts.end());
}

size_t occurrences(StringRef Text, StringRef What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != StringRef::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

/// Weaves \p Name with \p Pass, checks the result verifies and returns what it prints.
std::string weaveAndRun(StringRef Label, StringRef Name, const std::string &Pass,
                        std::string *Log = nullptr) {
  EXPECT_TRUE(sys::fs::exists(replacementsDll()))
      << "the replacements.build test builds " << replacementsDll();
  Woven W = weaveProgram(Label, Name, {"--pass", Pass});
  EXPECT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  if (Log)
    *Log = W.Weave.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", W.Dll});
  EXPECT_EQ(V.ExitCode, 0) << V.Out.substr(0, 3000) << V.Err.substr(0, 3000);
  test::CommandResult Run = test::run("dotnet", {W.Dll}, {}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  return Run.Out;
}

/// \p Text with line \p From replaced by \p To (which must be there once).
std::string replaced(std::string Text, StringRef From, StringRef To) {
  size_t At = Text.find(From.str());
  EXPECT_NE(At, std::string::npos) << From;
  EXPECT_EQ(occurrences(Text, From), 1u) << From;
  if (At != std::string::npos)
    Text.replace(At, From.size(), To.str());
  return Text;
}

// --- Every program: Console.WriteLine(string) prefixed ---

class InterceptEveryProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(InterceptEveryProgram, WriteLineOfStringGetsThePrefix) {
  const std::string &Name = GetParam();
  std::string Log;
  std::string Out =
      weaveAndRun("writeline", Name, intercept("System.Console::WriteLine", "Console"), &Log);
  // The overloads the replacement type does not have: WriteLine(int32) and WriteLine(object).
  size_t Others = Name == "Generics" ? 2 : Name == "Records" ? 2 : 0;
  EXPECT_EQ(occurrences(Log, "left alone: no replacement fits void ("), Others) << Log;
  if (Name == "Generics") {
    EXPECT_EQ(occurrences(Log, "call System.Console::WriteLine(int32) at IL_"), 1u) << Log;
    EXPECT_EQ(occurrences(Log, "call System.Console::WriteLine(object) at IL_"), 1u) << Log;
  }
  std::vector<std::string> Want = lines(expectedOutput(Name));
  std::vector<std::string> Got = lines(Out);
  ASSERT_EQ(Got.size(), Want.size()) << Out;
  size_t Unprefixed = 0;
  for (size_t I = 0; I + 1 < Want.size(); ++I) { // the text ends with a newline
    if (Got[I] == "| " + Want[I])
      continue;
    EXPECT_EQ(Got[I], Want[I]) << "line " << I + 1;
    ++Unprefixed;
  }
  EXPECT_EQ(Unprefixed, Others);
  EXPECT_EQ(Got.back(), "");
}

// The C# programs: the F# ones print through printfn, which calls Console.WriteLine in
// FSharp.Core, not in the program (UnusedTarget below weaves them).
INSTANTIATE_TEST_SUITE_P(Corpus, InterceptEveryProgram,
                         ::testing::ValuesIn(test::corpusPrograms(test::CorpusLanguage::CSharp)),
                         [](const auto &Info) { return Info.param; });

// --- Instance targets ---

TEST(Intercept, InstanceMethodOfAReferenceType) {
  // q = q.ToUpperInvariant() with q = "q": the replacement gets the string as its first
  // parameter.
  std::string Out = weaveAndRun("toupper", "Closures",
                                intercept("System.String::ToUpperInvariant()", "Instance"));
  EXPECT_EQ(Out, replaced(expectedOutput("Closures"), "param capture=Q5", "param capture=[q]5"));
}

TEST(Intercept, ConstrainedCallWithAnArgument) {
  // def.Equals(ctor) on a struct: `constrained. Vec2 callvirt Object::Equals(object)`; the
  // argument is set aside while the instance is boxed.
  std::string Log;
  std::string Out = weaveAndRun("equals", "StructsAndSpans",
                                intercept("System.Object::Equals(object)", "Instance"), &Log);
  EXPECT_EQ(Out, replaced(expectedOutput("StructsAndSpans"), "equals=True", "equals=False"));
  EXPECT_NE(Log.find("weft: 1 methods changed"), std::string::npos) << Log;
}

TEST(Intercept, InterfaceOfTheProgramItself) {
  // IShape::Area is the program's own method (MethodDef tokens), called directly and through
  // `constrained. !!T`.
  std::string Log;
  std::string Out = weaveAndRun("area", "Generics",
                                intercept("Weft.Corpus.Generics.IShape::Area", "Instance"), &Log);
  std::string Want = expectedOutput("Generics");
  Want = replaced(Want, "AreaOf<Rect>: 20", "AreaOf<Rect>: 1000");
  Want = replaced(Want, "AreaOf<Point>: 0", "AreaOf<Point>: 1000");
  Want = replaced(Want, "AreaOf<IShape>: 9", "AreaOf<IShape>: 1000");
  Want = replaced(Want, "Rect with area 6 ; double=12", "Rect with area 1000 ; double=2000");
  Want = replaced(Want, "Square[3] area=9 ; double=18", "Square[3] area=9 ; double=2000");
  Want = replaced(Want, "Point with area 0 ; double=0", "Point with area 1000 ; double=2000");
  EXPECT_EQ(Out, Want);
  EXPECT_NE(Log.find("weft: 3 methods changed"), std::string::npos) << Log;
}

TEST(Intercept, ValueTypeInstanceByReference) {
  // Int32::ToString() is called on a managed pointer (`ldloca; call instance`); the replacement
  // takes `ref int` and prefixes '#'.
  std::string Log;
  std::string Out = weaveAndRun("int-tostring", "Generics",
                                intercept("System.Int32::ToString()", "Instance"), &Log);
  std::string Plain = Out;
  Plain.erase(std::remove(Plain.begin(), Plain.end(), '#'), Plain.end());
  EXPECT_EQ(Plain, expectedOutput("Generics"));
  EXPECT_EQ(occurrences(Out, "#"), 39u) << Out;
  EXPECT_NE(Log.find("weft: 5 methods changed"), std::string::npos) << Log;
}

TEST(Intercept, ParameterListPicksOneOverload) {
  // With the list only WriteLine(string) is a target: the other overloads are not even noted.
  std::string Log;
  std::string Out = weaveAndRun("writeline-string", "Generics",
                                intercept("System.Console::WriteLine(string)", "Console"), &Log);
  EXPECT_EQ(occurrences(Log, "left alone:"), 0u) << Log;
  // Every line but those of WriteLine(int32) and WriteLine(object).
  std::vector<std::string> Got = lines(Out);
  ASSERT_EQ(Got.size(), 68u);
  EXPECT_EQ(std::count_if(Got.begin(), Got.end(),
                          [](const std::string &L) { return StringRef(L).startswith("| "); }),
            65);
}

// --- Every kind of use: tests/intercept-sites ---

/// tests/intercept-sites woven with \p Pass into a folder of its own, verified, run; its output.
std::string weaveSites(StringRef Label, const std::string &Pass, std::string *Log = nullptr) {
  std::string In = test::helperDll("InterceptSites");
  EXPECT_TRUE(sys::fs::exists(In)) << "the interceptsites.build test builds " << In;
  std::string Dir = test::scratchDir(("intercept-sites-" + Label).str());
  std::string Out = Dir + "/InterceptSites.dll";
  test::CommandResult W =
      test::run(test::weftTool(), {"weave", In, "-o", Out, "--pass", Pass, "--verify-each", "-v"});
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  if (Log)
    *Log = W.Err;
  test::CommandResult V = test::run(test::weftTool(), {"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Err.substr(0, 3000);
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "InterceptSites.runtimeconfig.json");
  EXPECT_FALSE(sys::fs::copy_file(Config, Dir + "/InterceptSites.runtimeconfig.json"));
  EXPECT_FALSE(sys::fs::copy_file(replacementsDll(), Dir + "/Replacements.dll"));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  return Run.Out;
}

const char *SitesOutput = "sb=xy\n"
                          "ints=1,2 names=a\n"
                          "day=3\n"
                          "local day=6\n"
                          "count=2 first=a\n"
                          "echo=7,e\n"
                          "direct=8 delegate=10\n"
                          "bound=ABC\n"
                          "virtual=42\n";

struct SiteCase {
  const char *Label, *Target, *Type;
  std::vector<std::pair<const char *, const char *>> Changes; // line -> line
};

class InterceptSites : public ::testing::TestWithParam<SiteCase> {};

TEST_P(InterceptSites, RedirectsEveryUse) {
  const SiteCase &C = GetParam();
  std::string Want = SitesOutput;
  for (auto [From, To] : C.Changes)
    Want = replaced(Want, From, To);
  std::string Log;
  EXPECT_EQ(weaveSites(C.Label, intercept(C.Target, C.Type), &Log), Want);
  EXPECT_EQ(occurrences(Log, "left alone:"), 0u) << Log;
}

INSTANTIATE_TEST_SUITE_P(
    Sites, InterceptSites,
    ::testing::Values(
        // newobj of a class's constructor: the factory.
        SiteCase{"ctor",
                 "System.Text.StringBuilder::.ctor(string)",
                 "Factories",
                 {{"sb=xy", "sb=<x>y"}}},
        // newobj of a generic class's constructor: a generic factory, per instantiation.
        SiteCase{
            "generic-ctor",
            "System.Collections.Generic.List`1::.ctor()",
            "Factories",
            {{"ints=1,2 names=a", "ints=0,1,2 names=,a"}, {"count=2 first=a", "count=3 first="}}},
        // A value type: newobj, and `call .ctor` on a local's address (the result stored there).
        SiteCase{"struct-ctor",
                 "System.DateTime::.ctor",
                 "Factories",
                 {{"day=3", "day=4"}, {"local day=6", "local day=7"}}},
        // A generic type's method, by a generic replacement (every instantiation).
        SiteCase{"generic-type",
                 "System.Collections.Generic.List`1::Add",
                 "Generic",
                 {{"ints=1,2 names=a", "ints=1,1,2,2 names=a,a"},
                  {"count=2 first=a", "count=4 first=a"}}},
        // Instantiations of generic methods, the framework's and the program's own.
        SiteCase{"generic-method",
                 "System.Linq.Enumerable::Count",
                 "Generic",
                 {{"count=2 first=a", "count=1002 first=a"}}},
        SiteCase{
            "own-generic-method", "Weft.Sites.Program::Echo", "Generic", {{"echo=7,e", "echo=0,"}}},
        // A static method: its calls and the delegate made with ldftn.
        SiteCase{"ldftn-static",
                 "Weft.Sites.Program::Twice",
                 "Delegates",
                 {{"direct=8 delegate=10", "direct=12 delegate=15"}}},
        // An instance method made a delegate closed over its instance (ldftn), and a virtual
        // one (ldvirtftn) as well as its calls.
        SiteCase{"ldftn-instance",
                 "System.String::ToUpperInvariant",
                 "Instance",
                 {{"bound=ABC", "bound=[abc]"}}},
        SiteCase{"ldvirtftn",
                 "System.Object::ToString()",
                 "Instance",
                 {{"sb=xy", "sb={xy}"}, {"virtual=42", "virtual={42}"}}}),
    [](const auto &Info) {
      std::string N = Info.param.Label;
      std::replace(N.begin(), N.end(), '-', '_');
      return N;
    });

TEST(Intercept, OneInstantiationOfAGenericType) {
  // A plain replacement fits List<string>.Add; the List<int>.Add calls are left alone, each
  // with a note.
  std::string Log;
  std::string Out =
      weaveSites("one-instantiation",
                 intercept("System.Collections.Generic.List`1::Add", "OneInstantiation"), &Log);
  EXPECT_EQ(Out, replaced(replaced(SitesOutput, "ints=1,2 names=a", "ints=1,2 names=A"),
                          "count=2 first=a", "count=2 first=A"));
  EXPECT_EQ(occurrences(Log, "callvirt System.Collections.Generic.List`1<int32>::Add(int32) at "
                             "IL_"),
            2u)
      << Log;
  EXPECT_EQ(occurrences(Log, "left alone: no replacement fits void (instance, int32)"), 2u) << Log;
}

TEST(Intercept, GenericReplacementOfAPlainMethodIsNoted) {
  // A generic replacement takes as many generic arguments as the target's type and method
  // have: for String::ToUpperInvariant none, so each use is left alone and said why.
  std::string Log;
  std::string Out = weaveAndRun("generic-repl", "Closures",
                                intercept("System.String::ToUpperInvariant", "Bad"), &Log);
  EXPECT_EQ(Out, expectedOutput("Closures"));
  EXPECT_NE(Log.find("a generic replacement takes the generic arguments of the target's type, "
                     "then those of the method: 0"),
            std::string::npos)
      << Log;
  EXPECT_NE(Log.find("weft: 0 methods changed"), std::string::npos) << Log;
}

// --- A target nobody calls ---

/// Every method body's bytes, by MethodDef row.
std::vector<std::string> bodies(const std::string &Path, std::vector<uint32_t> &RefRows) {
  std::vector<std::string> Out;
  auto Img = pe::Image::open(Path);
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return Out;
  }
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M) {
    ADD_FAILURE() << toString(M.takeError());
    return Out;
  }
  using metadata::TableId;
  RefRows = {(*M)->rowCount(TableId::AssemblyRef), (*M)->rowCount(TableId::TypeRef),
             (*M)->rowCount(TableId::MemberRef), (*M)->rowCount(TableId::MethodDef)};
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::MethodDef); ++Row) {
    auto Raw = il::readMethodDefBody(**Img, **M, Row);
    if (!Raw) {
      ADD_FAILURE() << toString(Raw.takeError());
      return Out;
    }
    std::string B;
    if (*Raw) {
      B = toStringRef((*Raw)->Code).str();
      B += "/" + std::to_string((*Raw)->MaxStack) + "/" + std::to_string((*Raw)->Flags) + "/" +
           std::to_string((*Raw)->LocalVarSigToken);
    }
    Out.push_back(std::move(B));
  }
  return Out;
}

class UnusedTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(UnusedTarget, LeavesEveryMethodAsItWas) {
  const std::string &Name = GetParam();
  ASSERT_TRUE(sys::fs::exists(replacementsDll()));
  Woven W =
      weaveProgram("unused", Name, {"--pass", intercept("System.IO.File::ReadAllText", "Console")});
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  EXPECT_NE(W.Weave.Err.find("weft: 0 methods changed"), std::string::npos) << W.Weave.Err;
  EXPECT_EQ(occurrences(W.Weave.Err, "intercept-call: "),
            occurrences(W.Weave.Err, "weft: skipped "));
  EXPECT_NE(W.Weave.Err.find(": no call to System.IO.File::ReadAllText\n"), std::string::npos);
  std::vector<uint32_t> RowsIn, RowsOut;
  std::vector<std::string> In = bodies(test::corpusDll(Name), RowsIn);
  std::vector<std::string> Out = bodies(W.Dll, RowsOut);
  EXPECT_EQ(RowsIn, RowsOut) << "AssemblyRef, TypeRef, MemberRef, MethodDef rows";
  ASSERT_EQ(In.size(), Out.size());
  for (size_t I = 0; I < In.size(); ++I)
    EXPECT_EQ(In[I], Out[I]) << "the body of MethodDef row " << I + 1 << " changed";
  test::CommandResult Run = test::run("dotnet", {W.Dll}, {}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err.substr(0, 2000);
  EXPECT_EQ(Run.Out, expectedOutput(Name));
}

INSTANTIATE_TEST_SUITE_P(Corpus, UnusedTarget, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

// --- Determinism, specs ---

TEST(Intercept, SameBytesWhateverTheThreadCount) {
  std::string Pass = intercept("System.Console::WriteLine", "Console");
  std::string First;
  for (const char *Threads : {"1", "2", "4"}) {
    Woven W = weaveProgram(std::string("threads") + Threads, "Linq",
                           {"--pass", Pass, "--threads", Threads});
    ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
    std::string Bytes = test::readFile(W.Dll);
    ASSERT_FALSE(Bytes.empty());
    if (First.empty())
      First = Bytes;
    else
      EXPECT_TRUE(Bytes == First) << Threads << " threads gave other bytes";
  }
}

TEST(Intercept, ReplacementPathIsRelativeToTheSpec) {
  std::string Dir = test::scratchDir("intercept-spec");
  ASSERT_TRUE(sys::fs::create_directories(Dir + "/lib") == std::error_code());
  ASSERT_FALSE(sys::fs::copy_file(replacementsDll(), Dir + "/lib/Replacements.dll"));
  ASSERT_TRUE(test::writeFile(Dir + "/spec.json", R"json({
  "version": 1,
  "rules": [{"name": "upper", "match": {"method": "ClosureOverParametersAndOut"},
             "passes": [{"name": "intercept-call", "options": {
               "target": "System.String::ToUpperInvariant()",
               "replacement-assembly": "lib/Replacements.dll",
               "replacement-type": "Weft.Replacements.Instance"}}]}]
})json"));
  std::string Out = Dir + "/Closures.dll";
  test::CommandResult R = test::run(test::weftTool(), {"weave", test::corpusDll("Closures"), "-o",
                                                       Out, "--spec", Dir + "/spec.json", "-v"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_NE(R.Err.find("weft: 1 methods changed"), std::string::npos) << R.Err;
  SmallString<256> Config(sys::path::parent_path(test::corpusDll("Closures")));
  sys::path::append(Config, "Closures.runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/Closures.runtimeconfig.json"));
  ASSERT_FALSE(sys::fs::copy_file(replacementsDll(), Dir + "/Replacements.dll"));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_EQ(Run.Out,
            replaced(expectedOutput("Closures"), "param capture=Q5", "param capture=[q]5"));

  // A missing replacement is named with the rule of the spec.
  ASSERT_TRUE(test::writeFile(Dir + "/bad.json", R"json({
  "version": 1,
  "rules": [{"name": "upper", "passes": [{"name": "intercept-call", "options": {
               "target": "System.String::ToUpperInvariant()",
               "replacement-assembly": "nowhere/Replacements.dll",
               "replacement-type": "Weft.Replacements.Instance"}}]}]
})json"));
  std::string Bad = Dir + "/bad.dll";
  R = test::run(test::weftTool(),
                {"weave", test::corpusDll("Closures"), "-o", Bad, "--spec", Dir + "/bad.json"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_NE(R.Err.find("rules[0] 'upper': replacement assembly '" + Dir +
                       "/nowhere/Replacements.dll' does not exist"),
            std::string::npos)
      << R.Err;
  EXPECT_FALSE(sys::fs::exists(Bad));
}

// --- Bad options ---

struct BadCase {
  const char *Label;
  std::string Pass;
  const char *Message;
};

TEST(Intercept, BadOptionsAreRefused) {
  std::string Dir = test::scratchDir("intercept-bad");
  std::string Repl = replacementsDll();
  std::vector<BadCase> Cases = {
      {"missing assembly",
       "intercept-call:target=System.Console::WriteLine,replacement-assembly=" + Dir +
           "/none.dll,replacement-type=Weft.Replacements.Console",
       "replacement assembly '%DIR%/none.dll' does not exist"},
      {"not an assembly",
       "intercept-call:target=System.Console::WriteLine,replacement-assembly=" + Dir +
           "/spec.json,replacement-type=Weft.Replacements.Console",
       "replacement assembly: "},
      {"unknown type", intercept("System.Console::WriteLine", "Nope"),
       "replacement assembly '%REPL%' has no type Weft.Replacements.Nope"},
      {"no such method", intercept("System.Console::Beep", "Console"),
       "replacement type Weft.Replacements.Console has no method Beep"},
      {"wrong signature", intercept("System.Console::WriteLine(string)", "Bad"),
       "no method WriteLine of Weft.Replacements.Bad fits the target "
       "System.Console::WriteLine(string): a replacement takes the same parameters (string), "
       "after the instance for an instance method (System.Console or object; `ref "
       "System.Console` for a value type); it has void "
       "Weft.Replacements.Bad::WriteLine(int32, int32, int32)"},
      {"value type by value", intercept("System.Int32::ToString()", "Bad"),
       "no method ToString of Weft.Replacements.Bad fits the target System.Int32::ToString(): a "
       "replacement takes the same parameters (), after the instance for an instance method "
       "(System.Int32 or object; `ref System.Int32` for a value type); it has string "
       "Weft.Replacements.Bad::ToString(int32) (a value type's instance is passed by "
       "reference)"},
      {"instance replacement", intercept("System.String::ToUpperInvariant", "Bad/Holder"),
       "replacement Weft.Replacements.Bad/Holder::ToUpperInvariant is not public and static; a "
       "replacement is a public static method"},
      {"internal replacement",
       intercept("System.String::Trim", "Bad", ",replacement-method=Internal"),
       "replacement Weft.Replacements.Bad::Internal is not public and static"},
      {"no factory", intercept("System.Object::.ctor", "Console"),
       "replacement type Weft.Replacements.Console has no method Create"},
      {"internal type", intercept("System.Console::WriteLine", "Hidden"),
       "replacement type Weft.Replacements.Hidden is not public"},
      {"no method in target", intercept("System.Console", "Console"),
       "target 'System.Console' is not of the form Namespace.Type::Method"},
      {"type arguments", intercept("System.Collections.Generic.List<int32>::Add", "Console"),
       "target 'System.Collections.Generic.List<int32>::Add': name a generic type by its arity "
       "(List`1) and a generic method by its name, without type arguments"},
      {"type initializer", intercept("System.Object::.cctor", "Console"),
       "target 'System.Object::.cctor': a type initializer is never called"},
      {"missing options", "intercept-call:target=System.Console::WriteLine",
       "intercept-call needs the options target, replacement-assembly and replacement-type"},
  };
  ASSERT_TRUE(test::writeFile(Dir + "/spec.json", "{}"));
  for (const BadCase &C : Cases) {
    std::string Out = Dir + "/out.dll";
    test::CommandResult R = test::run(
        test::weftTool(), {"weave", test::corpusDll("Closures"), "-o", Out, "--pass", C.Pass});
    EXPECT_EQ(R.ExitCode, 1) << C.Label << ": " << R.Err;
    std::string Message = C.Message;
    for (auto [From, To] : {std::pair<std::string, std::string>{"%DIR%", Dir}, {"%REPL%", Repl}})
      if (size_t At = Message.find(From); At != std::string::npos)
        Message.replace(At, From.size(), To);
    EXPECT_NE(R.Err.find("--pass " + C.Pass + ": " + Message), std::string::npos)
        << C.Label << ": " << R.Err;
    EXPECT_FALSE(sys::fs::exists(Out)) << C.Label;
  }
}

} // namespace
