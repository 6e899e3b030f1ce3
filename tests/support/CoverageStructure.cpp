//===- tests/support/CoverageStructure.cpp - Where two tools' reports hold things ===//
#include "tests/support/CoverageStructure.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace weft::test {

namespace {

// --- JSON, its members in their order (llvm::json::Object keeps its hash's) ---

struct Node {
  std::string Scalar; // a string's value or a number's text
  std::vector<std::pair<std::string, Node>> Members;
  std::vector<Node> Elements;
};

class JsonReader {
public:
  explicit JsonReader(StringRef Text) : Text(Text) {}
  bool value(Node &N);
  bool Failed = false;

private:
  void space() { Text = Text.ltrim(" \t\r\n"); }
  bool string(std::string &Out);
  bool object(Node &N);
  bool array(Node &N);
  StringRef Text;
};

bool JsonReader::string(std::string &Out) {
  if (!Text.consume_front("\""))
    return false;
  while (!Text.empty() && Text.front() != '"') {
    char C = Text.front();
    Text = Text.drop_front();
    if (C != '\\') {
      Out += C;
      continue;
    }
    if (Text.empty())
      return false;
    char E = Text.front();
    Text = Text.drop_front();
    if (E == 'u' && Text.size() >= 4) {
      unsigned Code = 0;
      Text.take_front(4).getAsInteger(16, Code);
      Text = Text.drop_front(4);
      Out += Code < 0x80 ? char(Code) : '?';
    } else {
      Out += E == 'n' ? '\n' : E == 't' ? '\t' : E == 'r' ? '\r' : E;
    }
  }
  return Text.consume_front("\"");
}

bool JsonReader::object(Node &N) {
  space();
  if (Text.consume_front("}"))
    return true;
  do {
    space();
    std::string Key;
    if (!string(Key))
      return false;
    space();
    if (!Text.consume_front(":"))
      return false;
    N.Members.emplace_back(Key, Node());
    if (!value(N.Members.back().second))
      return false;
    space();
  } while (Text.consume_front(","));
  return Text.consume_front("}");
}

bool JsonReader::array(Node &N) {
  space();
  if (Text.consume_front("]"))
    return true;
  do {
    N.Elements.emplace_back();
    if (!value(N.Elements.back()))
      return false;
    space();
  } while (Text.consume_front(","));
  return Text.consume_front("]");
}

bool JsonReader::value(Node &N) {
  space();
  if (Text.consume_front("{"))
    return object(N);
  if (Text.consume_front("["))
    return array(N);
  if (Text.startswith("\""))
    return string(N.Scalar);
  StringRef Token = Text.take_while([](char C) { return isAlnum(C) || C == '-' || C == '.'; });
  N.Scalar = Token.str();
  Text = Text.drop_front(Token.size());
  return !Token.empty();
}

const Node *member(const Node &N, StringRef Key) {
  for (const auto &[K, V] : N.Members)
    if (K == Key)
      return &V;
  return nullptr;
}

std::string methodEntry(StringRef Name, const Node &M) {
  std::string Out = Name.str() + " lines";
  if (const Node *Lines = member(M, "Lines"))
    for (const auto &[Line, Hits] : Lines->Members)
      Out += " " + Line;
  Out += " branches";
  if (const Node *Branches = member(M, "Branches"))
    for (const Node &B : Branches->Elements) {
      auto Get = [&](StringRef K) {
        const Node *V = member(B, K);
        return V ? V->Scalar : std::string("?");
      };
      Out += " " + Get("Line") + ":" + Get("Offset") + ":" + Get("Path");
    }
  return Out;
}

// --- Cobertura, an element a line as both tools write it ---

/// The value of attribute \p Name in \p Line ("" if it has none).
std::string attribute(StringRef Line, StringRef Name) {
  std::string Key = " " + Name.str() + "=\"";
  size_t At = Line.find(Key);
  if (At == StringRef::npos)
    return "";
  return Line.drop_front(At + Key.size()).take_until([](char C) { return C == '"'; }).str();
}

bool unsettled(const UnsettledLines &U, StringRef File, unsigned Line) {
  return llvm::any_of(U,
                      [&](const auto &SL) { return SL.second == Line && File.endswith(SL.first); });
}

/// A file's path from its Cobertura class: joined to the report's source.
std::string joined(const std::vector<std::string> &Sources, StringRef File) {
  if (File.startswith("/") || Sources.empty())
    return File.str();
  StringRef Source = Sources.front();
  return (Source.endswith("/") ? Source.str() : Source.str() + "/") + File.str();
}

struct CoberturaReader {
  CoverageStructure &S;
  const UnsettledLines &Unsettled;
  std::vector<std::string> Sources;
  std::string Package, Path, Class, Method;
  std::vector<std::string> MethodLines;
  bool InMethods = false;

