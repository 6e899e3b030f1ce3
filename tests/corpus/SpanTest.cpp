// The span pass on tests/span-app (its types Shop and Store.Clerk woven), run on CoreCLR: the
// program listens to the ActivitySource "Weft" itself and prints the spans it recorded, as an app
// whose OpenTelemetry SDK has AddSource("Weft") would export them; offline and under `weft run`.
#include "tests/support/Env.h"
#include "tests/support/SpanApp.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <regex>

using namespace llvm;
using namespace weft;

namespace {

bool has(const std::string &Text, const std::string &Line) {
  return Text.find(Line) != std::string::npos;
}

/// The block of lines of span \p Name (its header line and the indented lines after it).
std::string spanOf(const std::string &Out, const std::string &Name) {
  size_t At = Out.find("span " + Name + " ");
  if (At == std::string::npos)
    return "";
  size_t End = Out.find("\nspan ", At + 1);
  return Out.substr(At, End == std::string::npos ? std::string::npos : End + 1 - At);
}

TEST(Span, EveryKindOfMethodAsAListenerSeesIt) {
  test::WovenSpanApp W = test::weaveSpanApp("span-app", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err << R.Out;
  const std::string &O = R.Out;
  EXPECT_TRUE(has(O, test::SpanAppOutput)) << O;
  // The caller's span is Activity.Current again once each call returns, async ones included.
  EXPECT_TRUE(has(O, "current after the calls: request\n")) << O;

  // Nesting: the app's request span, Order in it, Price and Tax in Order.
  std::string Order = spanOf(O, "Shop.Order");
  EXPECT_TRUE(has(Order, "parent=request kind=Internal status=Unset ''")) << O;
  EXPECT_TRUE(has(Order, "  tag code.function.name=Shop.Order\n")) << Order;
  EXPECT_TRUE(has(Order, "  tag code.file.path=Program.cs\n")) << Order;
  EXPECT_TRUE(has(Order, "  tag code.line.number=8\n")) << Order;
  EXPECT_FALSE(has(Order, "code.namespace")) << "Shop is in no namespace: " << Order;
  EXPECT_TRUE(has(Order, "version=0.")) << Order;
  EXPECT_TRUE(has(spanOf(O, "Shop.Price"), "parent=Shop.Order ")) << O;
  EXPECT_TRUE(has(spanOf(O, "Shop.Tax"), "parent=Shop.Order ")) << O;

  // A throw: the error status, the exception event, and the exception still reaches the caller.
  std::string Fail = spanOf(O, "Shop.Fail");
  EXPECT_TRUE(has(Fail, "status=Error 'boom'")) << Fail;
  EXPECT_TRUE(has(Fail, "  event exception\n    exception.message=boom\n")) << Fail;
  EXPECT_TRUE(has(Fail, "    exception.stacktrace=System.InvalidOperationException: boom\n"))
      << Fail;
  EXPECT_TRUE(has(Fail, "    exception.type=System.InvalidOperationException\n")) << Fail;

  // Async: the span lasts until the task completes; its code's line is the MoveNext's first.
  std::string Slow = spanOf(O, "Shop.SlowAsync");
  std::smatch Ms;
  ASSERT_TRUE(std::regex_search(Slow, Ms, std::regex("ms=([0-9]+)"))) << Slow;
  EXPECT_GE(std::stoi(Ms[1]), 50) << Slow;
  EXPECT_TRUE(has(Slow, "parent=request ")) << Slow;
  EXPECT_TRUE(has(Slow, "  tag code.line.number=14\n")) << Slow;
  // Price, called after the await, runs inside SlowAsync's span.
  EXPECT_TRUE(has(O, "span Shop.Price parent=Shop.SlowAsync ")) << O;
  EXPECT_TRUE(has(spanOf(O, "Shop.FaultAsync"), "status=Error 'late'")) << O;
  EXPECT_TRUE(has(spanOf(O, "Shop.FaultAsync"), "exception.type=System.TimeoutException")) << O;
  EXPECT_TRUE(has(spanOf(O, "Shop.CancelAsync"), "status=Error 'The task was canceled.'")) << O;
  EXPECT_TRUE(has(spanOf(O, "Shop.QuickValue"), "status=Unset ''")) << O;
  std::string SlowValue = spanOf(O, "Shop.SlowValue");
  ASSERT_TRUE(std::regex_search(SlowValue, Ms, std::regex("ms=([0-9]+)"))) << SlowValue;
  EXPECT_GE(std::stoi(Ms[1]), 25) << SlowValue;
  // A type in a namespace: the function's name holds it, code.namespace names it.
  std::string Greet = spanOf(O, "Store.Clerk.Greet");
  EXPECT_TRUE(has(Greet, "  tag code.function.name=Store.Clerk.Greet\n")) << O;
  EXPECT_TRUE(has(Greet, "  tag code.namespace=Store\n")) << Greet;

  // An iterator gets no span: its code runs as it is enumerated, after the call returned.
  EXPECT_FALSE(has(O, "span Shop.Numbers")) << O;
}

// With nobody listening, StartActivity returns null: the program runs as it did, and nothing of
// a span is made.
TEST(Span, NoListenerNoSpans) {
  test::WovenSpanApp W = test::weaveSpanApp("span-quiet", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, std::string(test::SpanAppOutput) + "current after the calls: request\n");
}

// The options: the span's name, its kind, and arguments as attributes.
TEST(Span, NameAndKindAreOptions) {
  test::WovenSpanApp W =
      test::weaveSpanApp("span-options", R"({"name": "span", "options": {"name": "{type}/{method}",
                                                      "kind": "client", "arguments": ["n", "why"]}})");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(has(R.Out, "span Shop/Order parent=request kind=Client ")) << R.Out;
  // The arguments named: each method that has one gets its value (Order(50), Fail("boom")).
  EXPECT_TRUE(has(spanOf(R.Out, "Shop/Order"), "  tag weft.arg.n=50\n")) << R.Out;
  EXPECT_TRUE(has(spanOf(R.Out, "Shop/Fail"), "  tag weft.arg.why=boom\n")) << R.Out;
  EXPECT_FALSE(has(spanOf(R.Out, "Shop/QuickValue"), "weft.arg.")) << R.Out;
  EXPECT_TRUE(has(spanOf(R.Out, "Shop/Order"), "  tag code.line.number=8\n")) << R.Out;

