//===- tests/spec/SpecTest.cpp - The instrumentation spec -----------------===//
//
// Spec files as users write them: every kind of mistake is refused with a message that names the
// file, the rule and the key; rules choose exactly the methods docs/spec.md says they do on the
// corpus programs (accessors, constructors, state machines, lambdas, parameter types, attributes,
// visibility); pass uses are merged in spec order; System.Private.CoreLib is matched quickly.
//
//===----------------------------------------------------------------------===//
#include "weaving/spec/Spec.h"

#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "tests/support/Env.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <gtest/gtest.h>
#include <map>

using namespace llvm;
using namespace weft;
using namespace weft::metadata;
using namespace weft::spec;

namespace {

using Names = std::vector<std::string>;

const Module &corpus(StringRef Name) {
  struct Opened {
    std::unique_ptr<pe::Image> Image;
    std::unique_ptr<Module> M;
  };
  static std::map<std::string, Opened> Cache;
  Opened &O = Cache[Name.str()];
  if (!O.M) {
    auto Img = pe::Image::open(test::corpusDll(Name));
    if (!Img) {
      errs() << "cannot open corpus program " << Name << ": " << toString(Img.takeError())
             << " (run ctest -R corpus.build)\n";
      std::abort();
    }
    O.Image = std::move(*Img);
    auto M = Module::create(O.Image->metadata(), O.Image->metadataOffset());
    if (!M) {
      errs() << toString(M.takeError()) << '\n';
      std::abort();
    }
    O.M = std::move(*M);
  }
  return *O.M;
}

std::string methodName(const Module &M, uint32_t Row) {
  std::string S;
  raw_string_ostream OS(S);
  if (uint32_t T = M.declaringTypeOfMethod(Row))
    NamePrinter(M).typeDefName(OS, T);
  OS << "::" << M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name));
  return OS.str();
}

Spec parsed(StringRef Json) {
  Expected<Spec> S = Spec::parse(Json, "weft.json");
  if (!S) {
    ADD_FAILURE() << toString(S.takeError());
    return Spec();
  }
  return std::move(*S);
}

Selection selected(const Spec &S, const Module &M) {
  Expected<Selection> Sel = select(S, M);
  if (!Sel) {
    ADD_FAILURE() << toString(Sel.takeError());
    return Selection();
  }
  return std::move(*Sel);
}

/// The methods that get any pass, as "Type::Name", sorted (overloads appear once each).
Names matched(const Selection &Sel, const Module &M) {
  Names Out;
  for (uint32_t R = 1; R <= Sel.methodCount(); ++R)
    if (!Sel.passesOf(R).empty())
      Out.push_back(methodName(M, R));
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// A spec of one rule with \p Match, applying the pass "p".
std::string oneRule(StringRef Match) {
  return (R"({"version": 1, "rules": [{"name": "r", "match": )" + Match + R"(, "passes": ["p"]}]})")
      .str();
}

Names matched(StringRef Program, StringRef Match) {
  const Module &M = corpus(Program);
  return matched(selected(parsed(oneRule(Match)), M), M);
}

/// The message of the error parsing \p Json gives ("" if it parses).
std::string parseError(StringRef Json) {
  Expected<Spec> S = Spec::parse(Json, "weft.json");
  if (S)
    return "";
  return toString(S.takeError());
}

std::string matchError(StringRef Match) { return parseError(oneRule(Match)); }

// --- parsing ---

TEST(SpecParse, SyntaxErrorsGiveLineAndColumn) {
  EXPECT_EQ(parseError("{\n  \"version\": 1,\n  \"rules\": [}\n"),
            "weft.json: invalid JSON: line 3, column 13: Invalid JSON value");
  EXPECT_EQ(parseError(""), "weft.json: invalid JSON: line 1, column 0: Unexpected EOF");
}

// "plugins": paths (relative to the spec's folder) or objects with a priority, lower first.
TEST(SpecParse, Plugins) {
  Expected<Spec> S = Spec::parse(R"({"version": 1, "plugins": [{"path": "late.so", "priority": 5},
      "first.so", {"path": "/abs/early.so", "priority": -1}], "rules": []})",
                                 "dir/weft.json");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(S->pluginPaths(),
            (std::vector<std::string>{"/abs/early.so", "dir/first.so", "dir/late.so"}));
  EXPECT_EQ(parseError(R"({"version": 1, "plugins": "a.so", "rules": []})"),
            "weft.json: plugins: expected an array, got a string");
  EXPECT_EQ(parseError(R"({"version": 1, "plugins": [3], "rules": []})"),
            "weft.json: plugins[0]: expected a plugin's path or an object with a path, got a "
            "number");
  EXPECT_EQ(parseError(R"({"version": 1, "plugins": [{"priority": 1}], "rules": []})"),
            "weft.json: plugins[0]: missing path");
  EXPECT_EQ(parseError(R"({"version": 1, "plugins": [{"path": "a.so", "priority": "1"}],
                           "rules": []})"),
            "weft.json: plugins[0]: priority: expected an integer, got a string");
  EXPECT_EQ(parseError(R"({"version": 1, "plugins": [{"path": "a.so", "when": 1}], "rules": []})"),
            "weft.json: plugins[0]: unknown key 'when' (expected path, priority)");
}

