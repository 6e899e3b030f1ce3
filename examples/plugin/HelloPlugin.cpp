//===- examples/plugin/HelloPlugin.cpp - A weft plugin --------------------===//
//
// An example plugin: the pass `hello` makes every method it is given print a line when it is
// entered,
//
//   ldstr "hello: enter Ns.Type::Method"
//   call  void [System.Console]System.Console::WriteLine(string)
//
// before its first instruction, and with the option exit=true a line "hello: leave ..." before
// every way out of the method (each ret, and each tail call, which must stay one: Returns.h).
// Build it as a shared library against the headers of the weft
// that loads it (this directory's CMakeLists.txt), then
//
//   weft weave app.dll -o woven/app.dll --load weft-hello.so --pass hello
//   weft weave app.dll -o woven/app.dll --load weft-hello.so --pass hello:prefix=hi
//
//===----------------------------------------------------------------------===//
#include "weaving/Emit.h"
#include "weaving/Pass.h"
#include "weaving/Returns.h"
#include "weaving/plugin/Plugin.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;
using namespace weft;
using namespace weft::passes;

namespace {

class Hello final : public Pass {
public:
  explicit Hello(const PassOptions &O)
      : Prefix(O.get("prefix", "hello").str()), Exit(O.get("exit") == "true") {}

  // The serial phase makes the reference every method uses: a real token, which runOnMethod may
  // place in bodies as it is.
  Error beginModule(ModuleContext &MC) override {
    Expected<metadata::Token> Console = MC.frameworkType("System.Console", "System", "Console");
    if (!Console)
      return Console.takeError();
    // void (string)
    const uint8_t Sig[] = {metadata::SigDefault, 1, uint8_t(metadata::ElementType::Void),
                           uint8_t(metadata::ElementType::String)};
    WriteLine = MC.memberRef(*Console, "WriteLine", Sig);
    return Error::success();
  }

  // Runs for many methods at once: it reads the pass's members and keeps nothing in them. The
  // string's token is provisional; the weaver makes it real afterwards.
  Error runOnMethod(MethodContext &C) override {
    il::MethodBody &B = C.body();
    Emitter E(B, B.instructions().empty() ? nullptr : B.instructions().front());
    E.tok(il::Opcode::Ldstr, C.userString(Prefix + ": enter " + C.displayName()));
    E.tok(il::Opcode::Call, WriteLine);
    if (Exit) {
      metadata::Token Leave = C.userString(Prefix + ": leave " + C.displayName());
      beforeEachExit(B, [&](Emitter &X, bool) {
        X.tok(il::Opcode::Ldstr, Leave);
        X.tok(il::Opcode::Call, WriteLine);
      });
    }
    return Error::success();
  }

private:
  std::string Prefix;
  bool Exit;
  metadata::Token WriteLine = 0;
};

PassInfo helloPass() {
  return {"hello",
          "Example plugin pass: every method prints 'hello: enter Type::Method' when entered",
          {{"prefix", "what the lines start with (default hello)"},
           {"exit", "true: also print 'hello: leave Type::Method' before each way out"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<Hello>(O);
          }};
}

void registerPasses(PassRegistry &R) {
  if (Error E = R.add(helloPass()))
    report_fatal_error(std::move(E));
}

} // namespace

extern "C" WEFT_PLUGIN_EXPORT weftPluginInfo weftGetPluginInfo(void) {
  return {WEFT_PLUGIN_API_VERSION, "weft-example-hello", "1.0", registerPasses,
          /*Runtime=*/nullptr};
}
