//===- iltext/Disassembler.cpp - A module as IL text ----------------------===//
#include "iltext/Disassembler.h"

#include "il/BodyReader.h"
#include "metadata/Blobs.h"
#include "metadata/CustomAttribute.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "metadata/TypeLayout.h"
#include "metadata/pdb/SequencePoints.h"
#include "pe/Image.h"
#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace weft::metadata;

namespace weft::text {

namespace {

// --- flag words -----------------------------------------------------------

struct FlagWord {
  uint32_t Bit;
  const char *Word;
};

// Writes the word of every bit of \p F in \p Words, in the order given, each with a space after.
void writeFlagWords(raw_ostream &OS, uint32_t F, ArrayRef<FlagWord> Words) {
  for (const FlagWord &W : Words)
    if (F & W.Bit)
      OS << W.Word << ' ';
}

// Bits no ILAsm keyword stands for are written as flags(...), so nothing is lost. ILAsm's
// flags(...) replaces the bits the words before it set, so it is written first.
void writeOtherFlags(raw_ostream &OS, uint32_t F, uint32_t Known, unsigned HexWidth) {
  if (F & ~Known)
    OS << "flags(" << format_hex(F & ~Known, HexWidth) << ") ";
}

const char *memberAccess(uint32_t Flags) {
  static const char *const Names[] = {"privatescope", "private",    "famandassem", "assembly",
                                      "family",       "famorassem", "public",      "<access 7>"};
  return Names[Flags & 7];
}

const char *typeVisibility(uint32_t Flags) {
  static const char *const Names[] = {
      "private",       "public",          "nested public",      "nested private",
      "nested family", "nested assembly", "nested famandassem", "nested famorassem"};
  return Names[Flags & 7];
}

void writeTypeFlags(raw_ostream &OS, uint32_t F) {
  // The reserved layout (0x18) and string format (0x30000) have no word: flags(...) gives them.
  static const char *const Layout[] = {"auto", "sequential", "explicit", nullptr};
  static const char *const Charset[] = {"ansi", "unicode", "autochar", nullptr};
  const char *L = Layout[(F >> 3) & 3], *C = Charset[(F >> 16) & 3];
  // 0x40000 (HasSecurity) is implied by the .permissionset entries.
  uint32_t Known = 0x7 | 0x20 | 0x80 | 0x100 | 0x400 | 0x800 | 0x1000 | 0x2000 | 0x4000 | 0x100000 |
                   0x40000 | (L ? 0x18 : 0) | (C ? 0x30000 : 0);
  writeOtherFlags(OS, F, Known, 10);
  writeFlagWords(OS, F, {{0x20, "interface"}});
  OS << typeVisibility(F) << ' ';
  writeFlagWords(OS, F, {{0x80, "abstract"}});
  if (L)
    OS << L << ' ';
  if (C)
    OS << C << ' ';
  writeFlagWords(OS, F,
                 {{0x1000, "import"},
                  {0x2000, "serializable"},
                  {0x4000, "windowsruntime"},
                  {0x100, "sealed"},
                  {0x400, "specialname"},
                  {0x800, "rtspecialname"},
                  {0x100000, "beforefieldinit"}});
}

void writeFieldFlags(raw_ostream &OS, uint16_t F) {
  // HasFieldRVA, HasFieldMarshal, PinvokeImpl and HasDefault show as `at`, marshal(),
  // pinvokeimpl() and `=`.
  writeOtherFlags(
      OS, F, 0x7 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x1000 | 0x2000 | 0x8000, 6);
  OS << memberAccess(F) << ' ';
  writeFlagWords(OS, F,
                 {{0x10, "static"},
                  {0x20, "initonly"},
                  {0x40, "literal"},
                  {0x80, "notserialized"},
                  {0x200, "specialname"},
                  {0x400, "rtspecialname"}});
}

void writeMethodFlags(raw_ostream &OS, uint16_t F) {
  OS << memberAccess(F) << ' ';
  writeFlagWords(OS, F,
                 {{0x80, "hidebysig"},
                  {0x100, "newslot"},
                  {0x800, "specialname"},
                  {0x1000, "rtspecialname"},
                  {0x400, "abstract"},
                  {0x40, "virtual"},
                  {0x200, "strict"},
                  {0x20, "final"},
                  {0x10, "static"}});
}

void writeMethodFlagsTail(raw_ostream &OS, uint16_t F) {
  writeFlagWords(OS, F, {{0x8, "unmanagedexp"}, {0x8000, "reqsecobj"}});
}

void writeImplFlags(raw_ostream &OS, uint16_t F) {
  static const char *const Code[] = {"cil", "native", "optil", "runtime"};
  writeOtherFlags(OS, F, 0x3 | 0x4 | 0x10 | 0x80 | 0x1000 | 0x20 | 0x8 | 0x40 | 0x100 | 0x200, 6);
  OS << Code[F & 3] << ((F & 4) ? " unmanaged" : " managed");
  std::string Words;
  raw_string_ostream W(Words);
  writeFlagWords(W, F,
                 {{0x10, "forwardref"},
                  {0x80, "preservesig"},
                  {0x1000, "internalcall"},
                  {0x20, "synchronized"},
                  {0x8, "noinlining"},
                  {0x40, "nooptimization"},
                  {0x100, "aggressiveinlining"},
                  {0x200, "aggressiveoptimization"}});
  if (!W.str().empty())
    OS << ' ' << StringRef(W.str()).rtrim();
}

void writePInvokeFlags(raw_ostream &OS, uint16_t F) {
  if (F & 0x1)
    OS << " nomangle";
  switch (F & 0x6) {
  case 0x2: OS << " ansi"; break;
  case 0x4: OS << " unicode"; break;
  case 0x6: OS << " autochar"; break;
  default: break;
  }
  if (F & 0x40)
    OS << " lasterr";
  switch (F & 0x700) {
  case 0x100: OS << " winapi"; break;
  case 0x200: OS << " cdecl"; break;
  case 0x300: OS << " stdcall"; break;
  case 0x400: OS << " thiscall"; break;
  case 0x500: OS << " fastcall"; break;
  default: break;
  }
  switch (F & 0x30) {
  case 0x10: OS << " bestfit:on"; break;
  case 0x20: OS << " bestfit:off"; break;
  default: break;
  }
  switch (F & 0x3000) {
  case 0x1000: OS << " charmaperror:on"; break;
  case 0x2000: OS << " charmaperror:off"; break;
  default: break;
  }
}

void writeVersion(raw_ostream &OS, const Module &M, TableId T, uint32_t Row, unsigned FirstCol) {
  OS << ".ver " << M.get(T, Row, FirstCol) << ':' << M.get(T, Row, FirstCol + 1) << ':'
     << M.get(T, Row, FirstCol + 2) << ':' << M.get(T, Row, FirstCol + 3);
}

// --- the writer -------------------------------------------------------------

class Writer {
public:
  Writer(raw_ostream &OS, const pe::Image &Img, const Module &M, const DisassemblerOptions &Opts)
      : OS(OS), Img(Img), M(M), Opts(Opts), Names(M) {}

  Error run();
  /// Each selected method's text on its own (\p Text is the stream the writer was made with).
  Error methods(std::vector<MethodText> &Out, raw_string_ostream &Text);

private:
  raw_ostream &indent() { return OS.indent(Depth * 2); }
  uint64_t CodeSeen = 0; // IL bytes of the bodies written so far
  void problem(Error E) {
    std::string Msg = toString(std::move(E));
    indent() << "// error: " << Msg << '\n';
    if (!FirstProblem)
      FirstProblem = std::move(Msg);
  }

  bool filtered() const { return !Opts.Types.empty() || !Opts.Methods.empty(); }
  /// The document of the last `.line` written, which later ones leave out while it is the same.
  uint32_t LineDocument = 0;
  std::string plainTypeName(uint32_t Row) const;
  bool typeSelected(uint32_t Row) const;
  bool methodSelected(uint32_t TypeRow, uint32_t MethodRow) const;
  bool typeHasSelection(uint32_t Row) const;

