//===- tests/corpus/MethodTextTest.cpp - Each method's text on its own ----===//
//
// text::disassembleMethods on the corpus programs: one text for every method, and with stable
// labels no IL offset left, each label defined once and every label used defined; the texts
// have the lines of the offset-labelled ones but for the label lines.
//
//===----------------------------------------------------------------------===//
#include "iltext/Disassembler.h"
#include "metadata/Module.h"
#include "pe/Image.h"
#include "tests/support/Env.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

struct Opened {
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<metadata::Module> Module;
};

Opened open(const std::string &Path) {
  Opened O;
  auto Img = pe::Image::open(Path);
  EXPECT_TRUE(bool(Img)) << toString(Img.takeError());
  if (!Img)
    return O;
  auto M = metadata::Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  EXPECT_TRUE(bool(M)) << toString(M.takeError());
  if (!M)
    return O;
  O.Image = std::move(*Img);
  O.Module = std::move(*M);
  return O;
}

std::vector<text::MethodText> texts(const Opened &O, bool Stable) {
  text::DisassemblerOptions DO;
  DO.StableLabels = Stable;
  std::vector<text::MethodText> Out;
  if (Error E = text::disassembleMethods(*O.Image, *O.Module, DO, Out))
    ADD_FAILURE() << toString(std::move(E));
  return Out;
}

bool isLabelLine(StringRef Line) {
  Line = Line.trim();
  return Line.startswith("L_") && Line.endswith(":");
}

// Labels defined (`L_3:` lines) and used (`L_3` as an operand) in one method's text.
void checkLabels(const text::MethodText &T) {
  EXPECT_FALSE(StringRef(T.Text).contains("IL_")) << T.Text;
  StringMap<unsigned> Defined;
  std::vector<std::string> Used;
  SmallVector<StringRef, 64> Lines;
  StringRef(T.Text).split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (isLabelLine(Line)) {
      ++Defined[Line.trim().drop_back()];
      continue;
    }
    for (size_t At = Line.find("L_"); At != StringRef::npos; At = Line.find("L_", At + 2)) {
      if (At > 0 && (isAlnum(Line[At - 1]) || Line[At - 1] == '_' || Line[At - 1] == '\''))
        continue; // part of a name
      size_t End = At + 2;
      while (End < Line.size() && isDigit(Line[End]))
        ++End;
      if (End > At + 2)
        Used.push_back(Line.slice(At, End).str());
    }
  }
  for (const auto &Entry : Defined)
    EXPECT_EQ(Entry.second, 1u) << Entry.first() << " defined " << Entry.second << " times in "
                                << T.Name;
  for (const std::string &L : Used)
    EXPECT_TRUE(Defined.count(L)) << L << " used but not defined in " << T.Name << ":\n" << T.Text;
}

class MethodTexts : public ::testing::TestWithParam<std::string> {};

TEST_P(MethodTexts, OneForEachMethodWithStableLabels) {
  std::string Dll = test::corpusDll(GetParam());
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  Opened O = open(Dll);
  ASSERT_TRUE(O.Module);
  std::vector<text::MethodText> Stable = texts(O, true), ByOffset = texts(O, false);
  ASSERT_EQ(Stable.size(), O.Module->rowCount(metadata::TableId::MethodDef));
  ASSERT_EQ(ByOffset.size(), Stable.size());
  for (size_t I = 0; I < Stable.size(); ++I) {
    const text::MethodText &S = Stable[I], &B = ByOffset[I];
    EXPECT_EQ(S.Row, B.Row);
    EXPECT_EQ(S.Name, B.Name);
    EXPECT_TRUE(StringRef(S.Name).contains("(")) << S.Name;
    checkLabels(S);
    SmallVector<StringRef, 64> Lines;
    StringRef(S.Text).split(Lines, '\n');
    size_t LabelLines = llvm::count_if(Lines, isLabelLine);
    EXPECT_EQ(size_t(llvm::count(S.Text, '\n')) - LabelLines, size_t(llvm::count(B.Text, '\n')))
        << S.Text << "\n---\n"
        << B.Text;
    if (HasFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MethodTexts, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

} // namespace
