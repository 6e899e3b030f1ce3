//===- cli/Tool.cpp -------------------------------------------------------===//
#include "cli/Tool.h"

#include "support/Error.h"
#include "weaving/plugin/Plugin.h"
#include "weaving/spec/Spec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

namespace {

MessageFormat Format = MessageFormat::Plain;
raw_ostream *Out = nullptr, *Err = nullptr;

/// An error with a diagnostic code; its message is the wrapped error's.
class CodedError : public ErrorInfo<CodedError> {
public:
  static char ID;
  CodedError(DiagnosticCode Code, std::string Message) : Code(Code), Message(std::move(Message)) {}
  void log(raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override { return inconvertibleErrorCode(); }
  DiagnosticCode Code;
  std::string Message;
};
char CodedError::ID = 0;

/// Splits "'FILE': REST" (llvm::FileError's form) or "FILE: REST" (when FILE exists) into the
/// file and the rest; no file for other messages.
std::pair<std::string, std::string> splitFile(StringRef Message) {
  if (Message.startswith("'")) {
    size_t End = Message.find("': ");
    if (End != StringRef::npos)
      return {Message.slice(1, End).str(), Message.drop_front(End + 3).str()};
  }
  auto [File, Rest] = Message.split(": ");
  if (!Rest.empty() && sys::fs::exists(File))
    return {File.str(), Rest.str()};
  return {"", Message.str()};
}

/// "FILE(LINE,COL)" for a spec error where the spec says where, else "FILE".
std::string origin(StringRef File, StringRef Rest, DiagnosticCode Code) {
  if (Code != CodeSpec)
    return File.str();
  auto Text = MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Text)
    return File.str();
  std::optional<std::pair<unsigned, unsigned>> At = spec::locateInSpec((*Text)->getBuffer(), Rest);
  if (!At)
    return File.str();
  return (File + "(" + Twine(At->first) + "," + Twine(At->second) + ")").str();
}

/// Prints one MSBuild canonical diagnostic.
void printMSBuild(StringRef Category, DiagnosticCode Code, StringRef Message) {
  auto [File, Rest] = splitFile(Message);
  std::string Where = File.empty() ? "weft" : origin(File, Rest, Code);
  err() << Where << ": " << Category << " WEFT" << format("%04u", unsigned(Code)) << ": " << Rest
        << '\n';
}

} // namespace

void setMessageFormat(MessageFormat F) { Format = F; }

raw_ostream &out() { return Out ? *Out : outs(); }
raw_ostream &err() { return Err ? *Err : errs(); }

OutputRedirect::OutputRedirect(raw_ostream *NewOut, raw_ostream *NewErr)
    : OldOut(Out), OldErr(Err) {
  Out = NewOut;
  Err = NewErr;
}
OutputRedirect::~OutputRedirect() {
  Out = OldOut;
  Err = OldErr;
}

bool parseMessageFormat(StringRef Name, MessageFormat &F) {
  if (Name == "plain")
    F = MessageFormat::Plain;
  else if (Name == "msbuild")
    F = MessageFormat::MSBuild;
  else
    return false;
  return true;
}

Error withCode(DiagnosticCode Code, Error E) {
  if (!E)
    return E;
  if (E.isA<CodedError>())
    return E;
  return make_error<CodedError>(Code, toString(std::move(E)));
}

std::pair<DiagnosticCode, std::string> takeCoded(Error E) {
  DiagnosticCode Code = CodeOther;
  std::string Message;
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    if (EI.isA<CodedError>())
      Code = static_cast<const CodedError &>(EI).Code;
    Message += (Message.empty() ? "" : "\n") + EI.message();
  });
  return {Code, Message};
}

int reportError(Error E) {
  auto [Code, Message] = takeCoded(std::move(E));
  return reportError(Message, Code);
}

int reportError(const Twine &Message, DiagnosticCode Code) {
  if (Format == MessageFormat::MSBuild)
    printMSBuild("error", Code, Message.str());
  else
    WithColor::error(err(), "weft") << Message << '\n';
  return ExitError;
}

void reportWarning(const Twine &Message) {
  if (Format == MessageFormat::MSBuild)
    printMSBuild("warning", CodeWarning, Message.str());
  else
    WithColor::warning(err(), "weft") << Message << '\n';
}

void warnOfPlugins(ArrayRef<plugin::LoadedPlugin> Plugins) {
  for (const plugin::LoadedPlugin &P : Plugins)
    if (!P.Warning.empty())
      reportWarning(P.Warning);
}

Expected<Input> openInput(const std::string &Path, bool AllowNative, bool AllowPdb) {
  Input In;
  In.Path = Path;
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createFileError(Path, errorCodeToError(Buf.getError()));
  ArrayRef<uint8_t> Bytes = arrayRefFromStringRef((*Buf)->getBuffer());
  if (metadata::looksLikeWindowsPdb(Bytes))
    return createFileError(Path, plainError("a Windows (MSF) PDB: weft reads portable PDBs only"));
  if (metadata::looksLikePortablePdb(Bytes)) {
    if (!AllowPdb)
      return createFileError(Path, plainError("a portable PDB, not an assembly: it holds no IL "
                                              "(use `weft info` or `weft dump --raw`)"));
    Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(Bytes, 0);
    if (!M)
      return createFileError(Path, M.takeError());
    In.Module = std::move(*M);
    In.PdbBuffer = std::move(*Buf);
    return std::move(In);
  }
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(std::move(*Buf));
  if (!Img)
    return createFileError(Path, Img.takeError());
  In.Image = std::move(*Img);
  if (!In.Image->isManaged()) {
    if (AllowNative)
      return std::move(In);
    return createFileError(Path, plainError("not a .NET assembly: the PE image has no CLI header"));
  }
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create(In.Image->metadata(), In.Image->metadataOffset());
  if (!M)
    return createFileError(Path, M.takeError());
  In.Module = std::move(*M);
  return std::move(In);
}

} // namespace weft::cli
