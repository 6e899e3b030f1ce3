//===- cli/DiffBaseline.cpp - weft diff --baseline ------------------------===//
//
// A baseline is a reviewed record of what weaving changed, kept beside the build: the passes of
// the weave with their options (from the woven assembly's record), and for each method that
// differs its change, the passes that changed it and the SHA-256 of its woven IL text; and the
// metadata changes, by kind and name. It is JSON, sorted, so that its own diff in version
// control reads well. Checking compares the comparison at hand with it, item by item.
//
//===----------------------------------------------------------------------===//
#include "cli/Diff.h"
#include "cli/Tool.h"
#include "support/AtomicFile.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

namespace weft::cli {

namespace {

constexpr const char *BaselineFormat = "weft-diff-baseline";

struct BaselineMethod {
  std::string Change, Sha256;
  std::vector<std::string> Passes;
  bool operator==(const BaselineMethod &O) const {
    return Change == O.Change && Sha256 == O.Sha256 && Passes == O.Passes;
  }
};

struct Baseline {
  std::vector<std::string> Passes;
  std::map<std::string, BaselineMethod> Methods;
  std::vector<std::string> Metadata; // sorted
};

Baseline fromResult(const DiffResult &R) {
  Baseline B;
  if (R.Record)
    for (const passes::WovenRecord::PassRecord &P : R.Record->Passes)
      B.Passes.push_back(P.Pass);
  for (const text::MethodChange &C : R.Diff.Methods)
    B.Methods[C.Name] = {text::changeKindName(C.Kind).str(), C.TextSha256, R.passesOf(C)};
  for (const text::MetadataChange &C : R.Diff.Metadata)
    B.Metadata.push_back(
        (text::itemKindText(C.Kind) + " " + text::changeKindName(C.Change) + ": " + C.Name).str());
  llvm::sort(B.Metadata);
  return B;
}

std::string toJson(const Baseline &B) {
  std::string S;
  raw_string_ostream OS(S);
  json::OStream J(OS, 2);
  auto Strings = [&](ArrayRef<std::string> List) {
    for (const std::string &V : List)
      J.value(V);
  };
  J.object([&] {
    J.attribute("format", BaselineFormat);
    J.attribute("version", 1);
    J.attributeArray("passes", [&] { Strings(B.Passes); });
    J.attributeArray("methods", [&] {
      for (const auto &[Name, M] : B.Methods)
        J.object([&] {
          J.attribute("name", Name);
          J.attribute("change", M.Change);
          J.attributeArray("passes", [&] { Strings(M.Passes); });
          if (!M.Sha256.empty())
            J.attribute("sha256", M.Sha256);
        });
    });
    J.attributeArray("metadata", [&] { Strings(B.Metadata); });
  });
  OS << '\n';
  return OS.str();
}

Expected<std::vector<std::string>> stringList(const json::Object &O, StringRef Key) {
  std::vector<std::string> Out;
  const json::Array *A = O.getArray(Key);
  if (!A)
    return plainError("'" + Key + "' is not an array");
  for (const json::Value &V : *A) {
    Optional<StringRef> S = V.getAsString();
    if (!S)
      return plainError("'" + Key + "' holds a value that is not a string");
    Out.push_back(S->str());
  }
  return Out;
}

Expected<BaselineMethod> methodFromJson(const json::Object &O, std::string &Name) {
  Optional<StringRef> N = O.getString("name"), C = O.getString("change");
  if (!N || !C)
    return plainError("a method without a name or a change");
  Name = N->str();
  BaselineMethod M;
  M.Change = C->str();
  M.Sha256 = O.getString("sha256").getValueOr("").str();
  Expected<std::vector<std::string>> P = stringList(O, "passes");
  if (!P)
    return plainError("method '" + Name + "': " + toString(P.takeError()));
  M.Passes = std::move(*P);
  return M;
}

Expected<Baseline> fromJson(StringRef Text) {
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != Optional<StringRef>(BaselineFormat))
    return plainError(Twine("not a baseline (no \"format\": \"") + BaselineFormat + "\")");
  if (O->getInteger("version") != Optional<int64_t>(1))
    return plainError("a baseline of another version than 1");
  Baseline B;
  Expected<std::vector<std::string>> Passes = stringList(*O, "passes");
  Expected<std::vector<std::string>> Metadata = stringList(*O, "metadata");
  if (!Passes || !Metadata)
    return joinErrors(Passes.takeError(), Metadata.takeError());
  B.Passes = std::move(*Passes);
  B.Metadata = std::move(*Metadata);
  llvm::sort(B.Metadata);
  const json::Array *Methods = O->getArray("methods");
  if (!Methods)
    return plainError("'methods' is not an array");
  for (const json::Value &M : *Methods) {
    const json::Object *MO = M.getAsObject();
    if (!MO)
      return plainError("'methods' holds a value that is not an object");
    std::string Name;
    Expected<BaselineMethod> BM = methodFromJson(*MO, Name);
    if (!BM)
      return BM.takeError();
    B.Methods[Name] = std::move(*BM);
  }
  return B;
}

std::string describe(const BaselineMethod &M) {
  std::string S = M.Change;
  if (!M.Passes.empty())
    S += " by " + join(M.Passes, ", ");
  if (!M.Sha256.empty())
    S += ", IL " + M.Sha256.substr(0, 12);
  return S;
}

/// The differences between the baseline \p Old and the comparison's \p New, one line each.
std::vector<std::string> differences(const Baseline &Old, const Baseline &New) {
  std::vector<std::string> Out;
  if (Old.Passes != New.Passes)
    Out.push_back("passes: the baseline has [" + join(Old.Passes, ", ") + "], now [" +
                  join(New.Passes, ", ") + "]");
  for (const auto &[Name, M] : Old.Methods) {
    auto It = New.Methods.find(Name);
    if (It == New.Methods.end())
      Out.push_back("method no longer differs: " + Name + " (baseline: " + describe(M) + ")");
    else if (!(It->second == M))
      Out.push_back("method differs from the baseline: " + Name + " (baseline: " + describe(M) +
                    "; now: " + describe(It->second) + ")");
  }
  for (const auto &[Name, M] : New.Methods)
    if (!Old.Methods.count(Name))
      Out.push_back("method not in the baseline: " + Name + " (now: " + describe(M) + ")");
  std::vector<std::string> Gone, Came;
  std::set_difference(Old.Metadata.begin(), Old.Metadata.end(), New.Metadata.begin(),
                      New.Metadata.end(), std::back_inserter(Gone));
  std::set_difference(New.Metadata.begin(), New.Metadata.end(), Old.Metadata.begin(),
                      Old.Metadata.end(), std::back_inserter(Came));
  for (const std::string &M : Gone)
    Out.push_back("metadata change no longer made: " + M);
  for (const std::string &M : Came)
    Out.push_back("metadata change not in the baseline: " + M);
  return Out;
}

} // namespace