TEST(SpecParse, Tracepoints) {
  Expected<Spec> S = Spec::parse(R"({"version": 1, "rules": [], "tracepoints": [
      {"name": "orders", "match": {"type": "Orders", "method": "Place*"}, "depth": 2},
      {"name": "off", "enabled": false}, {"name": "asked", "enabled": "session"}]})",
                                 "weft.json");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  ASSERT_EQ(S->tracepoints().size(), 3u);
  EXPECT_FALSE(S->tracepoints()[0].FollowsSession);
  EXPECT_FALSE(S->tracepoints()[1].FollowsSession);
  EXPECT_TRUE(S->tracepoints()[2].FollowsSession);
  EXPECT_FALSE(S->tracepoints()[2].Enabled);
  EXPECT_EQ(S->tracepoints()[0].Name, "orders");
  EXPECT_EQ(S->tracepoints()[0].Depth, 2u);
  EXPECT_TRUE(S->tracepoints()[0].Enabled);
  EXPECT_FALSE(S->tracepoints()[1].Enabled);
  EXPECT_EQ(S->tracepoints()[1].Depth, 1u);
  EXPECT_TRUE(S->passUses().empty()); // tracepoints are not rules
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "tracepoints": [{"match": {}}]})"),
            "weft.json: tracepoints[0]: missing name (a tracepoint is added, changed and removed "
            "by its name)");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a"},
                           {"name": "a"}]})"),
            "weft.json: tracepoints[1] 'a': the name is used by tracepoints[0] 'a' too");
  EXPECT_EQ(
      parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a",
                           "enabled": "always"}]})"),
      "weft.json: tracepoints[0] 'a': enabled: expected a boolean or \"session\", got a string");
  EXPECT_EQ(
      parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a", "depth": 9}]})"),
      "weft.json: tracepoints[0] 'a': depth: expected an integer from 0 to 8, got a number");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a",
                           "passes": []}]})"),
            "weft.json: tracepoints[0]: unknown key 'passes' (expected name, match, enabled, "
            "depth, span)");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a",
                           "match": {"method": "["}}]})")
                .substr(0, 44),
            "weft.json: tracepoints[0] 'a': match.method:");
}

// "span": true adds a rule of the tracepoint's match applying span with every argument, to the
// tracepoint's depth, after the spec's own rules.
TEST(SpecParse, ATracepointThatIsASpanIsARuleToo) {
  Expected<Spec> S = Spec::parse(R"({"version": 1, "rules": [{"passes": ["trace"]}],
      "tracepoints": [{"name": "orders", "match": {"method": "Place*"}, "depth": 3, "span": true},
                      {"name": "plain", "span": false}]})",
                                 "weft.json");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  std::vector<const PassUse *> Uses = S->passUses();
  ASSERT_EQ(Uses.size(), 2u);
  EXPECT_EQ(Uses[0]->Pass, "trace");
  EXPECT_EQ(Uses[1]->key(), "span:arguments=*,depth=3");
  EXPECT_EQ(Uses[1]->Rule, "tracepoints[0] 'orders'");
  EXPECT_EQ(S->tracepoints().size(), 2u);
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "tracepoints": [{"name": "a",
                           "span": "yes"}]})"),
            "weft.json: tracepoints[0] 'a': span: expected a boolean, got a string");
}

TEST(SpecParse, TopLevel) {
  EXPECT_EQ(parseError("[]"), "weft.json: expected an object, got an array");
  EXPECT_EQ(parseError(R"({"rules": []})"),
            "weft.json: version: missing (this weft reads version 1)");
  EXPECT_EQ(parseError(R"({"version": 2, "rules": []})"),
            "weft.json: version: unsupported version 2 (this weft reads 1)");
  EXPECT_EQ(parseError(R"({"version": 1.5, "rules": []})"),
            "weft.json: version: unsupported version 1.5 (this weft reads 1)");
  EXPECT_EQ(parseError(R"({"version": "1", "rules": []})"),
            "weft.json: version: expected a number, got a string");
  EXPECT_EQ(parseError(R"({"version": 1})"), "weft.json: rules: missing");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": {}})"),
            "weft.json: rules: expected an array, got an object");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "rule": []})"),
            "weft.json: unknown key 'rule' (expected $schema, version, plugins, rules, "
            "tracepoints)");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [], "version": 1})"),
            "weft.json: duplicate key 'version'");
  EXPECT_EQ(parseError(R"({"$schema": 3, "version": 1, "rules": []})"),
            "weft.json: $schema: expected a string, got a number");
  EXPECT_EQ(parseError(R"({"$schema": "docs/weft-spec.schema.json", "version": 1, "rules": []})"),
            "");
  EXPECT_EQ(parseError("\xEF\xBB\xBF{\"version\": 1, \"rules\": []}"), "");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [3]})"),
            "weft.json: rules[0]: expected an object, got a number");
}

