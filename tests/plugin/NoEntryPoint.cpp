//===- tests/plugin/NoEntryPoint.cpp - A shared library that is no plugin -===//
//
// A valid shared library without weftGetPluginInfo.
//
//===----------------------------------------------------------------------===//
extern "C" __attribute__((visibility("default"))) int weftSomethingElse(void) { return 42; }