  void customAttributes(Token Parent);
  void customAttribute(uint32_t Row);
  void declSecurity(Token Parent);
  void coreLibraryMark();
  void typeList();
  void assemblyRefs();
  void assembly();
  void manifest();
  void files();
  void exportedTypes();
  void exportedTypeName(uint32_t Row, unsigned Nesting);
  void implementation(Token Impl, std::optional<uint32_t> ResourceOffset);
  void manifestResources();
  void embeddedResourceNote(uint32_t Row, StringRef Name);
  void moduleHeader();
  void corFlags(uint32_t Flags);
  void genericParams(Token Owner, const GenericContext &Ctx);
  void genericParamAttributes(Token Owner, const GenericContext &Ctx);
  void interfaceImplAttributes(ArrayRef<uint32_t> Impls, const GenericContext &Ctx);
  void classLayout(uint32_t Row, uint32_t Flags);
  void unnamedParamsNote(const MethodSig &Sig, const std::map<uint32_t, uint32_t> &Params);
  void type(uint32_t Row);
  void field(uint32_t Row, const GenericContext &Ctx);
  void method(uint32_t Row, uint32_t TypeRow);
  void methodBody(uint32_t Row, const GenericContext &Ctx, const MethodSig &Sig);
  void instructions(const il::RawMethodBody &Body, const GenericContext &Ctx, uint32_t MethodRow,
                    const MethodSig &Sig);
  void unstructuredClauses(llvm::ArrayRef<il::ExceptionClause> Clauses, const GenericContext &Ctx);
  void collectLabels(llvm::ArrayRef<il::Instruction> Insts, const il::InstructionDecoder &D,
                     llvm::ArrayRef<il::ExceptionClause> Clauses, bool Structured);
  void label(uint32_t Offset);
  void instructionStart(uint32_t Offset);
  void operand(const il::Instruction &I, const il::InstructionDecoder &D, ArrayRef<uint8_t> Code,
               const GenericContext &Ctx, uint32_t MethodRow, const MethodSig &Sig);
  void property(uint32_t Row, uint32_t TypeRow);
  void event(uint32_t Row, uint32_t TypeRow);
  void semantics(Token Owner);
  void dataBlocks();
  std::string argName(uint32_t MethodRow, const MethodSig &Sig, uint32_t Index) const;

  raw_ostream &OS;
  const pe::Image &Img;
  const Module &M;
  const DisassemblerOptions &Opts;
  NamePrinter Names;
  unsigned Depth = 0;
  std::optional<std::string> FirstProblem;
  std::vector<uint32_t> DataFields; // fields with an RVA, written at the end
  /// With StableLabels: the offsets the method's code refers to, sorted; L_1 is the first.
  std::vector<uint32_t> LabelOffsets;
};

std::string Writer::plainTypeName(uint32_t Row) const {
  std::string S;
  if (uint32_t Enc = M.enclosingType(Row); Enc && Enc != Row)
    S = plainTypeName(Enc) + "/";
  StringRef Ns = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace));
  if (!Ns.empty())
    S += Ns.str() + ".";
  S += M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)).str();
  return S;
}

bool Writer::typeSelected(uint32_t Row) const {
  if (Opts.Types.empty())
    return true;
  std::string Name = plainTypeName(Row);
  return any_of(Opts.Types, [&](const GlobPattern &P) { return P.match(Name); });
}

bool Writer::methodSelected(uint32_t TypeRow, uint32_t MethodRow) const {
  if (Opts.Methods.empty())
    return true;
  StringRef Name = M.getString(M.get(TableId::MethodDef, MethodRow, MethodDefCol::Name));
  std::string Full = (TypeRow ? plainTypeName(TypeRow) + "::" : std::string()) + Name.str();
  return any_of(Opts.Methods, [&](const GlobPattern &P) { return P.match(Name) || P.match(Full); });
}

// Whether a type, or a type nested in it, has something the filters select.
bool Writer::typeHasSelection(uint32_t Row) const {
  if (!filtered())
    return true;
  bool Selected = typeSelected(Row);
  if (Selected && Opts.Methods.empty())
    return true;
  if (Selected)
    for (uint32_t I : M.typeMethods(Row))
      if (methodSelected(Row, M.method(I)))
        return true;
  for (uint32_t N : M.nestedTypes(Row))
    if (N != Row && typeHasSelection(N))
      return true;
  return false;
}

void Writer::customAttributes(Token Parent) {
  for (uint32_t Row : M.customAttributes(Parent))
    customAttribute(Row);
}

void Writer::customAttribute(uint32_t Row) {
  indent() << ".custom ";
  Token Ctor = M.getToken(TableId::CustomAttribute, Row, CustomAttributeCol::Type);
  Names.methodToken(OS, Ctor, GenericContext{});
  OS << " = ";
  Expected<CustomAttributeValue> V = decodeCustomAttribute(M, Row, Opts.Resolver);
  ArrayRef<uint8_t> Blob =
      M.getBlob(M.get(TableId::CustomAttribute, Row, CustomAttributeCol::Value));
  if (!V) {
    std::string Why = toString(V.takeError());
    writeByteList(OS, Blob);
    OS << "  // not decoded: " << Why << '\n';
    return;
  }
  if (const char *Why = customAttributeNotWritable(*V)) {
    writeByteList(OS, Blob);
    OS << "  // as bytes: " << Why << '\n';
    return;
  }
  writeCustomAttributeValue(OS, *V, Names);
  if (V->GuessedEnumSize)
    OS << "  // an enum type was not found; its size was guessed";
  OS << '\n';
}

void Writer::declSecurity(Token Parent) {
  for (uint32_t Row : M.declSecurity(Parent)) {
    uint16_t Action = M.get(TableId::DeclSecurity, Row, DeclSecurityCol::Action);
    uint32_t Blob = M.get(TableId::DeclSecurity, Row, DeclSecurityCol::PermissionSet);
    indent() << ".permissionset ";
    if (const char *A = securityActionName(Action))
      OS << A;
    else
      OS << "action(" << Action << ')';
    OS << " = ";
    std::string Text;
    raw_string_ostream S(Text);
    if (Error E = writePermissionSet(S, M, M.getBlob(Blob), M.blobFileOffset(Blob), Names,
                                     Opts.Resolver)) {
      consumeError(std::move(E));
      OS << "bytearray ";
      writeByteList(OS, M.getBlob(Blob));
    } else {
      OS << S.str();
    }
    OS << '\n';
  }
}

// The core library (the module that defines System.Object) is assembled with `.mscorlib`, which
// tells ILAsm that `string`, `object` and the like are types of this module.
void Writer::coreLibraryMark() {
  for (uint32_t Row = 2; Row <= M.rowCount(TableId::TypeDef); ++Row)
    if (M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)) == "System" &&
        M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)) == "Object" &&
        !M.enclosingType(Row) &&
        !tokenRow(M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends))) {
      OS << ".mscorlib\n";
      return;
    }
}

// ILAsm gives a type its TypeDef row when the type is first named, which may be in a member of
// an earlier type; naming every type up front, in row order, keeps the rows (and so the order of
// nested types, fields and methods) as they are.
void Writer::typeList() {
  if (M.rowCount(TableId::TypeDef) < 2)
    return;
  OS << ".typelist\n{\n";
  for (uint32_t Row = 2; Row <= M.rowCount(TableId::TypeDef); ++Row) {
    OS << "  ";
    Names.typeDefName(OS, Row);
    OS << '\n';
  }
  OS << "}\n";
}

void Writer::assemblyRefs() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::AssemblyRef); ++Row) {
    uint32_t Flags = M.get(TableId::AssemblyRef, Row, AssemblyRefCol::Flags);
    OS << ".assembly extern ";
    if (Flags & 0x0100)
      OS << "retargetable ";
    if ((Flags & 0x0E00) == 0x0200)
      OS << "windowsruntime ";
    writeId(OS, M.getString(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::Name)));
    OS << "\n{\n";
    Depth = 1;
    ArrayRef<uint8_t> Key =
        M.getBlob(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::PublicKeyOrToken));
    if (!Key.empty()) {
      indent() << ((Flags & 0x0001) ? ".publickey = " : ".publickeytoken = ");
      writeByteList(OS, Key);
      OS << '\n';
    }
    ArrayRef<uint8_t> Hash = M.getBlob(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::HashValue));
    if (!Hash.empty()) {
      indent() << ".hash = ";
      writeByteList(OS, Hash);
      OS << '\n';
    }
    indent();
    writeVersion(OS, M, TableId::AssemblyRef, Row, AssemblyRefCol::MajorVersion);
    OS << '\n';
    StringRef Culture = M.getString(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::Culture));
    if (!Culture.empty()) {
      indent() << ".locale ";
      writeDoubleQuoted(OS, Culture);
      OS << '\n';
    }
    customAttributes(makeToken(TableId::AssemblyRef, Row));
    Depth = 0;
    OS << "}\n";
  }
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::ModuleRef); ++Row) {
    OS << ".module extern ";
    writeId(OS, M.getString(M.get(TableId::ModuleRef, Row, ModuleRefCol::Name)));
    OS << '\n';
    Depth = 1;
    customAttributes(makeToken(TableId::ModuleRef, Row));
    Depth = 0;
  }
}