TEST(SpecParse, RuleErrorsNameTheRuleAndKey) {
  std::string Two = R"({"version": 1, "rules": [{"passes": ["p"]}, {"name": "service calls", )";
  EXPECT_EQ(parseError(Two + R"("match": {"type": "[a-"}, "passes": ["p"]}]})"),
            "weft.json: rules[1] 'service calls': match.type: bad glob '[a-': invalid glob "
            "pattern: [a-");
  EXPECT_EQ(parseError(Two + R"("match": {"methods": "Get*"}, "passes": ["p"]}]})"),
            "weft.json: rules[1] 'service calls': match: unknown key 'methods' (expected "
            "assembly, namespace, type, method, parameters, attributes, typeAttributes, "
            "visibility, static, compilerGenerated, constructors, accessors, stateMachines)");
  EXPECT_EQ(parseError(Two + R"("passes": ["p"], "pass": 1}]})"),
            "weft.json: rules[1] 'service calls': unknown key 'pass' (expected name, match, "
            "exclude, passes)");
  EXPECT_EQ(parseError(Two + R"("match": {}}]})"),
            "weft.json: rules[1] 'service calls': passes: missing (every rule that is not an "
            "exclude rule names its passes)");
  EXPECT_EQ(parseError(Two + R"("passes": []}]})"),
            "weft.json: rules[1] 'service calls': passes: empty (name at least one pass)");
  EXPECT_EQ(parseError(Two + R"("exclude": true, "passes": ["p"]}]})"),
            "weft.json: rules[1] 'service calls': passes: an exclude rule applies no passes");
  EXPECT_EQ(parseError(Two + R"("exclude": "yes"}]})"),
            "weft.json: rules[1] 'service calls': exclude: expected a boolean, got a string");
  EXPECT_EQ(parseError(Two + R"("passes": "p"}]})"),
            "weft.json: rules[1] 'service calls': passes: expected an array, got a string");
  EXPECT_EQ(parseError(Two + R"("match": [], "passes": ["p"]}]})"),
            "weft.json: rules[1] 'service calls': match: expected an object, got an array");
  EXPECT_EQ(parseError(R"({"version": 1, "rules": [{"name": 7, "passes": ["p"]}]})"),
            "weft.json: rules[0]: name: expected a string, got a number");
}

TEST(SpecParse, MatchErrors) {
  EXPECT_EQ(matchError(R"({"static": "yes"})"),
            "weft.json: rules[0] 'r': match.static: expected a boolean, got a string");
  EXPECT_EQ(matchError(R"({"method": 3})"),
            "weft.json: rules[0] 'r': match.method: expected a string, got a number");
  EXPECT_EQ(matchError(R"({"assembly": "[z-a]"})"),
            "weft.json: rules[0] 'r': match.assembly: bad glob '[z-a]': invalid glob pattern: "
            "[z-a]");
  EXPECT_EQ(matchError(R"({"visibility": ["public", "internal"]})"),
            "weft.json: rules[0] 'r': match.visibility[1]: unknown visibility 'internal' "
            "(expected public, family, assembly, private, famorassem, famandassem or "
            "compilercontrolled)");
  EXPECT_EQ(matchError(R"({"visibility": "public"})"),
            "weft.json: rules[0] 'r': match.visibility: expected an array of strings, got a "
            "string");
  EXPECT_EQ(matchError(R"({"visibility": []})"),
            "weft.json: rules[0] 'r': match.visibility: empty (no method would match)");
  EXPECT_EQ(matchError(R"({"constructors": "no"})"),
            "weft.json: rules[0] 'r': match.constructors: unknown value 'no' (expected "
            "include, exclude or only)");
  EXPECT_EQ(matchError(R"({"accessors": true})"),
            "weft.json: rules[0] 'r': match.accessors: expected a string, got a boolean");
  EXPECT_EQ(matchError(R"({"parameters": ["...", "int32"]})"),
            "weft.json: rules[0] 'r': match.parameters[0]: '...' may only be the last entry");
  EXPECT_EQ(matchError(R"({"parameters": ["int32", 4]})"),
            "weft.json: rules[0] 'r': match.parameters[1]: expected a string, got a number");
  EXPECT_EQ(matchError(R"({"attributes": ["[x"]})"),
            "weft.json: rules[0] 'r': match.attributes[0]: bad glob '[x': invalid glob "
            "pattern: [x");
  EXPECT_EQ(matchError(R"({"typeAttributes": "X"})"),
            "weft.json: rules[0] 'r': match.typeAttributes: expected an array of strings, got "
            "a string");
  // Brackets are literal in parameter patterns: type names are full of them.
  EXPECT_EQ(matchError(R"({"parameters": ["int32[]", "class [System.Runtime]System.*"]})"), "");
}

TEST(SpecParse, PassErrors) {
  auto Passes = [](StringRef P) {
    return parseError((R"({"version": 1, "rules": [{"name": "r", "passes": [)" + P + "]}]}").str());
  };
  EXPECT_EQ(Passes(R"("")"), "weft.json: rules[0] 'r': passes[0]: empty pass name");
  EXPECT_EQ(Passes(R"("a", {"name": ""})"),
            "weft.json: rules[0] 'r': passes[1].name: empty pass name");
  EXPECT_EQ(Passes(R"({"options": {}})"), "weft.json: rules[0] 'r': passes[0]: missing 'name'");
  EXPECT_EQ(Passes(R"(3)"),
            "weft.json: rules[0] 'r': passes[0]: expected a string or an object, got a number");
  EXPECT_EQ(Passes(R"({"name": "e", "option": {}})"),
            "weft.json: rules[0] 'r': passes[0]: unknown key 'option' (expected name, options)");
  EXPECT_EQ(Passes(R"({"name": "e", "options": []})"),
            "weft.json: rules[0] 'r': passes[0].options: expected an object, got an array");
  // A list of strings is the option given once for each; anything else in it is an error.
  EXPECT_EQ(Passes(R"({"name": "e", "options": {"exclude": ["[A]*", "[B]*"]}})"), "");
  EXPECT_EQ(Passes(R"({"name": "e", "options": {"probe-type": ["X", 1]}})"),
            "weft.json: rules[0] 'r': passes[0].options.probe-type[1]: expected a string");
  EXPECT_EQ(Passes(R"({"name": "e", "options": {"k": null}})"),
            "weft.json: rules[0] 'r': passes[0].options.k: expected a string, number, "
            "boolean or list of strings, got null");
  EXPECT_EQ(Passes(R"({"name": "e", "options": {"": 1}})"),
            "weft.json: rules[0] 'r': passes[0].options: empty option name");
  EXPECT_EQ(Passes(R"({"name": "e", "options": {"k": 1, "k": 2}})"),
            "weft.json: rules[0] 'r': passes[0].options: duplicate key 'k'");
  // Pass names are the registry's business, not the parser's.
  EXPECT_EQ(Passes(R"("no-such-pass")"), "");
}

TEST(SpecParse, PassUsesKeepOptionsAsWritten) {
  Expected<Spec> S = Spec::parse(R"({
    "version": 1,
    "rules": [
      {"name": "first", "passes": ["single-ret",
        {"name": "entry-exit", "options": {"probe-type": "Probes.Hooks", "depth": 3,
                                           "ratio": 0.1, "big": 1e3, "on": true,
                                           "esc\u0061ped": "a\"b"}}]},
      {"exclude": true},
      {"passes": [{"name": "coverage"}]}
    ]})",
                                 "conf/sub/weft.json");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  std::vector<const PassUse *> Uses = S->passUses();
  ASSERT_EQ(Uses.size(), 3u);
  EXPECT_EQ(Uses[0]->key(), "single-ret");
  EXPECT_EQ(Uses[0]->Rule, "rules[0] 'first'");
  EXPECT_EQ(Uses[0]->BaseDir, "conf/sub");
  EXPECT_EQ(Uses[1]->Pass, "entry-exit");
  EXPECT_EQ(Uses[1]->key(),
            "entry-exit:probe-type=Probes.Hooks,depth=3,ratio=0.1,big=1e3,on=true,escaped=a\"b");
  ASSERT_EQ(Uses[1]->Options.size(), 6u);
  EXPECT_EQ(Uses[1]->Options[5].first, "escaped");
  EXPECT_EQ(Uses[2]->key(), "coverage");
  EXPECT_EQ(Uses[2]->Rule, "rules[2]");
  EXPECT_TRUE(Uses[2]->Options.empty());

  Expected<Spec> Here = Spec::parse(R"({"version": 1, "rules": [{"passes": ["p"]}]})", "w.json");
  ASSERT_TRUE(bool(Here));
  EXPECT_EQ(Here->passUses()[0]->BaseDir, "");
}

