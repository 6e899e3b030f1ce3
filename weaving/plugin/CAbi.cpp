//===- weaving/plugin/CAbi.cpp - weft's side of the C plugin ABI ----------===//
#include "weaving/plugin/CAbi.h"

#include "il/MethodBody.h"
#include "metadata/Names.h"
#include "metadata/Schema.h"
#include "metadata/Signature.h"
#include "weaving/Emit.h"
#include "weaving/Returns.h"
#include "weaving/plugin/Objects.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <deque>
#include <memory>

using namespace llvm;
using namespace weft;
using metadata::TableId;
using metadata::Token;

/// The module in the serial phases: its context, and what the calls made for it keep.
struct weft_module {
  explicit weft_module(passes::ModuleContext &C) : C(C) {}
  passes::ModuleContext &C;
  BumpPtrAllocator Memory;
  StringSaver Strings{Memory};
  std::vector<std::shared_ptr<const metadata::OpenedAssembly>> Opened;
};

/// One method in RunMethod or FinishMethod: its context, and the bytes the calls made for it
/// hand out (signatures encoded on request).
struct weft_method {
  explicit weft_method(passes::MethodContext &C) : C(C) {}
  passes::MethodContext &C;
  std::deque<std::vector<uint8_t>> Kept;

  weft_bytes keep(const metadata::TypeSig &T) {
    Kept.emplace_back();
    metadata::encodeTypeSig(T, Kept.back());
    return {Kept.back().data(), Kept.back().size()};
  }
};

