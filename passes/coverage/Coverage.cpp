//===- passes/coverage/Coverage.cpp - coverage ----------------------------===//
//
// Counts how often each basic block runs, with counters that live in the woven module itself (no
// runtime library): a hidden type `<weft>.Coverage` holds them, one block per thread (native
// memory: the range of stack addresses the thread was seen at, [low, high), then the counters),
//
//   .field private static native int Mine       ; [ThreadStatic]: this thread's block
//   .field private static object All            ; int64[]: every thread's block, for Flush
//   .field private static initonly native int Map  ; the stack map: 4,096 blocks' addresses
//   .method assembly static native int Counters(native uint)  ; the block of the thread whose
//                                               ;   stack holds the address (inlined)
//   .method private static native int Claim(native uint)  ; the slow path: Mine (or Join's),
//                                               ;   its range extended, put in the map
//   .method private static native int Join()    ; a new block for the thread, added to All
//   .method public static void Flush()          ; adds the blocks up, writes the hits file
//   .method private static void OnExit(object, class System.EventArgs)  ; Flush at process exit
//   .method private static void .cctor()        ; All, Map; ProcessExit += OnExit
//
// Every woven method starts with `ldloca HERE; conv.u; call Counters; stloc C` (HERE and C
// locals of its own), and every block with
//
//   ldloc C; ldc.i4 8 * (2 + K); add; dup; ldind.i8; ldc.i4.1; conv.i8; add; stind.i8
//
// (appendIncrement). Counters reads the map's entry for HERE's 64 KiB: the block there is the
// thread's if HERE lies in its range, which only its thread extends (Claim) and which never
// leaves that thread's stack. No thread-static load in the common case (on Linux x64 the JIT
// reaches one through a call to the runtime's TLS getter), no bounds check. A thread writes only
// its own block, so no count is lost and threads do not share the cache lines they write; the
// blocks stay in All when their thread ends, and Flush adds them up.
//
// The increments are placed so that what branched to the block, and the exception regions that
// started or ended at it, now do so at the counter (before the block's prefixes, if it starts
// with a prefixed instruction). A block's counter counts entries, which credits all of the block
// only while nothing in it can throw: so where a statement (a sequence point of the input's PDB)
// follows an instruction that may throw (il::mayThrow: a call, say) within the block, the
// statement starts a segment with a counter of its own, and a line is reported run only when
// control reached it. Straight-line code that cannot throw, and loops, keep one counter per
// block. K is numbered per method in runOnMethod and made global in finishMethod (serially, in
// row order), so the numbering does not depend on the thread count. The counters are 64-bit: a
// hot loop passes 2^31 in seconds.
//
// Beside the output goes a map, OUT.coverage.json: the module's MVID, and for each method its
// blocks (counter numbers, original IL ranges, "continues": true for a segment that continues the
// block before it) and, when the input's portable PDB is found, the sequence points that fall in
// each block and the method's branch points as coverlet counts them (CoverageBranches.h):
// "branches": [[offset, end offset, path, ordinal, document, line(, how a jump counted when
// taken is counted)]], read from the block counters (a block starts at every end offset), at no
// cost at run time; only a jump the counters cannot tell from another way of its branch to the
// same place (two arms of a switch with one target) gets a counter of its own, on a stub after
// the method's code (addJumpCounters). Each method also says where coverlet instruments it
// ("order"), which decides whose outcome a document's line and ordinal is.
// `weft coverage report` joins the map and a hits file.
//
// The hits file (text): "weft-hits 1 <mvid> <counters> <assembly>", then "index count" for every
// counter that is not zero. Its path is WEFT_COVERAGE_FILE if that is set, else the option
// hits-file; "{assembly}" in either becomes the assembly's name; a relative path is taken from
// the current directory when the program exits.
//
//===----------------------------------------------------------------------===//
#include "il/BasicBlocks.h"
#include "il/Prefixes.h"
#include "metadata/Names.h"
#include "metadata/pdb/SequencePoints.h"
#include "passes/Builtins.h"
#include "passes/coverage/CoverageBranches.h"
#include "passes/coverage/CoverageFilter.h"
#include "passes/coverage/CoverletNames.h"
#include "pe/Image.h"
#include "support/Format.h"
#include "support/StringStream.h"
#include "weaving/Emit.h"
#include "weaving/InputPdb.h"
#include "weaving/StackMap.h"
#include "weaving/WovenRecord.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

constexpr const char *DefaultHitsFile = "{assembly}.weft-hits";
constexpr const char *HitsEnvironmentVariable = "WEFT_COVERAGE_FILE";

/// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as .NET's Guid.ToString() writes it.
std::string guidString(const uint8_t *G) {
  if (!G)
    return "00000000-0000-0000-0000-000000000000";
  std::string S;
  raw_string_ostream OS(S);
  auto Hex = [&](uint8_t B) { OS << hexdigit(B >> 4, true) << hexdigit(B & 15, true); };
  for (int I : {3, 2, 1, 0})
    Hex(G[I]);
  OS << '-';
  Hex(G[5]), Hex(G[4]);
  OS << '-';
  Hex(G[7]), Hex(G[6]);
  OS << '-';
  Hex(G[8]), Hex(G[9]);
  OS << '-';
  for (int I = 10; I < 16; ++I)
    Hex(G[I]);
  return OS.str();
}

void setLdc(il::Instr *I, int32_t V) {
  I->Int = V;
  if (V >= -1 && V <= 8)
    I->Op = il::Opcode(unsigned(il::Opcode::Ldc_I4_0) + V);
  else if (V >= -128 && V <= 127)
    I->Op = il::Opcode::Ldc_I4_S;
  else
    I->Op = il::Opcode::Ldc_I4;
}

/// The element-type and calling-convention bytes of the hidden type's signatures.
namespace sigbytes {
constexpr uint8_t Default = SigDefault, This = SigHasThis, Void = uint8_t(ElementType::Void),
                  Str = uint8_t(ElementType::String), Cls = uint8_t(ElementType::Class),
                  I4 = uint8_t(ElementType::I4), I8 = uint8_t(ElementType::I8),
                  Char = uint8_t(ElementType::Char), Bool = uint8_t(ElementType::Boolean),
                  Obj = uint8_t(ElementType::Object), Arr = uint8_t(ElementType::SZArray),
                  I = uint8_t(ElementType::I), U = uint8_t(ElementType::U);
} // namespace sigbytes

/// "Ns.Outer/Inner" as the source spells it: report tools show these names, unquoted.
void writeTypeName(raw_ostream &OS, const Module &M, uint32_t Row) {
  uint32_t Chain[64];
  unsigned Depth = 0;
  for (; Row && Depth < 64; Row = M.enclosingType(Row))
    Chain[Depth++] = Row;
  for (unsigned I = Depth; I-- > 0;) {
    StringRef N = M.getString(M.get(TableId::TypeDef, Chain[I], TypeDefCol::TypeName));
    StringRef Ns = M.getString(M.get(TableId::TypeDef, Chain[I], TypeDefCol::TypeNamespace));
    if (I + 1 < Depth)
      OS << '/';
    if (!Ns.empty())
      OS << Ns << '.';
    OS << N;
  }
}

/// A string written as a JSON string, as llvm::json writes it (invalid UTF-8 repaired first),
/// without making a json::Value: `OS << JsonString{S}`.
struct JsonString {
  StringRef S;
};

raw_ostream &operator<<(raw_ostream &OS, JsonString J) {
  StringRef S = J.S;
  // Most names are printable ASCII without quotes or backslashes: written as they are.
  if (llvm::all_of(S, [](char C) {
        return uint8_t(C) >= 0x20 && uint8_t(C) < 0x80 && C != '"' && C != '\\';
      }))
    return OS << '"' << S << '"';
  if (!json::isUTF8(S))
    return OS << JsonString{json::fixUTF8(S)};
  OS << '"';
  size_t Plain = 0; // the start of the run not yet written
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = S[I];
    if (C >= 0x20 && C != '"' && C != '\\')
      continue;
    OS << S.slice(Plain, I) << '\\';
    Plain = I + 1;
    if (C == '"' || C == '\\')
      OS << C;
    else if (C == '\t')
      OS << 't';
    else if (C == '\n')
      OS << 'n';
    else if (C == '\r')
      OS << 'r';
    else
      OS << 'u' << format_hex_no_prefix(C, 4);
  }
  return OS << S.substr(Plain) << '"';
}