TEST(SpecParse, TheDocumentedExampleParses) {
  std::string Doc = test::readFile(test::sourceDir() + "/docs/spec.md");
  size_t Begin = Doc.find("```json\n{");
  ASSERT_NE(Begin, std::string::npos);
  Begin += 8;
  size_t End = Doc.find("\n```", Begin);
  ASSERT_NE(End, std::string::npos);
  Expected<Spec> S = Spec::parse(StringRef(Doc).slice(Begin, End), "docs/spec.md");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  std::vector<const PassUse *> Uses = S->passUses();
  ASSERT_EQ(Uses.size(), 2u);
  EXPECT_EQ(Uses[1]->key(), "entry-exit:probe-assembly=probes/Probes.dll,probe-type=Probes.Hooks");
  EXPECT_EQ(Uses[1]->BaseDir, "docs");
}

TEST(SpecParse, LoadNamesTheFile) {
  Expected<Spec> S = Spec::load("no-such-dir/weft.json");
  ASSERT_FALSE(bool(S));
  std::string Msg = toString(S.takeError());
  EXPECT_NE(Msg.find("no-such-dir/weft.json"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("No such file or directory"), std::string::npos) << Msg;

  std::string Dir = test::scratchDir("spec-load");
  ASSERT_TRUE(test::writeFile(Dir + "/weft.json", R"({"version": 1, "rules": [{"match": )"
                                                  R"({"type": "x"}, "passes": ["p"]}]})"));
  Expected<Spec> L = Spec::load(Dir + "/weft.json");
  ASSERT_TRUE(bool(L)) << toString(L.takeError());
  EXPECT_EQ(L->passUses()[0]->BaseDir, Dir);
  ASSERT_TRUE(test::writeFile(Dir + "/bad.json", R"({"version": 1, "rules": [{"match": )"
                                                 R"({"type": "[x"}, "passes": ["p"]}]})"));
  Expected<Spec> B = Spec::load(Dir + "/bad.json");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(toString(B.takeError()),
            Dir + "/bad.json: rules[0]: match.type: bad glob '[x': invalid glob pattern: [x");
}

TEST(SpecParse, ForPasses) {
  PassUse A{"single-ret", {}, "", ""};
  PassUse B{"entry-exit", {{"probe-type", "P.H"}}, "", "."};
  Spec S = Spec::forPasses({A, B});
  std::vector<const PassUse *> Uses = S.passUses();
  ASSERT_EQ(Uses.size(), 2u);
  EXPECT_EQ(Uses[0]->Rule, "--pass");
  EXPECT_EQ(Uses[1]->key(), "entry-exit:probe-type=P.H");
  EXPECT_EQ(Uses[1]->BaseDir, ".");
}

// --- matching on the corpus ---

TEST(SpecMatch, Accessors) {
  // Auto-property accessors (Last, Age, Country, Nickname's setter) carry [CompilerGenerated]
  // and are left out unless compilerGenerated includes them; abstract ones have no body.
  EXPECT_EQ(
      matched("Properties", R"({"type": "Person"})"),
      (Names{"Weft.Corpus.Properties.Person::.ctor", "Weft.Corpus.Properties.Person::get_First",
             "Weft.Corpus.Properties.Person::get_Initials",
             "Weft.Corpus.Properties.Person::get_IsAdult",
             "Weft.Corpus.Properties.Person::get_Kind", "Weft.Corpus.Properties.Person::get_Name",
             "Weft.Corpus.Properties.Person::get_Nickname",
             "Weft.Corpus.Properties.Person::get_Score", "Weft.Corpus.Properties.Person::set_First",
             "Weft.Corpus.Properties.Person::set_Score"}));
  EXPECT_EQ(matched("Properties", R"({"type": "Person", "accessors": "exclude"})"),
            (Names{"Weft.Corpus.Properties.Person::.ctor"}));
  EXPECT_EQ(
      matched("Properties",
              R"({"type": "Person", "accessors": "only", "compilerGenerated": "only"})"),
      (Names{"Weft.Corpus.Properties.Person::get_Age", "Weft.Corpus.Properties.Person::get_Country",
             "Weft.Corpus.Properties.Person::get_Last", "Weft.Corpus.Properties.Person::set_Age",
             "Weft.Corpus.Properties.Person::set_Country",
             "Weft.Corpus.Properties.Person::set_Last",
             "Weft.Corpus.Properties.Person::set_Nickname"}));
  // Indexers are accessors too; the lambda in this[int] is compiler-generated.
  EXPECT_EQ(
      matched("Properties", R"({"type": "Matrix", "accessors": "only"})"),
      (Names{"Weft.Corpus.Properties.Matrix::get_Item", "Weft.Corpus.Properties.Matrix::get_Item",
             "Weft.Corpus.Properties.Matrix::get_Item", "Weft.Corpus.Properties.Matrix::get_Trace",
             "Weft.Corpus.Properties.Matrix::set_Item"}));
  // Event add/remove are accessors (MethodSemantics), hand-written ones here.
  EXPECT_EQ(matched("Attributes", R"({"type": "Sample", "accessors": "only"})"),
            (Names{"Weft.Corpus.Attributes.Sample::add_Happened",
                   "Weft.Corpus.Attributes.Sample::remove_Happened"}));
}

TEST(SpecMatch, Constructors) {
  EXPECT_EQ(matched("Properties", R"({"namespace": "Weft.Corpus.*", "type": "[C-F]*",
                                      "constructors": "only"})"),
            (Names{"Weft.Corpus.Properties.CycleA::.cctor", "Weft.Corpus.Properties.CycleA::.ctor",
                   "Weft.Corpus.Properties.CycleB::.cctor", "Weft.Corpus.Properties.CycleB::.ctor",
                   "Weft.Corpus.Properties.Entity::.cctor", "Weft.Corpus.Properties.Entity::.ctor",
                   "Weft.Corpus.Properties.First::.cctor", "Weft.Corpus.Properties.First::.ctor"}));
  EXPECT_EQ(
      matched("Properties", R"({"type": "Entity", "constructors": "exclude",
                                      "compilerGenerated": "include"})"),
      (Names{"Weft.Corpus.Properties.Entity::Weft.Corpus.Properties.IHasId.get_Id",
             "Weft.Corpus.Properties.Entity::get_Created", "Weft.Corpus.Properties.Entity::get_Id",
             "Weft.Corpus.Properties.Entity::get_Kind", "Weft.Corpus.Properties.Entity::get_Prefix",
             "Weft.Corpus.Properties.Entity::set_Created",
             "Weft.Corpus.Properties.Entity::set_Prefix"}));
}