void Writer::assembly() {
  if (!M.rowCount(TableId::Assembly))
    return;
  uint32_t Flags = M.get(TableId::Assembly, 1, AssemblyCol::Flags);
  OS << ".assembly ";
  if (Flags & 0x0100)
    OS << "retargetable ";
  if ((Flags & 0x0E00) == 0x0200)
    OS << "windowsruntime ";
  writeId(OS, M.getString(M.get(TableId::Assembly, 1, AssemblyCol::Name)));
  OS << "\n{\n";
  Depth = 1;
  customAttributes(makeToken(TableId::Assembly, 1));
  declSecurity(makeToken(TableId::Assembly, 1));
  ArrayRef<uint8_t> Key = M.getBlob(M.get(TableId::Assembly, 1, AssemblyCol::PublicKey));
  if (!Key.empty()) {
    indent() << ".publickey = ";
    writeByteList(OS, Key);
    OS << '\n';
    // The signature is made with the private key, which no text holds.
    if (Img.cli() && (Img.cli()->Flags & pe::CliStrongNameSigned))
      indent() << "// strong-name signed: ilasm signs only with the key pair (-key=FILE.snk)\n";
  }
  indent() << ".hash algorithm "
           << format_hex(M.get(TableId::Assembly, 1, AssemblyCol::HashAlgId), 10) << '\n';
  indent();
  writeVersion(OS, M, TableId::Assembly, 1, AssemblyCol::MajorVersion);
  OS << '\n';
  StringRef Culture = M.getString(M.get(TableId::Assembly, 1, AssemblyCol::Culture));
  if (!Culture.empty()) {
    indent() << ".locale ";
    writeDoubleQuoted(OS, Culture);
    OS << '\n';
  }
  uint32_t Other = Flags & ~uint32_t(0x0001 | 0x0100 | 0x0E00);
  if (Other)
    indent() << "// flags " << format_hex(Other, 10) << '\n';
  Depth = 0;
  OS << "}\n";
}

void Writer::manifest() {
  files();
  exportedTypes();
  manifestResources();
}

void Writer::files() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::File); ++Row) {
    uint32_t Flags = M.get(TableId::File, Row, FileCol::Flags);
    OS << ".file ";
    if (Flags & 1)
      OS << "nometadata ";
    writeId(OS, M.getString(M.get(TableId::File, Row, FileCol::Name)));
    ArrayRef<uint8_t> Hash = M.getBlob(M.get(TableId::File, Row, FileCol::HashValue));
    if (!Hash.empty()) {
      OS << " .hash = ";
      writeByteList(OS, Hash);
    }
    OS << '\n';
    Depth = 1;
    customAttributes(makeToken(TableId::File, Row));
    Depth = 0;
  }
}

// `Ns.Outer/Inner` of an ExportedType row, as ILAsm names the type a nested one is exported in.
void Writer::exportedTypeName(uint32_t Row, unsigned Nesting) {
  Token Impl = M.getToken(TableId::ExportedType, Row, ExportedTypeCol::Implementation);
  if (tokenTable(Impl) == TableId::ExportedType && tokenRow(Impl) && tokenRow(Impl) != Row &&
      Nesting < 64) {
    exportedTypeName(tokenRow(Impl), Nesting + 1);
    OS << '/';
  }
  StringRef Ns = M.getString(M.get(TableId::ExportedType, Row, ExportedTypeCol::TypeNamespace));
  if (!Ns.empty()) {
    writeId(OS, Ns);
    OS << '.';
  }
  writeId(OS, M.getString(M.get(TableId::ExportedType, Row, ExportedTypeCol::TypeName)));
}

// Where an exported type or a resource lives (a File, an AssemblyRef or, for a nested exported
// type, the type it is nested in); \p ResourceOffset is the resource's offset in a File.
void Writer::implementation(Token Impl, std::optional<uint32_t> ResourceOffset) {
  uint32_t R = tokenRow(Impl);
  if (!R)
    return;
  indent();
  switch (tokenTable(Impl)) {
  case TableId::File:
    OS << ".file ";
    writeId(OS, M.getString(M.get(TableId::File, R, FileCol::Name)));
    if (ResourceOffset)
      OS << " at " << *ResourceOffset;
    break;
  case TableId::AssemblyRef:
    OS << ".assembly extern ";
    writeId(OS, M.getString(M.get(TableId::AssemblyRef, R, AssemblyRefCol::Name)));
    break;
  case TableId::ExportedType:
    OS << ".class extern ";
    exportedTypeName(R, 0);
    break;
  default: break;
  }
  OS << '\n';
}

void Writer::exportedTypes() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::ExportedType); ++Row) {
    uint32_t Flags = M.get(TableId::ExportedType, Row, ExportedTypeCol::Flags);
    OS << ".class extern ";
    if (Flags & 0x00200000)
      OS << "forwarder ";
    OS << typeVisibility(Flags) << ' ';
    StringRef Ns = M.getString(M.get(TableId::ExportedType, Row, ExportedTypeCol::TypeNamespace));
    if (!Ns.empty()) {
      writeId(OS, Ns);
      OS << '.';
    }
    writeId(OS, M.getString(M.get(TableId::ExportedType, Row, ExportedTypeCol::TypeName)));
    OS << "\n{\n";
    Depth = 1;
    implementation(M.getToken(TableId::ExportedType, Row, ExportedTypeCol::Implementation),
                   std::nullopt);
    customAttributes(makeToken(TableId::ExportedType, Row));
    Depth = 0;
    OS << "}\n";
  }
}

void Writer::manifestResources() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::ManifestResource); ++Row) {
    uint32_t Flags = M.get(TableId::ManifestResource, Row, ManifestResourceCol::Flags);
    StringRef Name = M.getString(M.get(TableId::ManifestResource, Row, ManifestResourceCol::Name));
    OS << ".mresource " << ((Flags & 7) == 1 ? "public " : (Flags & 7) == 2 ? "private " : "");
    writeId(OS, Name);
    OS << "\n{\n";
    Depth = 1;
    Token Impl = M.getToken(TableId::ManifestResource, Row, ManifestResourceCol::Implementation);
    if (tokenRow(Impl))
      implementation(Impl, M.get(TableId::ManifestResource, Row, ManifestResourceCol::Offset));
    else
      embeddedResourceNote(Row, Name);
    customAttributes(makeToken(TableId::ManifestResource, Row));
    Depth = 0;
    OS << "}\n";
  }
}

// An embedded resource's bytes are not in the text: ILAsm reads them from a file of the
// resource's name beside the text, which `weft dump -o` writes.
void Writer::embeddedResourceNote(uint32_t Row, StringRef Name) {
  Expected<ArrayRef<uint8_t>> Bytes = embeddedResource(Img, M, Row);
  if (!Bytes) {
    problem(Bytes.takeError());
    return;
  }
  indent() << "// " << Bytes->size() << " bytes, embedded: ";
  if (resourceFileNameIsPlain(Name))
    OS << "ILAsm reads them from the file of this name beside the text\n";
  else
    OS << "not written beside the text (the name is not a plain file name), so ILAsm cannot "
          "read them\n";
}

void Writer::moduleHeader() {
  if (M.rowCount(TableId::Module)) {
    OS << ".module ";
    writeId(OS, M.getString(M.get(TableId::Module, 1, ModuleCol::Name)));
    OS << '\n';
    customAttributes(makeToken(TableId::Module, 1));
  }
  const pe::OptionalHeader &O = Img.optional();
  OS << ".imagebase " << format_hex(O.ImageBase, O.PE32Plus ? 18 : 10);
  // Nothing in the text makes ILAsm write a PE32+ image; its command line does.
  if (O.PE32Plus)
    OS << "  // PE32+: ilasm -pe64";
  OS << '\n';
  OS << ".file alignment " << format_hex(O.FileAlignment, 10) << '\n';
  OS << ".stackreserve " << format_hex(O.SizeOfStackReserve, O.PE32Plus ? 18 : 10) << '\n';
  OS << ".subsystem " << format_hex(O.Subsystem, 6);
  if (!pe::subsystemName(O.Subsystem).empty())
    OS << "  // " << pe::subsystemName(O.Subsystem);
  OS << '\n';
  if (Img.cli())
    corFlags(Img.cli()->Flags);
  // The text has no form for an image's Win32 resources (a version resource, icons, a manifest);
  // ILAsm takes them as a compiled .res file instead.
  if (uint32_t Size = Img.directory(pe::DirResource).Size)
    OS << "// Win32 resources (" << Size
       << " bytes) are not in the text: ilasm -resource=FILE.res adds them\n";
}

