//===- weaving/spec/Spec.cpp - Reading spec files -------------------------===//
//
// llvm::json checks the syntax and gives typed values, but its objects are hash maps: the order
// in which keys were written is lost, and so is the text of numbers. A second walk over the
// (by then known to be valid) text records both, so that pass options keep their order and
// their numbers read as written, and unknown keys are reported in the order they appear.
//
//===----------------------------------------------------------------------===//
#include "weaving/spec/Spec.h"

#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace weft::spec {

std::string PassUse::key() const {
  std::string K = Pass;
  for (size_t I = 0; I < Options.size(); ++I) {
    K += I ? ',' : ':';
    K += Options[I].first;
    K += '=';
    K += Options[I].second;
  }
  return K;
}

Spec::Spec() = default;
Spec::Spec(Spec &&) = default;
Spec &Spec::operator=(Spec &&) = default;
Spec::~Spec() = default;

std::vector<const PassUse *> Spec::passUses() const {
  std::vector<const PassUse *> Out;
  for (const Rule &R : Rules)
    for (const PassUse &U : R.Passes)
      Out.push_back(&U);
  return Out;
}

bool Spec::namesAssemblies() const {
  return llvm::any_of(Rules, [](const Rule &R) { return R.Assembly.has_value(); });
}

Spec Spec::forPasses(std::vector<PassUse> Passes) {
  Rule R;
  R.Label = "--pass";
  R.CompilerGenerated = R.Constructors = R.Accessors = R.StateMachines = Mode::Include;
  for (PassUse &U : Passes)
    if (U.Rule.empty())
      U.Rule = R.Label;
  R.Passes = std::move(Passes);
  Spec S;
  S.Rules.push_back(std::move(R));
  return S;
}

Expected<PassUse> parsePassUse(StringRef Text) {
  PassUse U;
  auto [Name, Rest] = Text.split(':');
  U.Pass = Name.trim().str();
  U.Rule = "--pass " + Text.str();
  if (U.Pass.empty())
    return createStringError(inconvertibleErrorCode(), "--pass '" + Text + "': no pass name");
  SmallVector<StringRef, 4> Items;
  if (!Rest.empty())
    Rest.split(Items, ',');
  for (StringRef Item : Items) {
    auto [K, V] = Item.split('=');
    if (K.trim().empty() || !Item.contains('='))
      return createStringError(inconvertibleErrorCode(), "--pass '" + Text + "': option '" + Item +
                                                             "' is not of the form key=value");
    U.Options.emplace_back(K.trim().str(), V.trim().str());
  }
  return U;
}

Expected<std::vector<PassUse>> parsePassList(StringRef Text) {
  SmallVector<StringRef, 4> Items;
  Text.split(Items, ';', -1, /*KeepEmpty=*/false);
  std::vector<PassUse> Out;
  for (StringRef Item : Items) {
    if (Item.trim().empty())
      continue;
    Expected<PassUse> U = parsePassUse(Item.trim());
    if (!U)
      return U.takeError();
    Out.push_back(std::move(*U));
  }
  return Out;
}

namespace {

/// The source text of a JSON value and, for objects and arrays, of its members in the order
/// written.
struct Shape {
  StringRef Text;
  std::vector<std::pair<std::string, Shape>> Members; // objects
  std::vector<Shape> Items;                           // arrays
};

/// Walks text that json::parse accepted, so it can skip what it does not record without
/// checking it again.
class ShapeScanner {
public:
  explicit ShapeScanner(StringRef T) : T(T) {}

