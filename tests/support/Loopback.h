//===- tests/support/Loopback.h - Servers on loopback in tests --*- C++ -*-===//
//
// The tests that start a server (a woven web app, the Aspire dashboard) give it a free loopback
// port and ask it over plain HTTP/1.0, with no client library.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_LOOPBACK_H
#define WEFT_TESTS_SUPPORT_LOOPBACK_H

#include <optional>
#include <string>

namespace weft::test {

/// A port on loopback that nothing listens on now.
int freePort();

/// The body of GET \p Path on loopback port \p Port if the answer is 200, else nothing.
std::optional<std::string> httpGet(int Port, const std::string &Path);

} // namespace weft::test

#endif