/// A number written in decimal, as raw_ostream writes it, without its general formatting (digit
/// grouping, widths, hex), which took longer than the rest of a map line's numbers.
struct Decimal {
  uint64_t V;
};

raw_ostream &operator<<(raw_ostream &OS, Decimal D) {
  char Digits[20];
  char *P = std::end(Digits);
  do {
    *--P = char('0' + D.V % 10);
    D.V /= 10;
  } while (D.V);
  return OS.write(P, size_t(std::end(Digits) - P));
}

/// Where a counter goes: before the instruction at Pos (the start of its prefixes).
struct CounterPlace {
  size_t Pos;
  bool Continues; // a segment of the block before it
};

/// Each block's original IL range ([NoOffset, NoOffset) for code an earlier pass added) and
/// whether it continues the block before it.
struct BlockRanges {
  std::vector<std::pair<uint32_t, uint32_t>> IL;
  std::vector<bool> Continues;
};

class Coverage final : public Pass {
public:
  Coverage(const PassOptions &O, CoverageFilter F, CoverletRules R)
      : Options(O), Filter(std::move(F)), Rules(R) {}

  Error beginModule(ModuleContext &MC) override {
    // In a running process (`weft run`), each process of a tree that loads the module writes
    // its own hits.
    // The map records the pattern, so that every process's map of the module is the same.
    HitsTemplate = HitsPattern = Options.get("hits-file", DefaultHitsFile).str();
    if (MC.processId() && !Options.has("hits-file")) {
      HitsPattern = "{assembly}.{pid}.weft-hits";
      HitsTemplate = "{assembly}." + std::to_string(MC.processId()) + ".weft-hits";
    }
    if (HitsTemplate.empty())
      return Options.error("hits-file is empty");
    if (MC.module().findTypeDef("<weft>", "Coverage"))
      return Options.error("the module already has a type <weft>.Coverage (woven with coverage "
                           "before?)");
    Expected<Token> Object = MC.coreType("System", "Object");
    if (!Object)
      return Object.takeError();
    ObjectType = *Object;
    Expected<Token> Int64 = MC.coreType("System", "Int64");
    if (!Int64)
      return Int64.takeError();
    Int64Type = *Int64;

    // abstract sealed beforefieldinit: a static class whose initializer may run early, which lets
    // the JIT drop the initialization check from every method that reaches the counters.
    Token Type =
        MC.addType(0x00100180, "<weft>", MC.freeTypeName("<weft>", "Coverage"), ObjectType);
    const uint8_t Obj = uint8_t(ElementType::Object), Void = uint8_t(ElementType::Void);
    std::vector<Expected<Token>> Made;
    const uint8_t I = uint8_t(ElementType::I), U = uint8_t(ElementType::U);
    Made.push_back(MC.addField(Type, 0x0011, "Mine", {uint8_t(SigField), I})); // private static
    Made.push_back(MC.addField(Type, 0x0011, "All", {uint8_t(SigField), Obj}));
    // private static initonly: the JIT takes its value as a constant
    Made.push_back(MC.addField(Type, 0x0031, "Map", {uint8_t(SigField), I}));
    std::vector<uint8_t> VoidSig{uint8_t(SigDefault), 0, Void};
    // assembly static, aggressively inlined: the woven methods call it; the slow paths are never
    // inlined.
    Made.push_back(MC.addMethod(Type, 0x0093, 0x0100, "Counters", {uint8_t(SigDefault), 1, I, U}));
    Made.push_back(MC.addMethod(Type, 0x0091, 0x0008, "Claim",
                                {uint8_t(SigDefault), 1, I, U})); // private static
    Made.push_back(MC.addMethod(Type, 0x0091, 0x0008, "Join", {uint8_t(SigDefault), 0, I}));
    Made.push_back(MC.addMethod(Type, 0x0096, 0, "Flush", VoidSig)); // public static
    Expected<Token> EventArgs = MC.coreType("System", "EventArgs");
    if (!EventArgs)
      return EventArgs.takeError();
    std::vector<uint8_t> HandlerSig{uint8_t(SigDefault), 2, Void, Obj, uint8_t(ElementType::Class)};
    appendTypeDefOrRefEncoded(HandlerSig, *EventArgs);
    Made.push_back(MC.addMethod(Type, 0x0091, 0, "OnExit", HandlerSig)); // private static
    // private static specialname rtspecialname
    Made.push_back(MC.addMethod(Type, 0x1891, 0, ".cctor", VoidSig));
    for (Expected<Token> &T : Made)
      if (!T)
        return T.takeError();
    MineField = *Made[0];
    AllField = *Made[1];
    MapField = *Made[2];
    CountersMethod = *Made[3];
    ClaimMethod = *Made[4];
    JoinMethod = *Made[5];
    FlushMethod = *Made[6];
    ExitMethod = *Made[7];
    Cctor = *Made[8];
    Expected<Token> ThreadStatic = MC.coreType("System", "ThreadStaticAttribute");
    if (!ThreadStatic)
      return ThreadStatic.takeError();
    MC.addCustomAttribute(MineField, MC.memberRef(*ThreadStatic, ".ctor", {SigHasThis, 0, Void}),
                          {1, 0, 0, 0});

    if (Error E = openPdb(MC))
      return E;
    TypeOrder = coverletTypeOrder(MC.module());
    Filter.prepare(MC.module(), MC.assemblyName(), Pdb ? &Pdb->module() : nullptr);
    if (Error E = startMap(MC))
      return E;
    // One slot per method, written by runOnMethod for its own method only (methods run at once).
    return Error::success();
  }

  Error runOnMethod(MethodContext &C) override {
    if (Filter.excludesMethod(C.row())) {
      C.skip("left out by the coverage filters");
      return Error::success();
    }
    bool Constructor = C.isConstructor();
    Filter.noteBody(C.row(), Constructor, C.body());
    // coverlet measures no constructor the compiler made (a record's copy constructor), which
    // would otherwise add the record's line.
    if (Constructor && compilerGenerated(C.module(), C.token())) {
      C.skip("a compiler-generated constructor");
      return Error::success();
    }
    std::vector<pdb::SequencePoint> Points = sequencePoints(C);
    // Branch points as coverlet counts them, found in the body as the compiler left it.
    std::vector<BranchOutcome> Branches;
    if (Pdb)
      Branches = coverletBranches(C.module(), C.row(), C.declaringType(), C.body(), Points, Rules);
    ArrayRef<CounterPlace> Places = counterPlaces(C, Points, Branches);
    if (Places.empty()) {
      C.skip("no code");
      return Error::success();
    }
    unsigned Complexity = complexity(C.body()); // of the body as it came (counters add none)
    uint32_t Jumps = placeCounters(C, Places, Branches);
    C.Number = uint32_t(Places.size()) + Jumps;
    C.Text.clear();
    StringStream OS(C.Text);
    writeMapHead(OS, C, Complexity);
    writeMapTail(OS, C, Branches);
    return Error::success();
  }

  /// Every method's line of the map prints its parameter types.
  bool usesSignatures() const override { return true; }

  void finishMethod(MethodContext &C) override {
    for (uint32_t K = 0; K < C.Number; ++K)
      setLdc(C.Marks[3 * K], int32_t((Header + Counters + K) * 8));
    raw_fd_ostream &OS = *Map;
    OS << (MethodsWritten++ ? ",\n  " : "\n  ");
    StringRef Head, Blocks;
    std::tie(Head, Blocks) = StringRef(C.Text).split('\0');
    OS << Head << Decimal{Counters};
    if (!Pdb) {
      OS << Blocks;
    } else {
      thread_local BlockRanges Ranges; // kept from method to method
      blockRanges(C, Ranges);
      writeBlocks(OS, Ranges, blockPoints(C.row(), Ranges));
      writeBranches(OS, Blocks);
      OS << '}';
    }
    Counters += C.Number;
    if (Counters >= MaxCounters)
      Overflow = true;
  }

  Error endModule(ModuleContext &MC) override {
    if (Overflow)
      return Options.error("more than " + Twine(MaxCounters) + " counters");
    if (Error E = writeBodies(MC))
      return E;
    return finishMap(MC);
  }

private:
  /// The first instruction of counter \p K's block or segment that came from the original body,
  /// or null.
  static il::Instr *firstOriginal(const std::vector<il::Instr *> &Order,
                                  ArrayRef<CounterPlace> Places, size_t K) {
    size_t End = K + 1 < Places.size() ? Places[K + 1].Pos : Order.size();
    for (size_t I = Places[K].Pos; I < End; ++I)
      if (Order[I]->OriginalOffset != il::NoOffset)
        return Order[I];
    return nullptr;
  }