  Shape value() {
    space();
    Shape S;
    size_t Begin = P;
    if (P < T.size() && T[P] == '{') {
      ++P;
      while (more('}')) {
        size_t KeyBegin = P;
        skipString();
        std::string Key = decodeKey(T.slice(KeyBegin, P));
        space();
        ++P; // ':'
        S.Members.emplace_back(std::move(Key), value());
      }
    } else if (P < T.size() && T[P] == '[') {
      ++P;
      while (more(']'))
        S.Items.push_back(value());
    } else if (P < T.size() && T[P] == '"') {
      skipString();
    } else {
      while (P < T.size() && !StringRef(",:]} \t\r\n").contains(T[P]))
        ++P;
    }
    S.Text = T.slice(Begin, P);
    return S;
  }

private:
  void space() {
    while (P < T.size() && StringRef(" \t\r\n").contains(T[P]))
      ++P;
  }
  /// Steps over the separator before the next member or item; false (and past \p Close) at the
  /// end of the object or array.
  bool more(char Close) {
    space();
    if (P < T.size() && T[P] == ',') {
      ++P;
      space();
    }
    if (P >= T.size())
      return false;
    if (T[P] == Close) {
      ++P;
      return false;
    }
    return true;
  }
  void skipString() {
    ++P; // '"'
    while (P < T.size() && T[P] != '"')
      P += T[P] == '\\' ? 2 : 1;
    P = std::min(P + 1, T.size());
  }
  static std::string decodeKey(StringRef Quoted) {
    if (!Quoted.contains('\\'))
      return Quoted.drop_front().drop_back().str();
    Expected<json::Value> V = json::parse(Quoted);
    if (!V) {
      consumeError(V.takeError());
      return Quoted.str();
    }
    return V->getAsString().getValueOr("").str();
  }

  StringRef T;
  size_t P = 0;
};

/// A JSON value together with its shape.
struct Node {
  const json::Value *V = nullptr;
  const Shape *S = nullptr;
  explicit operator bool() const { return V; }
};

const char *kindName(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null: return "null";
  case json::Value::Boolean: return "a boolean";
  case json::Value::Number: return "a number";
  case json::Value::String: return "a string";
  case json::Value::Array: return "an array";
  case json::Value::Object: return "an object";
  }
  return "a value";
}

/// Turns "[3:7, byte=45]: Expected , or ]" into "line 3, column 7: Expected , or ]".
std::string syntaxMessage(StringRef Logged) {
  StringRef Line, Column, Rest = Logged;
  if (Rest.consume_front("[")) {
    std::tie(Line, Rest) = Rest.split(':');
    std::tie(Column, Rest) = Rest.split(',');
    Rest = Rest.split(':').second.ltrim();
    if (!Line.empty() && !Column.empty() && all_of(Line, isDigit) && all_of(Column, isDigit))
      return ("line " + Line + ", column " + Column + ": " + Rest).str();
  }
  return Logged.str();
}

/// How deep arrays and objects may nest. llvm::json::parse and the ShapeScanner recurse once per
/// level: a file of a few hundred thousand '[' would overflow the stack. A spec needs six.
constexpr unsigned MaxNesting = 64;

/// Whether arrays and objects nest deeper than MaxNesting in \p Text (valid JSON or not), looked
/// at without recursion before the text is parsed.
bool nestsTooDeep(StringRef Text) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxNesting)
        return true;
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return false;
}

const std::pair<StringRef, unsigned> VisibilityWords[] = {
    {"compilercontrolled", 0}, {"private", 1}, {"famandassem", 2}, {"assembly", 3}, {"family", 4},
    {"famorassem", 5},         {"public", 6},
};

class Parser {
public:
  explicit Parser(StringRef Path) : Path(Path), BaseDir(sys::path::parent_path(Path).str()) {}

  /// The plugins the last parse read.
  std::vector<PluginUse> Plugins;

  Expected<std::vector<Rule>> parse(StringRef Text) {
    Text.consume_front("\xEF\xBB\xBF"); // a UTF-8 byte order mark, as some editors write
    if (nestsTooDeep(Text))
      return fail("", "arrays and objects nest more than " + Twine(MaxNesting) + " levels deep");
    Expected<json::Value> Root = json::parse(Text);
    if (!Root)
      return fail("", "invalid JSON: " + syntaxMessage(toString(Root.takeError())));
    Shape RootShape = ShapeScanner(Text).value();
    Node N{&*Root, &RootShape};
    if (Error E = expectObject(N, "", {"$schema", "version", "plugins", "rules", "tracepoints"}))
      return std::move(E);

    if (Node Schema = member(N, "$schema"); Schema && !Schema.V->getAsString())
      return wrongType(Schema, "$schema", "a string");
    Node Version = member(N, "version");
    if (!Version)
      return fail("version", "missing (this weft reads version 1)");
    if (Version.V->kind() != json::Value::Number)
      return wrongType(Version, "version", "a number");
    if (Version.V->getAsInteger() != Optional<int64_t>(1))
      return fail("version", "unsupported version " + Version.S->Text + " (this weft reads 1)");

    if (Node P = member(N, "plugins"))
      if (Error E = parsePlugins(P))
        return std::move(E);
    Node Rules = member(N, "rules");
    if (!Rules)
      return fail("rules", "missing");
    if (!Rules.V->getAsArray())
      return wrongType(Rules, "rules", "an array");
    std::vector<Rule> Out;
    for (size_t I = 0, E = items(Rules); I != E; ++I) {
      Expected<Rule> R = parseRule(item(Rules, I), I);
      if (!R)
        return R.takeError();
      Out.push_back(std::move(*R));
    }
    if (Node T = member(N, "tracepoints"))
      if (Error E = parseTracepoints(T))
        return std::move(E);
    // The tracepoints that ask to be spans too: rules of their own, after the others.
    for (Rule &R : SpanRules)
      Out.push_back(std::move(R));
    return std::move(Out);
  }