namespace weft::plugin {

namespace {

thread_local std::string LastErrorText;

weft_string str(StringRef S) { return {S.data(), S.size()}; }
StringRef ref(weft_string S) { return S.Data ? StringRef(S.Data, S.Size) : StringRef(); }
ArrayRef<uint8_t> ref(weft_bytes B) { return B.Data ? ArrayRef(B.Data, B.Size) : ArrayRef<uint8_t>(); }
weft_bytes bytes(ArrayRef<uint8_t> B) { return {B.data(), B.size()}; }

weft_status fail(const Twine &Why, weft_status Status = WEFT_FAILED) {
  LastErrorText = Why.str();
  return Status;
}
weft_status fail(Error E) { return fail(toString(std::move(E))); }

/// snprintf's contract: at most Capacity bytes written, the whole length returned.
size_t copyOut(StringRef Text, char *Buffer, size_t Capacity) {
  if (Buffer && Capacity)
    std::memcpy(Buffer, Text.data(), std::min(Capacity, Text.size()));
  return Text.size();
}

const metadata::Module &md(const weft_metadata *M) {
  return *reinterpret_cast<const metadata::Module *>(M);
}
const weft_metadata *handle(const metadata::Module &M) {
  return reinterpret_cast<const weft_metadata *>(&M);
}
il::MethodBody &body(weft_body *B) { return *reinterpret_cast<il::MethodBody *>(B); }
weft_body *handle(il::MethodBody &B) { return reinterpret_cast<weft_body *>(&B); }
il::Instr *instr(weft_instr *I) { return reinterpret_cast<il::Instr *>(I); }
const il::Instr *instr(const weft_instr *I) { return reinterpret_cast<const il::Instr *>(I); }
weft_instr *handle(il::Instr *I) { return reinterpret_cast<weft_instr *>(I); }
const passes::PassOptions &options(const weft_options *O) {
  return *reinterpret_cast<const passes::PassOptions *>(O);
}

// --- Errors and loading ---

weft_string lastError() { return str(LastErrorText); }
void setError(weft_string Message) { LastErrorText = ref(Message).str(); }

weft_status setPluginInfo(weft_plugin *P, uint32_t Abi, weft_string Name, weft_string Version) {
  if (Abi != WEFT_ABI_VERSION)
    return fail("it was built for weft's plugin ABI version " + Twine(Abi) +
                "; this weft implements version " + Twine(WEFT_ABI_VERSION));
  P->AbiVersion = Abi;
  P->Name = ref(Name).str();
  P->Version = ref(Version).str();
  return WEFT_OK;
}

weft_status registerPass(weft_plugin *P, const weft_pass_info *Info);

weft_status setRuntimeHooks(weft_plugin *P, const weft_runtime_hooks *Hooks) {
  if (!Hooks)
    return fail("SetRuntimeHooks: no hooks", WEFT_BAD_ARGUMENT);
  std::memset(&P->Hooks, 0, sizeof P->Hooks);
  std::memcpy(&P->Hooks, Hooks, std::min<size_t>(Hooks->Size, sizeof P->Hooks));
  P->Hooks.Size = sizeof P->Hooks;
  P->HasHooks = true;
  return WEFT_OK;
}

// --- Options ---

size_t optionCount(const weft_options *O) { return options(O).values().size(); }
void optionAt(const weft_options *O, size_t Index, weft_string *Key, weft_string *Value) {
  auto All = options(O).values();
  if (Index >= All.size()) {
    *Key = *Value = {nullptr, 0};
    return;
  }
  *Key = str(All[Index].first);
  *Value = str(All[Index].second);
}
weft_status option(const weft_options *O, weft_string Key, weft_string *Value) {
  if (!options(O).has(ref(Key)))
    return WEFT_NOT_FOUND;
  *Value = str(options(O).get(ref(Key)));
  return WEFT_OK;
}
size_t optionPath(const weft_options *O, weft_string Key, char *Buffer, size_t Capacity) {
  if (!options(O).has(ref(Key)))
    return 0;
  return copyOut(options(O).path(ref(Key)), Buffer, Capacity);
}
weft_string optionRule(const weft_options *O) { return str(options(O).rule()); }

// --- Metadata ---

/// Whether the table, row and column are there and the column is of one of \p Kinds (\p Asked
/// names them for the message); if not, the last error says which.
bool column(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Col,
            std::initializer_list<metadata::ColumnKind> Kinds, const char *Asked) {
  if (Table >= metadata::MaxTables || !metadata::tableSpec(Table).exists()) {
    fail("no metadata table " + Twine(Table), WEFT_BAD_ARGUMENT);
    return false;
  }
  const metadata::TableSpec &T = metadata::tableSpec(Table);
  if (Row == 0 || Row > md(Md).rowCount(TableId(Table))) {
    fail(Twine(T.Name) + " has no row " + Twine(Row), WEFT_BAD_ARGUMENT);
    return false;
  }
  if (Col >= T.NumColumns) {
    fail(Twine(T.Name) + " has no column " + Twine(Col), WEFT_BAD_ARGUMENT);
    return false;
  }
  if (std::find(Kinds.begin(), Kinds.end(), T.Columns[Col].Kind) == Kinds.end()) {
    fail(Twine(T.Name) + "." + T.Columns[Col].Name + " is not " + Asked, WEFT_BAD_ARGUMENT);
    return false;
  }
  return true;
}

uint32_t rowCount(const weft_metadata *Md, uint32_t Table) {
  return Table < metadata::MaxTables ? md(Md).rowCount(TableId(Table)) : 0;
}

using K = metadata::ColumnKind;

weft_status columnValue(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Col,
                        uint32_t *Value) {
  if (!column(Md, Table, Row, Col, {K::U8, K::U16, K::U32}, "a constant"))
    return WEFT_BAD_ARGUMENT;
  *Value = md(Md).get(TableId(Table), Row, Col);
  return WEFT_OK;
}

weft_status columnToken(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Col,
                        weft_token *Value) {
  if (!column(Md, Table, Row, Col, {K::Idx, K::Coded}, "an index"))
    return WEFT_BAD_ARGUMENT;
  *Value = md(Md).getToken(TableId(Table), Row, Col);
  return WEFT_OK;
}

weft_status columnString(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Col,
                         weft_string *Value) {
  if (!column(Md, Table, Row, Col, {K::Str}, "a string"))
    return WEFT_BAD_ARGUMENT;
  *Value = str(md(Md).getString(md(Md).get(TableId(Table), Row, Col)));
  return WEFT_OK;
}

weft_status columnBlob(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Col,
                       weft_bytes *Value) {
  if (!column(Md, Table, Row, Col, {K::Blob}, "a blob"))
    return WEFT_BAD_ARGUMENT;
  *Value = bytes(md(Md).getBlob(md(Md).get(TableId(Table), Row, Col)));
  return WEFT_OK;
}

weft_status customAttributes(const weft_metadata *Md, weft_token Parent, const uint32_t **Rows,
                             size_t *Count) {
  ArrayRef<uint32_t> All = md(Md).customAttributes(Parent);
  *Rows = All.data();
  *Count = All.size();
  return WEFT_OK;
}

weft_status methodParams(const weft_metadata *Md, uint32_t MethodRow, uint32_t *Rows,
                         size_t Capacity, size_t *Count) {
  if (MethodRow == 0 || MethodRow > md(Md).rowCount(TableId::MethodDef))
    return fail("MethodDef has no row " + Twine(MethodRow), WEFT_BAD_ARGUMENT);
  metadata::RowRange R = md(Md).methodParams(MethodRow);
  *Count = R.size();
  size_t I = 0;
  for (uint32_t Index : R)
    if (I < Capacity)
      Rows[I++] = md(Md).param(Index);
  return WEFT_OK;
}

weft_status typeMembers(const weft_metadata *Md, uint32_t TypeRow, bool Methods, uint32_t *First,
                        uint32_t *Count) {
  if (TypeRow == 0 || TypeRow > md(Md).rowCount(TableId::TypeDef))
    return fail("TypeDef has no row " + Twine(TypeRow), WEFT_BAD_ARGUMENT);
  metadata::RowRange R = Methods ? md(Md).typeMethods(TypeRow) : md(Md).typeFields(TypeRow);
  *Count = R.size();
  *First = R.empty() ? 0 : *R.begin();
  return WEFT_OK;
}
weft_status typeMethods(const weft_metadata *Md, uint32_t TypeRow, uint32_t *First,
                        uint32_t *Count) {
  return typeMembers(Md, TypeRow, true, First, Count);
}
weft_status typeFields(const weft_metadata *Md, uint32_t TypeRow, uint32_t *First,
                       uint32_t *Count) {
  return typeMembers(Md, TypeRow, false, First, Count);
}

uint32_t declaringTypeOfMethod(const weft_metadata *Md, uint32_t MethodRow) {
  if (MethodRow == 0 || MethodRow > md(Md).rowCount(TableId::MethodDef))
    return 0;
  return md(Md).declaringTypeOfMethod(MethodRow);
}

uint32_t findTypeDef(const weft_metadata *Md, weft_string Namespace, weft_string Name) {
  return md(Md).findTypeDef(ref(Namespace), ref(Name));
}

size_t tokenText(const weft_metadata *Md, weft_token Token, char *Buffer, size_t Capacity) {
  if (!md(Md).isValidToken(Token))
    return copyOut("<bad token 0x" + utohexstr(Token) + ">", Buffer, Capacity);
  std::string Text;
  raw_string_ostream OS(Text);
  metadata::NamePrinter(md(Md)).anyToken(OS, Token, {});
  return copyOut(OS.str(), Buffer, Capacity);
}

// --- The module ---

const weft_metadata *moduleMetadata(weft_module *M) { return handle(M->C.module()); }
weft_string assemblyName(weft_module *M) { return str(M->C.assemblyName()); }
weft_string inputPath(weft_module *M) { return str(M->C.inputPath()); }
uint32_t processId(weft_module *M) { return M->C.processId(); }

weft_token assemblyRef(weft_module *M, weft_string Name, const uint16_t Version[4],
                       weft_bytes Key, weft_string Culture) {
  metadata::AssemblyRefInfo Info;
  Info.Name = ref(Name);
  if (Version)
    std::copy(Version, Version + 4, Info.Version);
  Info.PublicKeyOrToken = ref(Key);
  Info.Culture = ref(Culture);
  return M->C.assemblyRef(Info);
}
weft_token typeRef(weft_module *M, weft_token Scope, weft_string Ns, weft_string Name) {
  return M->C.typeRef(Scope, ref(Ns), ref(Name));
}
weft_token memberRef(weft_module *M, weft_token Parent, weft_string Name, weft_bytes Sig) {
  return M->C.memberRef(Parent, ref(Name), ref(Sig));
}
weft_token typeSpec(weft_module *M, weft_bytes Sig) { return M->C.typeSpec(ref(Sig)); }
weft_token methodSpec(weft_module *M, weft_token Method, weft_bytes Inst) {
  return M->C.methodSpec(Method, ref(Inst));
}
weft_token standAloneSig(weft_module *M, weft_bytes Sig) { return M->C.standAloneSig(ref(Sig)); }

weft_status tokenOf(Expected<Token> T, weft_token *Out) {
  if (!T)
    return fail(T.takeError());
  *Out = *T;
  return WEFT_OK;
}
weft_status userString(weft_module *M, weft_string Text, weft_token *Out) {
  return tokenOf(M->C.userString(ref(Text)), Out);
}
weft_token coreScope(weft_module *M) { return M->C.coreScope(); }
weft_status coreType(weft_module *M, weft_string Ns, weft_string Name, weft_token *Out) {
  return tokenOf(M->C.coreType(ref(Ns), ref(Name)), Out);
}
weft_status frameworkType(weft_module *M, weft_string Assembly, weft_string Ns, weft_string Name,
                          weft_token *Out) {
  return tokenOf(M->C.frameworkType(ref(Assembly), ref(Ns), ref(Name)), Out);
}
weft_string freeTypeName(weft_module *M, weft_string Ns, weft_string Name) {
  return str(M->Strings.save(M->C.freeTypeName(ref(Ns), ref(Name))));
}
weft_token addType(weft_module *M, uint32_t Flags, weft_string Ns, weft_string Name,
                   weft_token Extends) {
  return M->C.addType(Flags, ref(Ns), ref(Name), Extends);
}
weft_status addField(weft_module *M, weft_token Type, uint16_t Flags, weft_string Name,
                     weft_bytes Sig, weft_token *Out) {
  return tokenOf(M->C.addField(Type, Flags, ref(Name), ref(Sig)), Out);
}
weft_status addMethod(weft_module *M, weft_token Type, uint16_t Flags, uint16_t ImplFlags,
                      weft_string Name, weft_bytes Sig, weft_token *Out) {
  return tokenOf(M->C.addMethod(Type, Flags, ImplFlags, ref(Name), ref(Sig)), Out);
}
void addCustomAttribute(weft_module *M, weft_token Parent, weft_token Ctor, weft_bytes Value) {
  M->C.addCustomAttribute(Parent, Ctor, ref(Value));
}
weft_body *newBody(weft_module *) { return handle(*new il::MethodBody()); }
weft_status setBody(weft_module *M, weft_token Method, weft_body *B, int ReturnsValue) {
  std::unique_ptr<il::MethodBody> Owned(&body(B));
  if (Error E = M->C.setBody(Method, std::move(*Owned), ReturnsValue != 0))
    return fail(std::move(E));
  return WEFT_OK;
}
void addSideFile(weft_module *M, weft_string Suffix, weft_bytes Contents) {
  ArrayRef<uint8_t> C = ref(Contents);
  M->C.addSideFile(ref(Suffix).str(), std::string(C.begin(), C.end()));
}
void warn(weft_module *M, weft_string Message) { M->C.warn(ref(Message)); }
weft_status openAssembly(weft_module *M, weft_string Path, const weft_metadata **Out) {
  auto A = M->C.openAssembly(ref(Path));
  if (!A)
    return fail(A.takeError());
  M->Opened.push_back(*A);
  *Out = handle(*(*A)->Mod);
  return WEFT_OK;
}

// --- A method ---

const weft_metadata *methodMetadata(weft_method *M) { return handle(M->C.module()); }
weft_token methodToken(weft_method *M) { return M->C.token(); }
uint32_t declaringType(weft_method *M) { return M->C.declaringType(); }
weft_string methodDisplayName(weft_method *M) { return str(M->C.displayName()); }
int isConstructor(weft_method *M) { return M->C.isConstructor(); }
int isStatic(weft_method *M) { return M->C.isStatic(); }
int declaringTypeIsValueType(weft_method *M) { return M->C.declaringTypeIsValueType(); }
weft_body *methodBody(weft_method *M) { return handle(M->C.body()); }
weft_bytes returnType(weft_method *M) { return M->keep(M->C.returnType()); }
uint32_t paramCount(weft_method *M) { return uint32_t(M->C.signature().Params.size()); }
weft_bytes paramType(weft_method *M, uint32_t Index) {
  const metadata::MethodSig &S = M->C.signature();
  if (Index >= S.Params.size())
    return {nullptr, 0};
  return M->keep(S.Params[Index]);
}
weft_bytes declaringTypeSignature(weft_method *M) { return M->keep(M->C.declaringTypeSig()); }

/// A type signature the plugin gave, decoded against the method's module.
Expected<metadata::TypeSig> typeSig(weft_method *M, weft_bytes Type) {
  return metadata::decodeTypeSpec(ref(Type), 0, &M->C.module());
}
int isByRefLike(weft_method *M, weft_bytes Type) {
  Expected<metadata::TypeSig> T = typeSig(M, Type);
  if (!T) {
    consumeError(T.takeError());
    return 0;
  }
  return M->C.isByRefLike(*T);
}
weft_token methodTypeRef(weft_method *M, weft_token Scope, weft_string Ns, weft_string Name) {
  return M->C.typeRef(Scope, ref(Ns), ref(Name));
}
weft_token methodMemberRef(weft_method *M, weft_token Parent, weft_string Name, weft_bytes Sig) {
  return M->C.memberRef(Parent, ref(Name), ref(Sig));
}
weft_token methodTypeSpec(weft_method *M, weft_bytes Sig) { return M->C.typeSpec(ref(Sig)); }
weft_token methodMethodSpec(weft_method *M, weft_token Method, weft_bytes Inst) {
  return M->C.methodSpec(Method, ref(Inst));
}
weft_token methodUserString(weft_method *M, weft_string Text) {
  return M->C.userString(ref(Text));
}
weft_token typeToken(weft_method *M, weft_bytes Type) {
  Expected<metadata::TypeSig> T = typeSig(M, Type);
  if (!T) {
    fail(T.takeError());
    return 0;
  }
  return M->C.typeToken(*T);
}
weft_status callOperandTypes(weft_method *M, const weft_instr *Call, weft_token Constrained,
                             weft_bytes_fn Each, void *User) {
  auto Types = M->C.callOperandTypes(*instr(Call), Constrained);
  if (!Types)
    return fail(Types.takeError());
  for (const metadata::TypeSig &T : *Types) {
    std::vector<uint8_t> Bytes;
    metadata::encodeTypeSig(T, Bytes);
    Each(User, {Bytes.data(), Bytes.size()});
  }
  return WEFT_OK;
}
uint32_t addLocal(weft_method *M, weft_bytes Type) { return M->C.addLocal(ref(Type)); }
uint32_t localCount(weft_method *M) { return M->C.localCount(); }
void skip(weft_method *M, weft_string Reason) { M->C.skip(ref(Reason)); }
void note(weft_method *M, weft_string What) { M->C.note(ref(What)); }
void setMethodData(weft_method *M, void *Data) { M->C.PassData = Data; }
void *methodData(weft_method *M) { return M->C.PassData; }

// --- Instruction graphs ---

weft_instr *const *instructions(weft_body *B, size_t *Count) {
  std::vector<il::Instr *> &All = body(B).instructions();
  *Count = All.size();
  return reinterpret_cast<weft_instr *const *>(All.data());
}

/// The opcode of an ABI value (its encoding), if there is one.
std::optional<il::Opcode> opcodeOf(uint32_t Value) {
  if (Value < 0x100)
    return il::oneByteOpcode(uint8_t(Value));
  if ((Value >> 8) == 0xFE)
    return il::twoByteOpcode(uint8_t(Value));
  return std::nullopt;
}
uint32_t valueOf(il::Opcode Op) {
  const il::OpcodeInfo &I = il::info(Op);
  return (uint32_t(I.Byte1) << 8) | I.Byte2;
}

weft_instr *createInstr(weft_body *B, uint32_t Opcode) {
  std::optional<il::Opcode> Op = opcodeOf(Opcode);
  if (!Op) {
    fail("no CIL opcode 0x" + utohexstr(Opcode), WEFT_BAD_ARGUMENT);
    return nullptr;
  }
  return handle(body(B).create(*Op));
}
void insertBefore(weft_body *B, weft_instr *Before, weft_instr *I) {
  body(B).insertBefore(instr(Before), instr(I));
}
void remove(weft_body *B, weft_instr *I) { body(B).remove(instr(I)); }
void retarget(weft_body *B, weft_instr *From, weft_instr *To) {
  body(B).retarget(instr(From), instr(To));
}
uint32_t opcode(const weft_instr *I) { return valueOf(instr(I)->Op); }
void setOpcode(weft_instr *I, uint32_t Opcode) {
  if (std::optional<il::Opcode> Op = opcodeOf(Opcode))
    instr(I)->Op = *Op;
}
uint32_t operandKind(uint32_t Opcode) {
  std::optional<il::Opcode> Op = opcodeOf(Opcode);
  return Op ? uint32_t(il::info(*Op).Operand) : WEFT_OPERAND_NONE;
}
int64_t integer(const weft_instr *I) { return instr(I)->Int; }
void setInteger(weft_instr *I, int64_t V) { instr(I)->Int = V; }
weft_token token(const weft_instr *I) { return instr(I)->Token; }
void setToken(weft_instr *I, weft_token T) { instr(I)->Token = T; }
uint32_t index(const weft_instr *I) { return instr(I)->Index; }
void setIndex(weft_instr *I, uint32_t V) { instr(I)->Index = V; }
weft_instr *target(const weft_instr *I) { return handle(instr(I)->Target); }
void setTarget(weft_instr *I, weft_instr *T) { instr(I)->Target = instr(T); }
size_t switchTargets(const weft_instr *I, weft_instr *const **Targets) {
  const il::SwitchTargets &T = instr(I)->Targets;
  *Targets = reinterpret_cast<weft_instr *const *>(T.begin());
  return T.size();
}
void setSwitchTargets(weft_instr *I, weft_instr *const *Targets, size_t Count) {
  il::SwitchTargets T;
  T.reserve(Count);
  for (size_t N = 0; N < Count; ++N)
    T.push_back(instr(Targets[N]));
  instr(I)->Targets = std::move(T);
}
uint32_t originalOffset(const weft_instr *I) { return instr(I)->OriginalOffset; }

weft_region region(const il::ExceptionRegion &R) {
  return {uint32_t(R.Kind),       handle(R.TryStart),  handle(R.TryEnd),   handle(R.HandlerStart),
          handle(R.HandlerEnd), handle(R.FilterStart), R.CatchType};
}
il::ExceptionRegion region(const weft_region &R) {
  il::ExceptionRegion Out;
  Out.Kind = il::RegionKind(std::min<uint32_t>(R.Kind, WEFT_REGION_FAULT));
  Out.TryStart = instr(R.TryStart);
  Out.TryEnd = instr(R.TryEnd);
  Out.HandlerStart = instr(R.HandlerStart);
  Out.HandlerEnd = instr(R.HandlerEnd);
  Out.FilterStart = instr(R.FilterStart);
  Out.CatchType = R.CatchType;
  return Out;
}
size_t regionCount(weft_body *B) { return body(B).Regions.size(); }
void getRegion(weft_body *B, size_t Index, weft_region *Out) {
  if (Index < body(B).Regions.size())
    *Out = region(body(B).Regions[Index]);
}
void setRegion(weft_body *B, size_t Index, const weft_region *R) {
  if (Index < body(B).Regions.size())
    body(B).Regions[Index] = region(*R);
}
void addRegion(weft_body *B, const weft_region *R) { body(B).Regions.push_back(region(*R)); }
int initLocals(weft_body *B) { return body(B).InitLocals; }
void setInitLocals(weft_body *B, int V) { body(B).InitLocals = V != 0; }

// --- The shared helpers ---

/// Lets the plugin place code where \p E places it, then has E take what it placed as its own,
/// so that what branched to the place reaches that code first.
void emitThrough(passes::Emitter &E, weft_emit_fn Emit, void *User, bool TailCall) {
  il::MethodBody &B = E.body();
  il::Instr *Before = E.before();
  auto Position = [&] { return Before ? B.indexOf(Before) : B.size(); };
  size_t At = Position();
  Emit(User, handle(B), handle(Before), TailCall);
  if (Position() > At)
    E.adopt(B.instructions()[At]);
}

void beforeEachExit(weft_method *M, weft_emit_fn Emit, void *User) {
  passes::beforeEachExit(M->C.body(), [&](passes::Emitter &E, bool TailCall) {
    emitThrough(E, Emit, User, TailCall);
  });
}
weft_status wrapStart(weft_method *M, size_t *Index) {
  std::string Why;
  std::optional<size_t> Start = passes::wrapStart(M->C, Why);
  if (!Start)
    return fail(Why);
  *Index = *Start;
  return WEFT_OK;
}
weft_status makeSingleExit(weft_method *M, int Wrap, weft_emit_fn StubExit, void *User,
                           weft_single_exit *Out) {
  auto Stub = [&](passes::Emitter &E) {
    if (StubExit)
      emitThrough(E, StubExit, User, true);
  };
  Expected<passes::SingleExit> X = passes::makeSingleExit(M->C, Wrap != 0, Stub);
  if (!X)
    return fail(X.takeError());
  Out->Epilogue = handle(X->Epilogue);
  Out->HasValue = X->ValueLocal.has_value();
  Out->ValueLocal = X->ValueLocal.value_or(0);
  Out->End = handle(X->End);
  return WEFT_OK;
}
size_t protectBody(weft_body *B, weft_instr *TryFirst, weft_instr *HandlerFirst, weft_instr *End,
                   uint32_t Kind, weft_token CatchType) {
  return passes::protectBody(body(B), instr(TryFirst), instr(HandlerFirst), instr(End),
                             il::RegionKind(std::min<uint32_t>(Kind, WEFT_REGION_FAULT)),
                             CatchType);
}

// --- The runtime profiler's objects ---

void *getObjectData(weft_object *Object, weft_plugin *P) {
  return objectData(reinterpret_cast<weftObject *>(Object), P);
}
void setObjectDataOf(weft_object *Object, weft_plugin *P, void *Data, void (*Release)(void *)) {
  setObjectData(reinterpret_cast<weftObject *>(Object), P, Data, Release);
}

// --- The pass a plugin's weft_pass_info runs as ---

class CPass final : public passes::Pass {
public:
  CPass(const weft_pass_info &Info, void *Instance) : Info(Info), Instance(Instance) {}
  ~CPass() override {
    if (Info.Destroy)
      Info.Destroy(Instance);
  }

