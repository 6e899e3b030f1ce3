//===- tests/unit/SchemaTest.cpp ------------------------------------------===//
#include "metadata/Schema.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace weft::metadata;

namespace {

TEST(Schema, TablesHaveTheirEcmaNamesAndIds) {
  EXPECT_EQ(tableName(0x00), "Module");
  EXPECT_EQ(tableName(0x02), "TypeDef");
  EXPECT_EQ(tableName(0x0A), "MemberRef");
  EXPECT_EQ(tableName(0x1D), "FieldRVA");
  EXPECT_EQ(tableName(0x2C), "GenericParamConstraint");
  EXPECT_EQ(tableName(0x30), "Document");
  EXPECT_EQ(tableName(0x37), "CustomDebugInformation");
  EXPECT_FALSE(tableSpec(0x2D).exists());
  EXPECT_FALSE(tableSpec(0x38).exists());
  std::set<std::string> Names;
  unsigned Count = 0;
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!tableSpec(T).exists())
      continue;
    ++Count;
    EXPECT_TRUE(Names.insert(tableSpec(T).Name).second) << tableSpec(T).Name;
    EXPECT_GT(tableSpec(T).NumColumns, 0u);
  }
  EXPECT_EQ(Count, 45u + 8u); // ECMA-335 tables and portable PDB tables
}

TEST(Schema, ColumnsOfTypeDef) {
  const TableSpec &S = tableSpec(TableId::TypeDef);
  ASSERT_EQ(S.NumColumns, 6u);
  EXPECT_EQ(S.Columns[TypeDefCol::Flags].Kind, ColumnKind::U32);
  EXPECT_EQ(S.Columns[TypeDefCol::Extends].Kind, ColumnKind::Coded);
  EXPECT_EQ(CodedIndex(S.Columns[TypeDefCol::Extends].Arg), CodedIndex::TypeDefOrRef);
  EXPECT_EQ(TableId(S.Columns[TypeDefCol::MethodList].Arg), TableId::MethodDef);
}

TEST(Schema, CodedIndices) {
  Token T = 0;
  // TypeDefOrRef: 2 tag bits; TypeRef row 5 is (5 << 2) | 1.
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::TypeDefOrRef, (5 << 2) | 1, T));
  EXPECT_EQ(T, makeToken(TableId::TypeRef, 5));
  EXPECT_FALSE(decodeCodedIndex(CodedIndex::TypeDefOrRef, (5 << 2) | 3, T));
  // HasCustomAttribute: 5 bits, tag 21 is MethodSpec, 22 and above are unused.
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::HasCustomAttribute, (7 << 5) | 21, T));
  EXPECT_EQ(T, makeToken(TableId::MethodSpec, 7));
  EXPECT_FALSE(decodeCodedIndex(CodedIndex::HasCustomAttribute, (7 << 5) | 22, T));
  // CustomAttributeType uses only tags 2 (MethodDef) and 3 (MemberRef).
  EXPECT_FALSE(decodeCodedIndex(CodedIndex::CustomAttributeType, (1 << 3) | 0, T));
  EXPECT_FALSE(decodeCodedIndex(CodedIndex::CustomAttributeType, (1 << 3) | 1, T));
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::CustomAttributeType, (1 << 3) | 3, T));
  EXPECT_EQ(T, makeToken(TableId::MemberRef, 1));
  EXPECT_FALSE(decodeCodedIndex(CodedIndex::CustomAttributeType, (1 << 3) | 4, T));
  // HasCustomDebugInformation reaches the PDB tables.
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::HasCustomDebugInformation, (2 << 5) | 26, T));
  EXPECT_EQ(T, makeToken(TableId::ImportScope, 2));
  // A null reference has row 0.
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::ResolutionScope, 0, T));
  EXPECT_EQ(tokenRow(T), 0u);
}

TEST(Schema, CodedIndicesEncodeAsTheyDecode) {
  uint32_t V = 0;
  ASSERT_TRUE(encodeCodedIndex(CodedIndex::TypeDefOrRef, makeToken(TableId::TypeRef, 5), V));
  EXPECT_EQ(V, (5u << 2) | 1);
  EXPECT_FALSE(encodeCodedIndex(CodedIndex::TypeDefOrRef, makeToken(TableId::MethodDef, 5), V));
  // A null reference keeps the tag it was read with: C++/CLI scopes TypeRefs to AssemblyRef 0
  // (the value 2), and a rewrite must give 2 back, not 0.
  Token T;
  ASSERT_TRUE(decodeCodedIndex(CodedIndex::ResolutionScope, 2, T));
  EXPECT_EQ(T, makeToken(TableId::AssemblyRef, 0));
  ASSERT_TRUE(encodeCodedIndex(CodedIndex::ResolutionScope, T, V));
  EXPECT_EQ(V, 2u);
  // Nothing at all is 0, whatever tables the index names.
  ASSERT_TRUE(encodeCodedIndex(CodedIndex::TypeDefOrRef, 0, V));
  EXPECT_EQ(V, 0u);
  ASSERT_TRUE(encodeCodedIndex(CodedIndex::ResolutionScope, 0, V));
  EXPECT_EQ(V, 0u);
}

} // namespace
