//===- coverage/CoverletJson.cpp - coverlet's JSON report -----------------===//
//
// {"Greeter.dll": {"/src/Greeting.cs": {"Ns.Greeting": {"Ns.Greeting::Hello(string)":
//   {"Lines": {"12": 3, ...}, "Branches": [{"Line", "Offset", "EndOffset", "Path", "Ordinal",
//   "Hits"}, ...]}}}}}, indented by two spaces as System.Text.Json indents. coverlet reads the
// counts as 32-bit integers (its MergeWith deserialises them so): larger counts are written as
// 2147483647.
//
//===----------------------------------------------------------------------===//
#include "coverage/CoverletFormats.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace weft::coverage {

namespace {

constexpr uint64_t MaxInt32 = 0x7FFFFFFF;

/// A JSON string: quotes, backslashes and control characters escaped, the rest (UTF-8) as it is.
void quoted(raw_ostream &OS, StringRef S) {
  OS << '"';
  for (char C : S)
    switch (C) {
    case '"': OS << "\\\""; break;
    case '\\': OS << "\\\\"; break;
    case '\n': OS << "\\n"; break;
    case '\r': OS << "\\r"; break;
    case '\t': OS << "\\t"; break;
    case '\b': OS << "\\b"; break;
    case '\f': OS << "\\f"; break;
    default:
      if (uint8_t(C) < 0x20)
        OS << format("\\u%04x", unsigned(uint8_t(C)));
      else
        OS << C;
    }
  OS << '"';
}

uint64_t count(uint64_t N) { return std::min(N, MaxInt32); }

void writeMethod(raw_ostream &OS, const MethodResult &R, const std::string &Pad) {
  OS << "{\n" << Pad << "  \"Lines\": {";
  bool First = true;
  for (const auto &[Line, Hits] : R.Lines) {
    OS << (First ? "\n" : ",\n") << Pad << "    \"" << Line << "\": " << count(Hits);
    First = false;
  }
  OS << (First ? "" : "\n" + Pad + "  ") << "},\n" << Pad << "  \"Branches\": [";
  First = true;
  for (const BranchPoint &B : R.Branches) {
    std::string In = Pad + "      ";
    OS << (First ? "\n" : ",\n") << Pad << "    {\n"
       << In << "\"Line\": " << B.Line << ",\n"
       << In << "\"Offset\": " << B.Offset << ",\n"
       << In << "\"EndOffset\": " << B.EndOffset << ",\n"
       << In << "\"Path\": " << B.Path << ",\n"
       << In << "\"Ordinal\": " << B.Ordinal << ",\n"
       << In << "\"Hits\": " << count(B.Hits) << '\n'
       << Pad << "    }";
    First = false;
  }
  OS << (First ? "" : "\n" + Pad + "  ") << "]\n" << Pad << '}';
}

/// `{"key": value, ...}` at indent \p Pad, each value written by \p Value at the next indent.
template <typename MapT, typename Fn>
void object(raw_ostream &OS, const MapT &M, const std::string &Pad, Fn Value) {
  if (M.empty()) {
    OS << "{}";
    return;
  }
  OS << '{';
  bool First = true;
  for (const auto &[Key, V] : M) {
    OS << (First ? "\n" : ",\n") << Pad << "  ";
    quoted(OS, Key);
    OS << ": ";
    Value(V, Pad + "  ");
    First = false;
  }
  OS << '\n' << Pad << '}';
}

} // namespace

void writeCoverletJson(ArrayRef<ModuleResult> Result, raw_ostream &OS) {
  // coverlet names a module by its file; a .NET assembly's file is NAME.dll.
  std::map<std::string, const ModuleResult *> Modules;
  for (const ModuleResult &M : Result)
    Modules[M.Assembly + ".dll"] = &M;
  object(OS, Modules, "", [&](const ModuleResult *M, const std::string &Pad) {
    object(OS, M->Documents, Pad, [&](const DocumentResult &Doc, const std::string &Pad) {
      object(OS, Doc, Pad, [&](const ClassResult &Class, const std::string &Pad) {
        object(OS, Class, Pad,
               [&](const MethodResult &R, const std::string &Pad) { writeMethod(OS, R, Pad); });
      });
    });
  });
  OS << '\n';
}

} // namespace weft::coverage
