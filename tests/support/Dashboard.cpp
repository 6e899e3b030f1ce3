//===- tests/support/Dashboard.cpp - A real OTLP backend in tests --------===//
#include "tests/support/Dashboard.h"

#include "tests/support/Env.h"
#include "tests/support/Loopback.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <gtest/gtest.h>
#include <signal.h>
#include <thread>

using namespace llvm;

namespace weft::test {

Dashboard::Dashboard(const std::string &Dir) {
  SmallString<256> Exe(nugetPackagesDir());
  sys::path::append(Exe, "aspire.dashboard.sdk.linux-x64", "13.6.5", "tools", "Aspire.Dashboard");
  EXPECT_TRUE(sys::fs::can_execute(Exe)) << "the aspire.restore test restores " << Exe;
  UiPort = freePort();
  OtlpPort = freePort();
  GrpcPort = freePort();
  Log = Dir + "/dashboard.log";
  // HOME: what the dashboard keeps (its data-protection keys) stays in the test's folder.
  std::vector<std::string> Env = {
      "ASPNETCORE_URLS=http://127.0.0.1:" + std::to_string(UiPort),
      "ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=http://127.0.0.1:" + std::to_string(OtlpPort),
      "ASPIRE_DASHBOARD_OTLP_ENDPOINT_URL=http://127.0.0.1:" + std::to_string(GrpcPort),
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
Dashboard::~Dashboard() {
  if (Process.Pid > 0) {
    ::kill(Process.Pid, SIGTERM);
    sys::Wait(Process, 30, true);
  }
}
bool Dashboard::ready() {
  for (int I = 0; I < 600; ++I) {
    if (httpGet(UiPort, "/api/telemetry/traces"))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}
std::string Dashboard::endpoint() const { return "http://127.0.0.1:" + std::to_string(OtlpPort); }

std::string Dashboard::grpcEndpoint() const {
  return "http://127.0.0.1:" + std::to_string(GrpcPort);
}

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
      std::map<std::string, std::string> ResourceAttributes;
      const json::Object *Resource = RS.getAsObject()->getObject("resource");
      for (const json::Value &A : *Arr(Resource, "attributes"))
        if (const json::Object *Val = A.getAsObject()->getObject("value"))
          if (Optional<StringRef> Text = Val->getString("stringValue"))
            ResourceAttributes[A.getAsObject()->getString("key").getValueOr("").str()] =
                Text->str();
      std::string Service = ResourceAttributes["service.name"];
      const json::Object *Scope = SS.getAsObject()->getObject("scope");
      for (const json::Value &SV : *Arr(SS.getAsObject(), "spans")) {
        const json::Object &S = *SV.getAsObject();
        ReceivedSpan R;
        R.Service = Service;
        R.Resource = ResourceAttributes;
        R.Kind = S.getInteger("kind").getValueOr(0);
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

std::vector<ReceivedSpan> Dashboard::spans(size_t AtLeast, const std::string &Service) {
  std::vector<ReceivedSpan> Spans;
  for (int I = 0; I < 150; ++I) {
    std::optional<std::string> Body = httpGet(UiPort, "/api/telemetry/traces");
    Spans = Body ? receivedSpans(*Body) : std::vector<ReceivedSpan>{};
    if (!Service.empty())
      Spans.erase(std::remove_if(Spans.begin(), Spans.end(),
                                 [&](const ReceivedSpan &S) { return S.Service != Service; }),
                  Spans.end());
    if (Spans.size() >= AtLeast)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Spans;
}

std::map<std::string, std::vector<const ReceivedSpan *>>
byName(const std::vector<ReceivedSpan> &Spans) {
  std::map<std::string, std::vector<const ReceivedSpan *>> ByName;
  for (const ReceivedSpan &S : Spans)
    ByName[S.Name].push_back(&S);
  return ByName;
}

} // namespace weft::test