  std::string classPlace() const { return "cobertura " + Package + " " + Path + " " + Class; }
  void line(StringRef L);
  void lineElement(StringRef L);
};

void CoberturaReader::lineElement(StringRef L) {
  std::string N = attribute(L, "number");
  if (InMethods) {
    MethodLines.push_back(N);
    return;
  }
  std::string Entry = N;
  std::string Condition = attribute(L, "condition-coverage");
  if (!Condition.empty()) {
    StringRef C = StringRef(Condition).rsplit('(').second.rtrim(')');
    unsigned Line = 0;
    StringRef(N).getAsInteger(10, Line);
    if (unsettled(Unsettled, Path, Line))
      C = C.split('/').second;
    Entry += " (" + C.str() + ")";
  }
  S.Places[classPlace()].push_back(Entry);
}

void CoberturaReader::line(StringRef L) {
  L = L.trim();
  if (L.startswith("<source>")) {
    Sources.push_back(L.drop_front(8).take_until([](char C) { return C == '<'; }).str());
  } else if (L.startswith("<package ")) {
    Package = attribute(L, "name");
  } else if (L.startswith("<class ")) {
    Path = joined(Sources, attribute(L, "filename"));
    Class = attribute(L, "name");
    S.Places["cobertura " + Package].push_back(Path + " " + Class);
    S.Places[classPlace()]; // a class with nothing in it is there too
  } else if (L == "<methods>") {
    InMethods = true;
  } else if (L == "</methods>") {
    InMethods = false;
  } else if (L.startswith("<method ")) {
    Method = attribute(L, "name") + " " + attribute(L, "signature");
    MethodLines.clear();
  } else if (L == "</method>") {
    S.Places[classPlace()].push_back("method " + Method + " lines " + join(MethodLines, ","));
  } else if (L.startswith("<line ")) {
    lineElement(L);
  }
}

// --- LCOV ---

std::string lcovEntry(StringRef Key, StringRef Value, bool Unsettled) {
  if (Key == "FN" || Key == "FNDA") {
    auto [Number, Name] = Value.split(','); // the name may hold commas
    return Key.str() + " " + Number.str() + " " + Name.str();
  }
  SmallVector<StringRef, 4> F;
  Value.split(F, ',');
  if (Key == "BRDA" && F.size() == 4)
    return "BRDA " + F[0].str() + "," + F[1].str() + "," + F[2].str() +
           (Unsettled ? "" : "," + F[3].str());
  return Key.str() + " " + Value.str();
}

} // namespace

void addJsonStructure(CoverageStructure &S, StringRef Json) {
  Node Root;
  JsonReader R(Json);
  if (!R.value(Root)) {
    S.Error += "a JSON report that does not read\n";
    return;
  }
  for (const auto &[Module, Documents] : Root.Members)
    for (const auto &[Document, Classes] : Documents.Members) {
      std::string Place = "json " + Module + " " + Document;
      std::vector<std::string> &Names = S.Places[Place];
      for (const auto &[Class, Methods] : Classes.Members) {
        Names.push_back(Class);
        std::vector<std::string> &Entries = S.Places[Place + " " + Class];
        for (const auto &[Name, M] : Methods.Members)
          Entries.push_back(methodEntry(Name, M));
      }
    }
}

void addCoberturaStructure(CoverageStructure &S, StringRef Xml, const UnsettledLines &Unsettled) {
  CoberturaReader R{S, Unsettled, {}, {}, {}, {}, {}, {}, false};
  SmallVector<StringRef, 0> Lines;
  Xml.split(Lines, '\n');
  for (StringRef L : Lines)
    R.line(L);
}

void addLcovStructure(CoverageStructure &S, StringRef Lcov, const UnsettledLines &Unsettled) {
  SmallVector<StringRef, 0> Lines;
  Lcov.split(Lines, '\n');
  // file -> its records (several modules may compile one file; their order is the modules').
  std::map<std::string, std::vector<std::vector<std::string>>> Records;
  std::string File;
  for (StringRef L : Lines) {
    auto [Key, Value] = L.trim().split(':');
    if (Key == "SF") {
      File = Value.str();
      Records[File].emplace_back();
      continue;
    }
    if (Key.empty() || Key == "TN" || Key == "end_of_record" || File.empty())
      continue;
    unsigned Line = 0;
    Value.split(',').first.getAsInteger(10, Line);
    bool AnyUnsettled =
        llvm::any_of(Unsettled, [&](const auto &SL) { return StringRef(File).endswith(SL.first); });
    if (Key == "BRH" && AnyUnsettled)
      continue;
    Records[File].back().push_back(lcovEntry(Key, Value, unsettled(Unsettled, File, Line)));
  }
  for (auto &[Path, Of] : Records) {
    llvm::sort(Of);
    for (size_t K = 0; K < Of.size(); ++K)
      S.Places["lcov " + Path + " #" + std::to_string(K)] = std::move(Of[K]);
  }
}

std::string structureDifferences(const CoverageStructure &Weft, const CoverageStructure &Coverlet) {
  std::string Out = Weft.Error + Coverlet.Error;
  std::set<std::string> Places;
  for (const auto *S : {&Weft, &Coverlet})
    for (const auto &[Place, Entries] : S->Places)
      Places.insert(Place);
  static const std::vector<std::string> None;
  for (const std::string &Place : Places) {
    auto W = Weft.Places.find(Place), C = Coverlet.Places.find(Place);
    const std::vector<std::string> &A = W == Weft.Places.end() ? None : W->second;
    const std::vector<std::string> &B = C == Coverlet.Places.end() ? None : C->second;
    if (A == B && (W != Weft.Places.end()) == (C != Coverlet.Places.end()))
      continue;
    Out += Place + (W == Weft.Places.end() ? ": only in coverlet's report" : "") +
           (C == Coverlet.Places.end() ? ": only in weft's report" : "") + "\n";
    std::vector<std::string> SA = A, SB = B;
    llvm::sort(SA);
    llvm::sort(SB);
    if (SA == SB)
      Out += "  the same, in another order\n";
    for (const std::string &E : A)
      if (!std::binary_search(SB.begin(), SB.end(), E))
        Out += "  weft:     " + E + "\n";
    for (const std::string &E : B)
      if (!std::binary_search(SA.begin(), SA.end(), E))
        Out += "  coverlet: " + E + "\n";
  }
  return Out;
}

} // namespace weft::test