// The flags of the IL: a ReadyToRun image's are those of its IL with the native code's changes
// (IL_LIBRARY set, ILONLY cleared), which are undone here as weft weave undoes them, so that the
// text assembles to an IL-only assembly the runtime loads.
void Writer::corFlags(uint32_t F) {
  if (Img.isReadyToRun()) {
    OS << "// the ReadyToRun image has .corflags " << format_hex(F, 10) << '\n';
    F = (F | pe::CliILOnly) & ~uint32_t(pe::CliILLibrary);
  }
  OS << ".corflags " << format_hex(F, 10);
  static const FlagWord Words[] = {{pe::CliILOnly, "ILONLY"},
                                   {pe::Cli32BitRequired, "32BITREQUIRED"},
                                   {pe::Cli32BitPreferred, "32BITPREFERRED"},
                                   {pe::CliStrongNameSigned, "STRONGNAMESIGNED"},
                                   {pe::CliNativeEntryPoint, "NATIVE_ENTRYPOINT"},
                                   {pe::CliILLibrary, "IL_LIBRARY"},
                                   {pe::CliTrackDebugData, "TRACKDEBUGDATA"}};
  if (F & (pe::CliILOnly | pe::Cli32BitRequired | pe::Cli32BitPreferred | pe::CliStrongNameSigned |
           pe::CliNativeEntryPoint | pe::CliILLibrary | pe::CliTrackDebugData)) {
    OS << "  // ";
    std::string Text;
    raw_string_ostream W(Text);
    writeFlagWords(W, F, Words);
    OS << StringRef(W.str()).rtrim();
  }
  OS << '\n';
}

void Writer::genericParams(Token Owner, const GenericContext &Ctx) {
  ArrayRef<uint32_t> GPs = M.genericParams(Owner);
  if (GPs.empty())
    return;
  std::vector<uint32_t> Sorted(GPs.begin(), GPs.end());
  std::stable_sort(Sorted.begin(), Sorted.end(), [&](uint32_t A, uint32_t B) {
    return M.get(TableId::GenericParam, A, GenericParamCol::Number) <
           M.get(TableId::GenericParam, B, GenericParamCol::Number);
  });
  // The owner's own parameters are named by number in their constraints: ILAsm reads those
  // before it knows the parameters' names, and an `!T` there makes a second constraint where a
  // `.param constraint` names the first.
  GenericContext ConstraintCtx = Ctx;
  if (tokenTable(Owner) == TableId::MethodDef)
    ConstraintCtx.MethodRow = 0;
  else
    ConstraintCtx.TypeRow = 0;
  OS << '<';
  for (size_t I = 0; I < Sorted.size(); ++I) {
    uint32_t GP = Sorted[I];
    if (I)
      OS << ", ";
    uint16_t F = M.get(TableId::GenericParam, GP, GenericParamCol::Flags);
    if ((F & 3) == 1)
      OS << '+';
    else if ((F & 3) == 2)
      OS << '-';
    if (F & 0x04)
      OS << "class ";
    if (F & 0x08)
      OS << "valuetype ";
    if (F & 0x20)
      OS << "byreflike ";
    if (F & 0x10)
      OS << ".ctor ";
    ArrayRef<uint32_t> Cons = M.genericParamConstraints(GP);
    if (!Cons.empty()) {
      OS << '(';
      for (size_t J = 0; J < Cons.size(); ++J) {
        if (J)
          OS << ", ";
        Names.typeToken(OS,
                        M.getToken(TableId::GenericParamConstraint, Cons[J],
                                   GenericParamConstraintCol::Constraint),
                        ConstraintCtx);
      }
      OS << ") ";
    }
    writeId(OS, M.getString(M.get(TableId::GenericParam, GP, GenericParamCol::Name)));
  }
  OS << '>';
}

void Writer::genericParamAttributes(Token Owner, const GenericContext &Ctx) {
  for (uint32_t GP : M.genericParams(Owner)) {
    StringRef Name = M.getString(M.get(TableId::GenericParam, GP, GenericParamCol::Name));
    if (!M.customAttributes(makeToken(TableId::GenericParam, GP)).empty()) {
      indent() << ".param type ";
      writeId(OS, Name);
      OS << '\n';
      ++Depth;
      customAttributes(makeToken(TableId::GenericParam, GP));
      --Depth;
    }
    for (uint32_t C : M.genericParamConstraints(GP)) {
      if (M.customAttributes(makeToken(TableId::GenericParamConstraint, C)).empty())
        continue;
      indent() << ".param constraint ";
      writeId(OS, Name);
      OS << ", ";
      Names.typeToken(
          OS, M.getToken(TableId::GenericParamConstraint, C, GenericParamConstraintCol::Constraint),
          Ctx);
      OS << '\n';
      ++Depth;
      customAttributes(makeToken(TableId::GenericParamConstraint, C));
      --Depth;
    }
  }
}

// The attributes of the interface implementations come before those of the generic parameters:
// after a `.param type`, ILAsm files an `.interfaceimpl`'s attribute under the parameter too, and
// then loops for ever on the list it has made circular. An `.interfaceimpl` line takes one
// attribute (any after it are the type's own), so it is repeated for each.
void Writer::interfaceImplAttributes(ArrayRef<uint32_t> Impls, const GenericContext &Ctx) {
  for (uint32_t I : Impls)
    for (uint32_t Row : M.customAttributes(makeToken(TableId::InterfaceImpl, I))) {
      indent() << ".interfaceimpl type ";
      Names.typeToken(OS, M.getToken(TableId::InterfaceImpl, I, InterfaceImplCol::Interface), Ctx);
      OS << '\n';
      ++Depth;
      customAttribute(Row);
      --Depth;
    }
}

void Writer::classLayout(uint32_t Row, uint32_t Flags) {
  if (uint32_t L = M.classLayout(Row)) {
    indent() << ".pack " << M.get(TableId::ClassLayout, L, ClassLayoutCol::PackingSize) << '\n';
    indent() << ".size " << M.get(TableId::ClassLayout, L, ClassLayoutCol::ClassSize) << '\n';
  } else if ((Flags & 0x18) == 0x10) {
    // ILAsm sets the field offsets of an explicit type through the call that also makes a
    // ClassLayout row, so it cannot leave the row out.
    indent() << "// no .pack or .size: ILAsm adds .pack 0 and .size 0 (the same layout)\n";
  }
}

void Writer::type(uint32_t Row) {
  if (!typeHasSelection(Row))
    return;
  bool Whole = typeSelected(Row);
  uint32_t Flags = M.get(TableId::TypeDef, Row, TypeDefCol::Flags);
  GenericContext Ctx{Row, 0};
  Token Tok = makeToken(TableId::TypeDef, Row);
  indent() << ".class ";
  writeTypeFlags(OS, Flags);
  StringRef Ns = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace));
  if (!Ns.empty()) {
    writeId(OS, Ns);
    OS << '.';
  }
  writeId(OS, M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)));
  genericParams(Tok, Ctx);
  Token Extends = M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends);
  if (tokenRow(Extends)) {
    OS << " extends ";
    Names.typeToken(OS, Extends, Ctx);
  }
  ArrayRef<uint32_t> Impls = M.interfaceImpls(Row);
  if (!Impls.empty()) {
    OS << " implements ";
    for (size_t I = 0; I < Impls.size(); ++I) {
      if (I)
        OS << ", ";
      Names.typeToken(OS, M.getToken(TableId::InterfaceImpl, Impls[I], InterfaceImplCol::Interface),
                      Ctx);
    }
  }
  OS << '\n';
  indent() << "{\n";
  ++Depth;
  bool Members = Whole && Opts.Methods.empty();
  if (Members) {
    customAttributes(Tok);
    declSecurity(Tok);
    interfaceImplAttributes(Impls, Ctx);
    genericParamAttributes(Tok, Ctx);
    classLayout(Row, Flags);
  }
  for (uint32_t N : M.nestedTypes(Row))
    if (N != Row)
      type(N);
  if (Members)
    for (uint32_t I : M.typeFields(Row))
      field(M.field(I), Ctx);
  if (Whole)
    for (uint32_t I : M.typeMethods(Row))
      if (methodSelected(Row, M.method(I)))
        method(M.method(I), Row);
  if (Members) {
    if (uint32_t Map = M.eventMap(Row))
      for (uint32_t I : M.mapEvents(Map))
        event(M.event(I), Row);
    if (uint32_t Map = M.propertyMap(Row))
      for (uint32_t I : M.mapProperties(Map))
        property(M.property(I), Row);
  }
  --Depth;
  indent() << "} // end of class ";
  Names.typeDefName(OS, Row);
  OS << '\n';
}

