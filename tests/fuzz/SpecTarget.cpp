//===- tests/fuzz/SpecTarget.cpp - A spec file from arbitrary bytes -------===//
//
// Spec::parse must give an error or a spec. A spec is then used as `weft weave --spec` uses it:
// its pass uses are listed and keyed, and it selects methods of a small module (the host assembly
// of FuzzWeave), which runs every glob of every rule.
//
//===----------------------------------------------------------------------===//
#include "tests/fuzz/Host.h"
#include "tests/fuzz/Targets.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/StringExtras.h"

#include <memory>

using namespace llvm;

namespace weft::fuzz {

void specInput(ArrayRef<uint8_t> Bytes) {
  Expected<spec::Spec> S = spec::Spec::parse(toStringRef(Bytes), "fuzz.json");
  if (!S) {
    std::string Message = toString(S.takeError());
    if (Message.empty())
      bug("a spec was refused with an empty message");
    return;
  }
  for (const spec::PassUse *U : S->passUses()) {
    if (U->Pass.empty())
      bug("a spec was accepted with an empty pass name");
    (void)U->key();
  }
  Expected<spec::Selection> Sel = spec::select(*S, *host().M);
  if (!Sel) {
    consumeError(Sel.takeError());
    return;
  }
  for (uint32_t R = 1; R <= Sel->methodCount(); ++R)
    for (uint16_t U : Sel->passesOf(R))
      if (U >= Sel->Uses.size())
        bug("a selection names pass use " + Twine(U) + " of " + Twine(Sel->Uses.size()));
}

} // namespace weft::fuzz