TEST(SpecMatch, VisibilityAndStatic) {
  EXPECT_EQ(matched("Properties", R"({"type": "Entity", "visibility": ["private", "family"],
                                      "compilerGenerated": "include"})"),
            (Names{"Weft.Corpus.Properties.Entity::.cctor", "Weft.Corpus.Properties.Entity::.ctor",
                   "Weft.Corpus.Properties.Entity::Weft.Corpus.Properties.IHasId.get_Id",
                   "Weft.Corpus.Properties.Entity::set_Created"}));
  EXPECT_EQ(
      matched("Properties", R"({"type": "Entity", "static": true,
                                      "compilerGenerated": "include"})"),
      (Names{"Weft.Corpus.Properties.Entity::.cctor", "Weft.Corpus.Properties.Entity::get_Created",
             "Weft.Corpus.Properties.Entity::get_Prefix",
             "Weft.Corpus.Properties.Entity::set_Created",
             "Weft.Corpus.Properties.Entity::set_Prefix"}));
  EXPECT_EQ(
      matched("Properties", R"({"type": "Entity", "static": false, "visibility": ["public"],
                                      "compilerGenerated": "include"})"),
      (Names{"Weft.Corpus.Properties.Entity::get_Id", "Weft.Corpus.Properties.Entity::get_Kind"}));
}

TEST(SpecMatch, AsyncStateMachines) {
  Names MoveNexts = matched("AsyncAwait", R"({"stateMachines": "only"})");
  // 17 async methods, 3 async lambdas and 1 async DisposeAsync, one MoveNext each.
  EXPECT_EQ(MoveNexts.size(), 21u);
  for (const std::string &N : MoveNexts)
    EXPECT_TRUE(StringRef(N).endswith("::MoveNext")) << N;
  EXPECT_EQ(matched("AsyncAwait", R"({"type": "Account*", "stateMachines": "include"})"),
            (Names{"Weft.Corpus.AsyncAwait.Account/'<DepositAsync>d__7'::MoveNext",
                   "Weft.Corpus.AsyncAwait.Account/'<TryWithdrawAsync>d__8'::MoveNext",
                   "Weft.Corpus.AsyncAwait.Account::.ctor",
                   "Weft.Corpus.AsyncAwait.Account::DepositAsync",
                   "Weft.Corpus.AsyncAwait.Account::TryWithdrawAsync",
                   "Weft.Corpus.AsyncAwait.Account::get_Balance"}));
  // By default the kick-off methods match and their state machines do not; the other members
  // of a state machine are compiler-generated whatever stateMachines says.
  EXPECT_EQ(matched("AsyncAwait", R"({"type": "Account*"})"),
            (Names{"Weft.Corpus.AsyncAwait.Account::.ctor",
                   "Weft.Corpus.AsyncAwait.Account::DepositAsync",
                   "Weft.Corpus.AsyncAwait.Account::TryWithdrawAsync",
                   "Weft.Corpus.AsyncAwait.Account::get_Balance"}));
  EXPECT_EQ(matched("AsyncAwait", R"({"type": "Account*", "compilerGenerated": "only"})"),
            (Names{"Weft.Corpus.AsyncAwait.Account/'<DepositAsync>d__7'::SetStateMachine",
                   "Weft.Corpus.AsyncAwait.Account/'<TryWithdrawAsync>d__8'::SetStateMachine",
                   "Weft.Corpus.AsyncAwait.Account::get_Name"}));
  // Iterators are state machines too.
  EXPECT_EQ(matched("Closures", R"({"stateMachines": "only"})"),
            (Names{"Weft.Corpus.Closures.Program/'<<LocalFunctions>g__Evens|6_3>d'::MoveNext"}));
}

