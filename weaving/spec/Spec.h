//===- weaving/spec/Spec.h - The instrumentation spec -----------*- C++ -*-===//
//
// A spec file (JSON, docs/spec.md, schema docs/weft-spec.schema.json) is a list of rules. A rule
// matches methods (by assembly, namespace, type and method glob, parameter types, attributes,
// visibility, and whether compiler-generated code, constructors, property accessors and async or
// iterator state machines are included) and names the passes, with their options, to apply to
// them. The weaver and the runtime profiler read the same file.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_SPEC_SPEC_H
#define WEFT_WEAVING_SPEC_SPEC_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <map>
#include <vector>

namespace weft::metadata {
class Module;
}

namespace weft::spec {

/// A pass named by a rule, with its options in the order written. Values are strings (JSON
/// numbers and booleans are given as their JSON text).
struct PassUse {
  std::string Pass;
  std::vector<std::pair<std::string, std::string>> Options;
  /// The rule that named it ("rules[2] 'name'"), for messages.
  std::string Rule;
  /// The directory of the spec file, which relative paths in options are relative to ("" for
  /// the current directory).
  std::string BaseDir;

  /// "name" or "name:k=v,k=v": equal uses are applied once.
  std::string key() const;
};

/// A glob on a name. The pattern refers into Text, which therefore lives on the heap.
struct Glob {
  std::unique_ptr<std::string> Text;
  llvm::GlobPattern Pattern;
  bool match(llvm::StringRef S) const { return Pattern.match(S); }

  Glob(std::unique_ptr<std::string> T, llvm::GlobPattern P)
      : Text(std::move(T)), Pattern(std::move(P)) {}
  Glob(Glob &&) = default;
  Glob &operator=(Glob &&) = default;
  /// A copy compiles the pattern again (it compiled once, so it cannot fail).
  Glob(const Glob &O)
      : Text(std::make_unique<std::string>(*O.Text)),
        Pattern(llvm::cantFail(llvm::GlobPattern::create(*Text))) {}
  Glob &operator=(const Glob &O) { return *this = Glob(O); }
};

/// What a rule does with one kind of method: match it too, leave it out, or match only it.
enum class Mode : uint8_t { Include, Exclude, Only };

/// One rule as parsed (docs/spec.md describes each key). Absent globs match anything.
struct Rule {
  /// "rules[2] 'name'" (or "rules[2]" for an unnamed rule), for messages.
  std::string Label;
  std::optional<Glob> Assembly, Namespace, Type, Method;
  /// Whether "parameters" was given; then the parameter count must equal Parameters.size(), or be
  /// at least that with AnyRest ("..." last).
  bool HasParameters = false, AnyRest = false;
  std::vector<Glob> Parameters;
  std::vector<Glob> Attributes, TypeAttributes;
  /// Bit N set: methods whose access (MethodDef flags & 7) is N match.
  uint8_t Visibility = 0xFF;
  std::optional<bool> Static;
  Mode CompilerGenerated = Mode::Exclude, Constructors = Mode::Include, Accessors = Mode::Include,
       StateMachines = Mode::Exclude;
  bool Exclude = false;
  std::vector<PassUse> Passes;
};

/// A plugin the spec loads ("plugins"): its path (relative to the spec's folder, made so) and its
/// priority (lower first; ties in the spec's order).
struct PluginUse {
  std::string Path;
  int64_t Priority = 0;
};

/// A tracepoint ("tracepoints"): methods the runtime profiler records the calls of, with their
/// arguments, while the program runs (docs/profiler.md). Its rule matches as a rule does and
/// names one pass use, "tracepoint" with the option name=Name.
struct Tracepoint {
  std::string Name;
  Rule Match;
  bool Enabled = true;
  /// "enabled": "session": enabled while an EventPipe session asks for the Weft provider's
  /// tracepoint keyword (Enabled is then false in the file's terms).
  bool FollowsSession = false;
  /// How many levels of an object argument's fields are recorded (0: its type name only).
  unsigned Depth = 1;
};

class Spec {
public:
  Spec();
  Spec(Spec &&);
  Spec &operator=(Spec &&);
  ~Spec();

