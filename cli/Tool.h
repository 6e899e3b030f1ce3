//===- cli/Tool.h - What the subcommands share ------------------*- C++ -*-===//
#ifndef WEFT_CLI_TOOL_H
#define WEFT_CLI_TOOL_H

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/AtomicFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace weft::plugin {
struct LoadedPlugin;
}

namespace weft::cli {

/// Exit codes: 0 success, 1 an error in the input or while working, 2 a usage error; 3 `weave
/// --require-woven` when every output was written and no pass changed a method.
enum ExitCode : int { ExitOk = 0, ExitError = 1, ExitUsage = 2, ExitNothingWoven = 3 };

/// How errors and warnings are printed: "weft: error: MESSAGE" (LLVM tools' style), or for
/// `--message-format msbuild` as MSBuild's canonical diagnostics, "FILE(LINE,COL): error
/// WEFT0001: MESSAGE", which the Exec task turns into build errors.
enum class MessageFormat { Plain, MSBuild };
void setMessageFormat(MessageFormat F);
/// Parses the option's value ("plain", "msbuild").
bool parseMessageFormat(llvm::StringRef Name, MessageFormat &F);

/// The codes of MSBuild diagnostics (docs: README, "weft in dotnet build").
enum DiagnosticCode : unsigned {
  CodeOther = 0,  // WEFT0000
  CodeSpec = 1,   // the spec file is wrong (with its line)
  CodeInput = 2,  // an input does not read: not an assembly, damaged, missing
  CodeWeave = 3,  // a pass could not weave a method or the module
  CodeOutput = 4, // an output could not be written
  CodeUsage = 5,  // the command line is wrong
  // 6 and 7 are the package targets' own (docs/cli.md)
  CodeThreshold = 8, // coverage below a threshold (weft coverage report --threshold)
  // 9 to 11 are the package targets' own
  CodeNothingMeasured = 12, // the coverage maps hold no method (the filters left out everything)
  // 13 is the package targets' own (the tests wrote no hits)
  CodeWarning = 1000,
};
/// \p E, carrying \p Code for MSBuild diagnostics (its message is unchanged).
llvm::Error withCode(DiagnosticCode Code, llvm::Error E);
/// The message of \p E and its code (CodeOther unless withCode gave one).
std::pair<DiagnosticCode, std::string> takeCoded(llvm::Error E);

/// Where the subcommands write: stdout and stderr, or in a run by weft_run (cli/InProcess.cpp)
/// the caller's sink. Every message of the command line goes through these.
llvm::raw_ostream &out();
llvm::raw_ostream &err();
/// Sends out() and err() to \p Out and \p Err while it lives (nullptr: stdout, stderr).
class OutputRedirect {
public:
  OutputRedirect(llvm::raw_ostream *Out, llvm::raw_ostream *Err);
  ~OutputRedirect();
  OutputRedirect(const OutputRedirect &) = delete;
  OutputRedirect &operator=(const OutputRedirect &) = delete;

private:
  llvm::raw_ostream *OldOut, *OldErr;
};

/// Runs the command line \p Args (Args[0] the program's name): parses it, loads the plugins it
/// names, runs the subcommand and returns its ExitCode. Shared by main() and weft_main
/// (InProcess.cpp), which runs it in another program's process (\p OwnProcess false): there no
/// plugin is loaded and `run`, `attach` and `detach` are refused (usage errors).
int runCommandLine(llvm::ArrayRef<const char *> Args, bool OwnProcess = true);
/// Whether the command line running is weft's own process's (main) rather than another
/// program's (weft_main).
bool inOwnProcess();

/// Prints an error in the chosen format and returns ExitError.
int reportError(llvm::Error E);
int reportError(const llvm::Twine &Message, DiagnosticCode Code = CodeOther);
void reportWarning(const llvm::Twine &Message);
/// Warns of what loading \p Plugins warned of (a deprecated API).
void warnOfPlugins(llvm::ArrayRef<plugin::LoadedPlugin> Plugins);

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
