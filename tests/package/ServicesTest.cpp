//===- tests/package/ServicesTest.cpp - One trace across two services -----===//
//
// tests/services as a team runs it: an ASP.NET Core front that asks a back service for prices
// over HttpClient, each its own process, with no OpenTelemetry package. Built once with the Weft
// package (weft.json beside the project: spans on Orders and Pricing), and once without weaving
// and run under `weft run --otlp`. Either way, each service exports by itself to the Aspire
// dashboard (tests/support/Dashboard.h), and the test reads the trace back: one trace id across
// both processes, weft's spans children of ASP.NET Core's request spans and parents of
// HttpClient's, the back's request span a child of the front's HttpClient span, an async method
// awaiting 50 ms lasting at least that, a throwing method's error status and event, and the
// chosen arguments as attributes.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Dashboard.h"
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <functional>
#include <regex>
#include <gtest/gtest.h>
#include <signal.h>
#include <thread>

extern char **environ;

using namespace llvm;
using namespace weft;

namespace {

class Services : public ::testing::Test {
protected:
  static std::string Root; // the test's scratch folder
  static std::string Source;

  static void SetUpTestSuite() {
    Root = test::scratchDir("services");
    Source = Root + "/src";
    ASSERT_FALSE(sys::fs::create_directories(Source));
    SmallString<256> From(test::sourceDir());
    sys::path::append(From, "tests", "services");
    test::CommandResult C = test::run("cp", {"-R", std::string(From) + "/.", Source});
    ASSERT_EQ(C.ExitCode, 0) << C.Err;
  }

  /// `dotnet build` of the services with the Weft package from the package.pack step, into
  /// Root/ARTIFACTS; the path of Services.dll.
  static std::string build(const std::string &Artifacts, std::vector<std::string> More = {}) {
    std::vector<std::string> Args = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.begin(), {"build", Source + "/Services.csproj", "-nologo", "-c", "Release",
                               "--artifacts-path", Root + "/" + Artifacts});
    Args.insert(Args.end(), More.begin(), More.end());
    test::CommandResult R = test::run("dotnet", Args, {}, 600);
    EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
    return Root + "/" + Artifacts + "/bin/Services/release/Services.dll";
  }
};

std::string Services::Root, Services::Source;

