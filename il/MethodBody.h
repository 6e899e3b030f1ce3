//===- il/MethodBody.h - An editable method body ----------------*- C++ -*-===//
//
// The instruction graph: a method body as a sequence of instructions whose branch, switch and
// exception-region operands refer to instructions, never to offsets. Passes insert, remove and
// replace instructions and retarget branches freely; the encoder (Encoder.h) computes offsets,
// branch forms, max-stack and the header afterwards.
//
// Instructions live in pools owned by the body, so pointers to them stay valid while the body is
// edited; the order is a separate list of pointers.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_METHODBODY_H
#define WEFT_IL_METHODBODY_H

#include "il/BodyReader.h"
#include "il/Opcodes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::il {

/// An offset an instruction did not have (it was added by an edit).
constexpr uint32_t NoOffset = 0xFFFFFFFF;

struct Instr;

/// A switch's targets. Only switches have any, so the list is made on the heap on first use: the
/// other instructions, nearly all of them, carry a null pointer instead of an empty vector.
class SwitchTargets {
public:
  SwitchTargets() = default;
  SwitchTargets(const SwitchTargets &Other) { *this = Other; }
  SwitchTargets &operator=(const SwitchTargets &Other) {
    if (this != &Other)
      List = Other.List ? std::make_unique<std::vector<Instr *>>(*Other.List) : nullptr;
    return *this;
  }
  SwitchTargets(SwitchTargets &&) = default;
  SwitchTargets &operator=(SwitchTargets &&) = default;

  size_t size() const { return List ? List->size() : 0; }
  bool empty() const { return size() == 0; }
  Instr **begin() { return List ? List->data() : nullptr; }
  Instr **end() { return List ? List->data() + List->size() : nullptr; }
  Instr *const *begin() const { return List ? List->data() : nullptr; }
  Instr *const *end() const { return List ? List->data() + List->size() : nullptr; }
  void reserve(size_t N) { list().reserve(N); }
  void push_back(Instr *Target) { list().push_back(Target); }

private:
  std::vector<Instr *> &list() {
    if (!List)
      List = std::make_unique<std::vector<Instr *>>();
    return *List;
  }
  std::unique_ptr<std::vector<Instr *>> List;
};

struct Instr {
  Opcode Op = Opcode::Nop;
  /// ShortI, ShortU, I, I8: the value. ShortR, R: the bits of the float32 or float64, so that
  /// every value (NaN payloads included) encodes back exactly.
  int64_t Int = 0;
  uint32_t Token = 0;                 // Method, Field, Type, Tok, String, Sig
  uint32_t Index = 0;                 // ShortVar, Var: the argument or local number
  Instr *Target = nullptr;            // ShortBr, Br
  SwitchTargets Targets;              // Switch
  uint32_t OriginalOffset = NoOffset; // where the decoder found it
  uint32_t Offset = 0;                // assigned by the encoder
  /// Set by MethodBody::number: the position in the order, valid while Stamp is the number's.
  mutable uint32_t Pos = 0;
  mutable uint32_t Stamp = 0;

  const OpcodeInfo &info() const { return il::info(Op); }
  float float32() const;
  double float64() const;
  void setFloat32(float F);
  void setFloat64(double D);
};

enum class RegionKind : uint8_t { Catch, Filter, Finally, Fault };

/// An exception-handling clause. An end is the first instruction after the block, or null for the
/// end of the code.
struct ExceptionRegion {
  RegionKind Kind = RegionKind::Catch;
  Instr *TryStart = nullptr, *TryEnd = nullptr;
  Instr *HandlerStart = nullptr, *HandlerEnd = nullptr;
  Instr *FilterStart = nullptr; // Filter only
  /// Catch: the caught type (a TypeDef, TypeRef or TypeSpec token). Finally and Fault: whatever the
  /// file held in that field (the runtime ignores it; some compilers leave a value there), kept so
  /// that the clause encodes to its own bytes.
  uint32_t CatchType = 0;
};

class MethodBody {
public:
  MethodBody() = default;
  MethodBody(MethodBody &&) = default;
  MethodBody &operator=(MethodBody &&) = default;

  /// Builds the graph of a body read from a file. Fails if a branch or an exception clause does
  /// not land on an instruction.
  static llvm::Expected<MethodBody> decode(const RawMethodBody &Raw);

  // --- header ---
  uint16_t MaxStack = 8;
  bool InitLocals = false;
  uint32_t LocalVarSigToken = 0;
  /// What the original header looked like; the encoder keeps these forms when it can, so a body
  /// that is not edited encodes to its own bytes.
  bool WasFat = false;
  bool HadFatSections = false;
  bool FromFile = false;
  uint32_t OriginalCodeSize = 0;

  // --- instructions ---
  std::vector<Instr *> &instructions() { return Order; }
  const std::vector<Instr *> &instructions() const { return Order; }
  size_t size() const { return Order.size(); }

  /// A new instruction, not yet placed.
  Instr *create(Opcode Op);
  /// Makes room for \p N more instructions in one allocation (a pass that knows how many it
  /// will create; otherwise chunks double from 16).
  void reserveAdded(size_t N);
  Instr *create(Opcode Op, int64_t Int);
  Instr *createToken(Opcode Op, uint32_t Token);
  Instr *createBranch(Opcode Op, Instr *Target);
  /// Places \p I before \p Position (null: at the end).
  void insertBefore(Instr *Position, Instr *I);
  void insertAt(size_t Index, Instr *I);
  /// The position of \p I in the order (linear).
  size_t indexOf(const Instr *I) const;
  /// Numbers the instructions in their order (Instr::Pos) and returns the stamp that tells those
  /// in the body from others: I is in the body, at I->Pos, if I->Stamp is the stamp. Valid until
  /// the order changes; analyses number once instead of mapping pointers to positions.
  uint32_t number() const;
  /// Whether \p I is in the body as numbered with \p Stamp.
  static bool numbered(const Instr *I, uint32_t Stamp) { return I && I->Stamp == Stamp; }
  /// Removes \p I. Branches and regions that pointed at it point at the next instruction.
  void remove(Instr *I);
  /// Makes every branch, switch case and region boundary that points at \p From point at \p To.
  void retarget(Instr *From, Instr *To);

  std::vector<ExceptionRegion> Regions;

private:
  std::vector<Instr> Decoded; // the original instructions (never resized after decoding)
  /// Instructions created by edits, in chunks that never move (the first made on the first edit).
  std::vector<std::unique_ptr<Instr[]>> AddedChunks;
  uint32_t LastChunkUsed = 0, LastChunkSize = 0;
  std::vector<Instr *> Order;
  size_t InsertHint = 0;  // where the last insertBefore's position ended up
};

} // namespace weft::il

#endif