  /// Puts the counters before the instructions at \p Places, and at the method's start the
  /// lookup of the thread's counters (ldloca HERE; conv.u; call Counters; stloc C), and gives the
  /// jumps of \p Branches that need one a counter of their own (addJumpCounters). What led to a
  /// block now leads to its counter. Leaves three marks per counter for blockRanges and
  /// finishMethod. Returns how many jumps got a counter.
  uint32_t placeCounters(MethodContext &C, ArrayRef<CounterPlace> Places,
                         std::vector<BranchOutcome> &Branches) {
    il::MethodBody &B = C.body();
    std::vector<il::Instr *> &Order = B.instructions();
    // The thread's counters, once per call, found from where the thread's stack is (the address
    // of a local of its own): every counter of the method adds to them.
    uint32_t Local = C.addLocal({uint8_t(ElementType::I)});
    uint32_t Here = C.addLocal({uint8_t(ElementType::I4)});
    size_t Added = 4 + Places.size() * IncrementLength;
    std::vector<il::Instr *> New;
    New.reserve(Order.size() + Added);
    B.reserveAdded(Added);
    il::Instr *Address = B.create(il::Opcode::Ldloca_S);
    Address->Index = Here;
    New.push_back(Address);
    New.push_back(B.create(il::Opcode::Conv_U));
    New.push_back(B.createToken(il::Opcode::Call, CountersMethod));
    New.push_back(localInstr(B, il::Opcode::Stloc_0, il::Opcode::Stloc_S, Local));
    // By position in the body as it came: the counter a branch or region there now leads to
    // (the thread's own, kept from method to method).
    thread_local std::vector<il::Instr *> CounterAt;
    CounterAt.assign(Order.size(), nullptr);
    C.Marks.reserve(3 * Places.size());
    size_t Next = 0;
    for (size_t P = 0; P < Order.size(); ++P) {
      if (Next < Places.size() && Places[Next].Pos == P) {
        size_t First = New.size();
        il::Instr *Index = appendIncrement(B, New, Local);
        // Only a block's first counter is where branches and regions lead; a segment is entered
        // by falling into it.
        if (!Places[Next].Continues)
          CounterAt[P] = New[First];
        C.Marks.push_back(Index);
        C.Marks.push_back(firstOriginal(Order, Places, Next));
        C.Marks.push_back(Places[Next].Continues ? Index : nullptr);
        ++Next;
      }
      New.push_back(Order[P]);
    }
    std::vector<std::pair<il::Instr **, il::Instr *>> Jumps =
        addJumpCounters(C, Branches, New, Local, uint32_t(Places.size()));
    leadToCounters(B, New, CounterAt);
    for (auto [Slot, Stub] : Jumps)
      *Slot = Stub;
    Order = std::move(New);
    return uint32_t(Jumps.size());
  }

  /// What led to a block now leads to its counter (\p CounterAt, by position in the body's
  /// order, which has no counter yet): the branches of \p New (the body with its counters and
  /// jump stubs), and regions (a start moved to the counter puts it inside the region, an end
  /// moved to it leaves it outside, as the block was).
  static void leadToCounters(il::MethodBody &B, ArrayRef<il::Instr *> New,
                             ArrayRef<il::Instr *> CounterAt) {
    uint32_t Stamp = B.number();
    auto Map = [&](il::Instr *&I) {
      if (il::MethodBody::numbered(I, Stamp) && CounterAt[I->Pos])
        I = CounterAt[I->Pos];
    };
    for (il::Instr *I : New) {
      Map(I->Target);
      for (il::Instr *&T : I->Targets)
        Map(T);
    }
    for (il::ExceptionRegion &R : B.Regions)
      for (il::Instr **P : {&R.TryStart, &R.TryEnd, &R.HandlerStart, &R.HandlerEnd, &R.FilterStart})
        Map(*P);
  }

  /// The rest of the method's line of the map that can be made here, after a NUL (which JSON
  /// text never holds): without source lines, its blocks and the closing brace (nothing but its
  /// first counter waits for the serial step); with them, its branch points, which wait for the
  /// serial step to number their documents.
  void writeMapTail(raw_ostream &OS, MethodContext &C, ArrayRef<BranchOutcome> Branches) {
    OS << '\0';
    if (!Pdb) {
      thread_local BlockRanges Ranges; // kept from method to method
      blockRanges(C, Ranges);
      writeBlocks(OS, Ranges, {});
      OS << '}';
      return;
    }
    for (const BranchOutcome &O : Branches) {
      OS << Decimal{O.Offset} << ' ' << Decimal{O.EndOffset} << ' ' << Decimal{O.Path} << ' '
         << Decimal{O.Ordinal} << ' ' << Decimal{O.Document} << ' ' << Decimal{O.Line} << ' '
         << Decimal{O.OwnCounter ? 2u : unsigned(O.Taken && !O.LessArrivals.empty())} << ' '
         << Decimal{O.Bypasses} << '|';
      if (O.OwnCounter)
        OS << ' ' << Decimal{O.Counter};
      for (uint32_t A : O.LessArrivals)
        OS << ' ' << Decimal{A};
      OS << '|';
      for (uint32_t R : O.MoreRuns)
        OS << ' ' << Decimal{R};
      OS << '|';
      for (uint32_t P : O.Past)
        OS << ' ' << Decimal{P};
      OS << '\n';
    }
  }

  /// Gives each taken jump that needs one (BranchOutcome::OwnCounter) a counter of its own, as
  /// coverlet does: after the method's code (which ends in no fall-through), `counter; br T`, T
  /// the jump's target (which the branches are sent to the blocks' counters with). Returns the
  /// jumps' target slots with their stubs, to point them there once that is done; the counters
  /// are numbered from \p First.
  std::vector<std::pair<il::Instr **, il::Instr *>>
  addJumpCounters(MethodContext &C, std::vector<BranchOutcome> &Branches,
                  std::vector<il::Instr *> &New, uint32_t Local, uint32_t First) {
    std::vector<std::pair<il::Instr **, il::Instr *>> Out;
    il::MethodBody &B = C.body();
    DenseMap<uint32_t, il::Instr *> Original;
    for (BranchOutcome &O : Branches) {
      if (!O.OwnCounter)
        continue;
      if (Original.empty())
        for (il::Instr *I : New)
          if (I->OriginalOffset != il::NoOffset)
            Original[I->OriginalOffset] = I;
      il::Instr *Branch = Original.lookup(O.Offset);
      il::Instr **Slot = !Branch                            ? nullptr
                         : Branch->Op == il::Opcode::Switch ? Branch->Targets.begin() + O.Path - 1
                                                            : &Branch->Target;
      // A stub after the code is outside every exception region: a jump in one keeps being
      // counted as its arrivals (a branch may not leave a region).
      if (!Slot || !*Slot || inRegion(B, New, Branch)) {
        O.OwnCounter = false; // or not the compiler's branch: counted as its arrivals
        continue;
      }
      size_t Start = New.size();
      C.Marks.push_back(appendIncrement(B, New, Local));
      C.Marks.push_back(nullptr); // no original code
      C.Marks.push_back(nullptr);
      New.push_back(B.createBranch(il::Opcode::Br, *Slot));
      O.Counter = First + uint32_t(Out.size());
      Out.push_back({Slot, New[Start]});
    }
    // A region that reached the end of the code ends where the stubs start.
    for (il::ExceptionRegion &R : B.Regions)
      for (il::Instr **End : {&R.TryEnd, &R.HandlerEnd})
        if (!Out.empty() && !*End)
          *End = Out.front().second;
    return Out;
  }

  /// Whether \p I, in \p Order, is inside a try block, a handler or a filter of \p B.
  static bool inRegion(const il::MethodBody &B, ArrayRef<il::Instr *> Order, const il::Instr *I) {
    if (B.Regions.empty())
      return false;
    auto Pos = [&](const il::Instr *X) -> size_t {
      return X ? size_t(llvm::find(Order, X) - Order.begin()) : Order.size();
    };
    size_t At = Pos(I);
    auto Within = [&](const il::Instr *Start, const il::Instr *End) {
      return Start && Pos(Start) <= At && At < Pos(End);
    };
    return llvm::any_of(B.Regions, [&](const il::ExceptionRegion &R) {
      return Within(R.TryStart, R.TryEnd) || Within(R.HandlerStart, R.HandlerEnd) ||
             Within(R.FilterStart, R.HandlerStart);
    });
  }