  // code: false leaves out the code attributes, and only them.
  test::WovenSpanApp Bare = test::weaveSpanApp(
      "span-no-code", R"({"name": "span", "options": {"code": false, "arguments": ["n"]}})");
  ASSERT_EQ(Bare.Weave.ExitCode, 0) << Bare.Weave.Err;
  R = test::run("dotnet", {Bare.Dll, "listen"}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(has(R.Out, "tag code.")) << R.Out;
  EXPECT_TRUE(has(spanOf(R.Out, "Shop.Order"), "  tag weft.arg.n=50\n")) << R.Out;

  test::WovenSpanApp Bad =
      test::weaveSpanApp("span-bad-kind", R"({"name": "span", "options": {"kind": "sideways"}})");
  EXPECT_EQ(Bad.Weave.ExitCode, 1);
  EXPECT_TRUE(has(Bad.Weave.Err, "kind 'sideways' is none of internal, server, client, producer, "
                                 "consumer"))
      << Bad.Weave.Err;
}

// The same pass at JIT time: the unwoven program under `weft run` with the spec records the same
// spans, with the same attributes, as the program woven offline.
TEST(Span, WeftRunMakesTheSameSpansAtJitTime) {
  test::WovenSpanApp W = test::weaveSpanApp("span-jit", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult Offline = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(Offline.ExitCode, 0) << Offline.Err;

  std::string In = test::spanAppDll();
  std::string Log = W.Dir + "/run.log";
  test::CommandResult Jit =
      test::run(test::weftTool(),
                {"run", "--spec", W.Dir + "/weft.json", "--log", Log, "--output-dir", W.Dir, "--",
                 "dotnet", std::string(In), "listen"},
                {}, 120);
  ASSERT_EQ(Jit.ExitCode, 0) << Jit.Err << test::readFile(Log);
  // Durations differ from run to run; the rest is the same.
  std::regex Ms("ms=[0-9]+");
  EXPECT_EQ(std::regex_replace(Jit.Out, Ms, "ms="), std::regex_replace(Offline.Out, Ms, "ms="));
  EXPECT_TRUE(has(test::readFile(Log), "13 of ")) << test::readFile(Log);
}

/// The value the profiler's tracepoint recorded for argument \p Name in the timeline file in
/// \p Dir (the first call that has it).
Optional<json::Value> tracepointValue(const std::string &Dir, StringRef Name) {
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    if (!sys::path::filename(It->path()).startswith("weft-timeline-"))
      continue;
    SmallVector<StringRef, 64> Lines;
    std::string Text = test::readFile(It->path());
    StringRef(Text).split(Lines, '\n', -1, false);
    for (StringRef L : Lines) {
      if (!L.startswith("{\"ph\":\"B\""))
        continue;
      L.consume_back(",");
      Expected<json::Value> V = json::parse(L);
      if (!V) {
        consumeError(V.takeError());
        continue;
      }
      const json::Object *Args = V->getAsObject()->getObject("args");
      const json::Array *A = Args ? Args->getArray("arguments") : nullptr;
      for (const json::Value &Arg : A ? *A : json::Array())
        if (Arg.getAsObject()->getString("name") == Optional<StringRef>(Name))
          return *Arg.getAsObject()->get("value");
    }
  }
  return None;
}

/// The text of Shop.Ship's span's attribute weft.arg.parcel in the output \p Out of span-app
/// run with "listen".
std::string parcelText(const std::string &Out) {
  std::smatch M;
  std::string Ship = spanOf(Out, "Shop.Ship");
  return std::regex_search(Ship, M, std::regex("  tag weft.arg.parcel=(.*)\n")) ? M[1].str() : "";
}

// An argument that is an object is written as the profiler's tracepoints write values: its type
// and, to the option `depth`, its fields (strings quoted, nested objects the same way); an enum
// by name. And a tracepoint may ask to be a span too ("span": true): under `weft run`, the same
// call is recorded by the tracepoint and made a span whose attributes hold every argument, the
// same text as the tracepoint's record and as the pass's offline.
TEST(Span, ObjectArgumentsAreWrittenAsTracepointsWriteThemAndATracepointCanBeASpan) {
  for (int Depth : {1, 2}) {
    std::string D = std::to_string(Depth);
    test::WovenSpanApp W = test::weaveSpanApp(
        "span-depth-" + D,
        R"({"name": "span", "options": {"arguments": ["parcel", "speed"], "depth": )" + D + "}}");
    ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
    test::CommandResult R = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    std::string Where =
        Depth == 1 ? R"({"type":"Address"})" : R"({"type":"Address","fields":{"City":"Oslo"}})";
    EXPECT_EQ(parcelText(R.Out),
              R"({"type":"Parcel","fields":{"To":"ann \"the\" reader","Weight":3,"Where":)" +
                  Where + "}}");
    EXPECT_TRUE(has(spanOf(R.Out, "Shop.Ship"), "  tag weft.arg.speed=Express\n")) << R.Out;

    // The unwoven program under weft run, with a tracepoint of the same depth that is a span.
    std::string Spec = W.Dir + "/tracepoint.json";
    ASSERT_TRUE(test::writeFile(
        Spec, R"({"version": 1, "rules": [], "tracepoints": [{"name": "ship", "match": )"
              R"({"assembly": "SpanApp", "type": "Shop", "method": "Ship"}, "depth": )" +
                  D + R"(, "span": true}]})"));
    // The recorder waits 20 ms for a class's first description, then records that it was not
    // described in time: on a loaded machine, the run is made again (up to three times).
    test::CommandResult T;
    Optional<json::Value> Recorded;
    std::string Run;
    for (int Attempt = 0; Attempt < 3; ++Attempt) {
      Run = W.Dir + "/run-" + std::to_string(Attempt);
      ASSERT_FALSE(sys::fs::create_directories(Run));
      T = test::run(test::weftTool(),
                    {"run", "--spec", Spec, "--output-dir", Run, "--log", Run + "/run.log", "--",
                     "dotnet", test::spanAppDll(), "listen"},
                    {}, 120);
      ASSERT_EQ(T.ExitCode, 0) << T.Err << test::readFile(Run + "/run.log");
      Recorded = tracepointValue(Run, "parcel");
      ASSERT_TRUE(Recorded) << test::readFile(Run + "/run.log");
      std::string Text;
      raw_string_ostream(Text) << *Recorded;
      if (!StringRef(Text).contains("<not described in time>") &&
          tracepointValue(Run, "speed") != Optional<json::Value>("<not described in time>"))
        break;
    }
    EXPECT_EQ(parcelText(T.Out), parcelText(R.Out)) << T.Out;
    EXPECT_TRUE(has(spanOf(T.Out, "Shop.Ship"), "  tag weft.arg.speed=Express\n")) << T.Out;
    EXPECT_FALSE(has(T.Out, "span Shop.Order")) << "only the tracepoint's method";
    Expected<json::Value> Attribute = json::parse(parcelText(R.Out));
    ASSERT_TRUE(bool(Attribute)) << toString(Attribute.takeError());
    EXPECT_EQ(*Attribute, *Recorded) << "depth " << Depth;
    EXPECT_EQ(tracepointValue(Run, "speed"), Optional<json::Value>(json::Value("Express")));
  }
}

} // namespace