void Writer::field(uint32_t Row, const GenericContext &Ctx) {
  uint16_t Flags = M.get(TableId::Field, Row, FieldCol::Flags);
  Token Tok = makeToken(TableId::Field, Row);
  indent() << ".field ";
  if (uint32_t L = M.fieldLayout(Row))
    OS << '[' << M.get(TableId::FieldLayout, L, FieldLayoutCol::Offset) << "] ";
  writeFieldFlags(OS, Flags);
  if (uint32_t Map = M.implMap(Tok)) {
    OS << "pinvokeimpl(";
    uint32_t Scope = M.get(TableId::ImplMap, Map, ImplMapCol::ImportScope);
    writeDoubleQuoted(OS, Scope ? M.getString(M.get(TableId::ModuleRef, Scope, ModuleRefCol::Name))
                                : "");
    writePInvokeFlags(OS, M.get(TableId::ImplMap, Map, ImplMapCol::MappingFlags));
    OS << ") ";
  }
  if (uint32_t FM = M.fieldMarshal(Tok)) {
    uint32_t Blob = M.get(TableId::FieldMarshal, FM, FieldMarshalCol::NativeType);
    std::string Text;
    raw_string_ostream S(Text);
    if (Error E = writeMarshal(S, M.getBlob(Blob), M.blobFileOffset(Blob))) {
      consumeError(std::move(E));
      OS << "marshal(bytearray ";
      writeByteList(OS, M.getBlob(Blob));
      OS << ") ";
    } else {
      OS << "marshal(" << S.str() << ") ";
    }
  }
  Expected<TypeSig> Sig = fieldDefSig(M, Row);
  if (Sig)
    Names.type(OS, *Sig, Ctx);
  else
    writeBadSignature(OS, Sig.takeError());
  OS << ' ';
  writeId(OS, M.getString(M.get(TableId::Field, Row, FieldCol::Name)));
  if (M.fieldRVA(Row)) {
    OS << " at D_" << format_hex_no_prefix(Row, 8, true);
    DataFields.push_back(Row);
  }
  if (uint32_t C = M.constant(Tok)) {
    OS << " = ";
    uint32_t Blob = M.get(TableId::Constant, C, ConstantCol::Value);
    if (Error E = writeConstant(OS, M.get(TableId::Constant, C, ConstantCol::Type), M.getBlob(Blob),
                                M.blobFileOffset(Blob))) {
      OS << '\n';
      problem(std::move(E));
      customAttributes(Tok);
      return;
    }
  }
  OS << '\n';
  customAttributes(Tok);
}

// An argument by name where the name says which one it is: ILAsm looks a name up among the
// parameters and takes the first match, so a name two parameters share (compilers name discarded
// lambda parameters `_`) is written as the number.
std::string Writer::argName(uint32_t MethodRow, const MethodSig &Sig, uint32_t Index) const {
  uint32_t Seq = Sig.hasThis() && !Sig.explicitThis() ? Index : Index + 1;
  if (Seq == 0)
    return "0"; // `this`
  StringRef Name;
  unsigned Uses = 0;
  for (uint32_t I : M.methodParams(MethodRow)) {
    uint32_t P = M.param(I);
    if (M.get(TableId::Param, P, ParamCol::Sequence) == Seq)
      Name = M.getString(M.get(TableId::Param, P, ParamCol::Name));
  }
  if (Name.empty())
    return std::to_string(Index);
  for (uint32_t I : M.methodParams(MethodRow)) {
    uint32_t P = M.param(I);
    if (M.get(TableId::Param, P, ParamCol::Sequence) != 0 &&
        M.getString(M.get(TableId::Param, P, ParamCol::Name)) == Name)
      ++Uses;
  }
  if (Uses > 1)
    return std::to_string(Index);
  std::string S;
  raw_string_ostream O(S);
  writeId(O, Name);
  return O.str();
}

// ILAsm gives every parameter a Param row and a name, `A_` and its index, where the text has none.
void Writer::unnamedParamsNote(const MethodSig &Sig, const std::map<uint32_t, uint32_t> &Params) {
  std::string Names;
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    auto It = Params.find(uint32_t(I + 1));
    if (It != Params.end() &&
        !M.getString(M.get(TableId::Param, It->second, ParamCol::Name)).empty())
      continue;
    Names += (Names.empty() ? "A_" : ", A_") + std::to_string(I);
  }
  if (!Names.empty())
    indent() << "// ILAsm names the unnamed parameters: " << Names << '\n';
}

void Writer::method(uint32_t Row, uint32_t TypeRow) {
  uint16_t Flags = M.get(TableId::MethodDef, Row, MethodDefCol::Flags);
  uint16_t Impl = M.get(TableId::MethodDef, Row, MethodDefCol::ImplFlags);
  GenericContext Ctx{TypeRow, Row};
  Token Tok = makeToken(TableId::MethodDef, Row);
  Expected<MethodSig> SigOr = methodDefSig(M, Row);
  indent() << ".method ";
  writeMethodFlags(OS, Flags);
  if (uint32_t Map = M.implMap(Tok)) {
    OS << "pinvokeimpl(";
    uint32_t Scope = M.get(TableId::ImplMap, Map, ImplMapCol::ImportScope);
    StringRef Lib = Scope ? M.getString(M.get(TableId::ModuleRef, Scope, ModuleRefCol::Name)) : "";
    writeDoubleQuoted(OS, Lib);
    StringRef Import = M.getString(M.get(TableId::ImplMap, Map, ImplMapCol::ImportName));
    if (Import != M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name))) {
      OS << " as ";
      writeDoubleQuoted(OS, Import);
    }
    writePInvokeFlags(OS, M.get(TableId::ImplMap, Map, ImplMapCol::MappingFlags));
    OS << ") ";
  }
  writeMethodFlagsTail(OS, Flags);
  if (!SigOr) {
    writeBadSignature(OS, SigOr.takeError());
    OS << ' ';
    writeId(OS, M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)));
    OS << '\n';
    problem(formatError("method signature", M.rowOffset(TableId::MethodDef, Row),
                        "undecodable signature"));
    return;
  }
  const MethodSig &Sig = *SigOr;
  Names.callingConvention(OS, Sig);

  // Parameter rows by sequence number (0 is the return value).
  std::map<uint32_t, uint32_t> Params;
  for (uint32_t I : M.methodParams(Row)) {
    uint32_t P = M.param(I);
    Params.emplace(M.get(TableId::Param, P, ParamCol::Sequence), P);
  }
  auto Marshal = [&](uint32_t P) {
    if (uint32_t FM = M.fieldMarshal(makeToken(TableId::Param, P))) {
      uint32_t Blob = M.get(TableId::FieldMarshal, FM, FieldMarshalCol::NativeType);
      std::string Text;
      raw_string_ostream S(Text);
      if (Error E = writeMarshal(S, M.getBlob(Blob), M.blobFileOffset(Blob))) {
        consumeError(std::move(E));
        OS << " marshal(bytearray ";
        writeByteList(OS, M.getBlob(Blob));
        OS << ')';
      } else {
        OS << " marshal(" << S.str() << ')';
      }
    }
  };
  Names.type(OS, Sig.Return, Ctx);
  if (auto It = Params.find(0); It != Params.end())
    Marshal(It->second);
  OS << ' ';
  writeId(OS, M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)));
  genericParams(Tok, Ctx);
  OS << '(';
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    if (I)
      OS << ", ";
    if (int(I) == Sig.SentinelIndex)
      OS << "..., ";
    auto It = Params.find(uint32_t(I + 1));
    uint16_t PF = It != Params.end() ? M.get(TableId::Param, It->second, ParamCol::Flags) : 0;
    if (PF & 0x1)
      OS << "[in] ";
    if (PF & 0x2)
      OS << "[out] ";
    if (PF & 0x10)
      OS << "[opt] ";
    Names.type(OS, Sig.Params[I], Ctx);
    if (It != Params.end()) {
      Marshal(It->second);
      StringRef Name = M.getString(M.get(TableId::Param, It->second, ParamCol::Name));
      if (!Name.empty()) {
        OS << ' ';
        writeId(OS, Name);
      }
    }
  }
  // A vararg method's definition lists only its fixed parameters (`vararg` says the rest); a
  // `...` here would put a sentinel into the signature ILAsm writes.
  OS << ") ";
  writeImplFlags(OS, Impl);
  OS << '\n';
  indent() << "{\n";
  ++Depth;
  if (Img.cli() && !(Img.cli()->Flags & pe::CliNativeEntryPoint) && Img.cli()->EntryPoint == Tok)
    indent() << ".entrypoint\n";
  unnamedParamsNote(Sig, Params);
  customAttributes(Tok);
  declSecurity(Tok);
  for (auto &[Seq, P] : Params) {
    Token PTok = makeToken(TableId::Param, P);
    uint32_t C = M.constant(PTok);
    if (!C && M.customAttributes(PTok).empty())
      continue;
    indent() << ".param [" << Seq << ']';
    if (C) {
      OS << " = ";
      uint32_t Blob = M.get(TableId::Constant, C, ConstantCol::Value);
      if (Error E = writeConstant(OS, M.get(TableId::Constant, C, ConstantCol::Type),
                                  M.getBlob(Blob), M.blobFileOffset(Blob))) {
        OS << '\n';
        problem(std::move(E));
      }
    }
    OS << '\n';
    ++Depth;
    customAttributes(PTok);
    --Depth;
  }
  genericParamAttributes(Tok, Ctx);
  if (TypeRow)
    for (uint32_t MI : M.methodImpls(TypeRow)) {
      if (M.getToken(TableId::MethodImpl, MI, MethodImplCol::MethodBody) != Tok)
        continue;
      indent() << ".override method ";
      Names.methodToken(OS, M.getToken(TableId::MethodImpl, MI, MethodImplCol::MethodDeclaration),
                        Ctx);
      OS << '\n';
    }
  methodBody(Row, Ctx, Sig);
  --Depth;
  indent() << "} // end of method ";
  if (TypeRow) {
    Names.typeDefName(OS, TypeRow);
    OS << "::";
  }
  writeId(OS, M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)));
  OS << '\n';
}

