// The span pass on tests/span-app (its type Shop woven), run on CoreCLR: the program listens to
// the ActivitySource "Weft" itself and prints the spans it recorded, as an app whose
// OpenTelemetry SDK has AddSource("Weft") would export them.
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <signal.h>
#include <thread>

using namespace llvm;
using namespace weft;

namespace {

struct WovenApp {
  std::string Dir, Dll;
  test::CommandResult Weave;
};

/// tests/span-app with Shop woven by \p Pass, an entry of a spec's "passes" (JSON).
WovenApp weaveApp(StringRef Name, StringRef Pass) {
  SmallString<256> In(test::binaryDir());
  sys::path::append(In, "spanapp", "bin", "SpanApp");
  sys::path::append(In, "release", "SpanApp.dll");
  WovenApp W;
  W.Dir = test::scratchDir(Name);
  W.Dll = W.Dir + "/SpanApp.dll";
  EXPECT_TRUE(sys::fs::exists(In)) << "the spanapp.build test builds " << In;
  std::string Spec = W.Dir + "/weft.json";
  EXPECT_TRUE(test::writeFile(Spec, R"({"version": 1, "rules": [
    {"match": {"type": "Shop"}, "passes": [)" +
                                        Pass.str() + R"(]},
    {"match": {"type": "Clerk"}, "passes": [)" +
                                        Pass.str() + R"(]}]})"));
  W.Weave = test::run(test::weftTool(),
                      {"weave", std::string(In), "-o", W.Dll, "--spec", Spec, "--verify-each"});
  SmallString<256> Config(sys::path::parent_path(In));
  sys::path::append(Config, "SpanApp.runtimeconfig.json");
  EXPECT_FALSE(sys::fs::copy_file(Config, W.Dir + "/SpanApp.runtimeconfig.json"));
  return W;
}

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

const char *const ProgramOutput = "order 155\ncaught boom\nslow 180\ncaught late\ncaught canceled\n"
                                  "quick 7\nslow value 30\nnumbers 1,2\nhi ann\n";

TEST(Span, EveryKindOfMethodAsAListenerSeesIt) {
  WovenApp W = weaveApp("span-app", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err << R.Out;
  const std::string &O = R.Out;
  EXPECT_TRUE(has(O, ProgramOutput)) << O;
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
  WovenApp W = weaveApp("span-quiet", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, std::string(ProgramOutput) + "current after the calls: request\n");
}

// The options: the span's name, its kind, and arguments as attributes.
TEST(Span, NameAndKindAreOptions) {
  WovenApp W = weaveApp("span-options", R"({"name": "span", "options": {"name": "{type}/{method}",
                                                      "kind": "client", "arguments": ["n", "why"]}})");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult R = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(has(R.Out, "span Shop/Order parent=request kind=Client ")) << R.Out;
  // The arguments named: each method that has one gets its value (Order(50), Fail("boom")).
  EXPECT_TRUE(has(spanOf(R.Out, "Shop/Order"), "  tag weft.arg.n=50\n")) << R.Out;
  EXPECT_TRUE(has(spanOf(R.Out, "Shop/Fail"), "  tag weft.arg.why=boom\n")) << R.Out;
  EXPECT_FALSE(has(spanOf(R.Out, "Shop/QuickValue"), "weft.arg.")) << R.Out;

  WovenApp Bad = weaveApp("span-bad-kind", R"({"name": "span", "options": {"kind": "sideways"}})");
  EXPECT_EQ(Bad.Weave.ExitCode, 1);
  EXPECT_TRUE(has(Bad.Weave.Err, "kind 'sideways' is none of internal, server, client, producer, "
                                 "consumer"))
      << Bad.Weave.Err;
}

// The same pass at JIT time: the unwoven program under `weft run` with the spec records the same
// spans, with the same attributes, as the program woven offline.
TEST(Span, WeftRunMakesTheSameSpansAtJitTime) {
  WovenApp W = weaveApp("span-jit", R"("span")");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::CommandResult Offline = test::run("dotnet", {W.Dll, "listen"}, {}, 120);
  ASSERT_EQ(Offline.ExitCode, 0) << Offline.Err;

  SmallString<256> In(test::binaryDir());
  sys::path::append(In, "spanapp", "bin", "SpanApp");
  sys::path::append(In, "release", "SpanApp.dll");
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
  EXPECT_TRUE(has(test::readFile(Log), "12 of ")) << test::readFile(Log);
}

// --- a real backend: the Aspire dashboard ---

/// The Aspire dashboard (NuGet Aspire.Dashboard.Sdk.linux-x64, restored by aspire.restore) on
/// two free loopback ports, unsecured: OTLP/HTTP on one, the UI and its telemetry API on the
/// other. Stopped when it goes out of scope.
struct Dashboard {
  int UiPort = 0, OtlpPort = 0;
  sys::ProcessInfo Process;
  std::string Log;

  explicit Dashboard(const std::string &Dir) {
    SmallString<256> Exe(test::nugetPackagesDir());
    sys::path::append(Exe, "aspire.dashboard.sdk.linux-x64", "13.6.5", "tools", "Aspire.Dashboard");
    EXPECT_TRUE(sys::fs::can_execute(Exe)) << "the aspire.restore test restores " << Exe;
    UiPort = test::freePort();
    OtlpPort = test::freePort();
    Log = Dir + "/dashboard.log";
    // HOME: what the dashboard keeps (its data-protection keys) stays in the test's folder.
    std::vector<std::string> Env = {"ASPNETCORE_URLS=http://127.0.0.1:" + std::to_string(UiPort),
                                    "ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=http://127.0.0.1:" +
                                        std::to_string(OtlpPort),
                                    "ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS=true",
                                    "ASPIRE_ALLOW_UNSECURED_TRANSPORT=true",
                                    "HOME=" + Dir,
                                    "DOTNET_CLI_TELEMETRY_OPTOUT=1"};
    for (const char *Keep : {"PATH", "DOTNET_ROOT"})
      if (const char *V = ::getenv(Keep))
        Env.push_back(std::string(Keep) + "=" + V);
    std::vector<StringRef> EnvRefs(Env.begin(), Env.end());
    std::string ExeStr(Exe);
    StringRef Args[] = {ExeStr};
    Optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log), StringRef(Log)};
    Process = sys::ExecuteNoWait(ExeStr, Args, ArrayRef<StringRef>(EnvRefs), Redirects);
  }
  ~Dashboard() {
    if (Process.Pid > 0) {
      ::kill(Process.Pid, SIGTERM);
      sys::Wait(Process, 30, true);
    }
  }
  /// Waits until the telemetry API answers (up to 60 s).
  bool ready() {
    for (int I = 0; I < 600; ++I) {
      if (test::httpGet(UiPort, "/api/telemetry/traces"))
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(OtlpPort); }
};

/// A span as the dashboard's API gives it back (OTLP JSON).
struct ReceivedSpan {
  std::string Scope, Name, TraceId, SpanId, ParentSpanId, StatusMessage;
  int64_t StatusCode = 0;
  double Milliseconds = 0;
  std::map<std::string, std::string> Attributes;
  std::vector<std::string> Events;
};

std::vector<ReceivedSpan> receivedSpans(const std::string &Json) {
  std::vector<ReceivedSpan> Out;
  Expected<json::Value> V = json::parse(Json);
  if (!V) {
    ADD_FAILURE() << toString(V.takeError()) << Json;
    return Out;
  }
  auto Arr = [](const json::Object *O, StringRef K) {
    const json::Array *A = O ? O->getArray(K) : nullptr;
    static const json::Array None;
    return A ? A : &None;
  };
  auto Nanos = [](const json::Object &S, StringRef K) {
    Optional<StringRef> T = S.getString(K);
    return T ? std::stod(T->str()) : 0.0;
  };
  const json::Object *Data = V->getAsObject() ? V->getAsObject()->getObject("data") : nullptr;
  for (const json::Value &RS : *Arr(Data, "resourceSpans"))
    for (const json::Value &SS : *Arr(RS.getAsObject(), "scopeSpans")) {
      const json::Object *Scope = SS.getAsObject()->getObject("scope");
      for (const json::Value &SV : *Arr(SS.getAsObject(), "spans")) {
        const json::Object &S = *SV.getAsObject();
        ReceivedSpan R;
        R.Scope = Scope && Scope->getString("name") ? Scope->getString("name")->str() : "";
        R.Name = S.getString("name").getValueOr("").str();
        R.TraceId = S.getString("traceId").getValueOr("").str();
        R.SpanId = S.getString("spanId").getValueOr("").str();
        R.ParentSpanId = S.getString("parentSpanId").getValueOr("").str();
        R.Milliseconds = (Nanos(S, "endTimeUnixNano") - Nanos(S, "startTimeUnixNano")) / 1e6;
        if (const json::Object *St = S.getObject("status")) {
          R.StatusCode = St->getInteger("code").getValueOr(0);
          R.StatusMessage = St->getString("message").getValueOr("").str();
        }
        for (const json::Value &A : *Arr(&S, "attributes")) {
          const json::Object &AO = *A.getAsObject();
          const json::Object *Val = AO.getObject("value");
          std::string Text;
          if (Val && Val->getString("stringValue"))
            Text = Val->getString("stringValue")->str();
          else if (Val && Val->get("intValue"))
            Text = Val->get("intValue")->getAsString()
                       ? Val->get("intValue")->getAsString()->str()
                       : std::to_string(*Val->getInteger("intValue"));
          R.Attributes[AO.getString("key").getValueOr("").str()] = Text;
        }
        for (const json::Value &E : *Arr(&S, "events"))
          R.Events.push_back(E.getAsObject()->getString("name").getValueOr("").str());
        Out.push_back(std::move(R));
      }
    }
  return Out;
}

// The woven app exports with its own OpenTelemetry SDK (AddSource("Weft")) over OTLP/HTTP to
// the Aspire dashboard: each span arrives once, in the app's trace, nested as called, with its
// attributes, the error and its event, and an async method's whole duration.
TEST(Span, TheAppsSdkSendsEachSpanOnceToTheDashboard) {
  SmallString<256> Bin(test::binaryDir());
  sys::path::append(Bin, "otelapp", "bin", "OtelApp");
  sys::path::append(Bin, "release");
  ASSERT_TRUE(sys::fs::exists(Bin + "/OtelApp.dll")) << "the otelapp.build test builds " << Bin;
  std::string Dir = test::scratchDir("span-dashboard");
  std::error_code EC;
  for (sys::fs::directory_iterator I(Bin, EC), End; I != End && !EC; I.increment(EC))
    ASSERT_FALSE(sys::fs::copy_file(I->path(), Dir + "/" + sys::path::filename(I->path()).str()));
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(test::writeFile(
      Spec, R"({"version": 1, "rules": [{"match": {"type": "Shop"}, "passes": ["span"]}]})"));
  test::CommandResult Weave =
      test::run(test::weftTool(), {"weave", std::string(Bin) + "/OtelApp.dll", "-o",
                                   Dir + "/OtelApp.dll", "--spec", Spec, "--verify-each"});
  ASSERT_EQ(Weave.ExitCode, 0) << Weave.Err;

  Dashboard D(Dir);
  ASSERT_TRUE(D.ready()) << test::readFile(D.Log);
  test::CommandResult R = test::run(
      "dotnet", {Dir + "/OtelApp.dll"},
      {"OTEL_EXPORTER_OTLP_ENDPOINT=" + D.endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"},
      120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "order 16\ncaught boom\nslow 60\n");

  std::vector<ReceivedSpan> Spans;
  for (int I = 0; I < 150; ++I) { // the dashboard takes what it received in a moment
    std::optional<std::string> Body = test::httpGet(D.UiPort, "/api/telemetry/traces");
    Spans = Body ? receivedSpans(*Body) : std::vector<ReceivedSpan>{};
    if (Spans.size() >= 6)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::map<std::string, std::vector<const ReceivedSpan *>> ByName;
  for (const ReceivedSpan &S : Spans)
    ByName[S.Name].push_back(&S);
  for (const char *Name : {"request", "Shop.Order", "Shop.Price", "Shop.Fail", "Shop.SlowAsync"})
    ASSERT_EQ(ByName[Name].size(), 1u) << Name << ": " << test::readFile(D.Log);
  const ReceivedSpan &Request = *ByName["request"][0], &Order = *ByName["Shop.Order"][0],
                     &Price = *ByName["Shop.Price"][0], &Fail = *ByName["Shop.Fail"][0],
                     &Slow = *ByName["Shop.SlowAsync"][0];
  for (const ReceivedSpan *S : {&Order, &Price, &Fail, &Slow}) {
    EXPECT_EQ(S->Scope, "Weft") << S->Name;
    EXPECT_EQ(S->TraceId, Request.TraceId) << S->Name;
  }
  EXPECT_EQ(Order.ParentSpanId, Request.SpanId);
  EXPECT_EQ(Price.ParentSpanId, Order.SpanId);
  EXPECT_EQ(Slow.ParentSpanId, Request.SpanId);
  EXPECT_GE(Slow.Milliseconds, 50.0);
  EXPECT_EQ(Order.Attributes.at("code.function.name"), "Shop.Order");
  EXPECT_EQ(Order.Attributes.at("code.line.number"), "10");
  EXPECT_EQ(Fail.StatusCode, 2) << "STATUS_CODE_ERROR";
  EXPECT_EQ(Fail.StatusMessage, "boom");
  EXPECT_EQ(Fail.Events, std::vector<std::string>{"exception"});
}

} // namespace