  /// The length of a counter's increment (appendIncrement).
  static constexpr size_t IncrementLength = 9;
  /// A thread's block (native memory): the range of stack addresses its thread has been seen
  /// at, [low, high), then the counters, all 8 bytes.
  static constexpr uint32_t Header = 2;
  /// So many that a thread's block is less than 2 GiB (its size is an int32).
  static constexpr uint32_t MaxCounters = 0x7FFFFFFF / 8 - Header;

  /// Appends one increment of counter K of the thread's block, whose address is in local \p
  /// Local: `*(long*)(Local + 8 * (2 + K)) += 1`, ldloc; ldc.i4 8 * (2 + K); add; dup;
  /// ldind.i8; ldc.i4.1; conv.i8; add; stind.i8. K is numbered later (finishMethod); returns the
  /// instruction that loads the offset.
  il::Instr *appendIncrement(il::MethodBody &B, std::vector<il::Instr *> &Out, uint32_t Local) {
    Out.push_back(localInstr(B, il::Opcode::Ldloc_0, il::Opcode::Ldloc_S, Local));
    il::Instr *Index = B.create(il::Opcode::Ldc_I4, int64_t(0));
    Out.push_back(Index);
    for (il::Opcode Op :
         {il::Opcode::Add, il::Opcode::Dup, il::Opcode::Ldind_I8, il::Opcode::Ldc_I4_1,
          il::Opcode::Conv_I8, il::Opcode::Add, il::Opcode::Stind_I8})
      Out.push_back(B.create(Op));
    return Index;
  }

  /// ldloc or stloc of local \p N in its short form (\p Zero + N or \p Short; the encoder
  /// widens what does not fit), as Emitter writes them.
  static il::Instr *localInstr(il::MethodBody &B, il::Opcode Zero, il::Opcode Short, uint32_t N) {
    if (N < 4)
      return B.create(il::Opcode(unsigned(Zero) + N));
    il::Instr *I = B.create(Short);
    I->Index = N;
    return I;
  }

  /// Where the counters of a method go: before every basic block, and before every statement
  /// that follows, within its block, an instruction that may throw. Never between a tail call
  /// and its ret.
  ArrayRef<CounterPlace> counterPlaces(MethodContext &C, ArrayRef<pdb::SequencePoint> Points,
                                       ArrayRef<BranchOutcome> Branches) {
    const std::vector<il::Instr *> &Order = C.body().instructions();
    // The thread's own vectors, kept from method to method: the places are valid until its next
    // call.
    thread_local std::vector<size_t> Leaders;
    thread_local std::vector<CounterPlace> Places;
    analysis::blockLeaders(C.body(), Leaders);
    llvm::erase_if(Leaders, [&](size_t P) { return il::isTailCallReturn(Order, P); });
    addBranchEnds(Order, Branches, Leaders);
    std::vector<bool> Statement = statementStarts(C, Points);
    Places.clear();
    for (size_t K = 0; K < Leaders.size(); ++K) {
      size_t End = K + 1 < Leaders.size() ? Leaders[K + 1] : Order.size();
      Places.push_back({Leaders[K], false});
      if (Statement.empty())
        continue; // no statement to start a segment
      bool MayHaveThrown = false;
      for (size_t P = Leaders[K]; P < End; ++P) {
        if (MayHaveThrown && Statement[P] && P > Leaders[K] && !il::isTailCallReturn(Order, P)) {
          size_t At = il::prefixedStart(Order, P);
          if (At > Places.back().Pos) {
            Places.push_back({At, true});
            MayHaveThrown = false;
          }
        }
        MayHaveThrown |= il::mayThrow(Order[P]->Op);
      }
    }
    return Places;
  }

  /// Whether each instruction of the method starts a statement: a visible sequence point of the
  /// input's PDB is at its original offset. Empty when none does (without a PDB, blocks are all
  /// the map has).
  std::vector<bool> statementStarts(MethodContext &C, ArrayRef<pdb::SequencePoint> Points) {
    const std::vector<il::Instr *> &Order = C.body().instructions();
    llvm::DenseSet<uint32_t> Offsets;
    for (const pdb::SequencePoint &P : Points)
      if (!P.isHidden())
        Offsets.insert(P.ILOffset);
    if (Offsets.empty())
      return {};
    std::vector<bool> Out(Order.size(), false);
    for (size_t I = 0; I < Order.size(); ++I)
      Out[I] = Order[I]->OriginalOffset != il::NoOffset && Offsets.count(Order[I]->OriginalOffset);
    return Out;
  }

  /// The method's sequence points in the input's PDB (none without one, or if they cannot be
  /// read: the map reports the broken PDB).
  std::vector<pdb::SequencePoint> sequencePoints(MethodContext &C) {
    if (!Pdb)
      return {};
    Expected<std::vector<pdb::SequencePoint>> Points =
        pdb::methodSequencePoints(Pdb->module(), C.row());
    if (!Points) {
      consumeError(Points.takeError());
      return {};
    }
    return std::move(*Points);
  }

  /// Makes sure a block starts where each branch outcome leads, so that its counter counts the
  /// arrivals there (a branch target or the instruction after a conditional branch always starts
  /// one; this keeps it so whatever the leaders' rules become).
  static void addBranchEnds(const std::vector<il::Instr *> &Order, ArrayRef<BranchOutcome> Branches,
                            std::vector<size_t> &Leaders) {
    if (Branches.empty())
      return;
    llvm::DenseSet<uint32_t> Ends;
    for (const BranchOutcome &O : Branches)
      Ends.insert(O.EndOffset);
    size_t Before = Leaders.size();
    for (size_t P = 0; P < Order.size(); ++P)
      if (Order[P]->OriginalOffset != il::NoOffset && Ends.count(Order[P]->OriginalOffset) &&
          !(P > 0 && Order[P - 1]->info().isPrefix()) && !llvm::is_contained(Leaders, P))
        Leaders.push_back(P);
    if (Leaders.size() != Before)
      llvm::sort(Leaders);
  }

  /// The input's PDB (InputPdb.h); without one the map has no lines.
  Error openPdb(ModuleContext &MC) {
    Expected<InputPdb> P =
        openInputPdb(MC, Options, "coverage", "the coverage map has no source lines");
    if (!P)
      return P.takeError();
    Pdb = std::move(P->Pdb);
    PdbPath = std::move(P->Path);
    // The map names it from the input's folder (beside it: its name), so that the same input
    // in another folder gives the same map (a weaving cache's entry serves both).
    SmallString<256> InputDir(MC.inputPath());
    sys::path::remove_filename(InputDir);
    PdbShown = pathFrom(InputDir.empty() ? StringRef(".") : StringRef(InputDir), PdbPath);
    return Error::success();
  }

  /// The bodies of the hidden type's methods (at the end of the module: their counter count is
  /// known then), in the order that gives their references and signatures the same rows.
  Error writeBodies(ModuleContext &MC) {
    Expected<HelperTypes> T = helperTypes(MC);
    if (!T)
      return T.takeError();
    for (Error (Coverage::*Write)(ModuleContext &, const HelperTypes &) :
         {&Coverage::writeCctor, &Coverage::writeCounters, &Coverage::writeClaim,
          &Coverage::writeJoin, &Coverage::writeOnExit, &Coverage::writeFlush})
      if (Error E = (this->*Write)(MC, *T))
        return E;
    return Error::success();
  }

  /// The framework's types and members the helpers' bodies use, besides the hidden type's own.
  struct HelperTypes {
    Token AppDomain, Environment, File, Handler, Builder, String, Array, Interlocked, Marshal;
    Token Addresses; // int64[]: the registry of the threads' blocks, their addresses
    Token Alloc;     // Marshal.AllocHGlobal(native int)
  };