  std::vector<Tracepoint> Tracepoints;
  std::vector<Rule> SpanRules;

private:
  Error fail(const Twine &Where, const Twine &What) const {
    std::string W = Where.str();
    std::string Msg = W.empty() ? What.str() : W + ": " + What.str();
    return plainError(Path.empty() ? Msg : Path.str() + ": " + Msg);
  }
  Error wrongType(Node N, const Twine &Where, StringRef Expected) const {
    return fail(Where, "expected " + Expected + ", got " + kindName(*N.V));
  }

  static Node member(Node N, StringRef Key) {
    const json::Object *O = N.V->getAsObject();
    const json::Value *V = O ? O->get(Key) : nullptr;
    if (!V)
      return {};
    for (const auto &M : N.S->Members)
      if (M.first == Key)
        return {V, &M.second};
    static const Shape None;
    return {V, &None};
  }
  static size_t items(Node N) { return N.V->getAsArray()->size(); }
  static Node item(Node N, size_t I) {
    static const Shape None;
    return {&(*N.V->getAsArray())[I], I < N.S->Items.size() ? &N.S->Items[I] : &None};
  }

  /// Checks that \p N is an object whose keys are all in \p Known and appear once.
  Error expectObject(Node N, const Twine &Where, ArrayRef<StringRef> Known) const {
    if (!N.V->getAsObject())
      return wrongType(N, Where, "an object");
    for (size_t I = 0; I < N.S->Members.size(); ++I) {
      StringRef Key = N.S->Members[I].first;
      if (!Known.empty() && !is_contained(Known, Key))
        return fail(Where, "unknown key '" + Key + "' (expected " + join(Known, ", ") + ")");
      for (size_t J = 0; J < I; ++J)
        if (N.S->Members[J].first == Key)
          return fail(Where, "duplicate key '" + Key + "'");
    }
    return Error::success();
  }

  static std::string sub(const Twine &Where, const Twine &Key) {
    std::string W = Where.str();
    return W.empty() ? Key.str() : W + ": " + Key.str();
  }

  Expected<Glob> makeGlob(StringRef Pattern, const Twine &Where, bool OnlyStars) const {
    auto Text = std::make_unique<std::string>();
    if (OnlyStars) {
      // Type names are full of brackets (`[System.Runtime]`, `int32[]`): only `*` and `?` are
      // wildcards in parameter patterns.
      for (char C : Pattern) {
        if (C == '[' || C == ']' || C == '\\')
          Text->push_back('\\');
        Text->push_back(C);
      }
    } else {
      *Text = Pattern.str();
    }
    Expected<GlobPattern> P = GlobPattern::create(*Text);
    if (!P)
      return fail(Where, "bad glob '" + Pattern + "': " + toString(P.takeError()));
    return Glob{std::move(Text), std::move(*P)};
  }

  Error optionalGlob(Node Parent, StringRef Key, const Twine &Where,
                     std::optional<Glob> &Out) const {
    Node N = member(Parent, Key);
    if (!N)
      return Error::success();
    std::string At = sub(Where, "match." + Key);
    Optional<StringRef> S = N.V->getAsString();
    if (!S)
      return wrongType(N, At, "a string");
    Expected<Glob> G = makeGlob(*S, At, false);
    if (!G)
      return G.takeError();
    // "*" matches everything: skip the work.
    if (!G->Pattern.isTrivialMatchAll())
      Out = std::move(*G);
    return Error::success();
  }

