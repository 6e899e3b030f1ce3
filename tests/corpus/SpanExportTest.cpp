// The span pass's spans in a real backend, the Aspire dashboard (tests/support/Dashboard.h):
// exported by the app's own OpenTelemetry SDK (tests/otel-app), or, with no SDK, by the exporter
// the woven module carries (tests/span-app), offline and under `weft run --otlp`; and that
// exporter against a backend that refuses, is missing, or samples nothing.
#include "tests/support/Dashboard.h"
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"
#include "tests/support/SpanApp.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <gtest/gtest.h>
#include <map>
#include <regex>

using namespace llvm;
using namespace weft;

namespace {

bool has(const std::string &Text, const std::string &Line) {
  return Text.find(Line) != std::string::npos;
}

// The woven app exports with its own OpenTelemetry SDK (AddSource("Weft")) over OTLP/HTTP to
// the Aspire dashboard: each span arrives once (the exporter the module carries starts too, since
// the variables name an endpoint, and leaves them to the SDK), in the app's trace, nested as
// called, with its attributes, the error and its event, and an async method's whole duration.
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

  test::Dashboard D(Dir);
  ASSERT_TRUE(D.ready()) << test::readFile(D.log());
  test::CommandResult R =
      test::run("dotnet", {Dir + "/OtelApp.dll"},
                {"OTEL_EXPORTER_OTLP_ENDPOINT=" + D.endpoint(),
                 "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_LOG_LEVEL=debug"},
                120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, "order 16\ncaught boom\nslow 60\n");
  // The module's own exporter started too (the variables name an endpoint), and saw that the
  // app's SDK takes the spans.
  EXPECT_TRUE(
      std::regex_search(R.Err, std::regex("OTLP export: 0 spans sent to .*, [1-9][0-9]* left "
                                          "to the app's own exporter")))
      << R.Err;