/// A service started in the background, stopped with SIGTERM (ASP.NET Core's graceful stop, in
/// which the exporter sends what it holds).
class Service {
public:
  Service(std::vector<std::string> Command, std::vector<std::string> Env, const std::string &Log,
          int Port)
      : Port(Port) {
    for (char **E = environ; *E; ++E)
      Env.push_back(*E); // a variable given first wins
    std::vector<StringRef> EnvRefs(Env.begin(), Env.end()), Args(Command.begin(), Command.end());
    ErrorOr<std::string> Exe = sys::findProgramByName(Command[0]);
    EXPECT_TRUE(Exe) << Command[0];
    Optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log), StringRef(Log)};
    Process =
        sys::ExecuteNoWait(Exe ? *Exe : Command[0], Args, ArrayRef<StringRef>(EnvRefs), Redirects);
  }
  ~Service() { stop(); }

  bool ready() {
    for (int I = 0; I < 600; ++I) {
      if (test::httpGet(Port, "/health"))
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  /// Stops the service and returns its exit status (negative: it had to be killed after 30 s).
  int stop() {
    if (Process.Pid <= 0)
      return Status;
    ::kill(Process.Pid, SIGTERM);
    std::string Problem;
    Status = sys::Wait(Process, 30, false, &Problem).ReturnCode; // kills it after that
    Process.Pid = 0;
    return Status;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(Port); }

private:
  int Port;
  int Status = -1;
  sys::ProcessInfo Process;
};

const test::ReceivedSpan *find(const std::vector<test::ReceivedSpan> &Spans,
                               std::function<bool(const test::ReceivedSpan &)> Which) {
  for (const test::ReceivedSpan &S : Spans)
    if (Which(S))
      return &S;
  return nullptr;
}

const test::ReceivedSpan *named(const std::vector<test::ReceivedSpan> &Spans,
                                const std::string &Name) {
  return find(Spans, [&](const test::ReceivedSpan &S) { return S.Name == Name; });
}

const test::ReceivedSpan *byId(const std::vector<test::ReceivedSpan> &Spans,
                               const std::string &Id) {
  return find(Spans, [&](const test::ReceivedSpan &S) { return S.SpanId == Id; });
}

/// The front and the back, started by \p Start (a service's name, its arguments, its log and
/// port: the command that runs it), asked for an order and a refusal, then stopped; what the
/// dashboard received, checked.
void runAndCheck(test::Dashboard &D, const std::string &Tag,
                 std::function<std::vector<std::string>(std::vector<std::string>)> Command) {
  int BackPort = test::freePort(), FrontPort = test::freePort();
  auto Env = [&](const std::string &Name) {
    return std::vector<std::string>{"OTEL_SERVICE_NAME=" + Name + "-" + Tag,
                                    "OTEL_EXPORTER_OTLP_ENDPOINT=" + D.endpoint(),
                                    "OTEL_BSP_SCHEDULE_DELAY=200", "OTEL_LOG_LEVEL=debug"};
  };
  std::string Dir = test::scratchDir("services-" + Tag);
  Service Back(Command({"back", std::to_string(BackPort)}), Env("back"), Dir + "/back.log",
               BackPort);
  Service Front(Command({"front", std::to_string(FrontPort), Back.url()}), Env("front"),
                Dir + "/front.log", FrontPort);
  ASSERT_TRUE(Back.ready()) << test::readFile(Dir + "/back.log");
  ASSERT_TRUE(Front.ready()) << test::readFile(Dir + "/front.log");
  EXPECT_EQ(test::httpGet(FrontPort, "/order/7").value_or("(failed)"), "order 7: 140");
  EXPECT_EQ(test::httpGet(FrontPort, "/refuse").value_or("(failed)"), "refused: out of stock");
  EXPECT_EQ(Front.stop(), 0) << test::readFile(Dir + "/front.log");
  EXPECT_EQ(Back.stop(), 0) << test::readFile(Dir + "/back.log");
  std::string Logs = test::readFile(Dir + "/front.log") + test::readFile(Dir + "/back.log");
  // Each service's exporter says at exit (OTEL_LOG_LEVEL=debug) what it sent, and dropped and
  // delivered all.
  for (const char *Name : {"front", "back"}) {
    std::string Log = test::readFile(Dir + "/" + Name + ".log");
    std::smatch M;
    ASSERT_TRUE(std::regex_search(Log, M, std::regex("([0-9]+) spans sent to [^,]*, ([0-9]+) "
                                                     "dropped \\(queue full\\), ([0-9]+) not "
                                                     "delivered")))
        << Name << ": no exporter figures in\n"
        << Log;
    EXPECT_GE(std::stoll(M[1]), 1) << Name << ": " << M[0];
    EXPECT_EQ(M[2], "0") << Name << ": " << M[0];
    EXPECT_EQ(M[3], "0") << Name << ": " << M[0];
  }

  std::vector<test::ReceivedSpan> FrontSpans = D.spans(6, "front-" + Tag),
                                  BackSpans = D.spans(4, "back-" + Tag);
  const test::ReceivedSpan *Checkout = named(FrontSpans, "Orders.Checkout");
  ASSERT_TRUE(Checkout) << Logs;
  EXPECT_EQ(Checkout->Attributes.at("weft.arg.n"), "7");
  // The front: ASP.NET Core's request span, Checkout in it, HttpClient's request in that.
  const test::ReceivedSpan *FrontRequest = byId(FrontSpans, Checkout->ParentSpanId);
  ASSERT_TRUE(FrontRequest) << "Checkout's parent was exported";
  EXPECT_EQ(FrontRequest->Scope, "Microsoft.AspNetCore");
  EXPECT_EQ(FrontRequest->Kind, 2) << "SPAN_KIND_SERVER";
  const test::ReceivedSpan *Call = find(FrontSpans, [&](const test::ReceivedSpan &S) {
    return S.Scope == "System.Net.Http" && S.ParentSpanId == Checkout->SpanId;
  });
  ASSERT_TRUE(Call) << "HttpClient's span in Checkout's";
  EXPECT_EQ(Call->Kind, 3) << "SPAN_KIND_CLIENT";
  // The back: its request span a child of the front's call, in the same trace.
  const test::ReceivedSpan *Quote = named(BackSpans, "Pricing.Quote");
  ASSERT_TRUE(Quote);
  const test::ReceivedSpan *BackRequest = byId(BackSpans, Quote->ParentSpanId);
  ASSERT_TRUE(BackRequest);
  EXPECT_EQ(BackRequest->Scope, "Microsoft.AspNetCore");
  EXPECT_EQ(BackRequest->ParentSpanId, Call->SpanId) << "W3C context from the front";
  for (const test::ReceivedSpan *S : {FrontRequest, Call, BackRequest, Quote})
    EXPECT_EQ(S->TraceId, Checkout->TraceId) << S->Name << ": one trace across both processes";
  // Quote awaits Task.Delay(50). The runtime's timers count on the coarse monotonic clock (a
  // tick of up to 4 ms on Linux), the span on the precise one: the delay can end a tick early.
  EXPECT_GE(Quote->Milliseconds, 45.0);
  EXPECT_EQ(Quote->Attributes.at("weft.arg.n"), "7");
  const test::ReceivedSpan *Base = named(BackSpans, "Pricing.Base");
  ASSERT_TRUE(Base);
  EXPECT_EQ(Base->ParentSpanId, Quote->SpanId) << "called after the await, inside Quote's span";
  // A throw: the error, its event, the argument.
  const test::ReceivedSpan *Refuse = named(FrontSpans, "Orders.Refuse");
  ASSERT_TRUE(Refuse);
  EXPECT_EQ(Refuse->StatusCode, 2);
  EXPECT_EQ(Refuse->StatusMessage, "out of stock");
  EXPECT_EQ(Refuse->Events, std::vector<std::string>{"exception"});
  EXPECT_EQ(Refuse->Attributes.at("weft.arg.why"), "out of stock");
  const test::ReceivedSpan *RefuseRequest = byId(FrontSpans, Refuse->ParentSpanId);
  ASSERT_TRUE(RefuseRequest);
  EXPECT_EQ(RefuseRequest->Scope, "Microsoft.AspNetCore");
}

TEST_F(Services, WovenByThePackageOneTraceSpansBothProcesses) {
  std::string Dll = build("woven");
  test::CommandResult Dump = test::run(test::weftTool(), {"dump", Dll});
  ASSERT_NE(Dump.Out.find("'<weft>'.Spans"), std::string::npos) << "the package wove the spans";
  test::Dashboard D(Root);
  ASSERT_TRUE(D.ready()) << test::readFile(D.log());
  runAndCheck(D, "package", [&](std::vector<std::string> Args) {
    Args.insert(Args.begin(), {"dotnet", Dll});
    return Args;
  });
}

TEST_F(Services, UnderWeftRunOneTraceSpansBothProcesses) {
  std::string Dll = build("plain", {"-p:WeftEnabled=false"});
  test::CommandResult Dump = test::run(test::weftTool(), {"dump", Dll});
  ASSERT_EQ(Dump.Out.find("'<weft>'.Spans"), std::string::npos) << "nothing woven";
  std::string Dir = test::scratchDir("services-run");
  test::Dashboard D(Dir);
  ASSERT_TRUE(D.ready()) << test::readFile(D.log());
  // weft run passes SIGTERM on to the service, whose graceful stop flushes the spans.
  runAndCheck(D, "run", [&](std::vector<std::string> Args) {
    std::vector<std::string> Command = {
        test::weftTool(), "run", "--spec", Source + "/weft.json", "--otlp", D.endpoint(), "--",
        "dotnet",         Dll};
    Command.insert(Command.end(), Args.begin(), Args.end());
    return Command;
  });
}

} // namespace