  Error globList(Node Parent, StringRef Key, const Twine &Where, std::vector<Glob> &Out) const {
    Node N = member(Parent, Key);
    if (!N)
      return Error::success();
    std::string At = sub(Where, "match." + Key);
    if (!N.V->getAsArray())
      return wrongType(N, At, "an array of strings");
    for (size_t I = 0, E = items(N); I != E; ++I) {
      Node Item = item(N, I);
      std::string ItemAt = At + "[" + std::to_string(I) + "]";
      Optional<StringRef> S = Item.V->getAsString();
      if (!S)
        return wrongType(Item, ItemAt, "a string");
      Expected<Glob> G = makeGlob(*S, ItemAt, false);
      if (!G)
        return G.takeError();
      Out.push_back(std::move(*G));
    }
    return Error::success();
  }

  Error mode(Node Parent, StringRef Key, const Twine &Where, Mode &Out) const {
    Node N = member(Parent, Key);
    if (!N)
      return Error::success();
    std::string At = sub(Where, "match." + Key);
    Optional<StringRef> S = N.V->getAsString();
    if (!S)
      return wrongType(N, At, "a string");
    if (*S == "include")
      Out = Mode::Include;
    else if (*S == "exclude")
      Out = Mode::Exclude;
    else if (*S == "only")
      Out = Mode::Only;
    else
      return fail(At, "unknown value '" + *S + "' (expected include, exclude or only)");
    return Error::success();
  }

  Error parseMatch(Node N, const std::string &Label, Rule &R) const {
    static const StringRef Keys[] = {
        "assembly",     "namespace",      "type",         "method", "parameters",
        "attributes",   "typeAttributes", "visibility",   "static", "compilerGenerated",
        "constructors", "accessors",      "stateMachines"};
    if (Error E = expectObject(N, sub(Label, "match"), Keys))
      return E;
    if (Error E = optionalGlob(N, "assembly", Label, R.Assembly))
      return E;
    if (Error E = optionalGlob(N, "namespace", Label, R.Namespace))
      return E;
    if (Error E = optionalGlob(N, "type", Label, R.Type))
      return E;
    if (Error E = optionalGlob(N, "method", Label, R.Method))
      return E;

    if (Node P = member(N, "parameters")) {
      std::string At = sub(Label, "match.parameters");
      if (!P.V->getAsArray())
        return wrongType(P, At, "an array of strings");
      R.HasParameters = true;
      for (size_t I = 0, E = items(P); I != E; ++I) {
        Node Item = item(P, I);
        std::string ItemAt = At + "[" + std::to_string(I) + "]";
        Optional<StringRef> S = Item.V->getAsString();
        if (!S)
          return wrongType(Item, ItemAt, "a string");
        if (*S == "...") {
          if (I + 1 != E)
            return fail(ItemAt, "'...' may only be the last entry");
          R.AnyRest = true;
          break;
        }
        Expected<Glob> G = makeGlob(*S, ItemAt, true);
        if (!G)
          return G.takeError();
        R.Parameters.push_back(std::move(*G));
      }
    }

    if (Error E = globList(N, "attributes", Label, R.Attributes))
      return E;
    if (Error E = globList(N, "typeAttributes", Label, R.TypeAttributes))
      return E;

    if (Node V = member(N, "visibility")) {
      std::string At = sub(Label, "match.visibility");
      if (!V.V->getAsArray())
        return wrongType(V, At, "an array of strings");
      R.Visibility = 0;
      for (size_t I = 0, E = items(V); I != E; ++I) {
        Node Item = item(V, I);
        std::string ItemAt = At + "[" + std::to_string(I) + "]";
        Optional<StringRef> S = Item.V->getAsString();
        if (!S)
          return wrongType(Item, ItemAt, "a string");
        const auto *W = find_if(VisibilityWords, [&](const auto &P) { return P.first == *S; });
        if (W == std::end(VisibilityWords))
          return fail(ItemAt, "unknown visibility '" + *S +
                                  "' (expected public, family, assembly, private, famorassem, "
                                  "famandassem or compilercontrolled)");
        R.Visibility |= uint8_t(1u << W->second);
      }
      if (!R.Visibility)
        return fail(At, "empty (no method would match)");
    }

    if (Node S = member(N, "static")) {
      Optional<bool> B = S.V->getAsBoolean();
      if (!B)
        return wrongType(S, sub(Label, "match.static"), "a boolean");
      R.Static = *B;
    }

    if (Error E = mode(N, "compilerGenerated", Label, R.CompilerGenerated))
      return E;
    if (Error E = mode(N, "constructors", Label, R.Constructors))
      return E;
    if (Error E = mode(N, "accessors", Label, R.Accessors))
      return E;
    return mode(N, "stateMachines", Label, R.StateMachines);
  }