  static Expected<HelperTypes> helperTypes(ModuleContext &MC) {
    using namespace sigbytes;
    Expected<Token> AppDomain = systemType(MC, "System", "AppDomain", "System.Runtime.Extensions");
    Expected<Token> Environment =
        systemType(MC, "System", "Environment", "System.Runtime.Extensions");
    Expected<Token> File = systemType(MC, "System.IO", "File", "System.IO.FileSystem");
    Expected<Token> Handler = MC.coreType("System", "EventHandler");
    Expected<Token> Builder = MC.coreType("System.Text", "StringBuilder");
    Expected<Token> String = MC.coreType("System", "String");
    Expected<Token> Array = MC.coreType("System", "Array");
    Expected<Token> Interlocked = MC.frameworkType("System.Threading", "System.Threading",
                                                   "Interlocked"); // never in System.Runtime
    Expected<Token> Marshal = MC.frameworkType("System.Runtime.InteropServices",
                                               "System.Runtime.InteropServices", "Marshal");
    for (Expected<Token> *X : {&AppDomain, &Environment, &File, &Handler, &Builder, &String, &Array,
                               &Interlocked, &Marshal})
      if (!*X)
        return X->takeError();
    HelperTypes T{*AppDomain, *Environment, *File,    *Handler, *Builder, *String,
                  *Array,     *Interlocked, *Marshal, 0,        0};
    T.Addresses = MC.typeSpec({Arr, I8});
    T.Alloc = MC.memberRef(T.Marshal, "AllocHGlobal", {Default, 1, I, I4});
    return T;
  }

  /// A signature: \p Head, then \p Class as a TypeDefOrRefEncoded if given, then \p Tail.
  static std::vector<uint8_t> signature(std::initializer_list<uint8_t> Head, Token Class = 0,
                                        std::initializer_list<uint8_t> Tail = {}) {
    std::vector<uint8_t> S(Head);
    if (Class)
      appendTypeDefOrRefEncoded(S, Class);
    S.insert(S.end(), Tail);
    return S;
  }

  /// .cctor: All = new long[0]; Map = a block of stackmap::Entries addresses, each that of a
  /// block of no thread (an empty range); AppDomain.CurrentDomain.ProcessExit += OnExit;
  Error writeCctor(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    Token CurrentDomain =
        MC.memberRef(T.AppDomain, "get_CurrentDomain", signature({Default, 0, Cls}, T.AppDomain));
    Token AddProcessExit =
        MC.memberRef(T.AppDomain, "add_ProcessExit", signature({This, 1, Void, Cls}, T.Handler));
    Token HandlerCtor = MC.memberRef(
        T.Handler, ".ctor", {This, 2, Void, uint8_t(ElementType::Object), uint8_t(ElementType::I)});
    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig({SigLocal, 3, I, I, I4});
    Emitter E(B, nullptr);
    E.ldc(0);
    E.tok(il::Opcode::Newarr, Int64Type);
    E.tok(il::Opcode::Stsfld, AllField);
    E.ldc(int32_t(Header * 8));
    E.tok(il::Opcode::Call, T.Alloc);
    E.stloc(0);
    E.ldloc(0);
    E.ldcI8(-1); // low: above every address
    E.op(il::Opcode::Stind_I8);
    E.ldloc(0);
    E.ldc(8);
    E.op(il::Opcode::Add);
    E.ldcI8(0); // high
    E.op(il::Opcode::Stind_I8);
    E.ldc(stackmap::Entries * 8);
    E.tok(il::Opcode::Call, T.Alloc);
    E.stloc(1);
    E.ldc(0);
    E.stloc(2);
    il::Instr *Cond = B.create(il::Opcode::Ldloc_2);
    E.branch(il::Opcode::Br, Cond);
    il::Instr *Fill = E.ldloc(1);
    E.ldloc(2);
    E.ldc(8);
    E.op(il::Opcode::Mul);
    E.op(il::Opcode::Add);
    E.ldloc(0);
    E.op(il::Opcode::Stind_I);
    E.ldloc(2);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(2);
    E.put(Cond); // ldloc.2
    E.ldc(stackmap::Entries);
    E.branch(il::Opcode::Blt, Fill);
    E.ldloc(1);
    E.tok(il::Opcode::Stsfld, MapField);
    E.tok(il::Opcode::Call, CurrentDomain);
    E.op(il::Opcode::Ldnull);
    E.tok(il::Opcode::Ldftn, ExitMethod);
    E.tok(il::Opcode::Newobj, HandlerCtor);
    E.tok(il::Opcode::Callvirt, AddProcessExit);
    E.op(il::Opcode::Ret);
    return MC.setBody(Cctor, std::move(B), false);
  }

  /// Counters(sp): the block of the thread whose stack holds sp (the address of a local of the
  /// caller), from the map if the entry's block is that thread's, else Claim's.
  ///   nint b = *(nint*)(sp's entry of Map);   (weaving/StackMap.h)
  ///   if (sp >= (nuint)b[0] && sp < (nuint)b[1]) return b;
  ///   return Claim(sp);
  Error writeCounters(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig({SigLocal, 1, I});
    Emitter E(B, nullptr);
    il::Instr *Slow = B.create(il::Opcode::Ldarg_0);
    E.tok(il::Opcode::Ldsfld, MapField);
    stackmap::emitEntry(E, [&] { E.ldarg(0); });
    E.op(il::Opcode::Ldind_I);
    E.stloc(0);
    stackmap::emitCheckRange(
        E, [&] { E.ldarg(0); }, [&] { E.ldloc(0); }, Slow);
    E.ldloc(0);
    E.op(il::Opcode::Ret);
    E.put(Slow); // ldarg.0
    E.tok(il::Opcode::Call, ClaimMethod);
    E.op(il::Opcode::Ret);
    return MC.setBody(CountersMethod, std::move(B), true);
  }