  Error beginModule(passes::ModuleContext &MC) override {
    Module = std::make_unique<weft_module>(MC);
    if (!Info.BeginModule)
      return Error::success();
    return check(Info.BeginModule(Instance, moduleOf(MC)), "BeginModule");
  }
  Error runOnMethod(passes::MethodContext &C) override {
    if (!Info.RunMethod)
      return Error::success();
    weft_method M(C);
    return check(Info.RunMethod(Instance, &M), "RunMethod");
  }
  bool usesSignatures() const override { return Info.Flags & WEFT_PASS_USES_SIGNATURES; }
  void finishMethod(passes::MethodContext &C) override {
    if (!Info.FinishMethod)
      return;
    weft_method M(C);
    Info.FinishMethod(Instance, &M);
  }
  Error endModule(passes::ModuleContext &MC) override {
    Error E = Info.EndModule ? check(Info.EndModule(Instance, moduleOf(MC)), "EndModule")
                             : Error::success();
    Module.reset();
    return E;
  }

private:
  weft_module *moduleOf(passes::ModuleContext &MC) {
    if (!Module || &Module->C != &MC)
      Module = std::make_unique<weft_module>(MC);
    return Module.get();
  }
  Error check(weft_status S, const char *Callback) {
    if (S == WEFT_OK)
      return Error::success();
    std::string Why = LastErrorText.empty()
                          ? "its " + std::string(Callback) + " failed (status " +
                                std::to_string(S) + ") without saying why"
                          : LastErrorText;
    LastErrorText.clear();
    return createStringError(inconvertibleErrorCode(), Why);
  }