  std::vector<test::ReceivedSpan> Spans = D.spans(6);
  std::map<std::string, std::vector<const test::ReceivedSpan *>> ByName = test::byName(Spans);
  for (const char *Name : {"request", "Shop.Order", "Shop.Price", "Shop.Fail", "Shop.SlowAsync"})
    ASSERT_EQ(ByName[Name].size(), 1u) << Name << ": " << test::readFile(D.log());
  const test::ReceivedSpan &Request = *ByName["request"][0], &Order = *ByName["Shop.Order"][0],
                           &Price = *ByName["Shop.Price"][0], &Fail = *ByName["Shop.Fail"][0],
                           &Slow = *ByName["Shop.SlowAsync"][0];
  for (const test::ReceivedSpan *S : {&Order, &Price, &Fail, &Slow}) {
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

/// tests/span-app, woven with span (the argument n as an attribute), in a folder of its own.
test::WovenSpanApp exportingApp(StringRef Name) {
  return test::weaveSpanApp(Name, R"({"name": "span", "options": {"arguments": ["n"]}})");
}

/// What every export of span-app must show: the woven methods' spans, each once, nested as
/// called, with their attributes, the error and its event, and an async method's whole time.
void expectSpanAppSpans(const std::vector<test::ReceivedSpan> &Spans, const std::string &Why) {
  std::map<std::string, std::vector<const test::ReceivedSpan *>> ByName = test::byName(Spans);
  for (const char *Name :
       {"Shop.Order", "Shop.Tax", "Shop.Fail", "Shop.SlowAsync", "Shop.FaultAsync",
        "Shop.CancelAsync", "Shop.QuickValue", "Shop.SlowValue", "Store.Clerk.Greet"})
    ASSERT_EQ(ByName[Name].size(), 1u) << Name << " (" << Why << ")";
  // Price: once in Order, once after SlowAsync's await.
  ASSERT_EQ(ByName["Shop.Price"].size(), 2u) << Why;
  const test::ReceivedSpan &Order = *ByName["Shop.Order"][0], &Fail = *ByName["Shop.Fail"][0],
                           &Slow = *ByName["Shop.SlowAsync"][0];
  EXPECT_EQ(ByName["Shop.Tax"][0]->ParentSpanId, Order.SpanId) << Why;
  EXPECT_EQ(ByName["Shop.Tax"][0]->TraceId, Order.TraceId) << Why;
  EXPECT_EQ(Order.Scope, "Weft") << Why;
  EXPECT_EQ(Order.Attributes.at("code.function.name"), "Shop.Order") << Why;
  EXPECT_EQ(Order.Attributes.at("code.line.number"), "8") << Why;
  EXPECT_EQ(Order.Attributes.at("weft.arg.n"), "50") << Why;
  EXPECT_EQ(Fail.StatusCode, 2) << Why;
  EXPECT_EQ(Fail.StatusMessage, "boom") << Why;
  EXPECT_EQ(Fail.Events, std::vector<std::string>{"exception"}) << Why;
  EXPECT_GE(Slow.Milliseconds, 50.0) << Why;
  // The exporter's own requests are not spans.
  for (const test::ReceivedSpan &S : Spans)
    EXPECT_EQ(S.Scope, "Weft") << S.Name << " (" << Why << ")";
}

// An app with no OpenTelemetry SDK: the woven module carries its exporter, which sends the spans
// where the standard variables say, in each of OTLP's protocols, with the service's name and
// resource attributes; the program's output is what it was.
TEST(Span, WithoutAnSdkTheWovenModuleExportsToTheDashboard) {
  test::WovenSpanApp W = exportingApp("span-export");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::Dashboard D(W.Dir);
  ASSERT_TRUE(D.ready()) << test::readFile(D.log());
  for (std::string Protocol : {"http/protobuf", "http/json", "grpc"}) {
    std::string Service = "span-app-" + std::regex_replace(Protocol, std::regex("/"), "-");
    test::CommandResult R = test::run(
        "dotnet", {W.Dll},
        {"OTEL_EXPORTER_OTLP_ENDPOINT=" + (Protocol == "grpc" ? D.grpcEndpoint() : D.endpoint()),
         "OTEL_EXPORTER_OTLP_PROTOCOL=" + Protocol, "OTEL_SERVICE_NAME=" + Service,
         "OTEL_RESOURCE_ATTRIBUTES=deployment.environment=test"},
        120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, std::string(test::SpanAppOutput) + "current after the calls: request\n");
    EXPECT_EQ(R.Err, "") << "nothing lost, nothing to say";
    std::vector<test::ReceivedSpan> Spans = D.spans(13, Service);
    expectSpanAppSpans(Spans, Protocol);
    for (const test::ReceivedSpan &S : Spans)
      EXPECT_EQ(S.Resource.count("deployment.environment") ? S.Resource.at("deployment.environment")
                                                           : "(none)",
                "test")
          << Protocol << ": " << S.Name << ": OTEL_RESOURCE_ATTRIBUTES";
  }
}

// `weft run --otlp`: the unwoven program, its methods made spans at JIT time and exported by the
// same exporter, which the profiler leaves unwoven.
TEST(Span, WeftRunOtlpExportsAnUnwovenProgramsSpans) {
  test::WovenSpanApp W = exportingApp("span-run-otlp");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  test::Dashboard D(W.Dir);
  ASSERT_TRUE(D.ready()) << test::readFile(D.log());
  std::string In = test::spanAppDll();
  std::string Log = W.Dir + "/run.log";
  test::CommandResult R = test::run(test::weftTool(),
                                    {"run", "--spec", W.Dir + "/weft.json", "--otlp", D.endpoint(),
                                     "--log", Log, "--", "dotnet", std::string(In)},
                                    {"OTEL_SERVICE_NAME=span-app-jit",
                                     "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:9/no"},
                                    120);
  ASSERT_EQ(R.ExitCode, 0) << R.Err << test::readFile(Log);
  EXPECT_EQ(R.Out, std::string(test::SpanAppOutput) + "current after the calls: request\n");
  expectSpanAppSpans(D.spans(13, "span-app-jit"), "weft run --otlp");
  test::CommandResult Bad = test::run(
      test::weftTool(), {"run", "--otlp", "localhost:4318", "--", "dotnet", std::string(In)});
  EXPECT_EQ(Bad.ExitCode, 2) << "a usage error, before anything runs";
  EXPECT_TRUE(has(Bad.Err, "--otlp: 'localhost:4318' is not an http:// or https:// URL"))
      << Bad.Err;
  EXPECT_EQ(Bad.Out, "");
  EXPECT_FALSE(has(test::readFile(Log), "Weft.Otlp.dll")) << test::readFile(Log);
}

// What the exporter does when the backend is slow, refuses or is not there: it retries what is
// refused for now (after Retry-After), with the headers and the endpoint the variables give;
// when the queue is full it drops and counts; it never holds the program up, and says what it
// lost. A sampler that keeps nothing sends nothing.
TEST(Span, TheExporterRetriesDropsAndCountsAndNeverHoldsTheProgramUp) {
  test::WovenSpanApp W = exportingApp("span-export-faults");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::string Out = std::string(test::SpanAppOutput) + "current after the calls: request\n";
  {
    test::RecordingServer Server({"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1"});
    std::string Url = "http://127.0.0.1:" + std::to_string(Server.port()) + "/custom/traces";
    test::CommandResult R =
        test::run("dotnet", {W.Dll},
                  {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + Url,
                   "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9",
                   "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=secret%20one,x-team=weft",
                   "OTEL_BSP_SCHEDULE_DELAY=100000"},
                  120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, Out);
    EXPECT_EQ(R.Err, "") << "the retry delivered everything";
    std::vector<test::RecordingServer::Request> Got = Server.requests();
    ASSERT_EQ(Got.size(), 2u) << "refused once (503), then sent again";
    for (const test::RecordingServer::Request &Q : Got) {
      EXPECT_TRUE(has(Q.Head, "POST /custom/traces HTTP/1.1\r\n")) << Q.Head;
      EXPECT_TRUE(has(Q.Head, "\r\nx-api-key: secret one")) << Q.Head;
      EXPECT_TRUE(has(Q.Head, "\r\nx-team: weft")) << Q.Head;
      EXPECT_TRUE(has(Q.Head, "\r\nContent-Type: application/x-protobuf")) << Q.Head;
      EXPECT_TRUE(has(Q.Body, "Shop.SlowAsync")) << "protobuf keeps strings as they are";
    }
    EXPECT_EQ(Got[0].Body, Got[1].Body) << "the same batch again";
  }
  {
    // Nobody listening there, a queue of 3: the rest is dropped, and the program is not held up.
    auto Start = std::chrono::steady_clock::now();
    test::CommandResult R = test::run(
        "dotnet", {W.Dll},
        {"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + std::to_string(test::freePort()),
         "OTEL_BSP_MAX_QUEUE_SIZE=3"},
        120);
    double Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, Out);
    std::smatch M;
    ASSERT_TRUE(std::regex_search(R.Err, M,
                                  std::regex("weft: OTLP export: 0 spans sent to http://127.0.0.1:"
                                             "[0-9]+/v1/traces, ([0-9]+) dropped \\(queue full\\), "
                                             "([0-9]+) not delivered \\(")))
        << R.Err;
    EXPECT_EQ(std::stoi(M[1]) + std::stoi(M[2]), 13) << R.Err;
    EXPECT_GE(std::stoi(M[1]), 1) << R.Err;
    EXPECT_LT(Seconds, 20.0) << "the exit waits 5 s for the exporter at most";
  }
  {
    test::RecordingServer Server;
    test::CommandResult R =
        test::run("dotnet", {W.Dll},
                  {"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + std::to_string(Server.port()),
                   "OTEL_TRACES_SAMPLER=always_off", "OTEL_LOG_LEVEL=debug"},
                  120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    EXPECT_EQ(R.Out, Out);
    EXPECT_TRUE(has(R.Err, "weft: OTLP export: 0 spans sent")) << R.Err;
    EXPECT_TRUE(Server.requests().empty());
  }
}

/// The spans of the source Weft.Runtime in the OTLP/JSON requests \p Server received, each as
/// "NAME key=value ..." on a line.
std::string runtimeSpans(test::RecordingServer &Server) {
  std::string All;
  for (const test::RecordingServer::Request &Q : Server.requests()) {
    Expected<json::Value> V = json::parse(Q.Body);
    if (!V) {
      ADD_FAILURE() << toString(V.takeError());
      continue;
    }
    for (const json::Value &RS : *V->getAsObject()->getArray("resourceSpans"))
      for (const json::Value &SS : *RS.getAsObject()->getArray("scopeSpans")) {
        if (SS.getAsObject()->getObject("scope")->getString("name") != StringRef("Weft.Runtime"))
          continue;
        for (const json::Value &Sp : *SS.getAsObject()->getArray("spans")) {
          const json::Object &O = *Sp.getAsObject();
          All += O.getString("name").getValueOr("").str();
          for (const json::Value &A : *O.getArray("attributes")) {
            const json::Object *Val = A.getAsObject()->getObject("value");
            Optional<StringRef> Str = Val->getString("stringValue"),
                                Int = Val->getString("intValue");
            All += " " + A.getAsObject()->getString("key").getValueOr("").str() + "=" +
                   (Str   ? Str->str()
                    : Int ? Int->str()
                          : "?");
          }
          EXPECT_GT(std::stoull(O.getString("endTimeUnixNano")->str()),
                    std::stoull(O.getString("startTimeUnixNano")->str()));
          All += "\n";
        }
      }
  }
  return All;
}

// With WEFT_GC (`weft run --gc` sets it), collections are spans too: the program calls
// GC.Collect(), and the exporter sends a span "GC" of the source Weft.Runtime with the
// collection's generation, reason and thread (http/json); unwoven under `weft run --gc
// informational --otlp`, and woven offline with the variable set.
TEST(Span, CollectionsAreSpansWithWeftGc) {
  std::regex Induced("GC gc.number=[0-9]+ gc.generation=2 gc.reason=Induced "
                     "gc.type=NonConcurrentGC thread.id=[1-9][0-9]*\n");
  test::WovenSpanApp W = exportingApp("span-gc");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  {
    test::RecordingServer Server;
    test::CommandResult R = test::run(
        test::weftTool(),
        {"run", "--gc", "informational", "--spec", W.Dir + "/weft.json", "--output-dir", W.Dir,
         "--log", W.Dir + "/run.log", "--otlp", "http://127.0.0.1:" + std::to_string(Server.port()),
         "--", "dotnet", test::spanAppDll(), "gc"},
        {"OTEL_EXPORTER_OTLP_PROTOCOL=http/json"}, 120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err << test::readFile(W.Dir + "/run.log");
    std::string Spans = runtimeSpans(Server);
    EXPECT_TRUE(std::regex_search(Spans, Induced)) << Spans;
  }
  {
    test::RecordingServer Server;
    test::CommandResult R =
        test::run("dotnet", {W.Dll, "gc"},
                  {"WEFT_GC=informational", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json",
                   "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + std::to_string(Server.port())},
                  120);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    std::string Spans = runtimeSpans(Server);
    EXPECT_TRUE(std::regex_search(Spans, Induced)) << Spans;
  }
}

} // namespace