  /// Claim(sp): the thread's block (Join's on its first call), whose range takes in sp's page,
  /// and which takes sp's entry of the map.
  ///   nint b = Mine; if (b == 0) b = Join(); nuint page = sp & ~4095;
  ///   if (page < (nuint)b[0]) b[0] = page;
  ///   if (page + 4096 > (nuint)b[1]) b[1] = page + 4096;
  ///   *(nint*)(sp's entry of Map) = b; return b;
  Error writeClaim(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig({SigLocal, 2, I, U});
    Emitter E(B, nullptr);
    il::Instr *Have = B.create(il::Opcode::Stloc_0);
    E.tok(il::Opcode::Ldsfld, MineField);
    E.op(il::Opcode::Dup);
    E.branch(il::Opcode::Brtrue_S, Have);
    E.op(il::Opcode::Pop);
    E.tok(il::Opcode::Call, JoinMethod);
    E.put(Have);
    E.ldarg(0);
    E.ldc(-4096);
    E.op(il::Opcode::Conv_I);
    E.op(il::Opcode::And);
    E.stloc(1);
    il::Instr *LowDone = B.create(il::Opcode::Ldloc_1);
    E.ldloc(1);
    E.ldloc(0);
    E.op(il::Opcode::Ldind_I);
    E.branch(il::Opcode::Bge_Un, LowDone);
    E.ldloc(0);
    E.ldloc(1);
    E.op(il::Opcode::Stind_I);
    E.put(LowDone); // ldloc.1
    il::Instr *HighDone = B.createToken(il::Opcode::Ldsfld, MapField);
    E.ldc(4096);
    E.op(il::Opcode::Add);
    E.ldloc(0);
    E.ldc(8);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Ldind_I);
    E.branch(il::Opcode::Ble_Un, HighDone);
    E.ldloc(0);
    E.ldc(8);
    E.op(il::Opcode::Add);
    E.ldloc(1);
    E.ldc(4096);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Stind_I);
    E.put(HighDone); // ldsfld Map
    stackmap::emitEntry(E, [&] { E.ldarg(0); });
    E.ldloc(0);
    E.op(il::Opcode::Stind_I);
    E.ldloc(0);
    E.op(il::Opcode::Ret);
    return MC.setBody(ClaimMethod, std::move(B), true);
  }

  /// Join: a new block for the thread, zeroed, its address added to All (a copy with one more,
  /// swapped in unless another thread swapped first), so that Flush sees it after the thread
  /// ends too. Blocks are never freed.
  ///   nint b = Marshal.AllocHGlobal(8 * (2 + N)); initblk(b, 0, 8 * (2 + N)); b[0] = -1;
  ///   do { old = (long[])All; n = old.Length; grown = new long[n + 1];
  ///        Array.Copy(old, grown, n); grown[n] = b; }
  ///   while (Interlocked.CompareExchange(ref All, grown, old) != old);
  ///   Mine = b; return b;
  Error writeJoin(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    std::vector<uint8_t> CopySig{Default, 3, Void, Cls}; // Copy(Array, Array, int32)
    appendTypeDefOrRefEncoded(CopySig, T.Array);
    CopySig.push_back(Cls);
    appendTypeDefOrRefEncoded(CopySig, T.Array);
    CopySig.push_back(I4);
    Token Copy = MC.memberRef(T.Array, "Copy", CopySig);
    Token Exchange = MC.memberRef(T.Interlocked, "CompareExchange",
                                  {Default, 3, Obj, uint8_t(ElementType::ByRef), Obj, Obj, Obj});
    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig({SigLocal, 4, I, Arr, I8, Arr, I8, I4});
    Emitter E(B, nullptr);
    int32_t Size = int32_t((Header + Counters) * 8);
    E.ldc(Size);
    E.tok(il::Opcode::Call, T.Alloc);
    E.stloc(0);
    E.ldloc(0);
    E.ldc(0);
    E.ldc(Size);
    E.op(il::Opcode::Initblk);
    E.ldloc(0);
    E.ldcI8(-1); // no range yet: low above every address
    E.op(il::Opcode::Stind_I8);
    il::Instr *Again = E.tok(il::Opcode::Ldsfld, AllField);
    E.tok(il::Opcode::Castclass, T.Addresses);
    E.stloc(1);
    E.ldloc(1);
    E.op(il::Opcode::Ldlen);
    E.op(il::Opcode::Conv_I4);
    E.stloc(3);
    E.ldloc(3);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.tok(il::Opcode::Newarr, Int64Type);
    E.stloc(2);
    E.ldloc(1);
    E.ldloc(2);
    E.ldloc(3);
    E.tok(il::Opcode::Call, Copy);
    E.ldloc(2);
    E.ldloc(3);
    E.ldloc(0);
    E.op(il::Opcode::Conv_I8);
    E.op(il::Opcode::Stelem_I8);
    E.tok(il::Opcode::Ldsflda, AllField);
    E.ldloc(2);
    E.ldloc(1);
    E.tok(il::Opcode::Call, Exchange);
    E.ldloc(1);
    E.branch(il::Opcode::Bne_Un, Again);
    E.ldloc(0);
    E.tok(il::Opcode::Stsfld, MineField);
    E.ldloc(0);
    E.op(il::Opcode::Ret);
    return MC.setBody(JoinMethod, std::move(B), true);
  }

  /// OnExit: try { Flush(); } catch object { } — a failed write must not change how the
  /// program ends.
  Error writeOnExit(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    il::MethodBody B;
    Emitter E(B, nullptr);
    E.tok(il::Opcode::Call, FlushMethod);
    dropExceptionsAndReturn(B, E.first(), ObjectType);
    return MC.setBody(ExitMethod, std::move(B), false);
  }

  /// Flush:
  ///   long[] all = (long[])All; long[] hits = new long[N];
  ///   for (int t = 0; t < all.Length; t++) { nint b = (nint)all[t];
  ///     for (int i = 0; i < hits.Length; i++) hits[i] += *(long*)(b + 8 * (2 + i)); }
  ///   string path = Environment.GetEnvironmentVariable(VAR);
  ///   if (string.IsNullOrEmpty(path)) path = TEMPLATE;
  ///   path = path.Replace("{assembly}", NAME);
  ///   var sb = new StringBuilder(HEADER);
  ///   for (int i = 0; i < hits.Length; i++) { long c = hits[i]; if (c != 0)
  ///     sb.Append(i).Append(' ').Append(c).Append('\n'); }
  ///   File.WriteAllText(path, sb.ToString());
  Error writeFlush(ModuleContext &MC, const HelperTypes &T) {
    using namespace sigbytes;
    Token GetEnv = MC.memberRef(T.Environment, "GetEnvironmentVariable", {Default, 1, Str, Str});
    Token IsNullOrEmpty = MC.memberRef(T.String, "IsNullOrEmpty", {Default, 1, Bool, Str});
    Token Replace = MC.memberRef(T.String, "Replace", {This, 2, Str, Str, Str});
    Token NewBuilder = MC.memberRef(T.Builder, ".ctor", {This, 1, Void, Str});
    Token AppendI4 = MC.memberRef(T.Builder, "Append", signature({This, 1, Cls}, T.Builder, {I4}));
    Token AppendI8 = MC.memberRef(T.Builder, "Append", signature({This, 1, Cls}, T.Builder, {I8}));
    Token AppendChar =
        MC.memberRef(T.Builder, "Append", signature({This, 1, Cls}, T.Builder, {Char}));
    Token ToString = MC.memberRef(T.Builder, "ToString", {This, 0, Str});
    Token WriteAllText = MC.memberRef(T.File, "WriteAllText", {Default, 2, Void, Str, Str});
    std::string Header =
        ("weft-hits 1 " + mvid(MC) + " " + Twine(Counters) + " " + MC.assemblyName() + "\n").str();
    Expected<Token> VarName = MC.userString(HitsEnvironmentVariable);
    Expected<Token> Template = MC.userString(HitsTemplate);
    Expected<Token> Placeholder = MC.userString("{assembly}");
    Expected<Token> Name = MC.userString(MC.assemblyName());
    Expected<Token> HeaderText = MC.userString(Header);
    for (Expected<Token> *X : {&VarName, &Template, &Placeholder, &Name, &HeaderText})
      if (!*X)
        return X->takeError();

    il::MethodBody B;
    B.InitLocals = true;
    B.LocalVarSigToken = MC.standAloneSig(
        signature({SigLocal, 8, Str, Cls}, T.Builder, {I4, I8, Arr, I8, Arr, I8, I4, I}));
    Emitter E(B, nullptr);
    emitSum(B, E, T.Addresses);
    E.tok(il::Opcode::Ldstr, *VarName);
    E.tok(il::Opcode::Call, GetEnv);
    E.stloc(0);
    E.ldloc(0);
    E.tok(il::Opcode::Call, IsNullOrEmpty);
    il::Instr *HavePath = B.create(il::Opcode::Ldloc_0);
    E.branch(il::Opcode::Brfalse_S, HavePath);
    E.tok(il::Opcode::Ldstr, *Template);
    E.stloc(0);
    B.insertBefore(nullptr, HavePath);
    E.tok(il::Opcode::Ldstr, *Placeholder);
    E.tok(il::Opcode::Ldstr, *Name);
    E.tok(il::Opcode::Callvirt, Replace);
    E.stloc(0);
    E.tok(il::Opcode::Ldstr, *HeaderText);
    E.tok(il::Opcode::Newobj, NewBuilder);
    E.stloc(1);
    E.ldc(0);
    E.stloc(2);
    il::Instr *Cond = B.create(il::Opcode::Ldloc_2);
    E.branch(il::Opcode::Br, Cond);
    il::Instr *Loop = E.ldloc(5);
    E.ldloc(2);
    E.op(il::Opcode::Ldelem_I8);
    E.stloc(3);
    E.ldloc(3);
    il::Instr *Step = B.create(il::Opcode::Ldloc_2);
    E.branch(il::Opcode::Brfalse, Step);
    E.ldloc(1);
    E.ldloc(2);
    E.tok(il::Opcode::Callvirt, AppendI4);
    E.ldc(' ');
    E.tok(il::Opcode::Callvirt, AppendChar);
    E.ldloc(3);
    E.tok(il::Opcode::Callvirt, AppendI8);
    E.ldc('\n');
    E.tok(il::Opcode::Callvirt, AppendChar);
    E.op(il::Opcode::Pop);
    B.insertBefore(nullptr, Step);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(2);
    B.insertBefore(nullptr, Cond);
    E.ldloc(5);
    E.op(il::Opcode::Ldlen);
    E.op(il::Opcode::Conv_I4);
    E.branch(il::Opcode::Blt, Loop);
    E.ldloc(0);
    E.ldloc(1);
    E.tok(il::Opcode::Callvirt, ToString);
    E.tok(il::Opcode::Call, WriteAllText);
    E.op(il::Opcode::Ret);
    return MC.setBody(FlushMethod, std::move(B), false);
  }

  /// Flush's first step: local 5 = the counters of every thread that joined (local 4, from All:
  /// the addresses of their blocks) added up; locals 6 and 2 count threads and counters, local
  /// 7 is a thread's block.
  void emitSum(il::MethodBody &B, Emitter &E, Token Addresses) {
    E.tok(il::Opcode::Ldsfld, AllField);
    E.tok(il::Opcode::Castclass, Addresses);
    E.stloc(4);
    E.ldc(int32_t(Counters));
    E.tok(il::Opcode::Newarr, Int64Type);
    E.stloc(5);
    E.ldc(0);
    E.stloc(6);
    il::Instr *ThreadCond = localInstr(B, il::Opcode::Ldloc_0, il::Opcode::Ldloc_S, 6);
    E.branch(il::Opcode::Br, ThreadCond);
    il::Instr *Thread = E.ldloc(4);
    E.ldloc(6);
    E.op(il::Opcode::Ldelem_I8);
    E.op(il::Opcode::Conv_I);
    E.stloc(7);
    E.ldc(0);
    E.stloc(2);
    il::Instr *CounterCond = B.create(il::Opcode::Ldloc_2);
    E.branch(il::Opcode::Br, CounterCond);
    // hits[i] += *(long*)(b + 8 * (2 + i))
    il::Instr *Counter = E.ldloc(5);
    E.ldloc(2);
    E.tok(il::Opcode::Ldelema, Int64Type);
    E.op(il::Opcode::Dup);
    E.op(il::Opcode::Ldind_I8);
    E.ldloc(7);
    E.ldloc(2);
    E.ldc(int32_t(Header));
    E.op(il::Opcode::Add);
    E.ldc(8);
    E.op(il::Opcode::Mul);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Ldind_I8);
    E.op(il::Opcode::Add);
    E.op(il::Opcode::Stind_I8);
    E.ldloc(2);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(2);
    E.put(CounterCond); // ldloc.2
    E.ldloc(5);
    E.op(il::Opcode::Ldlen);
    E.op(il::Opcode::Conv_I4);
    E.branch(il::Opcode::Blt, Counter);
    E.ldloc(6);
    E.ldc(1);
    E.op(il::Opcode::Add);
    E.stloc(6);
    E.put(ThreadCond); // ldloc.s 6
    E.ldloc(4);
    E.op(il::Opcode::Ldlen);
    E.op(il::Opcode::Conv_I4);
    E.branch(il::Opcode::Blt, Thread);
  }

  /// A type of System.Runtime that reference assemblies before .NET 7 kept in another assembly
  /// (\p Legacy); the runtime still has that assembly, forwarding to where the type is now.
  static Expected<Token> systemType(ModuleContext &MC, StringRef Ns, StringRef Name,
                                    StringRef Legacy) {
    const Module &M = MC.module();
    Token Core = MC.coreScope();
    if (Core && tokenTable(Core) == TableId::AssemblyRef &&
        M.getString(M.get(TableId::AssemblyRef, tokenRow(Core), AssemblyRefCol::Name)) ==
            "System.Runtime" &&
        M.get(TableId::AssemblyRef, tokenRow(Core), AssemblyRefCol::MajorVersion) < 7)
      return MC.frameworkType(Legacy, Ns, Name);
    return MC.coreType(Ns, Name);
  }

  static std::string mvid(const ModuleContext &MC) {
    const Module &M = MC.module();
    if (!M.rowCount(TableId::Module))
      return guidString(nullptr);
    return guidString(M.getGuid(M.get(TableId::Module, 1, ModuleCol::Mvid)));
  }

  /// The map, one method per line.
  // The map is written as the methods are finished, in row order, to a temporary file that
  // becomes the side file: it can be larger than the module, and is not held in memory. The
  // counter count and the documents, known at the end, follow the methods.

  Error startMap(ModuleContext &MC) {
    int FD = -1;
    SmallString<128> Path;
    if (std::error_code EC = sys::fs::createTemporaryFile("weft-coverage", "json", FD, Path))
      return Options.error("cannot make a temporary file for the coverage map: " + EC.message());
    MapFile = ScratchFile(std::string(Path));
    Map = std::make_unique<raw_fd_ostream>(FD, /*shouldClose=*/true);
    Map->SetBufferSize(64 << 10); // the map of a large module is larger than the module
    raw_fd_ostream &OS = *Map;
    OS << "{\n";
    OS << " \"format\": \"weft-coverage-map\",\n \"version\": 1,\n";
    std::string Mvid = mvid(MC);
    OS << " \"assembly\": " << JsonString{MC.assemblyName()} << ",\n";
    OS << " \"mvid\": " << JsonString{Mvid} << ",\n";
    OS << " \"hits-file\": " << JsonString{HitsPattern} << ",\n";
    OS << " \"hits-variable\": " << JsonString{HitsEnvironmentVariable} << ",\n";
    OS << " \"pdb\": ";
    if (PdbPath.empty())
      OS << "null";
    else
      OS << JsonString{PdbShown};
    OS << ",\n";
    OS << " \"methods\": [";
    return Error::success();
  }

  /// The sequence points that start in each of the method's blocks (none without a PDB).
  std::vector<std::vector<pdb::SequencePoint>> blockPoints(uint32_t Row, const BlockRanges &R) {
    if (!Pdb || PdbBroken)
      return {};
    const std::vector<std::pair<uint32_t, uint32_t>> &Blocks = R.IL;
    std::vector<std::vector<pdb::SequencePoint>> Points(Blocks.size());
    Expected<std::vector<pdb::SequencePoint>> SP = pdb::methodSequencePoints(Pdb->module(), Row);
    if (!SP) {
      Warnings.push_back("coverage: '" + PdbPath + "': " + toString(SP.takeError()) +
                         "; the coverage map has no source lines from here on");
      PdbBroken = true;
      return Points;
    }
    // Blocks by IL start, to find the one holding each point.
    std::vector<std::pair<uint32_t, size_t>> Starts;
    for (size_t K = 0; K < Blocks.size(); ++K)
      if (Blocks[K].first != il::NoOffset)
        Starts.push_back({Blocks[K].first, K});
    llvm::sort(Starts);
    for (const pdb::SequencePoint &P : *SP) {
      if (P.isHidden() || !Filter.keepsPoint(Row, P))
        continue;
      auto It = llvm::upper_bound(Starts, std::make_pair(P.ILOffset, ~size_t(0)));
      if (It == Starts.begin())
        continue;
      size_t K = std::prev(It)->second;
      if (P.ILOffset < Blocks[K].second)
        Points[K].push_back(P);
    }
    return Points;
  }

  /// The number of \p Document in the map's list, which it joins on first use.
  uint32_t documentNumber(uint32_t Document) {
    auto [It, New] = DocumentIndex.try_emplace(Document, uint32_t(Documents.size()));
    if (New) {
      Expected<std::string> Name = pdb::documentName(Pdb->module(), Document);
      Documents.push_back(Name ? *Name : "");
      if (!Name)
        Warnings.push_back("coverage: '" + PdbPath + "': " + toString(Name.takeError()));
    }
    return It->second;
  }

  /// The start of the method's line of the map, up to its first counter's number: token, type,
  /// name, signature, complexity and where coverlet instruments it, written as
  /// llvm::json::OStream would.
  void writeMapHead(raw_ostream &OS, MethodContext &C, unsigned Complexity) const {
    const Module &M = C.module();
    OS << "{\"token\":\"0x";
    for (int Shift = 28; Shift >= 0; Shift -= 4)
      OS << hexdigit((C.token() >> Shift) & 15, /*LowerCase=*/false);
    OS << "\",\"type\":";
    thread_local std::string Text; // kept from method to method
    Text.clear();
    {
      StringStream TextOS(Text);
      if (C.declaringType())
        writeTypeName(TextOS, M, C.declaringType());
      else
        TextOS << "<Module>";
    }
    std::string TypeName = Text;
    OS << JsonString{Text} << ",\"name\":"
       << JsonString{M.getString(M.get(TableId::MethodDef, C.row(), MethodDefCol::Name))}
       << ",\"coverletName\":"
       << JsonString{coverletMethodName(M, C.declaringType(), TypeName, C.row(), C.signature())}
       << ",\"signature\":";
    Text.clear();
    {
      StringStream TextOS(Text);
      NamePrinter(M).paramTypes(TextOS, C.signature(), GenericContext{C.declaringType(), C.row()});
    }
    uint32_t Type = C.declaringType();
    OS << JsonString{Text} << ",\"complexity\":" << Decimal{Complexity} << ",\"order\":"
       << Decimal{(Type < TypeOrder.size() ? TypeOrder[Type] : 0) * 2 + C.isConstructor()}
       << ",\"counter\":";
  }

  /// The method's cyclomatic complexity: one, and one more for each way control can take at a
  /// decision beyond the first (a conditional branch adds one, a switch of N targets N).
  static unsigned complexity(const il::MethodBody &B) {
    unsigned N = 1;
    for (const il::Instr *I : B.instructions())
      if (il::info(I->Op).Flow == il::FlowKind::CondBranch)
        N += I->Op == il::Opcode::Switch ? unsigned(I->Targets.size()) : 1;
    return N;
  }

  /// The blocks from the marks runOnMethod left, into \p R: three marks per block, the
  /// counter's index instruction, the first original instruction of the block (or null), and the
  /// index instruction again if the block is a segment that continues the one before it (or null).
  static void blockRanges(MethodContext &C, BlockRanges &R) {
    R.IL.clear();
    R.Continues.clear();
    for (uint32_t K = 0; K < C.Number; ++K) {
      uint32_t Start = C.Marks[3 * K + 1] ? C.Marks[3 * K + 1]->OriginalOffset : il::NoOffset;
      R.IL.push_back({Start, Start});
      R.Continues.push_back(C.Marks[3 * K + 2] != nullptr);
    }
    // A block ends where the next block with original code starts.
    uint32_t End = C.body().OriginalCodeSize;
    for (size_t K = R.IL.size(); K-- > 0;) {
      if (R.IL[K].first == il::NoOffset)
        continue;
      R.IL[K].second = std::max(End, R.IL[K].first);
      End = R.IL[K].first;
    }
  }

  /// The rest of a method's line of the map after its first counter: its blocks, with the
  /// source lines of each (\p Points, empty without a PDB). Without points it reads nothing of
  /// the pass's state, so runOnMethod may call it on any thread.
  void writeBlocks(raw_ostream &OS, const BlockRanges &R,
                   const std::vector<std::vector<pdb::SequencePoint>> &Points) {
    OS << ",\"blocks\":[";
    for (size_t K = 0; K < R.IL.size(); ++K) {
      OS << (K ? ",{\"il\":[" : "{\"il\":[");
      if (R.IL[K].first != il::NoOffset)
        OS << Decimal{R.IL[K].first} << ',' << Decimal{R.IL[K].second};
      OS << ']';
      if (R.Continues[K])
        OS << ",\"continues\":true";
      if (K < Points.size() && !Points[K].empty()) {
        OS << ",\"lines\":[";
        for (size_t I = 0; I < Points[K].size(); ++I) {
          const pdb::SequencePoint &P = Points[K][I];
          OS << (I ? ",[" : "[") << Decimal{documentNumber(P.Document)} << ','
             << Decimal{P.StartLine} << ',' << Decimal{P.StartColumn} << ',' << Decimal{P.EndLine}
             << ',' << Decimal{P.EndColumn} << ']';
        }
        OS << ']';
      }
      OS << '}';
    }
    OS << ']';
  }

  /// The method's branch points, from the text runOnMethod left (one per line: offset, end
  /// offset, path, ordinal, PDB document row, line, how it is counted (0 by its end's arrivals,
  /// 1 when taken, 2 by a counter of its own), bypasses; then after '|' its counter or the
  /// arrivals it leaves out, after another '|' the runs it adds), as "branches": [[offset, end
  /// offset, path, ordinal, document, line(, arrivals or {"counter": K}(, 1 or 0(, [runs])))]].
  void writeBranches(raw_ostream &OS, StringRef Text) {
    if (Text.empty())
      return;
    OS << ",\"branches\":[";
    bool First = true;
    while (!Text.empty()) {
      StringRef Line;
      std::tie(Line, Text) = Text.split('\n');
      StringRef Arrivals, Runs, Past;
      std::tie(Line, Arrivals) = Line.split('|');
      std::tie(Arrivals, Runs) = Arrivals.split('|');
      std::tie(Runs, Past) = Runs.split('|');
      uint32_t F[8] = {};
      for (uint32_t &X : F) {
        StringRef Field;
        std::tie(Field, Line) = Line.split(' ');
        Field.getAsInteger(10, X);
      }
      OS << (First ? "[" : ",[") << Decimal{F[0]} << ',' << Decimal{F[1]} << ',' << Decimal{F[2]}
         << ',' << Decimal{F[3]} << ',' << Decimal{documentNumber(F[4])} << ',' << Decimal{F[5]};
      if (F[6] == 2) {
        // Counted on the jump, by a counter of its own (the method's K-th).
        OS << ",{\"counter\":" << Arrivals.trim() << '}' << (F[7] ? ",1" : "");
      } else if (F[6]) {
        // Counted when taken: the arrivals it leaves out (one alone, or [first, more...]), 1 if
        // it bypasses, and the runs it adds beside its branch's ([...], after 0 or 1).
        SmallVector<StringRef, 4> Less, More;
        Arrivals.trim().split(Less, ' ', -1, false);
        Runs.trim().split(More, ' ', -1, false);
        if (Less.size() == 1)
          OS << ',' << Less[0];
        else
          OS << ",[" << join(Less, ",") << ']';
        if (!More.empty())
          OS << ',' << Decimal{F[7]} << ",[" << join(More, ",") << ']';
        else if (F[7])
          OS << ",1";
      }
      if (!Past.trim().empty()) {
        SmallVector<StringRef, 2> Offsets;
        Past.trim().split(Offsets, ' ', -1, false);
        OS << ",{\"past\":[" << join(Offsets, ",") << "]}";
      }
      OS << ']';
      First = false;
    }
    OS << ']';
  }

  Error finishMap(ModuleContext &MC) {
    for (const std::string &W : Warnings)
      MC.warn(W);
    raw_fd_ostream &OS = *Map;
    OS << (MethodsWritten ? "\n ],\n" : "],\n");
    OS << " \"counters\": " << Counters << ",\n";
    OS << " \"documents\": [";
    for (size_t I = 0; I < Documents.size(); ++I)
      OS << (I ? ",\n  " : "\n  ") << JsonString{Documents[I]};
    OS << (Documents.empty() ? "]\n" : "\n ]\n");
    OS << "}\n";
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return Options.error("cannot write the coverage map: " + EC.message());
    }
    Map.reset();
    MC.addSideFileFrom(".coverage.json", std::move(MapFile));
    return Error::success();
  }

  PassOptions Options;
  CoverageFilter Filter;
  CoverletRules Rules;
  std::string HitsTemplate, HitsPattern; // the path the code writes, and as the map says it
  Token ObjectType = 0, Int64Type = 0, MineField = 0, AllField = 0, MapField = 0,
        CountersMethod = 0, ClaimMethod = 0, JoinMethod = 0, FlushMethod = 0, ExitMethod = 0,
        Cctor = 0;
  std::unique_ptr<pdb::PortablePdb> Pdb;
  std::string PdbPath;
  std::string PdbShown; // in the map: PdbPath from the input's folder
  std::vector<uint32_t> TypeOrder; // coverletTypeOrder: where coverlet instruments each type
  // Filled serially by finishMethod.
  uint32_t Counters = 0;
  bool Overflow = false;
  ScratchFile MapFile;
  std::unique_ptr<raw_fd_ostream> Map;
  uint64_t MethodsWritten = 0;
  std::vector<std::string> Documents;
  DenseMap<uint32_t, uint32_t> DocumentIndex; // Document row -> index in Documents
  bool PdbBroken = false;
  std::vector<std::string> Warnings; // from finishMethod, which cannot warn
};

} // namespace