void Writer::methodBody(uint32_t Row, const GenericContext &Ctx, const MethodSig &Sig) {
  uint32_t RVA = M.get(TableId::MethodDef, Row, MethodDefCol::RVA);
  uint16_t Impl = M.get(TableId::MethodDef, Row, MethodDefCol::ImplFlags);
  if (RVA == 0)
    return;
  if ((Impl & 3) != 0) { // native or runtime code: no IL to show
    indent() << "// native code\n";
    return;
  }
  uint64_t Off = 0;
  ArrayRef<uint8_t> Bytes = Img.rvaTail(RVA, &Off);
  if (Bytes.empty()) {
    problem(formatError("method body of " + hex(makeToken(TableId::MethodDef, Row)),
                        M.rowOffset(TableId::MethodDef, Row),
                        "RVA " + hex(RVA) + " is not inside any section"));
    return;
  }
  Expected<il::RawMethodBody> Body = il::readMethodBody(Bytes, Off);
  if (!Body) {
    problem(Body.takeError());
    return;
  }
  CodeSeen += Body->Code.size();
  if (CodeSeen > (Opts.CodeBudget ? Opts.CodeBudget : il::methodCodeBudget(Img.bytes().size()))) {
    problem(formatError("method body", Off,
                        "not shown: the code of the methods so far adds up to more than 8 times "
                        "the file (methods share or overlap bodies beyond reason)"));
    return;
  }
  indent() << ".maxstack " << Body->MaxStack << '\n';
  if (Body->LocalVarSigToken) {
    Token LT = Body->LocalVarSigToken;
    if (tokenTable(LT) != TableId::StandAloneSig || !M.isValidToken(LT)) {
      problem(
          formatError("fat method header", Body->FileOffset + 8,
                      "local variable signature token " + hex(LT) + " is not a StandAloneSig row"));
    } else {
      uint32_t Blob = M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
      Expected<std::vector<TypeSig>> Locals =
          decodeLocalsSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
      if (!Locals) {
        problem(Locals.takeError());
      } else {
        indent() << ".locals " << (Body->initLocals() ? "init " : "") << '(';
        unsigned Column = Depth * 2 + 8 + (Body->initLocals() ? 5 : 0);
        for (size_t I = 0; I < Locals->size(); ++I) {
          if (I)
            OS << ",\n" << std::string(Column, ' ');
          Names.type(OS, (*Locals)[I], Ctx);
          OS << " V_" << I;
        }
        OS << ")\n";
      }
    }
  }
  instructions(*Body, Ctx, Row, Sig);
}

struct Block {
  uint32_t Start, End;
  enum Kind { Try, Catch, Finally, Fault, Filter, FilterHandler } K;
  uint32_t Clause;
};

void Writer::instructions(const il::RawMethodBody &Body, const GenericContext &Ctx,
                          uint32_t MethodRow, const MethodSig &Sig) {
  std::vector<il::Instruction> Insts;
  il::InstructionDecoder D(Body.Code, Body.codeFileOffset());
  il::Instruction I;
  while (D.next(I))
    Insts.push_back(I);
  Error DecodeErr = D.takeError();

  uint32_t CodeEnd = uint32_t(Body.Code.size());
  auto OnBoundary = [&](uint32_t Off) {
    if (Off == CodeEnd)
      return true;
    auto It = std::partition_point(Insts.begin(), Insts.end(),
                                   [&](const il::Instruction &I) { return I.Offset < Off; });
    return It != Insts.end() && It->Offset == Off;
  };

  // Structured exception blocks, when the clauses nest the way ILAsm can write them.
  std::vector<Block> Blocks;
  bool Structured = !DecodeErr;
  const auto &Cl = Body.Clauses;
  for (uint32_t C = 0; C < Cl.size() && Structured; ++C) {
    const il::ExceptionClause &E = Cl[C];
    bool SameTry =
        C > 0 && Cl[C - 1].TryOffset == E.TryOffset && Cl[C - 1].TryLength == E.TryLength;
    uint32_t HandlerStartExpected = SameTry ? Cl[C - 1].handlerEnd() : E.tryEnd();
    if (!SameTry)
      Blocks.push_back({E.TryOffset, E.tryEnd(), Block::Try, C});
    if (E.Kind == il::ClauseFilter) {
      uint32_t F = E.ClassTokenOrFilterOffset;
      if (F != HandlerStartExpected || F >= E.HandlerOffset)
        Structured = false;
      Blocks.push_back({F, E.HandlerOffset, Block::Filter, C});
      Blocks.push_back({E.HandlerOffset, E.handlerEnd(), Block::FilterHandler, C});
    } else {
      if (E.HandlerOffset != HandlerStartExpected)
        Structured = false;
      Block::Kind K = E.Kind == il::ClauseFinally ? Block::Finally
                      : E.Kind == il::ClauseFault ? Block::Fault
                                                  : Block::Catch;
      if (E.Kind != il::ClauseException && E.Kind != il::ClauseFinally && E.Kind != il::ClauseFault)
        Structured = false;
      Blocks.push_back({E.HandlerOffset, E.handlerEnd(), K, C});
    }
  }
  for (const Block &B : Blocks)
    if (B.Start >= B.End || !OnBoundary(B.Start) || !OnBoundary(B.End) || B.End > CodeEnd)
      Structured = false;
  // Blocks must nest: sorted by start (outer first), each one inside or after the open ones.
  std::stable_sort(Blocks.begin(), Blocks.end(), [](const Block &A, const Block &B) {
    return A.Start != B.Start ? A.Start < B.Start : A.End > B.End;
  });
  if (Structured) {
    std::vector<const Block *> Open;
    for (const Block &B : Blocks) {
      while (!Open.empty() && Open.back()->End <= B.Start)
        Open.pop_back();
      if (!Open.empty() && B.End > Open.back()->End) {
        Structured = false;
        break;
      }
      Open.push_back(&B);
    }
  }
  if (!Structured)
    Blocks.clear();
  collectLabels(Insts, D, Cl, Structured);

  std::vector<const Block *> Open;
  size_t Next = 0;
  auto CloseUntil = [&](uint32_t Off) {
    while (!Open.empty() && Open.back()->End <= Off) {
      --Depth;
      indent() << "}\n";
      Open.pop_back();
    }
  };
  // Sequence points from the PDB, shown before the instruction each one starts at.
  std::vector<metadata::pdb::SequencePoint> Points;
  if (Opts.Pdb) {
    Expected<std::vector<metadata::pdb::SequencePoint>> P =
        metadata::pdb::methodSequencePoints(*Opts.Pdb, MethodRow);
    if (P)
      Points = std::move(*P);
    else
      problem(P.takeError());
  }
  size_t NextPoint = 0;
  LineDocument = 0; // each method names its file first
  for (const il::Instruction &Ins : Insts) {
    CloseUntil(Ins.Offset);
    while (Next < Blocks.size() && Blocks[Next].Start == Ins.Offset) {
      const Block &B = Blocks[Next++];
      const il::ExceptionClause &E = Cl[B.Clause];
      switch (B.K) {
      case Block::Try: indent() << ".try\n"; break;
      case Block::Catch:
        indent() << "catch ";
        Names.typeToken(OS, E.ClassTokenOrFilterOffset, Ctx);
        OS << '\n';
        break;
      case Block::Finally: indent() << "finally\n"; break;
      case Block::Fault: indent() << "fault\n"; break;
      case Block::Filter: indent() << "filter\n"; break;
      case Block::FilterHandler: break;
      }
      indent() << "{\n";
      ++Depth;
      Open.push_back(&B);
    }
    while (NextPoint < Points.size() && Points[NextPoint].ILOffset <= Ins.Offset) {
      const metadata::pdb::SequencePoint &P = Points[NextPoint++];
      if (P.ILOffset != Ins.Offset) {
        indent() << "// sequence point at IL_" << format_hex_no_prefix(P.ILOffset, 4)
                 << " is not on an instruction\n";
        continue;
      }
      indent() << ".line " << P.StartLine << ',' << P.EndLine << " : " << P.StartColumn << ','
               << P.EndColumn;
      if (P.Document != LineDocument) {
        LineDocument = P.Document;
        Expected<std::string> Name = metadata::pdb::documentName(*Opts.Pdb, P.Document);
        OS << ' ';
        writeSingleQuoted(OS, Name ? *Name : std::string());
        if (!Name)
          problem(Name.takeError());
      }
      OS << '\n';
    }
    instructionStart(Ins.Offset);
    const il::OpcodeInfo &Info = Ins.info();
    if (Info.Operand == il::OperandKind::None) {
      OS << Info.Name << '\n';
      continue;
    }
    OS << left_justify(Info.Name, 10) << ' ';
    operand(Ins, D, Body.Code, Ctx, MethodRow, Sig);
    OS << '\n';
  }
  CloseUntil(CodeEnd);
  // Labels past the last instruction (the end of a clause, a branch out of the code).
  for (uint32_t Off : LabelOffsets)
    if (Off >= CodeEnd) {
      label(Off);
      OS << ":\n";
    }
  if (DecodeErr) {
    problem(std::move(DecodeErr));
    return;
  }
  if (!Structured)
    unstructuredClauses(Cl, Ctx);
}