  Expected<PassUse> parsePass(Node N, const std::string &At, const std::string &Label) const {
    PassUse U;
    U.Rule = Label;
    U.BaseDir = BaseDir;
    if (Optional<StringRef> S = N.V->getAsString()) {
      if (S->empty())
        return fail(At, "empty pass name");
      U.Pass = S->str();
      return std::move(U);
    }
    if (!N.V->getAsObject())
      return wrongType(N, At, "a string or an object");
    if (Error E = expectObject(N, At, {"name", "options"}))
      return std::move(E);
    Node Name = member(N, "name");
    if (!Name)
      return fail(At, "missing 'name'");
    Optional<StringRef> S = Name.V->getAsString();
    if (!S)
      return wrongType(Name, At + ".name", "a string");
    if (S->empty())
      return fail(At + ".name", "empty pass name");
    U.Pass = S->str();
    if (Node Options = member(N, "options")) {
      std::string OptAt = At + ".options";
      if (Error E = expectObject(Options, OptAt, {}))
        return std::move(E);
      for (const auto &[Key, Sh] : Options.S->Members) {
        if (Key.empty())
          return fail(OptAt, "empty option name");
        const json::Value &V = *Options.V->getAsObject()->get(Key);
        // A list of strings gives the option once for each (coverage's filters).
        if (const json::Array *List = V.getAsArray()) {
          for (size_t I = 0; I < List->size(); ++I) {
            Optional<StringRef> Str = (*List)[I].getAsString();
            if (!Str)
              return fail(OptAt + "." + Key + "[" + std::to_string(I) + "]", "expected a string");
            U.Options.emplace_back(Key, Str->str());
          }
          continue;
        }
        std::string Value;
        if (Optional<StringRef> Str = V.getAsString())
          Value = Str->str();
        else if (V.kind() == json::Value::Number || V.kind() == json::Value::Boolean)
          Value = Sh.Text.str(); // as written: 0.1 stays 0.1
        else
          return wrongType({&V, &Sh}, OptAt + "." + Key,
                           "a string, number, boolean or list of strings");
        U.Options.emplace_back(Key, std::move(Value));
      }
    }
    return std::move(U);
  }

  /// "plugins": [ "x.so" | {"path": "x.so", "priority": N}, ... ].
  Error parsePlugins(Node N) {
    if (!N.V->getAsArray())
      return wrongType(N, "plugins", "an array");
    for (size_t I = 0, E = items(N); I != E; ++I) {
      Node P = item(N, I);
      std::string At = "plugins[" + std::to_string(I) + "]";
      PluginUse U;
      Node PathNode = P;
      if (P.V->getAsObject()) {
        if (Error Err = expectObject(P, At, {"path", "priority"}))
          return Err;
        PathNode = member(P, "path");
        if (!PathNode)
          return fail(At, "missing path");
        if (Node Pr = member(P, "priority")) {
          Optional<int64_t> V = Pr.V->getAsInteger();
          if (!V)
            return wrongType(Pr, At + ": priority", "an integer");
          U.Priority = *V;
        }
      }
      Optional<StringRef> S = PathNode.V->getAsString();
      if (!S || S->empty())
        return wrongType(PathNode, At, "a plugin's path or an object with a path");
      SmallString<256> Full(*S);
      if (sys::path::is_relative(Full) && !BaseDir.empty())
        Full = (BaseDir + "/" + *S).str();
      U.Path = std::string(Full);
      Plugins.push_back(std::move(U));
    }
    std::stable_sort(Plugins.begin(), Plugins.end(), [](const PluginUse &A, const PluginUse &B) {
      return A.Priority < B.Priority;
    });
    return Error::success();
  }

