//===- cli/MapsReadAhead.h - Coverage maps read while the tests run -------===//
//
// In another program's process (weft_main, which the Weft package's targets run in MSBuild's),
// the weave before `dotnet test`'s tests and the report after them are two calls with the tests
// between. A weave that wrote coverage maps there has them read on a thread of their own while
// the tests run; the report then takes each map read ahead whose file is still the one that was
// read (the same file, size and time), and reads the others itself. A weft process of its own
// reads nothing ahead: no report follows in it.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_CLI_MAPSREADAHEAD_H
#define WEFT_CLI_MAPSREADAHEAD_H

#include "coverage/Report.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace weft::cli {

/// Starts reading the maps at \p Paths on a thread of their own. What is held is bounded: at
/// most 64 MiB of maps' text (the oldest dropped first), each for at most 30 minutes if no report
/// takes it. A map that does not read is read again by the report, which says why.
void readMapsAhead(std::vector<std::string> Paths);

/// The map at \p Path as read ahead, waiting for it if it is being read; nothing when it was
/// not read ahead, did not read, or its file changed since (then the caller reads it). A map is
/// taken once.
std::optional<coverage::Map> takeMapReadAhead(const std::string &Path);

} // namespace weft::cli

#endif