// Clauses that do not nest as ILAsm's blocks do are listed after the code, by the offsets (or
// labels) they start and end at.
void Writer::unstructuredClauses(ArrayRef<il::ExceptionClause> Clauses, const GenericContext &Ctx) {
  for (const il::ExceptionClause &E : Clauses) {
    indent() << ".try ";
    label(E.TryOffset);
    OS << " to ";
    label(E.tryEnd());
    OS << ' ';
    switch (E.Kind) {
    case il::ClauseException:
      OS << "catch ";
      Names.typeToken(OS, E.ClassTokenOrFilterOffset, Ctx);
      break;
    case il::ClauseFilter:
      OS << "filter ";
      label(E.ClassTokenOrFilterOffset);
      break;
    case il::ClauseFinally: OS << "finally"; break;
    case il::ClauseFault: OS << "fault"; break;
    default: OS << "flags(" << format_hex(E.Kind, 10) << ')'; break;
    }
    OS << " handler ";
    label(E.HandlerOffset);
    OS << " to ";
    label(E.handlerEnd());
    OS << '\n';
  }
}

// With StableLabels, the offsets that branches, switches and unstructured clauses name.
void Writer::collectLabels(ArrayRef<il::Instruction> Insts, const il::InstructionDecoder &D,
                           ArrayRef<il::ExceptionClause> Clauses, bool Structured) {
  LabelOffsets.clear();
  if (!Opts.StableLabels)
    return;
  for (const il::Instruction &I : Insts) {
    il::OperandKind K = I.info().Operand;
    if (K == il::OperandKind::ShortBr || K == il::OperandKind::Br)
      LabelOffsets.push_back(I.Target);
    else if (K == il::OperandKind::Switch)
      for (uint32_t C = 0; C < I.Count; ++C)
        LabelOffsets.push_back(D.switchTarget(I, C));
  }
  if (!Structured)
    for (const il::ExceptionClause &E : Clauses) {
      LabelOffsets.insert(LabelOffsets.end(),
                          {E.TryOffset, E.tryEnd(), E.HandlerOffset, E.handlerEnd()});
      if (E.Kind == il::ClauseFilter)
        LabelOffsets.push_back(E.ClassTokenOrFilterOffset);
    }
  llvm::sort(LabelOffsets);
  LabelOffsets.erase(std::unique(LabelOffsets.begin(), LabelOffsets.end()), LabelOffsets.end());
}

void Writer::label(uint32_t Offset) {
  if (!Opts.StableLabels) {
    OS << "IL_" << format_hex_no_prefix(Offset, 4);
    return;
  }
  auto It = llvm::lower_bound(LabelOffsets, Offset);
  OS << "L_" << (It - LabelOffsets.begin() + 1);
}

// The start of an instruction's line: its offset, or with StableLabels its label (on a line of
// its own) if the code names it.
void Writer::instructionStart(uint32_t Offset) {
  if (!Opts.StableLabels) {
    indent() << "IL_" << format_hex_no_prefix(Offset, 4) << ":  ";
    return;
  }
  if (std::binary_search(LabelOffsets.begin(), LabelOffsets.end(), Offset)) {
    indent();
    label(Offset);
    OS << ":\n";
  }
  indent();
}

void Writer::operand(const il::Instruction &I, const il::InstructionDecoder &D,
                     ArrayRef<uint8_t> Code, const GenericContext &Ctx, uint32_t MethodRow,
                     const MethodSig &Sig) {
  switch (I.info().Operand) {
  case il::OperandKind::None: return;
  case il::OperandKind::ShortVar:
  case il::OperandKind::Var: {
    bool Local = I.Op == il::Opcode::Ldloc_S || I.Op == il::Opcode::Ldloca_S ||
                 I.Op == il::Opcode::Stloc_S || I.Op == il::Opcode::Ldloc ||
                 I.Op == il::Opcode::Ldloca || I.Op == il::Opcode::Stloc;
    if (Local)
      OS << "V_" << I.Index;
    else
      OS << argName(MethodRow, Sig, I.Index);
    return;
  }
  case il::OperandKind::ShortI:
  case il::OperandKind::ShortU:
  case il::OperandKind::I:
  case il::OperandKind::I8: OS << I.Int; return;
  case il::OperandKind::ShortR:
  case il::OperandKind::R: {
    bool Short = I.info().Operand == il::OperandKind::ShortR;
    double V = I.Real;
    if (std::isfinite(V)) {
      if (Short)
        writeFloat32(OS, float(V));
      else
        writeFloat64(OS, V);
    } else {
      // Not-a-number and infinities as their bytes, which ILAsm reads back exactly.
      writeByteList(OS, Code.slice(I.Offset + I.info().opcodeSize(), Short ? 4 : 8));
    }
    return;
  }
  case il::OperandKind::ShortBr:
  case il::OperandKind::Br: label(I.Target); return;
  case il::OperandKind::Switch:
    OS << '(';
    for (uint32_t C = 0; C < I.Count; ++C) {
      if (C)
        OS << ", ";
      label(D.switchTarget(I, C));
    }
    OS << ')';
    return;
  case il::OperandKind::Method: Names.methodToken(OS, I.Token, Ctx); return;
  case il::OperandKind::Field: Names.fieldToken(OS, I.Token, Ctx); return;
  case il::OperandKind::Type: Names.typeToken(OS, I.Token, Ctx); return;
  case il::OperandKind::Tok: Names.anyToken(OS, I.Token, Ctx); return;
  case il::OperandKind::String: {
    if ((I.Token >> 24) != UserStringTokenType) {
      OS << "<bad string token " << format_hex(I.Token, 10) << '>';
      problem(formatError("ldstr", 0, "token " + hex(I.Token) + " is not a #US token"));
      return;
    }
    Expected<UserString> S = M.getUserString(I.Token & 0xFFFFFF);
    if (!S) {
      OS << "<bad string>";
      problem(S.takeError());
      return;
    }
    writeUserString(OS, S->Utf16);
    return;
  }
  case il::OperandKind::Sig: {
    if (tokenTable(I.Token) != TableId::StandAloneSig || !M.isValidToken(I.Token)) {
      OS << "<bad signature token " << format_hex(I.Token, 10) << '>';
      return;
    }
    uint32_t Blob = M.get(TableId::StandAloneSig, tokenRow(I.Token), StandAloneSigCol::Signature);
    Expected<MethodSig> S = decodeMethodSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
    if (!S)
      return writeBadSignature(OS, S.takeError());
    Names.callingConvention(OS, *S);
    Names.type(OS, S->Return, Ctx);
    Names.paramTypes(OS, *S, Ctx);
    return;
  }
  }
}