  /// "tracepoints": [{"name": "...", "match": {...}, "enabled": bool, "depth": N}, ...].
  Error parseTracepoints(Node N) {
    if (!N.V->getAsArray())
      return wrongType(N, "tracepoints", "an array");
    for (size_t I = 0, E = items(N); I != E; ++I) {
      Node T = item(N, I);
      Tracepoint Out;
      Out.Match.Label = "tracepoints[" + std::to_string(I) + "]";
      if (Error Err =
              expectObject(T, Out.Match.Label, {"name", "match", "enabled", "depth", "span"}))
        return Err;
      Node Name = member(T, "name");
      Optional<StringRef> S = Name ? Name.V->getAsString() : None;
      if (!Name)
        return fail(Out.Match.Label, "missing name (a tracepoint is added, changed and removed "
                                     "by its name)");
      if (!S || S->empty())
        return wrongType(Name, Out.Match.Label + ": name", "a non-empty string");
      Out.Name = S->str();
      Out.Match.Label += " '" + Out.Name + "'";
      for (const Tracepoint &Before : Tracepoints)
        if (Before.Name == Out.Name)
          return fail(Out.Match.Label, "the name is used by " + Before.Match.Label + " too");
      if (Node Match = member(T, "match"))
        if (Error Err = parseMatch(Match, Out.Match.Label, Out.Match))
          return Err;
      if (Node En = member(T, "enabled")) {
        Optional<bool> B = En.V->getAsBoolean();
        Optional<StringRef> Word = En.V->getAsString();
        if (!B && Word != StringRef("session"))
          return wrongType(En, Out.Match.Label + ": enabled", "a boolean or \"session\"");
        Out.Enabled = B.getValueOr(false);
        Out.FollowsSession = !B;
      }
      if (Node D = member(T, "depth")) {
        Optional<int64_t> V = D.V->getAsInteger();
        if (!V || *V < 0 || *V > 8)
          return wrongType(D, Out.Match.Label + ": depth", "an integer from 0 to 8");
        Out.Depth = unsigned(*V);
      }
      // "span": true: the methods run in spans too, every argument an attribute written to
      // the tracepoint's depth (a rule applying the span pass, as the spec is read: at run
      // time, a span tracepoint added by an edit records calls but makes no spans).
      if (Node Sp = member(T, "span")) {
        Optional<bool> B = Sp.V->getAsBoolean();
        if (!B)
          return wrongType(Sp, Out.Match.Label + ": span", "a boolean");
        if (*B) {
          Rule R = Out.Match;
          PassUse U;
          U.Pass = "span";
          U.Options = {{"arguments", "*"}, {"depth", std::to_string(Out.Depth)}};
          U.Rule = Out.Match.Label;
          U.BaseDir = BaseDir;
          R.Passes = {std::move(U)};
          SpanRules.push_back(std::move(R));
        }
      }
      // Matched as a rule naming one pass use of its own, distinct by the tracepoint's name.
      PassUse U;
      U.Pass = "tracepoint";
      U.Options = {{"name", Out.Name}};
      U.Rule = Out.Match.Label;
      U.BaseDir = BaseDir;
      Out.Match.Passes.push_back(std::move(U));
      Tracepoints.push_back(std::move(Out));
    }
    return Error::success();
  }

  Expected<Rule> parseRule(Node N, size_t Index) const {
    Rule R;
    R.Label = "rules[" + std::to_string(Index) + "]";
    if (!N.V->getAsObject())
      return wrongType(N, R.Label, "an object");
    if (Node Name = member(N, "name")) {
      Optional<StringRef> S = Name.V->getAsString();
      if (!S)
        return wrongType(Name, R.Label + ": name", "a string");
      R.Label += " '" + S->str() + "'";
    }
    if (Error E = expectObject(N, R.Label, {"name", "match", "exclude", "passes"}))
      return std::move(E);
    if (Node X = member(N, "exclude")) {
      Optional<bool> B = X.V->getAsBoolean();
      if (!B)
        return wrongType(X, R.Label + ": exclude", "a boolean");
      R.Exclude = *B;
    }
    // An exclude rule takes out everything its globs name, lambdas and state machines included,
    // unless it says otherwise.
    if (R.Exclude)
      R.CompilerGenerated = R.StateMachines = Mode::Include;
    if (Node Match = member(N, "match"))
      if (Error E = parseMatch(Match, R.Label, R))
        return std::move(E);

    Node Passes = member(N, "passes");
    std::string At = R.Label + ": passes";
    if (R.Exclude) {
      if (Passes)
        return fail(At, "an exclude rule applies no passes");
      return std::move(R);
    }
    if (!Passes)
      return fail(At, "missing (every rule that is not an exclude rule names its passes)");
    if (!Passes.V->getAsArray())
      return wrongType(Passes, At, "an array");
    if (!items(Passes))
      return fail(At, "empty (name at least one pass)");
    for (size_t I = 0, E = items(Passes); I != E; ++I) {
      Expected<PassUse> U = parsePass(item(Passes, I), At + "[" + std::to_string(I) + "]", R.Label);
      if (!U)
        return U.takeError();
      R.Passes.push_back(std::move(*U));
    }
    return std::move(R);
  }