int runBaseline(const DiffResult &R, StringRef File, bool Update) {
  Baseline Now = fromResult(R);
  if (Update || !sys::fs::exists(File)) {
    std::string Text = toJson(Now);
    if (Error E = writeFileAtomically(File, arrayRefFromStringRef(Text))) {
      reportError(std::move(E));
      return DiffTrouble;
    }
    out() << "weft: wrote the baseline '" << File << "': " << Now.Methods.size() << " methods and "
          << Now.Metadata.size() << " metadata changes\n";
    return DiffSame;
  }
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    reportError(createFileError(File, errorCodeToError(Buf.getError())));
    return DiffTrouble;
  }
  Expected<Baseline> Old = fromJson((*Buf)->getBuffer());
  if (!Old) {
    reportError(createFileError(File, Old.takeError()));
    return DiffTrouble;
  }
  std::vector<std::string> Diffs = differences(*Old, Now);
  if (Diffs.empty()) {
    out() << "weft: the baseline '" << File << "' holds: " << Now.Methods.size() << " methods and "
          << Now.Metadata.size() << " metadata changes, as reviewed\n";
    return DiffSame;
  }
  for (const std::string &D : Diffs)
    out() << D << '\n';
  out() << "weft: " << Diffs.size() << (Diffs.size() == 1 ? " difference" : " differences")
        << " from the baseline '" << File
        << "' (review them; --update-baseline writes the baseline anew)\n";
  return DiffDifferent;
}

} // namespace weft::cli