PassInfo coveragePass() {
  PassInfo Info = {
      "coverage",
      "Counts the runs of every basic block in counters inside the module, written to a hits "
      "file at exit (or by <weft>.Coverage::Flush); a map beside the output (.coverage.json) "
      "gives each counter's method, IL range and source lines and each method's branch points as "
      "coverlet counts them (from the input's portable PDB)",
      {{"hits-file", "where the woven program writes its hits, relative to its current directory "
                     "({assembly} becomes the assembly's name; default {assembly}.weft-hits, "
                     "under weft run {assembly}.PID.weft-hits; the environment variable "
                     "WEFT_COVERAGE_FILE overrides it)"},
       {"pdb", "the input's portable PDB, relative to the spec file (default: the input's "
               "name with .pdb, if it exists; empty: no source lines)"},
       {"coverlet-rules", "whose branch rules: 10.0 (coverlet.msbuild's and coverlet.collector's "
                          "10.0.1, the default) or 10.1 (coverlet.MTP's 10.1.0)"}},
      [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
        Expected<CoverageFilter> F = CoverageFilter::create(O);
        if (!F)
          return F.takeError();
        StringRef Rules = O.get("coverlet-rules", "10.0");
        if (Rules != "10.0" && Rules != "10.1")
          return O.error("coverlet-rules must be 10.0 or 10.1, not '" + Rules + "'");
        return std::make_unique<Coverage>(
            O, std::move(*F), Rules == "10.1" ? CoverletRules::V10_1 : CoverletRules::V10_0);
      }};
  llvm::append_range(Info.Options, CoverageFilter::optionInfos());
  return Info;
}

} // namespace weft::passes