  StringRef Path;
  std::string BaseDir;
};

} // namespace

Expected<Spec> Spec::parse(StringRef Text, StringRef Path) {
  Parser P(Path);
  Expected<std::vector<Rule>> Rules = P.parse(Text);
  if (!Rules)
    return Rules.takeError();
  Spec S;
  S.Rules = std::move(*Rules);
  S.Plugins = std::move(P.Plugins);
  S.Tracepoints = std::move(P.Tracepoints);
  return std::move(S);
}

std::vector<std::string> Spec::pluginPaths() const {
  std::vector<std::string> Out;
  for (const PluginUse &U : Plugins)
    Out.push_back(U.Path);
  return Out;
}

Expected<Spec> Spec::load(StringRef Path) {
  // A FIFO or device would be read until its writer stops, if ever.
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return createFileError(Path, errorCodeToError(Buf.getError()));
  return parse((*Buf)->getBuffer(), Path);
}

namespace {

/// The 1-based line and column of \p Offset in \p Text.
std::pair<unsigned, unsigned> lineAndColumn(StringRef Text, size_t Offset) {
  StringRef Before = Text.take_front(Offset);
  size_t LineStart = Before.rfind('\n');
  unsigned Line = Before.count('\n') + 1;
  unsigned Column = Offset - (LineStart == StringRef::npos ? 0 : LineStart + 1) + 1;
  return {Line, Column};
}

/// The shape the path \p Where (`rules[1].match.method`) leads to from \p Root, as deep as the
/// text goes.
const Shape *follow(const Shape &Root, StringRef Where) {
  const Shape *At = &Root;
  while (!Where.empty()) {
    Where.consume_front(".");
    if (Where.consume_front("[")) {
      size_t Index;
      auto [Number, Rest] = Where.split(']');
      if (Number.getAsInteger(10, Index) || Index >= At->Items.size())
        return At;
      At = &At->Items[Index];
      Where = Rest;
      continue;
    }
    size_t End = Where.find_first_of(".[");
    StringRef Key = Where.take_front(End);
    Where = Where.drop_front(Key.size());
    auto It = llvm::find_if(At->Members, [&](const auto &M) { return M.first == Key; });
    if (It == At->Members.end())
      return At;
    At = &It->second;
  }
  return At;
}

} // namespace

std::optional<std::pair<unsigned, unsigned>> locateInSpec(StringRef Text, StringRef Message) {
  unsigned Line, Column;
  StringRef Rest = Message;
  if (Rest.consume_front("invalid JSON: line ") && !Rest.consumeInteger(10, Line) &&
      Rest.consume_front(", column ") && !Rest.consumeInteger(10, Column))
    return std::make_pair(Line, Column);
  // The place is the leading parts without spaces: "rules[1] 'name': match: unknown key" is
  // rules[1].match.
  std::string Where;
  for (auto [Part, After] = Message.split(": "); !After.empty();
       std::tie(Part, After) = After.split(": ")) {
    auto [Place, Name] = Part.split(' ');
    if (!Name.empty() && !(Name.startswith("'") && Name.endswith("'")))
      break; // words, not a place (a rule's name follows its place: rules[0] 'name')
    Where += (Where.empty() ? "" : ".") + Place.str();
  }
  if (Where.empty())
    return std::nullopt;
  Text.consume_front("\xEF\xBB\xBF");
  Expected<json::Value> Root = json::parse(Text);
  if (!Root) {
    consumeError(Root.takeError());
    return std::nullopt;
  }
  Shape RootShape = ShapeScanner(Text).value();
  const Shape *At = follow(RootShape, Where);
  if (At == &RootShape)
    return std::nullopt;
  return lineAndColumn(Text, At->Text.data() - Text.data());
}

} // namespace weft::spec
