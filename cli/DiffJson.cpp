//===- cli/DiffJson.cpp - weft diff --json --------------------------------===//
//
// The result as one JSON object, written as it goes (a diff of a large assembly is large); its
// schema is docs/weft-diff.schema.json, and docs/diff.md describes it.
//
//===----------------------------------------------------------------------===//
#include "cli/Diff.h"

#include "llvm/Support/JSON.h"

using namespace llvm;

namespace weft::cli {

namespace {

void writeHunks(json::OStream &J, const text::MethodChange &C) {
  J.attributeArray("hunks", [&] {
    for (const text::TextHunk &H : C.Hunks)
      J.object([&] {
        J.attribute("a_start", H.AStart);
        J.attribute("a_lines", H.ALines);
        J.attribute("b_start", H.BStart);
        J.attribute("b_lines", H.BLines);
        J.attributeArray("lines", [&] {
          for (const std::string &L : H.Lines)
            J.value(L);
        });
      });
  });
}

void writeMethods(json::OStream &J, const DiffResult &R, bool Stat) {
  J.attributeArray("methods", [&] {
    for (const text::MethodChange &C : R.Diff.Methods)
      J.object([&] {
        J.attribute("name", C.Name);
        J.attribute("change", text::changeKindName(C.Kind));
        J.attribute("lines_added", C.LinesAdded);
        J.attribute("lines_removed", C.LinesRemoved);
        if (R.Record)
          J.attributeArray("passes", [&] {
            for (const std::string &P : R.passesOf(C))
              J.value(P);
          });
        if (!Stat)
          writeHunks(J, C);
      });
  });
}

void writeMetadata(json::OStream &J, const DiffResult &R) {
  J.attributeArray("metadata", [&] {
    for (const text::MetadataChange &C : R.Diff.Metadata)
      J.object([&] {
        J.attribute("kind", text::itemKindId(C.Kind));
        J.attribute("change", text::changeKindName(C.Change));
        J.attribute("name", C.Name);
        if (C.Change != text::ChangeKind::Added && !C.Before.empty())
          J.attribute("before", C.Before);
        if (C.Change != text::ChangeKind::Removed && !C.After.empty())
          J.attribute("after", C.After);
      });
  });
}

void writeRecord(json::OStream &J, const passes::WovenRecord &Record) {
  J.attributeObject("woven", [&] {
    J.attribute("input", Record.Input);
    J.attribute("input_sha256", Record.InputSha256);
    J.attributeArray("passes", [&] {
      for (const passes::WovenRecord::PassRecord &P : Record.Passes)
        J.object([&] {
          J.attribute("pass", P.Pass);
          J.attribute("methods", int64_t(P.Rows.size()));
        });
    });
  });
}

void writeSummary(json::OStream &J, const DiffResult &R) {
  int64_t Kinds[3] = {0, 0, 0}, Added = 0, Removed = 0;
  for (const text::MethodChange &C : R.Diff.Methods) {
    ++Kinds[unsigned(C.Kind)];
    Added += C.LinesAdded;
    Removed += C.LinesRemoved;
  }
  J.attributeObject("summary", [&] {
    J.attribute("methods_compared", int64_t(R.Diff.MethodsCompared));
    J.attribute("methods_changed", Kinds[unsigned(text::ChangeKind::Changed)]);
    J.attribute("methods_added", Kinds[unsigned(text::ChangeKind::Added)]);
    J.attribute("methods_removed", Kinds[unsigned(text::ChangeKind::Removed)]);
    J.attribute("lines_added", Added);
    J.attribute("lines_removed", Removed);
    J.attribute("metadata_changes", int64_t(R.Diff.Metadata.size()));
  });
}

} // namespace

void writeDiffJson(raw_ostream &OS, const DiffResult &R, bool Stat) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("format", "weft-diff");
    J.attribute("version", 1);
    J.attribute("a", R.PathA);
    J.attribute("b", R.PathB);
    J.attribute("same", R.Diff.same());
    if (R.Record)
      writeRecord(J, *R.Record);
    writeSummary(J, R);
    writeMetadata(J, R);
    writeMethods(J, R, Stat);
  });
  OS << '\n';
}

} // namespace weft::cli