void Writer::semantics(Token Owner) {
  static const std::pair<uint16_t, const char *> Kinds[] = {{0x2, ".get"},   {0x1, ".set"},
                                                            {0x8, ".addon"}, {0x10, ".removeon"},
                                                            {0x20, ".fire"}, {0x4, ".other"}};
  ArrayRef<uint32_t> Rows = M.semantics(Owner);
  for (auto &[Bit, Word] : Kinds)
    for (uint32_t R : Rows) {
      if (!(M.get(TableId::MethodSemantics, R, MethodSemanticsCol::Semantics) & Bit))
        continue;
      indent() << Word << ' ';
      uint32_t Method = M.get(TableId::MethodSemantics, R, MethodSemanticsCol::Method);
      Names.methodToken(OS, makeToken(TableId::MethodDef, Method), GenericContext{});
      OS << '\n';
    }
}

void Writer::property(uint32_t Row, uint32_t TypeRow) {
  uint16_t Flags = M.get(TableId::Property, Row, PropertyCol::Flags);
  Token Tok = makeToken(TableId::Property, Row);
  GenericContext Ctx{TypeRow, 0};
  indent() << ".property ";
  if (Flags & 0x200)
    OS << "specialname ";
  if (Flags & 0x400)
    OS << "rtspecialname ";
  uint32_t Blob = M.get(TableId::Property, Row, PropertyCol::Type);
  // Tested once: an Expected whose error was taken counts as unchecked if tested again.
  std::optional<MethodSig> Sig;
  if (Expected<MethodSig> S = decodePropertySig(M.getBlob(Blob), M.blobFileOffset(Blob), &M))
    Sig = std::move(*S);
  else
    writeBadSignature(OS, S.takeError());
  if (Sig) {
    if (Sig->hasThis())
      OS << "instance ";
    Names.type(OS, Sig->Return, Ctx);
  }
  OS << ' ';
  writeId(OS, M.getString(M.get(TableId::Property, Row, PropertyCol::Name)));
  if (Sig)
    Names.paramTypes(OS, *Sig, Ctx);
  if (uint32_t C = M.constant(Tok)) {
    OS << " = ";
    uint32_t CB = M.get(TableId::Constant, C, ConstantCol::Value);
    if (Error E = writeConstant(OS, M.get(TableId::Constant, C, ConstantCol::Type), M.getBlob(CB),
                                M.blobFileOffset(CB)))
      consumeError(std::move(E));
  }
  OS << '\n';
  indent() << "{\n";
  ++Depth;
  customAttributes(Tok);
  semantics(Tok);
  --Depth;
  indent() << "} // end of property ";
  Names.typeDefName(OS, TypeRow);
  OS << "::";
  writeId(OS, M.getString(M.get(TableId::Property, Row, PropertyCol::Name)));
  OS << '\n';
}

void Writer::event(uint32_t Row, uint32_t TypeRow) {
  uint16_t Flags = M.get(TableId::Event, Row, EventCol::EventFlags);
  Token Tok = makeToken(TableId::Event, Row);
  indent() << ".event ";
  if (Flags & 0x200)
    OS << "specialname ";
  if (Flags & 0x400)
    OS << "rtspecialname ";
  Token T = M.getToken(TableId::Event, Row, EventCol::EventType);
  if (tokenRow(T)) {
    Names.typeToken(OS, T, GenericContext{TypeRow, 0});
    OS << ' ';
  }
  writeId(OS, M.getString(M.get(TableId::Event, Row, EventCol::Name)));
  OS << '\n';
  indent() << "{\n";
  ++Depth;
  customAttributes(Tok);
  semantics(Tok);
  --Depth;
  indent() << "} // end of event ";
  Names.typeDefName(OS, TypeRow);
  OS << "::";
  writeId(OS, M.getString(M.get(TableId::Event, Row, EventCol::Name)));
  OS << '\n';
}

void Writer::dataBlocks() {
  for (uint32_t Row : DataFields) {
    uint32_t RVA = M.get(TableId::FieldRVA, M.fieldRVA(Row), FieldRVACol::RVA);
    Expected<uint32_t> SizeOr = fieldDataSize(M, Row);
    uint32_t Size = 0;
    if (SizeOr)
      Size = *SizeOr;
    else
      consumeError(SizeOr.takeError());
    OS << ".data D_" << format_hex_no_prefix(Row, 8, true) << " = ";
    if (!Size) {
      OS << "bytearray ()  // size unknown\n";
      continue;
    }
    Expected<pe::Image::MappedRange> Bytes = Img.mappedRange(RVA, Size, "field data");
    if (!Bytes) {
      OS << "bytearray ()\n";
      problem(Bytes.takeError());
      continue;
    }
    // Zeros past the section's file data print as ILAsm's uninitialised items.
    if (Bytes->Zeros && !Bytes->Backed.empty())
      OS << "{ ";
    if (!Bytes->Backed.empty()) {
      OS << "bytearray ";
      writeByteList(OS, Bytes->Backed);
    }
    if (Bytes->Zeros)
      OS << (Bytes->Backed.empty() ? "" : ", ") << "int8[" << Bytes->Zeros << "]"
         << (Bytes->Backed.empty() ? "" : " }");
    OS << '\n';
  }
}

Error Writer::run() {
  if (!filtered()) {
    coreLibraryMark();
    typeList();
    assemblyRefs();
    assembly();
    manifest();
    moduleHeader();
  }
  // Members of <Module> (the first TypeDef) are global.
  if (M.rowCount(TableId::TypeDef) >= 1) {
    GenericContext Ctx{};
    if (!filtered()) {
      customAttributes(makeToken(TableId::TypeDef, 1));
      for (uint32_t I : M.typeFields(1))
        field(M.field(I), Ctx);
    }
    if (Opts.Types.empty())
      for (uint32_t I : M.typeMethods(1))
        if (methodSelected(0, M.method(I)))
          method(M.method(I), 0);
  }
  for (uint32_t Row = 2; Row <= M.rowCount(TableId::TypeDef); ++Row)
    if (!M.enclosingType(Row))
      type(Row);
  dataBlocks();
  if (FirstProblem)
    return plainError(*FirstProblem);
  return Error::success();
}

Error Writer::methods(std::vector<MethodText> &Out, raw_string_ostream &Text) {
  auto Take = [&](uint32_t Row, uint32_t TypeRow) {
    method(Row, TypeRow);
    MethodText T;
    T.Row = Row;
    raw_string_ostream Name(T.Name);
    Names.methodToken(Name, makeToken(TableId::MethodDef, Row), GenericContext{});
    Name.flush();
    T.Text.swap(Text.str());
    Out.push_back(std::move(T));
  };
  for (uint32_t Type = 1; Type <= M.rowCount(TableId::TypeDef); ++Type) {
    uint32_t Owner = Type == 1 ? 0 : Type; // members of <Module> are global
    if (Owner ? !typeSelected(Owner) : !Opts.Types.empty())
      continue;
    for (uint32_t I : M.typeMethods(Type))
      if (methodSelected(Owner, M.method(I)))
        Take(M.method(I), Owner);
  }
  if (FirstProblem)
    return plainError(*FirstProblem);
  return Error::success();
}

} // namespace

Expected<ArrayRef<uint8_t>> embeddedResource(const pe::Image &Img, const Module &M, uint32_t Row) {
  uint64_t At = M.rowOffset(TableId::ManifestResource, Row);
  const pe::DataDirectory *Dir = Img.cli() ? &Img.cli()->Resources : nullptr;
  if (!Dir || !Dir->Size)
    return formatError("manifest resource", At, "embedded, but the CLI header has no resources");
  uint32_t Offset = M.get(TableId::ManifestResource, Row, ManifestResourceCol::Offset);
  Expected<ArrayRef<uint8_t>> All = Img.rvaBytes(Dir->RVA, Dir->Size, "CLI resources");
  if (!All)
    return All.takeError();
  if (Offset > All->size() || All->size() - Offset < 4)
    return formatError("manifest resource", At,
                       "offset " + hex(Offset) + " is past the end of the CLI resources");
  uint32_t Length = support::endian::read32le(All->data() + Offset);
  if (Length > All->size() - Offset - 4)
    return formatError("manifest resource", At,
                       "its " + Twine(Length) + " bytes run past the end of the CLI resources");
  return All->slice(Offset + 4, Length);
}

bool resourceFileNameIsPlain(StringRef Name) {
  if (Name.empty() || Name == "." || Name == "..")
    return false;
  return none_of(Name, [](char C) { return C == '/' || C == '\\' || (unsigned char)C < 0x20; });
}

Error disassemble(raw_ostream &OS, const pe::Image &Image, const Module &M,
                  const DisassemblerOptions &Options) {
  Writer W(OS, Image, M, Options);
  return W.run();
}

Error disassembleMethods(const pe::Image &Image, const Module &M,
                         const DisassemblerOptions &Options, std::vector<MethodText> &Out) {
  std::string Text;
  raw_string_ostream OS(Text);
  Writer W(OS, Image, M, Options);
  return W.methods(Out, OS);
}

} // namespace weft::text
