//===- cli/Tool.h - What the subcommands share ------------------*- C++ -*-===//
#ifndef WEFT_CLI_TOOL_H
#define WEFT_CLI_TOOL_H

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/AtomicFile.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace weft::cli {

/// Exit codes: 0 success, 1 an error in the input or while working, 2 a usage error.
enum ExitCode : int { ExitOk = 0, ExitError = 1, ExitUsage = 2 };

/// Prints "weft: error: <message>" (LLVM tools' style) and returns ExitError.
int reportError(llvm::Error E);
int reportError(const llvm::Twine &Message);
void reportWarning(const llvm::Twine &Message);

/// An opened input: the mapped image and, for a managed one, its metadata; or a standalone
/// portable PDB, which is metadata without an image.
struct Input {
  std::string Path;
  std::unique_ptr<llvm::MemoryBuffer> PdbBuffer;
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<metadata::Module> Module;
  bool isPdb() const { return PdbBuffer != nullptr; }
};

/// Opens \p Path: an assembly, or with \p AllowPdb a portable PDB. A file that is not a managed
/// image is an error unless \p AllowNative. Errors name the file.
llvm::Expected<Input> openInput(const std::string &Path, bool AllowNative = false,
                                bool AllowPdb = false);

/// Writes \p Bytes to \p Path through a temporary file renamed into place: a reader never sees a
/// partial file, and on an error nothing is left behind.

/// Each subcommand adds itself to the application; the callback runs it and returns an ExitCode.
using Runner = std::function<int()>;
Runner addInfoCommand(CLI::App &App);
Runner addDumpCommand(CLI::App &App);
Runner addDiffCommand(CLI::App &App);
Runner addVerifyCommand(CLI::App &App);
Runner addWeaveCommand(CLI::App &App);
Runner addPassesCommand(CLI::App &App);
Runner addCoverageCommand(CLI::App &App);
Runner addRunCommand(CLI::App &App);
Runner addAttachCommand(CLI::App &App);
Runner addDetachCommand(CLI::App &App);

} // namespace weft::cli

#endif
