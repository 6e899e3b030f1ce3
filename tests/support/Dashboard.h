//===- tests/support/Dashboard.h - A real OTLP backend in tests -*- C++ -*-===//
//
// The Aspire dashboard (NuGet Aspire.Dashboard.Sdk.linux-x64, restored by the aspire.restore
// test), started by a test on free loopback ports with its unsecured settings: OTLP over HTTP
// and over gRPC on two of them, the UI and its telemetry API on the third. The test reads back
// what it received through GET /api/telemetry/traces (OTLP JSON).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_DASHBOARD_H
#define WEFT_TESTS_SUPPORT_DASHBOARD_H

#include "llvm/Support/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft::test {

/// A span as the dashboard's API gives it back.
struct ReceivedSpan {
  std::string Service, Scope, Name, TraceId, SpanId, ParentSpanId, StatusMessage;
  int64_t Kind = 0, StatusCode = 0;
  double Milliseconds = 0;
  std::map<std::string, std::string> Attributes;
  std::vector<std::string> Events;
  /// The string attributes of the resource that sent it (service.name, OTEL_RESOURCE_ATTRIBUTES').
  std::map<std::string, std::string> Resource;
};

/// The spans of an OTLP JSON answer (a failure of the test where it is not that).
std::vector<ReceivedSpan> receivedSpans(const std::string &Json);

/// \p Spans by name.
std::map<std::string, std::vector<const ReceivedSpan *>>
byName(const std::vector<ReceivedSpan> &Spans);

/// The dashboard, its state (HOME) and log in \p Dir; stopped when it goes out of scope.
class Dashboard {
public:
  explicit Dashboard(const std::string &Dir);
  ~Dashboard();
  /// Waits until the telemetry API answers (up to 60 s).
  bool ready();
  /// OTLP/HTTP's base URL, OTLP/gRPC's.
  std::string endpoint() const;
  std::string grpcEndpoint() const;
  /// The spans the dashboard holds (of service \p Service, or all), once it has \p AtLeast of
  /// them or 15 s have passed: it takes what it received in a moment.
  std::vector<ReceivedSpan> spans(size_t AtLeast, const std::string &Service = "");
  const std::string &log() const { return Log; }

private:
  int UiPort = 0, OtlpPort = 0, GrpcPort = 0;
  llvm::sys::ProcessInfo Process;
  std::string Log;
};

} // namespace weft::test

#endif
