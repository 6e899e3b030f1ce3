//===- tests/support/MixedModeImage.cpp - A C++/CLI-shaped image ----------===//
#include "tests/support/MixedModeImage.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/Error.h"
#include "tests/support/PeFile.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace weft::test {

namespace {

using namespace metadata;

constexpr uint32_t SectionCode = 0x60000020;         // code, executable, readable
constexpr uint32_t SectionWritableData = 0xC0000040; // initialised data, readable, writable
constexpr uint16_t MachineI386 = 0x014C;
constexpr uint16_t MethodStatic = 0x0010;
constexpr uint16_t VTable32Bit = 0x01, VTableFromUnmanagedRetainAppDomain = 0x08;
constexpr uint32_t FixupEntrySize = 8; // RVA, count, type

// x86 `mov eax, 1; ret 12`: DllMain(HINSTANCE, DWORD, LPVOID) returning TRUE.
const uint8_t DllMainReturningTrue[] = {0xB8, 0x01, 0x00, 0x00, 0x00, 0xC2, 0x0C, 0x00};

void put(std::vector<uint8_t> &Out, uint32_t V, unsigned Bytes) {
  for (unsigned I = 0; I < Bytes; ++I)
    Out.push_back(uint8_t(V >> (8 * I)));
}

// 32-bit slots and x86 code: a C++/CLI image for x86.
Error checkInput(const pe::Image &Img) {
  if (Img.isPE32Plus() || Img.coff().Machine != MachineI386)
    return plainError("the generator takes x86 (PE32) images only");
  return Error::success();
}

// The methods native code would call through a fixup: here, every static method with IL.
std::vector<Token> nativeCallableMethods(const Module &M) {
  std::vector<Token> Methods;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R)
    if ((M.get(TableId::MethodDef, R, MethodDefCol::Flags) & MethodStatic) &&
        M.get(TableId::MethodDef, R, MethodDefCol::RVA) &&
        !(M.get(TableId::MethodDef, R, MethodDefCol::ImplFlags) & 3))
      Methods.push_back(makeToken(TableId::MethodDef, R));
  return Methods;
}

// The slots (each holds its method's token until the loader puts a stub's address there), then
// the fixup table naming them one by one, as MSVC writes it.
std::vector<uint8_t> fixupData(ArrayRef<Token> Methods, uint32_t SectionRVA) {
  std::vector<uint8_t> Data;
  for (Token T : Methods)
    put(Data, T, 4);
  for (size_t I = 0; I < Methods.size(); ++I) {
    put(Data, SectionRVA + uint32_t(4 * I), 4);
    put(Data, 1, 2);
    put(Data, VTable32Bit | VTableFromUnmanagedRetainAppDomain, 2);
  }
  return Data;
}

} // namespace

Expected<MixedModeImage> makeMixedModeImage(StringRef Path) {
  Expected<SourceAssembly> Source = readSourceAssembly(Path);
  if (!Source)
    return Source.takeError();
  const pe::Image &Img = *Source->Image;
  const Module &M = *Source->Module;
  ArrayRef<uint8_t> Input = Source->bytes();
  if (Error E = checkInput(Img))
    return createFileError(Path, std::move(E));
  std::vector<Token> Methods = nativeCallableMethods(M);
  if (Methods.empty())
    return createFileError(Path, plainError("no static method to give a vtable fixup"));

  Expected<PeFile> File = PeFile::parse(std::vector<uint8_t>(Input.begin(), Input.end()));
  if (!File)
    return createFileError(Path, File.takeError());
  MixedModeImage Made;
  uint32_t DataRVA = File->nextSectionRVA();
  Expected<uint32_t> Data =
      File->addSection(".data", fixupData(Methods, DataRVA), SectionWritableData);
  if (!Data)
    return createFileError(Path, Data.takeError());
  Expected<uint32_t> Code = File->addSection(".native", DllMainReturningTrue, SectionCode);
  if (!Code)
    return createFileError(Path, Code.takeError());
  Made.NativeEntryPoint = *Code;
  Made.VTableFixups = uint32_t(Methods.size());

  Expected<uint64_t> Cli = File->cliHeaderOffset(); // the headers may have grown
  if (!Cli)
    return createFileError(Path, Cli.takeError());
  uint32_t Flags = Img.cli()->Flags;
  File->write32(*Cli + 16, (Flags & ~pe::CliILOnly) | pe::CliNativeEntryPoint);
  File->write32(*Cli + 20, Made.NativeEntryPoint);
  File->write32(*Cli + 48, DataRVA + uint32_t(4 * Methods.size()));
  File->write32(*Cli + 52, uint32_t(FixupEntrySize * Methods.size()));
  Made.Bytes = File->bytes();
  return std::move(Made);
}

} // namespace weft::test