  weft_pass_info Info;
  void *Instance;
  std::unique_ptr<weft_module> Module;
};

/// The plugin's pass description, read as far as the plugin knew it.
weft_pass_info readPassInfo(const weft_pass_info &Given) {
  weft_pass_info Info;
  std::memset(&Info, 0, sizeof Info);
  std::memcpy(&Info, &Given, std::min<size_t>(Given.Size, sizeof Info));
  return Info;
}

weft_status registerPass(weft_plugin *P, const weft_pass_info *Given) {
  if (!P->AbiVersion)
    return fail("RegisterPass before SetPluginInfo", WEFT_BAD_ARGUMENT);
  if (!Given || Given->Size < offsetof(weft_pass_info, Create) + sizeof(Given->Create))
    return fail("RegisterPass: a weft_pass_info too small to hold Create", WEFT_BAD_ARGUMENT);
  weft_pass_info Info = readPassInfo(*Given);
  if (!Info.Name || !*Info.Name || !Info.Create)
    return fail("RegisterPass: a pass without a name or a Create function", WEFT_BAD_ARGUMENT);
  passes::PassInfo PI;
  PI.Name = Info.Name;
  PI.Description = Info.Description ? Info.Description : "";
  for (size_t I = 0; I < Info.OptionCount && Info.Options; ++I)
    PI.Options.push_back({Info.Options[I].Name ? Info.Options[I].Name : "",
                          Info.Options[I].Description ? Info.Options[I].Description : ""});
  PI.Create = [Info](const passes::PassOptions &O) -> Expected<std::unique_ptr<passes::Pass>> {
    void *Instance = nullptr;
    LastErrorText.clear();
    weft_status S = Info.Create(Info.Data, reinterpret_cast<const weft_options *>(&O), &Instance);
    if (S != WEFT_OK) {
      std::string Why = LastErrorText.empty() ? "it could not be made (status " +
                                                    std::to_string(S) + ")"
                                              : LastErrorText;
      LastErrorText.clear();
      return O.error(Why);
    }
    return std::make_unique<CPass>(Info, Instance);
  };
  P->Passes.push_back(std::move(PI));
  return WEFT_OK;
}

const weft_api Api = [] {
  weft_api A;
  std::memset(&A, 0, sizeof A);
  A.Size = sizeof A;
  A.AbiVersion = WEFT_ABI_VERSION;
  A.Minor = WEFT_API_MINOR;
  A.WeftVersion = str(WEFT_VERSION_STRING);
  A.LastError = lastError;
  A.SetError = setError;
  A.SetPluginInfo = setPluginInfo;
  A.RegisterPass = registerPass;
  A.SetRuntimeHooks = setRuntimeHooks;
  A.OptionCount = optionCount;
  A.OptionAt = optionAt;
  A.Option = option;
  A.OptionPath = optionPath;
  A.OptionRule = optionRule;
  A.RowCount = rowCount;
  A.Column = columnValue;
  A.ColumnToken = columnToken;
  A.ColumnString = columnString;
  A.ColumnBlob = columnBlob;
  A.CustomAttributes = customAttributes;
  A.MethodParams = methodParams;
  A.TypeMethods = typeMethods;
  A.TypeFields = typeFields;
  A.DeclaringTypeOfMethod = declaringTypeOfMethod;
  A.FindTypeDef = findTypeDef;
  A.TokenText = tokenText;
  A.ModuleMetadata = moduleMetadata;
  A.AssemblyName = assemblyName;
  A.InputPath = inputPath;
  A.ProcessId = processId;
  A.AssemblyRef = assemblyRef;
  A.TypeRef = typeRef;
  A.MemberRef = memberRef;
  A.TypeSpec = typeSpec;
  A.MethodSpec = methodSpec;
  A.StandAloneSig = standAloneSig;
  A.UserString = userString;
  A.CoreScope = coreScope;
  A.CoreType = coreType;
  A.FrameworkType = frameworkType;
  A.FreeTypeName = freeTypeName;
  A.AddType = addType;
  A.AddField = addField;
  A.AddMethod = addMethod;
  A.AddCustomAttribute = addCustomAttribute;
  A.NewBody = newBody;
  A.SetBody = setBody;
  A.AddSideFile = addSideFile;
  A.Warn = warn;
  A.OpenAssembly = openAssembly;
  A.MethodMetadata = methodMetadata;
  A.MethodToken = methodToken;
  A.DeclaringType = declaringType;
  A.MethodDisplayName = methodDisplayName;
  A.IsConstructor = isConstructor;
  A.IsStatic = isStatic;
  A.DeclaringTypeIsValueType = declaringTypeIsValueType;
  A.Body = methodBody;
  A.ReturnType = returnType;
  A.ParamCount = paramCount;
  A.ParamType = paramType;
  A.DeclaringTypeSignature = declaringTypeSignature;
  A.IsByRefLike = isByRefLike;
  A.MethodTypeRef = methodTypeRef;
  A.MethodMemberRef = methodMemberRef;
  A.MethodTypeSpec = methodTypeSpec;
  A.MethodMethodSpec = methodMethodSpec;
  A.MethodUserString = methodUserString;
  A.TypeToken = typeToken;
  A.CallOperandTypes = callOperandTypes;
  A.AddLocal = addLocal;
  A.LocalCount = localCount;
  A.Skip = skip;
  A.Note = note;
  A.SetMethodData = setMethodData;
  A.MethodData = methodData;
  A.Instructions = instructions;
  A.CreateInstr = createInstr;
  A.InsertBefore = insertBefore;
  A.Remove = remove;
  A.Retarget = retarget;
  A.Opcode = opcode;
  A.SetOpcode = setOpcode;
  A.OperandKind = operandKind;
  A.Integer = integer;
  A.SetInteger = setInteger;
  A.Token = token;
  A.SetToken = setToken;
  A.Index = index;
  A.SetIndex = setIndex;
  A.Target = target;
  A.SetTarget = setTarget;
  A.SwitchTargets = switchTargets;
  A.SetSwitchTargets = setSwitchTargets;
  A.OriginalOffset = originalOffset;
  A.RegionCount = regionCount;
  A.GetRegion = getRegion;
  A.SetRegion = setRegion;
  A.AddRegion = addRegion;
  A.InitLocals = initLocals;
  A.SetInitLocals = setInitLocals;
  A.BeforeEachExit = beforeEachExit;
  A.WrapStart = wrapStart;
  A.MakeSingleExit = makeSingleExit;
  A.ProtectBody = protectBody;
  A.GetObjectData = getObjectData;
  A.SetObjectData = setObjectDataOf;
  return A;
}();

} // namespace

const weft_api &cApi() { return Api; }

Error initCPlugin(weft_status (*Init)(const weft_api *, weft_plugin *), weft_plugin &Into) {
  LastErrorText.clear();
  weft_status S = Init(&Api, &Into);
  std::string Why = std::move(LastErrorText);
  LastErrorText.clear();
  if (S != WEFT_OK)
    return createStringError(inconvertibleErrorCode(),
                             Why.empty() ? "its weft_plugin_init failed (status " +
                                               std::to_string(S) + ") without saying why"
                                         : Why);
  if (!Into.AbiVersion)
    return createStringError(inconvertibleErrorCode(),
                             "its weft_plugin_init did not call SetPluginInfo");
  return Error::success();
}

} // namespace weft::plugin
