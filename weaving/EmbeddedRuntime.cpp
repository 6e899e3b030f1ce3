//===- weaving/EmbeddedRuntime.cpp - Runtimes woven modules carry ---------===//
#include "weaving/EmbeddedRuntime.h"

#include "metadata/Editor.h"
#include "metadata/Module.h"
#include "metadata/Signature.h"
#include "pe/Image.h"

#include "llvm/Support/Base64.h"

#include <map>
#include <mutex>
#include <zlib.h>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

/// \p Bytes as raw deflate data (no zlib header), which System.IO.Compression.DeflateStream
/// reads on every runtime: a woven module carries a third of the bytes.
Expected<std::vector<uint8_t>> deflated(ArrayRef<uint8_t> Bytes, StringRef What) {
  z_stream Z{};
  if (deflateInit2(&Z, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    return createStringError(inconvertibleErrorCode(), "%s cannot be compressed",
                             What.str().c_str());
  std::vector<uint8_t> Out(deflateBound(&Z, uLong(Bytes.size())));
  Z.next_in = const_cast<Bytef *>(Bytes.data());
  Z.avail_in = uInt(Bytes.size());
  Z.next_out = Out.data();
  Z.avail_out = uInt(Out.size());
  int Result = deflate(&Z, Z_FINISH);
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  if (Result != Z_STREAM_END)
    return createStringError(inconvertibleErrorCode(), "%s cannot be compressed",
                             What.str().c_str());
  return Out;
}

Expected<std::string> lowered(ArrayRef<uint8_t> Image, StringRef What) {
  std::vector<uint8_t> Bytes(Image.begin(), Image.end());
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(ArrayRef<uint8_t>(Bytes));
  if (!Img)
    return Img.takeError();
  Expected<std::unique_ptr<Module>> M =
      Module::create((*Img)->metadata(), (*Img)->metadataOffset());
  if (!M)
    return M.takeError();
  for (uint32_t Row = 1; Row <= (*M)->rowCount(TableId::AssemblyRef); ++Row) {
    uint64_t At = (*M)->rowOffset(TableId::AssemblyRef, Row, AssemblyRefCol::MajorVersion);
    if (At + 8 > Bytes.size())
      return createStringError(inconvertibleErrorCode(),
                               "%s's assembly references are out of place", What.str().c_str());
    std::fill_n(Bytes.begin() + At, 8, 0);
  }
  Expected<std::vector<uint8_t>> Packed = deflated(Bytes, What);
  if (!Packed)
    return Packed.takeError();
  return encodeBase64(*Packed);
}

std::vector<uint8_t> classSig(Token T) {
  std::vector<uint8_t> Sig{uint8_t(ElementType::Class)};
  appendTypeDefOrRefEncoded(Sig, T);
  return Sig;
}

/// A method signature: \p Head (calling convention, parameter count), \p Return, \p Params.
std::vector<uint8_t> sig(std::vector<uint8_t> Head, std::vector<uint8_t> Return,
                         std::vector<uint8_t> Params = {}) {
  Head.insert(Head.end(), Return.begin(), Return.end());
  Head.insert(Head.end(), Params.begin(), Params.end());
  return Head;
}

} // namespace

Expected<std::string> carriedRuntime(ArrayRef<uint8_t> Image, StringRef What) {
  static std::mutex Lock;
  static std::map<const uint8_t *, std::pair<std::string, std::string>> Made;
  std::lock_guard<std::mutex> Hold(Lock);
  auto [It, New] = Made.try_emplace(Image.data());
  if (New) {
    Expected<std::string> B = lowered(Image, What);
    if (B)
      It->second.first = std::move(*B);
    else
      It->second.second = What.str() + " cannot be read: " + toString(B.takeError());
  }
  if (!It->second.second.empty())
    return createStringError(inconvertibleErrorCode(), It->second.second);
  return It->second.first;
}

Error RuntimeLoader::reference(ModuleContext &MC) {
  Expected<Token> Object = MC.coreType("System", "Object"),
                  AppDomain = MC.coreType("System", "AppDomain"),
                  Convert = MC.coreType("System", "Convert"), Type = MC.coreType("System", "Type"),
                  Assembly = MC.coreType("System.Reflection", "Assembly"),
                  Monitor = MC.frameworkType("System.Threading", "System.Threading", "Monitor"),
                  Stream = MC.coreType("System.IO", "Stream"),
                  Memory = MC.coreType("System.IO", "MemoryStream"),
                  Deflate = MC.frameworkType("System.IO.Compression", "System.IO.Compression",
                                             "DeflateStream"),
                  Mode = MC.frameworkType("System.IO.Compression", "System.IO.Compression",
                                          "CompressionMode");
  for (Expected<Token> *T : {&Object, &AppDomain, &Convert, &Type, &Assembly, &Monitor, &Stream,
                             &Memory, &Deflate, &Mode})
    if (!*T)
      return T->takeError();
  ObjectType = *Object;
  TypeType = *Type;
  const uint8_t Str = uint8_t(ElementType::String), Void = uint8_t(ElementType::Void),
                Obj = uint8_t(ElementType::Object), U1 = uint8_t(ElementType::U1),
                SZ = uint8_t(ElementType::SZArray), Static = SigDefault, Inst = SigHasThis;
  CurrentDomain =
      MC.memberRef(*AppDomain, "get_CurrentDomain", sig({Static, 0}, classSig(*AppDomain)));
  GetData = MC.memberRef(*AppDomain, "GetData", sig({Inst, 1}, {Obj}, {Str}));
  SetData = MC.memberRef(*AppDomain, "SetData", sig({Inst, 2}, {Void}, {Str, Obj}));
  MonitorEnter = MC.memberRef(*Monitor, "Enter", sig({Static, 1}, {Void}, {Obj}));
  MonitorExit = MC.memberRef(*Monitor, "Exit", sig({Static, 1}, {Void}, {Obj}));
  FromBase64 = MC.memberRef(*Convert, "FromBase64String", sig({Static, 1}, {SZ, U1}, {Str}));
  Load = MC.memberRef(*Assembly, "Load", sig({Static, 1}, classSig(*Assembly), {SZ, U1}));
  GetType = MC.memberRef(*Assembly, "GetType", sig({Inst, 1}, classSig(*Type), {Str}));
  MemoryType = *Memory;
  MemoryOver = MC.memberRef(*Memory, ".ctor", sig({Inst, 1}, {Void}, {SZ, U1}));
  MemoryNew = MC.memberRef(*Memory, ".ctor", sig({Inst, 0}, {Void}));
  ToArray = MC.memberRef(*Memory, "ToArray", sig({Inst, 0}, {SZ, U1}));
  std::vector<uint8_t> ModeSig{uint8_t(ElementType::ValueType)};
  appendTypeDefOrRefEncoded(ModeSig, *Mode);
  std::vector<uint8_t> DeflateParams = classSig(*Stream);
  DeflateParams.insert(DeflateParams.end(), ModeSig.begin(), ModeSig.end());
  DeflateNew = MC.memberRef(*Deflate, ".ctor", sig({Inst, 2}, {Void}, DeflateParams));
  CopyTo = MC.memberRef(*Stream, "CopyTo", sig({Inst, 1}, {Void}, classSig(*Stream)));
  return Error::success();
}

Expected<il::Instr *> RuntimeLoader::emitLoad(ModuleContext &MC, Emitter &E, StringRef Key,
                                              StringRef Base64, StringRef TypeName,
                                              uint32_t DomainLocal, uint32_t TypeLocal,
                                              uint32_t ScratchLocal) {
  Expected<Token> KeyTok = MC.userString(Key), Bytes = MC.userString(Base64),
                  NameTok = MC.userString(TypeName);
  for (Expected<Token> *T : {&KeyTok, &Bytes, &NameTok})
    if (!*T)
      return T->takeError();
  il::MethodBody &B = E.body();
  il::Instr *First = E.tok(il::Opcode::Call, CurrentDomain);
  E.stloc(DomainLocal);
  E.ldloc(DomainLocal);
  E.tok(il::Opcode::Call, MonitorEnter);
  il::Instr *LockedFirst = E.ldloc(DomainLocal);
  E.tok(il::Opcode::Ldstr, *KeyTok);
  E.tok(il::Opcode::Callvirt, GetData);
  E.tok(il::Opcode::Isinst, TypeType);
  E.stloc(TypeLocal);
  E.ldloc(TypeLocal);
  il::Instr *Have = B.create(il::Opcode::Leave);
  E.branch(il::Opcode::Brtrue, Have);
  // Assembly.Load(inflated(FromBase64(Bytes))): new DeflateStream(new MemoryStream(packed),
  // Decompress).CopyTo(scratch = new MemoryStream()); scratch.ToArray().
  E.tok(il::Opcode::Ldstr, *Bytes);
  E.tok(il::Opcode::Call, FromBase64);
  E.tok(il::Opcode::Newobj, MemoryOver);
  E.ldc(0); // CompressionMode.Decompress
  E.tok(il::Opcode::Newobj, DeflateNew);
  E.tok(il::Opcode::Newobj, MemoryNew);
  E.op(il::Opcode::Dup);
  E.stloc(ScratchLocal);
  E.tok(il::Opcode::Callvirt, CopyTo);
  E.ldloc(ScratchLocal);
  E.tok(il::Opcode::Castclass, MemoryType);
  E.tok(il::Opcode::Callvirt, ToArray);
  E.tok(il::Opcode::Call, Load);
  E.tok(il::Opcode::Ldstr, *NameTok);
  E.tok(il::Opcode::Callvirt, GetType);
  E.stloc(TypeLocal);
  E.ldloc(DomainLocal);
  E.tok(il::Opcode::Ldstr, *KeyTok);
  E.ldloc(TypeLocal);
  E.tok(il::Opcode::Callvirt, SetData);
  E.put(Have);
  il::Instr *Unlock = E.ldloc(DomainLocal);
  E.tok(il::Opcode::Call, MonitorExit);
  E.op(il::Opcode::Endfinally);
  il::Instr *Unlocked = E.ldloc(TypeLocal);
  Have->Target = Unlocked;
  il::ExceptionRegion R;
  R.Kind = il::RegionKind::Finally;
  R.TryStart = LockedFirst;
  R.TryEnd = R.HandlerStart = Unlock;
  R.HandlerEnd = Unlocked;
  B.Regions.push_back(R);
  return First;
}

} // namespace weft::passes