  /// Parses a spec; errors name \p Path, the rule and what is wrong (unknown key, bad glob, ...).
  static llvm::Expected<Spec> parse(llvm::StringRef Text, llvm::StringRef Path);
  static llvm::Expected<Spec> load(llvm::StringRef Path);
  /// One rule matching every method that has a body, applying \p Passes (the `--pass` options).
  static Spec forPasses(std::vector<PassUse> Passes);

  /// Every pass use of every rule, in order (for validating names and options up front).
  std::vector<const PassUse *> passUses() const;
  /// Whether some rule chooses assemblies by name ("assembly"): the runtime profiler considers
  /// the shared framework's modules only then.
  bool namesAssemblies() const;
  /// The plugins the spec names, in priority order: load them before checking the passes.
  const std::vector<PluginUse> &plugins() const { return Plugins; }
  std::vector<std::string> pluginPaths() const;
  /// The tracepoints, in the file's order (the offline weaver does not use them).
  const std::vector<Tracepoint> &tracepoints() const { return Tracepoints; }

private:
  friend struct Selection;
  friend llvm::Expected<struct Selection> select(const Spec &S, const metadata::Module &M);
  std::vector<Rule> Rules;
  std::vector<PluginUse> Plugins;
  std::vector<Tracepoint> Tracepoints;
};

/// Where in the spec text \p Text the problem a spec error describes is, as a 1-based line and
/// column: \p Message is the error's text after the file name, which starts with the place
/// (`rules[1].match.method: ...`) or with `invalid JSON: line L, column C`. The place's innermost
/// part the text has is given; nullopt when there is none (a missing "version", say).
std::optional<std::pair<unsigned, unsigned>> locateInSpec(llvm::StringRef Text,
                                                          llvm::StringRef Message);

/// A pass use written as on the command line: `name` or `name:key=value,key=value` (`--pass`).
llvm::Expected<PassUse> parsePassUse(llvm::StringRef Text);
/// Pass uses separated by ';' (the profiler's WEFT_PASSES); empty items are ignored.
llvm::Expected<std::vector<PassUse>> parsePassList(llvm::StringRef Text);

/// What a spec chooses for one module.
struct Selection {
  /// The distinct pass uses (by key()) that apply to at least one method, in the order of first
  /// appearance in the spec.
  std::vector<PassUse> Uses;
  /// The uses that apply to MethodDef row \p Row: indices into Uses, in increasing order. Methods
  /// without a body get none.
  llvm::ArrayRef<uint16_t> passesOf(uint32_t Row) const { return Lists[ListOf[Row - 1]]; }
  /// The number of MethodDef rows.
  uint32_t methodCount() const { return uint32_t(ListOf.size()); }
  /// Makes room for \p Methods rows, each with no uses.
  void setMethodCount(uint32_t Methods) { ListOf.assign(Methods, 0); }
  /// Gives row \p Row the uses \p Sorted.
  void setPasses(uint32_t Row, llvm::ArrayRef<uint16_t> Sorted);
  /// Renumbers the uses of every row: U becomes NewIndex[U].
  void renumber(llvm::ArrayRef<uint16_t> NewIndex);

private:
  /// Each distinct list of uses once (the first the empty one), and for each MethodDef row - 1
  /// the number of its list: four bytes a method, since most methods share a few lists.
  std::vector<llvm::SmallVector<uint16_t, 4>> Lists = {{}};
  std::vector<uint32_t> ListOf;
  std::map<std::vector<uint16_t>, uint32_t> ListNumbers;
  uint32_t LastList = 0; // the list setPasses gave last
};

/// Matches every MethodDef of \p M against the rules.
llvm::Expected<Selection> select(const Spec &S, const metadata::Module &M);
/// Matches every MethodDef of \p M against the tracepoints: each use is one tracepoint's
/// ("tracepoint", name=N). With \p NamedAssemblyOnly, only tracepoints that choose assemblies
/// by name take part (the runtime profiler's rule for the shared framework's modules).
llvm::Expected<Selection> selectTracepoints(const Spec &S, const metadata::Module &M,
                                            bool NamedAssemblyOnly);

} // namespace weft::spec

#endif