TEST(SpecMatch, CompilerGeneratedLambdas) {
  EXPECT_EQ(
      matched("Closures", R"({"type": "Counter*"})"),
      (Names{"Weft.Corpus.Closures.Counter::.ctor", "Weft.Corpus.Closures.Counter::Incrementer",
             "Weft.Corpus.Closures.Counter::Reporter", "Weft.Corpus.Closures.Counter::Scaler",
             "Weft.Corpus.Closures.Counter::SumTo"}));
  // Display classes (nested types: "Counter*" reaches them), lambdas on `this`, local functions.
  EXPECT_EQ(matched("Closures", R"({"type": "Counter*", "compilerGenerated": "only"})"),
            (Names{"Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::<Incrementer>b__0",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::<Scaler>b__0",
                   "Weft.Corpus.Closures.Counter::<Reporter>b__4_0",
                   "Weft.Corpus.Closures.Counter::<SumTo>g__Go|6_0"}));
  EXPECT_EQ(matched("Closures", R"({"type": "Counter/*", "compilerGenerated": "include",
                                    "constructors": "exclude"})"),
            (Names{"Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::<Incrementer>b__0",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::<Scaler>b__0"}));
}

TEST(SpecMatch, ExplicitImplementationsOfGenericInterfacesAreNotCompilerGenerated) {
  // Their names contain '<' ("...IMonoid<...Concat>.get_Label") but people wrote them.
  EXPECT_EQ(matched("Generics", R"({"type": "Concat", "method": "*IMonoid*"})"),
            (Names{"Weft.Corpus.Generics.Concat::Weft.Corpus.Generics.IMonoid<Weft.Corpus."
                   "Generics.Concat>.get_Label"}));
}

TEST(SpecMatch, ParameterTypes) {
  // Generic parameters by name as weft dump prints them, or by number.
  Names Pair{"Weft.Corpus.Generics.Constrained::Eq", "Weft.Corpus.Generics.Constrained::Max"};
  EXPECT_EQ(matched("Generics", R"({"parameters": ["!!T", "!!T"]})"), Pair);
  EXPECT_EQ(matched("Generics", R"({"parameters": ["!!0", "!!0"]})"), Pair);
  EXPECT_EQ(matched("Generics", R"({"parameters": ["!TIn", "..."]})"),
            (Names{"Weft.Corpus.Generics.LoggingConverter`1::Convert",
                   "Weft.Corpus.Generics.LoggingConverter`1::Show"}));
  EXPECT_EQ(
      matched("Generics",
              R"({"parameters": ["int32", "class [System.Runtime]System.Func`2<int32,!!0>"]})"),
      (Names{"Weft.Corpus.Generics.StructConverter::Convert"}));
  EXPECT_EQ(matched("Generics", R"({"parameters": ["!!T[]", "..."]})"),
            (Names{"Weft.Corpus.Generics.Constrained::CountAbove"}));
  EXPECT_EQ(
      matched("Generics", R"({"parameters": ["*IEnumerable*"]})"),
      (Names{"Weft.Corpus.Generics.Monoids::Fold", "Weft.Corpus.Generics.TaggedVisitor`1::Count",
             "Weft.Corpus.Generics.Visitor::Count"}));
  // An empty list: no parameters at all.
  EXPECT_EQ(matched("Generics", R"({"type": "Point", "parameters": []})"),
            (Names{"Weft.Corpus.Generics.Point::Area", "Weft.Corpus.Generics.Point::ToString",
                   "Weft.Corpus.Generics.Point::get_Name"}));
  EXPECT_EQ(matched("Generics", R"({"type": "Point", "parameters": ["int32", "int32"]})"),
            (Names{"Weft.Corpus.Generics.Point::.ctor"}));
  EXPECT_EQ(matched("Generics", R"({"type": "Point", "parameters": ["int32", "..."]})"),
            (Names{"Weft.Corpus.Generics.Point::.ctor"}));
  EXPECT_EQ(matched("Generics", R"({"type": "Point", "parameters": ["..."]})").size(),
            matched("Generics", R"({"type": "Point"})").size());
}

TEST(SpecMatch, Attributes) {
  EXPECT_EQ(matched("Attributes", R"({"attributes": ["System.ObsoleteAttribute"]})"),
            (Names{"Weft.Corpus.Attributes.Sample::Method"}));
  // Every glob must match one of the method's attributes.
  EXPECT_EQ(matched("Attributes", R"({"attributes": ["*.TextAttribute", "System.Obsolete*"]})"),
            (Names{"Weft.Corpus.Attributes.Sample::Method"}));
  EXPECT_EQ(matched("Attributes", R"({"attributes": ["*.TextAttribute", "*.MarkerAttribute"]})"),
            Names{});
  // The auto-property's accessors carry [Marker] and [CompilerGenerated].
  EXPECT_EQ(
      matched("Attributes", R"({"attributes": ["*.MarkerAttribute"]})"),
      (Names{"Weft.Corpus.Attributes.Sample::.ctor", "Weft.Corpus.Attributes.Sample::add_Happened",
             "Weft.Corpus.Attributes.Sample::remove_Happened"}));
  EXPECT_EQ(
      matched("Attributes",
              R"({"attributes": ["*.MarkerAttribute"], "compilerGenerated": "include"})"),
      (Names{"Weft.Corpus.Attributes.Sample::.ctor", "Weft.Corpus.Attributes.Sample::add_Happened",
             "Weft.Corpus.Attributes.Sample::get_Property",
             "Weft.Corpus.Attributes.Sample::remove_Happened",
             "Weft.Corpus.Attributes.Sample::set_Property"}));
  // Type attributes, a generic one named by its definition, one from the framework.
  Names SampleMethods{"Weft.Corpus.Attributes.Sample::.cctor",
                      "Weft.Corpus.Attributes.Sample::.ctor",
                      "Weft.Corpus.Attributes.Sample::Generic",
                      "Weft.Corpus.Attributes.Sample::Method",
                      "Weft.Corpus.Attributes.Sample::add_Happened",
                      "Weft.Corpus.Attributes.Sample::remove_Happened"};
  EXPECT_EQ(matched("Attributes", R"({"typeAttributes": ["Weft.Corpus.Attributes.TypedAttribute`1",
                                       "System.ComponentModel.DescriptionAttribute"]})"),
            SampleMethods);
  EXPECT_EQ(matched("Attributes", R"({"typeAttributes": ["*.MarkerAttribute"]})"),
            (Names{"Weft.Corpus.Attributes.Sample/Nested::.ctor"}));
}

TEST(SpecMatch, AssemblyAndNamespace) {
  EXPECT_EQ(matched("Closures", R"({"assembly": "Gen*"})"), Names{});
  EXPECT_EQ(matched("Closures", R"({"assembly": "Clo*", "type": "Counter"})").size(), 5u);
  EXPECT_EQ(matched("Closures", R"({"namespace": "Weft.Corpus.Other"})"), Names{});
  // Nested types are in their outermost type's namespace.
  EXPECT_EQ(matched("Closures", R"({"namespace": "Weft.Corpus.Closures", "type": "Counter/*",
                                    "compilerGenerated": "only", "method": "<*"})"),
            (Names{"Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::<Incrementer>b__0",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::<Scaler>b__0"}));
}

TEST(SpecMatch, UsesAreMergedInSpecOrder) {
  const Module &M = corpus("Properties");
  Spec S = parsed(R"({"version": 1, "rules": [
    {"name": "person", "match": {"type": "Person"}, "passes": ["b", "a"]},
    {"name": "nothing", "match": {"type": "NoSuchType"}, "passes": ["z"]},
    {"name": "matrix", "match": {"type": "Matrix"},
     "passes": ["a", {"name": "c", "options": {"k": 1}}]},
    {"name": "p-types", "match": {"type": "P*"},
     "passes": [{"name": "a"}, {"name": "c", "options": {"k": 1}}]},
    {"name": "trace", "match": {"type": "Matrix", "method": "get_Trace"}, "passes": ["b"]},
    {"name": "no names", "match": {"method": "get_Name"}, "exclude": true}
  ]})");
  Selection Sel = selected(S, M);
  ASSERT_EQ(Sel.Uses.size(), 3u); // "z" applies to no method
  EXPECT_EQ(Sel.Uses[0].key(), "b");
  EXPECT_EQ(Sel.Uses[0].Rule, "rules[0] 'person'");
  EXPECT_EQ(Sel.Uses[1].key(), "a");
  EXPECT_EQ(Sel.Uses[2].key(), "c:k=1");
  EXPECT_EQ(Sel.Uses[2].Rule, "rules[2] 'matrix'");

  std::map<std::string, std::vector<uint16_t>> ByName;
  for (uint32_t R = 1; R <= Sel.methodCount(); ++R) {
    std::string N = methodName(M, R);
    EXPECT_TRUE(std::is_sorted(Sel.passesOf(R).begin(), Sel.passesOf(R).end())) << N;
    ByName[N].assign(Sel.passesOf(R).begin(), Sel.passesOf(R).end());
  }
  using L = std::vector<uint16_t>;
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Person::get_First"], (L{0, 1, 2}));
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Person::get_Name"], L{});
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Matrix::get_Trace"], (L{0, 1, 2}));
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Matrix::.ctor"], (L{1, 2}));
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Precise::Touch"], (L{1, 2}));
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Settings::get_Count"], L{});
  // Abstract: no body, no passes.
  EXPECT_EQ(ByName["Weft.Corpus.Properties.Entity::get_Name"], L{});
}

TEST(SpecMatch, ExcludeRulesWinWhateverTheOrder) {
  Names Got = matched("Properties", R"({"type": "Person"})");
  const Module &M = corpus("Properties");
  Spec S = parsed(R"({"version": 1, "rules": [
    {"match": {"method": "get_*"}, "exclude": true},
    {"match": {"type": "Person"}, "passes": ["p"]},
    {"match": {"type": "Person", "constructors": "only"}, "exclude": true}
  ]})");
  EXPECT_EQ(matched(selected(S, M), M), (Names{"Weft.Corpus.Properties.Person::set_First",
                                               "Weft.Corpus.Properties.Person::set_Score"}));
}

TEST(SpecMatch, ExcludeRulesTakeOutCompilerGeneratedCodeByDefault) {
  const Module &M = corpus("Closures");
  std::string Include = R"({"match": {"type": "Counter*", "compilerGenerated": "include"},
                            "passes": ["p"]})";
  // Counter's own lambda and local function go with Counter; its display classes are other types.
  EXPECT_EQ(matched(selected(parsed(R"({"version": 1, "rules": [)" + Include +
                                    R"(, {"match": {"type": "Counter"}, "exclude": true}]})"),
                             M),
                    M),
            (Names{"Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::<Incrementer>b__0",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::<Scaler>b__0"}));
  EXPECT_EQ(matched(selected(parsed(R"({"version": 1, "rules": [)" + Include +
                                    R"(, {"match": {"type": "Counter", "compilerGenerated":
                                        "exclude"}, "exclude": true}]})"),
                             M),
                    M),
            (Names{"Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass3_0'::<Incrementer>b__0",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::.ctor",
                   "Weft.Corpus.Closures.Counter/'<>c__DisplayClass5_0'::<Scaler>b__0",
                   "Weft.Corpus.Closures.Counter::<Reporter>b__4_0",
                   "Weft.Corpus.Closures.Counter::<SumTo>g__Go|6_0"}));
}

TEST(SpecMatch, ForPassesMatchesEveryMethodWithABody) {
  const Module &M = corpus("AsyncAwait");
  Selection Sel = selected(Spec::forPasses({PassUse{"p", {}, "", ""}}), M);
  size_t WithBody = 0, Matched = 0;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    bool Body = M.get(TableId::MethodDef, R, MethodDefCol::RVA) != 0;
    WithBody += Body;
    Matched += !Sel.passesOf(R).empty();
    EXPECT_EQ(!Sel.passesOf(R).empty(), Body) << methodName(M, R);
  }
  EXPECT_EQ(WithBody, Matched);
  EXPECT_GT(Matched, 50u);
  ASSERT_EQ(Sel.Uses.size(), 1u);
  EXPECT_EQ(Sel.Uses[0].Rule, "--pass");
}

// --- System.Private.CoreLib ---

TEST(SpecCoreLib, SelectIsQuickAndCountsAreSensible) {
  const Module &M = *test::frameworkAssembly("System.Private.CoreLib.dll").Module;
  uint32_t Methods = M.rowCount(TableId::MethodDef);
  size_t WithBody = 0;
  for (uint32_t R = 1; R <= Methods; ++R)
    WithBody += M.get(TableId::MethodDef, R, MethodDefCol::RVA) != 0 &&
                (M.get(TableId::MethodDef, R, MethodDefCol::ImplFlags) & 3) == 0;
  ASSERT_GT(WithBody, 20000u);

  Selection All = selected(Spec::forPasses({PassUse{"p", {}, "", ""}}), M);
  size_t Count = 0;
  for (uint32_t R = 1; R <= All.methodCount(); ++R)
    Count += !All.passesOf(R).empty();
  EXPECT_EQ(Count, WithBody);

  Spec S = parsed(R"({"version": 1, "rules": [
    {"name": "concat", "match": {"namespace": "System", "type": "String", "method": "Concat",
                                 "parameters": ["string", "string"]}, "passes": ["concat"]},
    {"name": "public api", "match": {"namespace": "System.Collections*", "visibility": ["public"]},
     "passes": ["entry-exit"]},
    {"name": "state machines", "match": {"stateMachines": "only"}, "passes": ["sm"]},
    {"name": "obsolete", "match": {"attributes": ["System.ObsoleteAttribute"]},
     "passes": ["obsolete"]},
    {"name": "lambdas", "match": {"compilerGenerated": "only", "method": "<*"},
     "passes": ["lambdas"]},
    {"name": "not debug", "match": {"namespace": "System.Diagnostics*"}, "exclude": true}
  ]})");
  auto Start = std::chrono::steady_clock::now();
  Selection Sel = selected(S, M);
  double Ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  std::printf("select() on System.Private.CoreLib (%u methods): %.1f ms\n", Methods, Ms);
  // Generous: a few milliseconds in an optimised build, more under sanitizers or debug.
  EXPECT_LT(Ms, 2000.0);

  ASSERT_EQ(Sel.Uses.size(), 5u);
  std::map<std::string, size_t> PerUse;
  std::map<std::string, std::vector<std::string>> Examples;
  for (uint32_t R = 1; R <= Sel.methodCount(); ++R)
    for (uint16_t U : Sel.passesOf(R)) {
      ++PerUse[Sel.Uses[U].Pass];
      if (Examples[Sel.Uses[U].Pass].size() < 5000)
        Examples[Sel.Uses[U].Pass].push_back(methodName(M, R));
    }
  EXPECT_EQ(Examples["concat"], (std::vector<std::string>{"System.String::Concat"}));
  EXPECT_GT(PerUse["entry-exit"], 500u);
  EXPECT_GT(PerUse["sm"], 50u);
  for (const std::string &N : Examples["sm"])
    EXPECT_TRUE(StringRef(N).endswith("::MoveNext")) << N;
  EXPECT_GT(PerUse["obsolete"], 10u);
  EXPECT_GT(PerUse["lambdas"], 100u);
  for (const std::string &N : Examples["lambdas"])
    EXPECT_TRUE(StringRef(N).contains("::<")) << N;
  for (const auto &[Pass, List] : Examples)
    for (const std::string &N : List)
      EXPECT_FALSE(StringRef(N).startswith("System.Diagnostics")) << Pass << ' ' << N;
}

TEST(SpecCoreLib, ParameterMatchesAgreeWithTheSignatures) {
  // The costliest key on its own, checked against the decoded signatures.
  const Module &M = *test::frameworkAssembly("System.Private.CoreLib.dll").Module;
  Spec S = parsed(R"({"version": 1, "rules": [
    {"match": {"parameters": ["string", "int32", "..."], "compilerGenerated": "include",
               "stateMachines": "include"}, "passes": ["p"]}]})");
  auto Start = std::chrono::steady_clock::now();
  Selection Sel = selected(S, M);
  double Ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  std::printf("select() with only a parameters rule: %.1f ms\n", Ms);
  EXPECT_LT(Ms, 2000.0);
  size_t Wanted = 0, Got = 0;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    auto Sig = methodDefSig(M, R);
    ASSERT_TRUE(bool(Sig)) << toString(Sig.takeError());
    bool Want = M.get(TableId::MethodDef, R, MethodDefCol::RVA) != 0 && Sig->Params.size() >= 2 &&
                Sig->Params[0].Kind == ElementType::String &&
                Sig->Params[1].Kind == ElementType::I4;
    Wanted += Want;
    Got += !Sel.passesOf(R).empty();
    EXPECT_EQ(!Sel.passesOf(R).empty(), Want) << methodName(M, R);
  }
  EXPECT_EQ(Got, Wanted);
  EXPECT_GT(Got, 100u);
}

} // namespace
