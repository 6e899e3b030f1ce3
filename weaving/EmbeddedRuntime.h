//===- weaving/EmbeddedRuntime.h - Runtimes woven modules carry -*- C++ -*-===//
//
// Some passes put an assembly of their own into the modules they weave (the trace pass its
// runtime, the span pass its OTLP exporter): compiled from C# when weft is built, carried as a
// base64 string, loaded by the woven module's static constructor. The first woven module to
// start loads it and leaves it in the AppDomain's data; the others, whatever pass wove them,
// find it there, so a process has one copy.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_EMBEDDEDRUNTIME_H
#define WEFT_WEAVING_EMBEDDEDRUNTIME_H

#include "weaving/Emit.h"
#include "weaving/Pass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace weft::passes {

/// Whether \p FileName is that of a runtime woven modules carry (a module loaded from bytes has
/// its assembly's name as its file name, and no folder): the profiler leaves those alone.
inline bool isCarriedRuntime(llvm::StringRef FileName) {
  return FileName == "Weft.Trace.dll" || FileName == "Weft.Otlp.dll";
}

/// \p Image (an assembly the build compiled, \p What naming it in errors) as woven modules carry
/// it: its references' versions lowered to 0.0.0.0 so that whatever runtime the program runs on
/// (older than the SDK that compiled it) binds them, deflated, base64. Made once per image.
llvm::Expected<std::string> carriedRuntime(llvm::ArrayRef<uint8_t> Image, llvm::StringRef What);

/// The framework members that loading a carried runtime calls.
class RuntimeLoader {
public:
  llvm::Error reference(ModuleContext &MC);

  /// Emits, at \p E, code that leaves the type \p TypeName of the runtime \p Base64 on the
  /// stack and in local \p TypeLocal (System.Type): the runtime the AppDomain keeps under
  /// \p Key, or loaded now (inflated) and left there, under the AppDomain's lock. Locals
  /// \p DomainLocal and \p ScratchLocal (object) hold the AppDomain and the inflated bytes'
  /// stream. Returns the first instruction emitted. An exception (no runtime: a framework
  /// without a member it uses) goes to the caller's handler.
  llvm::Expected<il::Instr *> emitLoad(ModuleContext &MC, Emitter &E, llvm::StringRef Key,
                                       llvm::StringRef Base64, llvm::StringRef TypeName,
                                       uint32_t DomainLocal, uint32_t TypeLocal,
                                       uint32_t ScratchLocal);

  Token ObjectType = 0, TypeType = 0;

private:
  Token CurrentDomain = 0, GetData = 0, SetData = 0, MonitorEnter = 0, MonitorExit = 0;
  Token FromBase64 = 0, Load = 0, GetType = 0;
  Token MemoryType = 0, MemoryOver = 0, MemoryNew = 0, ToArray = 0, DeflateNew = 0, CopyTo = 0;
};

} // namespace weft::passes

#endif
