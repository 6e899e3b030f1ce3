//===- tests/support/JsonSchema.cpp - Checking JSON against a schema -------===//
#include "tests/support/JsonSchema.h"

#include "tests/support/Env.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace weft::test {

namespace {

class Checker {
public:
  Checker(const json::Value &Root, std::vector<std::string> &Problems)
      : Root(Root), Problems(Problems) {}
  /// Whether \p V satisfies \p S; problems are noted only when \p Report.
  bool check(const json::Value &S, const json::Value &V, const std::string &Path, bool Report);

private:
  bool fail(bool Report, const std::string &Path, const Twine &What) {
    if (Report)
      Problems.push_back((Path.empty() ? "/" : Path) + ": " + What.str());
    return false;
  }
  bool hasType(const json::Value &V, StringRef Type) const;
  bool checkType(const json::Value &Want, const json::Value &V, const std::string &Path,
                 bool Report);
  bool checkObject(const json::Object &S, const json::Object &O, const std::string &Path,
                   bool Report);
  bool checkKeyword(StringRef Key, const json::Value &Arg, const json::Object &S,
                    const json::Value &V, const std::string &Path, bool Report);
  const json::Value *resolve(StringRef Ref) const;

  const json::Value &Root;
  std::vector<std::string> &Problems;
};

bool Checker::hasType(const json::Value &V, StringRef Type) const {
  if (Type == "object")
    return V.getAsObject() != nullptr;
  if (Type == "array")
    return V.getAsArray() != nullptr;
  if (Type == "string")
    return V.getAsString().hasValue();
  if (Type == "boolean")
    return V.getAsBoolean().hasValue();
  if (Type == "integer")
    return V.getAsInteger().hasValue();
  if (Type == "number")
    return V.getAsNumber().hasValue();
  if (Type == "null")
    return V.getAsNull().hasValue();
  return false;
}

bool Checker::checkType(const json::Value &Want, const json::Value &V, const std::string &Path,
                        bool Report) {
  std::vector<StringRef> Types;
  if (auto S = Want.getAsString())
    Types.push_back(*S);
  else if (const json::Array *A = Want.getAsArray())
    for (const json::Value &T : *A)
      if (auto S = T.getAsString())
        Types.push_back(*S);
  for (StringRef T : Types)
    if (hasType(V, T))
      return true;
  std::string Got;
  raw_string_ostream(Got) << V;
  return fail(Report, Path, "expected " + join(Types, " or ") + ", got " + Got);
}

const json::Value *Checker::resolve(StringRef Ref) const {
  if (!Ref.consume_front("#/$defs/"))
    return nullptr;
  const json::Object *Defs = Root.getAsObject() ? Root.getAsObject()->getObject("$defs") : nullptr;
  return Defs ? Defs->get(Ref) : nullptr;
}

bool Checker::checkObject(const json::Object &S, const json::Object &O, const std::string &Path,
                          bool Report) {
  bool Ok = true;
  const json::Object *Props = S.getObject("properties");
  if (const json::Array *Required = S.getArray("required"))
    for (const json::Value &R : *Required)
      if (auto Name = R.getAsString(); Name && !O.get(*Name))
        Ok = fail(Report, Path, "missing required \"" + *Name + "\"") && Ok;
  for (const auto &[Key, Value] : O) {
    std::string Sub = Path + "/" + Key.str();
    const json::Value *PropSchema = Props ? Props->get(Key) : nullptr;
    if (PropSchema) {
      Ok = check(*PropSchema, Value, Sub, Report) && Ok;
      continue;
    }
    const json::Value *Extra = S.get("additionalProperties");
    if (!Extra)
      continue;
    if (auto B = Extra->getAsBoolean()) {
      if (!*B)
        Ok = fail(Report, Sub, "not allowed (additionalProperties is false)") && Ok;
    } else {
      Ok = check(*Extra, Value, Sub, Report) && Ok;
    }
  }
  return Ok;
}

bool Checker::checkKeyword(StringRef Key, const json::Value &Arg, const json::Object &S,
                           const json::Value &V, const std::string &Path, bool Report) {
  if (Key == "type")
    return checkType(Arg, V, Path, Report);
  if (Key == "const")
    return Arg == V || fail(Report, Path, "not the constant the schema gives");
  if (Key == "enum") {
    if (const json::Array *A = Arg.getAsArray())
      for (const json::Value &E : *A)
        if (E == V)
          return true;
    return fail(Report, Path, "not one of the schema's enum values");
  }
  if (Key == "minimum") {
    auto N = V.getAsNumber(), Min = Arg.getAsNumber();
    return !N || !Min || *N >= *Min || fail(Report, Path, "below the minimum");
  }
  if (Key == "pattern") {
    auto Str = V.getAsString();
    Regex R(Arg.getAsString().getValueOr(""));
    return !Str || R.match(*Str) || fail(Report, Path, "does not match the pattern");
  }
  if (Key == "items") {
    bool Ok = true;
    if (const json::Array *A = V.getAsArray())
      for (size_t I = 0; I < A->size(); ++I)
        Ok = check(Arg, (*A)[I], Path + "/" + std::to_string(I), Report) && Ok;
    return Ok;
  }
  if (Key == "properties" || Key == "required" || Key == "additionalProperties") {
    const json::Object *O = V.getAsObject();
    // The three are checked together, once, when "properties" (or the first present) comes.
    bool First = Key == "properties" || (Key == "required" && !S.get("properties")) ||
                 (Key == "additionalProperties" && !S.get("properties") && !S.get("required"));
    return !O || !First || checkObject(S, *O, Path, Report);
  }
  if (Key == "oneOf") {
    unsigned Matches = 0;
    if (const json::Array *A = Arg.getAsArray())
      for (const json::Value &Alt : *A)
        Matches += check(Alt, V, Path, false);
    return Matches == 1 || fail(Report, Path, "matches " + Twine(Matches) + " of oneOf's schemas");
  }
  if (Key == "$ref") {
    const json::Value *Target = resolve(Arg.getAsString().getValueOr(""));
    if (!Target)
      return fail(Report, Path, "the schema's $ref cannot be resolved");
    return check(*Target, V, Path, Report);
  }
  static const StringSet<> Notes = {"$schema", "$id", "$defs", "title", "description", "$comment"};
  if (Notes.count(Key))
    return true;
  return fail(Report, Path, "the schema uses the keyword \"" + Key + "\", which is not checked");
}

bool Checker::check(const json::Value &S, const json::Value &V, const std::string &Path,
                    bool Report) {
  if (auto B = S.getAsBoolean())
    return *B || fail(Report, Path, "the schema allows nothing here");
  const json::Object *O = S.getAsObject();
  if (!O)
    return fail(Report, Path, "the schema is neither an object nor a boolean");
  bool Ok = true;
  for (const auto &[Key, Arg] : *O)
    Ok = checkKeyword(Key, Arg, *O, V, Path, Report) && Ok;
  return Ok;
}

} // namespace

std::vector<std::string> schemaProblems(const json::Value &Schema, const json::Value &Document) {
  std::vector<std::string> Problems;
  Checker(Schema, Problems).check(Schema, Document, "", true);
  return Problems;
}

std::vector<std::string> schemaProblemsInText(StringRef SchemaFile, StringRef Text) {
  Expected<json::Value> Schema = json::parse(readFile(SchemaFile));
  if (!Schema)
    return {"schema " + SchemaFile.str() + ": " + toString(Schema.takeError())};
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc)
    return {"document: " + toString(Doc.takeError())};
  return schemaProblems(*Schema, *Doc);
}

} // namespace weft::test
