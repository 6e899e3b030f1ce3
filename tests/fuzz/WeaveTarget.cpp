//===- tests/fuzz/WeaveTarget.cpp - Weaving a fuzzed method body ----------===//
//
// The host assembly (tests/data/fuzz-weave/FuzzHost.dll) is written anew with one method's body
// replaced by the input, through the writer `weft weave` uses. That file is then taken as
// `weft weave` takes its input: read completely (or refused), woven with a spec choosing the
// passes for that method, and written. When every method of the input verifies, every method of
// the output must verify and the output must read completely; a pass that cannot handle a body
// leaves the method alone with a reason, or fails with an error.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/Host.h"
#include "tests/fuzz/Targets.h"

#include "il/ReadAll.h"
#include "il/Verifier.h"
#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "weaving/ModuleWriter.h"
#include "weaving/Weaver.h"
#include "weaving/spec/Spec.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#include <memory>

using namespace llvm;

namespace weft::fuzz {

namespace {

spec::PassUse use(std::string Pass, std::vector<std::pair<std::string, std::string>> Options = {}) {
  spec::PassUse U;
  U.Pass = std::move(Pass);
  U.Options = std::move(Options);
  return U;
}

std::vector<spec::PassUse> passSet(unsigned Which) {
  const std::string Dir = WEFT_FUZZ_WEAVE_DIR;
  spec::PassUse EntryExit = use("entry-exit", {{"probe-assembly", Dir + "/FuzzProbes.dll"},
                                               {"probe-type", "Weft.Fuzz.Probe"}});
  auto Intercept = [&](const char *Target) {
    return use("intercept-call", {{"target", Target},
                                  {"replacement-assembly", Dir + "/FuzzProbes.dll"},
                                  {"replacement-type", "Weft.Fuzz.Replacement"}});
  };
  switch (Which % WeavePassSets) {
  case 0: return {use("single-ret")};
  case 1: return {EntryExit};
  case 2: return {use("trace")};
  case 3: return {use("coverage")};
  case 4: return {Intercept("System.Int32::Parse(string)")};
  case 5: return {Intercept("System.String::Concat(string,string)")};
  default:
    return {use("single-ret"), EntryExit, use("trace"), use("coverage"),
            Intercept("System.Int32::Parse(string)")};
  }
}

/// A module read as `weft weave` reads its input.
struct Opened {
  std::unique_ptr<pe::Image> Img;
  std::unique_ptr<metadata::Module> M;
};

Expected<Opened> open(ArrayRef<uint8_t> Bytes) {
  Opened O;
  auto Img = pe::Image::create(Bytes, "fuzz");
  if (!Img)
    return Img.takeError();
  O.Img = std::move(*Img);
  auto M = metadata::Module::create(O.Img->metadata(), O.Img->metadataOffset());
  if (!M)
    return M.takeError();
  O.M = std::move(*M);
  ReadStats Stats;
  ReadOptions RO;
  RO.CustomAttributes = false;
  if (Error E = readEverything(*O.Img, *O.M, Stats, RO))
    return std::move(E);
  return std::move(O);
}

/// WEFT_FUZZ_VERBOSE=1 says what became of each input (for looking at a seed or a corpus).
void say(const Twine &What) {
  static const bool Verbose = getenv("WEFT_FUZZ_VERBOSE");
  if (Verbose)
    errs() << "weft fuzz: " << What << "\n";
}

std::string firstProblem(const analysis::VerifyResult &R) {
  if (R.Problems.empty())
    return "";
  const analysis::Diagnostic &D = R.Problems.front();
  return D.Where + " at IL offset " + std::to_string(D.ILOffset) + ": " + D.What;
}

} // namespace

void weaveInput(ArrayRef<uint8_t> Bytes) {
  if (Bytes.size() < 3)
    return;
  const Host &H = host();
  unsigned Which = Bytes[0] % WeavePassSets;
  uint32_t Row = H.Methods[Bytes[1] % H.Methods.size()];
  ArrayRef<uint8_t> Body = Bytes.drop_front(2);

  // The host with the fuzzed body.
  std::vector<uint8_t> Input;
  {
    metadata::Editor E(*H.M);
    std::map<uint32_t, NewBody> Bodies;
    Bodies[Row] = NewBody{Body.vec(), (Body[0] & 3) == 3};
    Expected<WrittenModule> W = writeModule(*H.Img, E, Bodies);
    if (!W)
      bug("the host with a new body was not written: " + toString(W.takeError()));
    Input = std::move(W->Bytes);
  }
  Expected<Opened> In = open(Input);
  if (!In) {
    say("refused: " + toString(In.takeError())); // as weft weave refuses it
    return;
  }
  std::string InputProblem = firstProblem(analysis::verifyModule(*In->Img, *In->M));

  spec::Spec S = spec::Spec::forPasses(passSet(Which));
  Expected<spec::Selection> Sel = spec::select(S, *In->M);
  if (!Sel)
    bug("--pass selection failed: " + toString(Sel.takeError()));
  // Only the fuzzed method: the others are the host's, woven by the corpus tests.
  for (uint32_t R = 1; R <= Sel->methodCount(); ++R)
    if (R != Row)
      Sel->setPasses(R, {});

  metadata::Editor E(*In->M);
  passes::WeaveOptions WO;
  WO.Threads = 1;
  WO.KeepRemaps = false;
  Expected<passes::WeaveOutcome> Out = passes::weave(*In->Img, E, *Sel, WO);
  if (!Out) {
    std::string Message = toString(Out.takeError());
    if (Message.empty())
      bug("weaving failed with an empty message");
    say("not woven: " + Message);
    return;
  }
  for (const std::string &Skipped : Out->Skipped)
    say("skipped " + Skipped);
  Expected<WrittenModule> W = writeModule(*In->Img, E, Out->Bodies);
  if (!W) {
    say("not written: " + toString(W.takeError()));
    return;
  }
  say(Twine(Out->MethodsChanged) + " methods changed" +
      (InputProblem.empty() ? "" : "; the input does not verify: " + InputProblem));
  if (!InputProblem.empty())
    return;
  Expected<Opened> Result = open(W->Bytes);
  if (!Result)
    bug("pass set " + Twine(Which) + ", method row " + Twine(Row) +
        ": the woven module does not read: " + toString(Result.takeError()));
  std::string Problem = firstProblem(analysis::verifyModule(*Result->Img, *Result->M));
  if (!Problem.empty())
    bug("pass set " + Twine(Which) + ", method row " + Twine(Row) +
        ": a body that verified was woven into one that does not: " + Problem);
}

} // namespace weft::fuzz
