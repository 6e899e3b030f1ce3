//===- tests/unit/NamesTest.cpp - ILAsm names, literals and small blobs ----===//
#include "metadata/Names.h"

#include "metadata/Blobs.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace weft::metadata;

namespace {

template <typename F> std::string text(F Fn) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  Fn(OS);
  return OS.str();
}

std::string id(llvm::StringRef Name) {
  return text([&](llvm::raw_ostream &OS) { writeId(OS, Name); });
}

TEST(Names, IdentifiersAreQuotedLikeIldasmDoes) {
  EXPECT_EQ(id("Program"), "Program");
  EXPECT_EQ(id("System.Collections.Generic"), "System.Collections.Generic");
  EXPECT_EQ(id("List`1"), "List`1");
  EXPECT_EQ(id("$x@y`z?"), "$x@y`z?");
  EXPECT_EQ(id(".ctor"), ".ctor");
  EXPECT_EQ(id("<Main>$"), "'<Main>$'");
  EXPECT_EQ(id("value"), "'value'");     // a keyword
  EXPECT_EQ(id("add.ovf"), "'add.ovf'"); // an instruction name
  EXPECT_EQ(id("Value"), "Value");       // keywords are lower case
  EXPECT_EQ(id("values"), "values");
  EXPECT_EQ(id("add.ovf.x"), "add.ovf.x");
  EXPECT_EQ(id("1abc"), "'1abc'");
  EXPECT_EQ(id("a..b"), "'a..b'");
  EXPECT_EQ(id(""), "''");
  EXPECT_EQ(id("it's"), "'it\\'s'");
  EXPECT_EQ(id("a\\b\tc"), "'a\\\\b\\tc'");
  EXPECT_EQ(id("h\xc3\xa9llo"), "'h\xc3\xa9llo'"); // UTF-8 stays as it is
}

std::string userString(std::u16string S) {
  std::vector<uint8_t> Bytes;
  for (char16_t C : S) {
    Bytes.push_back(uint8_t(C));
    Bytes.push_back(uint8_t(C >> 8));
  }
  return text([&](llvm::raw_ostream &OS) { writeUserString(OS, Bytes); });
}

TEST(Names, UserStrings) {
  EXPECT_EQ(userString(u"Hello, World!"), "\"Hello, World!\"");
  EXPECT_EQ(userString(u"a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(userString(u"\u00e9"), "bytearray (E9 00)");
  EXPECT_EQ(userString(u""), "\"\"");
}

TEST(Names, FloatsReadBackExactly) {
  auto F64 = [](double D) { return text([&](llvm::raw_ostream &OS) { writeFloat64(OS, D); }); };
  auto F32 = [](float F) { return text([&](llvm::raw_ostream &OS) { writeFloat32(OS, F); }); };
  EXPECT_EQ(F64(1.5), "1.5");
  EXPECT_EQ(F64(2), "2.");
  EXPECT_EQ(F64(-0.0), "-0.");
  EXPECT_EQ(F64(1e100), "1.e+100");
  EXPECT_EQ(F64(0.1), "0.1");
  EXPECT_EQ(F64(std::numeric_limits<double>::infinity()), "0x7FF0000000000000");
  EXPECT_EQ(F32(std::numeric_limits<float>::quiet_NaN()), "0x7FC00000");
  EXPECT_EQ(F32(3.25f), "3.25");
}

std::string marshal(std::vector<uint8_t> Blob) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (llvm::Error E = writeMarshal(OS, Blob, 0x10))
    return "error: " + llvm::toString(std::move(E));
  return OS.str();
}

TEST(Blobs, MarshallingDescriptors) {
  EXPECT_EQ(marshal({0x14}), "lpstr");
  EXPECT_EQ(marshal({0x15}), "lpwstr");
  EXPECT_EQ(marshal({0x02}), "bool");
  EXPECT_EQ(marshal({0x2A, 0x07}), "int32[]");
  EXPECT_EQ(marshal({0x2A, 0x07, 0x01}), "int32[+1]");
  EXPECT_EQ(marshal({0x2A, 0x07, 0x00, 0x0A, 0x00}), "int32[10]");
  EXPECT_EQ(marshal({0x2A, 0x50}), "[]");
  EXPECT_EQ(marshal({0x17, 0x20}), "fixed sysstring [32]");
  EXPECT_EQ(marshal({0x1E, 0x10, 0x07}), "fixed array [16] int32");
  EXPECT_EQ(marshal({0x1D, 0x08}), "safearray bstr");
  EXPECT_EQ(marshal({0x2C, 0x00, 0x00, 0x03, 'M', 'y', 'M', 0x01, 'c'}), "custom(\"MyM\", \"c\")");
  EXPECT_EQ(marshal({0x19, 0x02}), "iunknown(iidparam = 2)");
  EXPECT_NE(marshal({}).find("error: marshalling descriptor at offset 0x10: empty"),
            std::string::npos);
  EXPECT_NE(marshal({0x60}).find("unknown native type"), std::string::npos);
  EXPECT_NE(marshal({0x2C, 0x05, 'a'}).find("runs past the end"), std::string::npos);
}

std::string constant(uint8_t Type, std::vector<uint8_t> Blob) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (llvm::Error E = writeConstant(OS, Type, Blob, 0x20))
    return "error: " + llvm::toString(std::move(E));
  return OS.str();
}

TEST(Blobs, Constants) {
  EXPECT_EQ(constant(0x08, {5, 0, 0, 0}), "int32(0x00000005)");
  EXPECT_EQ(constant(0x0A, {0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}),
            "int64(0xFFFFFFFFFFFFFFFB)");
  EXPECT_EQ(constant(0x02, {1}), "bool(true)");
  EXPECT_EQ(constant(0x03, {'x', 0}), "char(0x0078)");
  EXPECT_EQ(constant(0x0E, {'h', 0, 'i', 0}), "\"hi\"");
  EXPECT_EQ(constant(0x0E, {}), "\"\"");
  EXPECT_EQ(constant(0x12, {0, 0, 0, 0}), "nullref");
  EXPECT_EQ(constant(0x0D, {0, 0, 0, 0, 0, 0, 0xF8, 0x3F}), "float64(1.5)");
  EXPECT_NE(constant(0x08, {5, 0}).find("constant at offset 0x20: value of 2 bytes"),
            std::string::npos);
  EXPECT_NE(constant(0x0E, {'h'}).find("odd length"), std::string::npos);
  EXPECT_NE(constant(0x1C, {0}).find("cannot be a constant"), std::string::npos);
}

} // namespace
