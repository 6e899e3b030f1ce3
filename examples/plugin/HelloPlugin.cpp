//===- examples/plugin/HelloPlugin.cpp - A weft plugin --------------------===//
//
// An example plugin: the pass `hello` makes every method it is given print a line when it is
// entered,
//
//   ldstr "hello: enter Ns.Type::Method"
//   call  void [System.Console]System.Console::WriteLine(string)
//
// before its first instruction, and with the option exit=true a line "hello: leave ..." before
// every way out of the method (each ret, and each tail call, which must stay one). It is written
// against weft's C++ plugin layer (include/weft/Plugin.hpp), which needs nothing but weft's
// include/ folder: build it as a shared library with any C++17 compiler, then
//
//   weft weave app.dll -o woven/app.dll --load weft-hello.so --pass hello
//   weft weave app.dll -o woven/app.dll --load weft-hello.so --pass hello:prefix=hi
//
//===----------------------------------------------------------------------===//
#include "weft/Plugin.hpp"

#include <string>

using namespace weft::sdk;

namespace {

class Hello final : public Pass {
public:
  explicit Hello(const Options &O) : Prefix(O.get("prefix", "hello")), Exit(O.get("exit") == "true") {}

  // The serial phase makes the reference every method uses: a real token, which runMethod may
  // place in bodies as it is.
  void beginModule(Module &M) override {
    weft_token Console = M.frameworkType("System.Console", "System", "Console");
    // void (string): default calling convention, one parameter, void, string.
    WriteLine = M.memberRef(Console, "WriteLine", {0x00, 0x01, 0x01, 0x0E});
  }

  // Runs for many methods at once: it reads the pass's members and keeps nothing in them. The
  // strings' tokens are provisional; weft makes them real afterwards.
  void runMethod(Method &M) override {
    std::string Name(M.displayName());
    Body B = M.body();
    std::vector<Instr> All = B.instructions();
    Emitter E = B.emitBefore(All.empty() ? Instr() : All.front());
    E.tok(WEFT_OP_LDSTR, M.userString(Prefix + ": enter " + Name));
    E.tok(WEFT_OP_CALL, WriteLine);
    if (!Exit)
      return;
    weft_token Leave = M.userString(Prefix + ": leave " + Name);
    M.beforeEachExit([&](Emitter &X, bool /*TailCall*/) {
      X.tok(WEFT_OP_LDSTR, Leave);
      X.tok(WEFT_OP_CALL, WriteLine);
    });
  }

private:
  std::string Prefix;
  bool Exit;
  weft_token WriteLine = 0;
};

} // namespace

WEFT_PLUGIN("weft-example-hello", "1.0", [](Plugin &P) {
  P.addPass<Hello>(
      {"hello",
       "Example plugin pass: every method prints 'hello: enter Type::Method' when entered",
       {{"prefix", "what the lines start with (default hello)"},
        {"exit", "true: also print 'hello: leave Type::Method' before each way out"}}});
})
