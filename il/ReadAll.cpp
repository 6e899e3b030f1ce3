//===- il/ReadAll.cpp - Decode everything in a module ---------------------===//
#include "il/ReadAll.h"

#include "il/BodyReader.h"
#include "il/MethodBody.h"
#include "il/Verifier.h"
#include "metadata/Blobs.h"
#include "metadata/CustomAttribute.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "pe/Image.h"
#include "support/Error.h"
#include "support/Format.h"
#include "support/WorkerTeam.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>

using namespace llvm;
using namespace weft::metadata;

namespace weft {

namespace {

std::string tokenText(Token T) { return "0x" + hexstr(T, false, 8); }

/// Whether MethodDef row \p R has an IL body in the file (as il::readMethodDefBody finds it).
bool hasILBody(const Module &M, uint32_t R) {
  return M.get(TableId::MethodDef, R, MethodDefCol::RVA) &&
         !(M.get(TableId::MethodDef, R, MethodDefCol::ImplFlags) & 3);
}

/// Whether the caller decodes (and checks) row \p Row's body and signature itself.
bool headerOnly(const ReadOptions &Opts, uint32_t Row) {
  return Opts.DecodedLater && Opts.DecodedLater(Row);
}

Error rowContext(Error E, TableId T, uint32_t Row) {
  return addContext(std::move(E), tableName(T) + " row " + Twine(Row));
}

Error readSignatures(const Module &M, ReadStats &Stats, const ReadOptions &Opts) {
  for (uint32_t R = 1; R <= M.rowCount(TableId::Field); ++R) {
    if (Expected<TypeSig> S = fieldDefSig(M, R); !S)
      return rowContext(S.takeError(), TableId::Field, R);
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    // The weave decodes the signature of each method whose body it decodes.
    if (hasILBody(M, R) && headerOnly(Opts, R))
      continue;
    if (Expected<MethodSig> S = methodDefSig(M, R); !S)
      return rowContext(S.takeError(), TableId::MethodDef, R);
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::MemberRef); ++R) {
    uint32_t Blob = M.get(TableId::MemberRef, R, MemberRefCol::Signature);
    ArrayRef<uint8_t> B = M.getBlob(Blob);
    if (!B.empty() && (B[0] & SigKindMask) == SigField) {
      if (Expected<TypeSig> S = decodeFieldSig(B, M.blobFileOffset(Blob), &M); !S)
        return rowContext(S.takeError(), TableId::MemberRef, R);
    } else if (Expected<MethodSig> S = decodeMethodSig(B, M.blobFileOffset(Blob), &M); !S) {
      return rowContext(S.takeError(), TableId::MemberRef, R);
    }
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::StandAloneSig); ++R) {
    uint32_t Blob = M.get(TableId::StandAloneSig, R, StandAloneSigCol::Signature);
    ArrayRef<uint8_t> B = M.getBlob(Blob);
    // Compilers also emit field signatures here (for constants of local scopes in old PDBs).
    if (!B.empty() && B[0] == SigField) {
      if (Expected<TypeSig> S = decodeFieldSig(B, M.blobFileOffset(Blob), &M); !S)
        return rowContext(S.takeError(), TableId::StandAloneSig, R);
    } else if (Expected<StandAloneSig> S = decodeStandAloneSig(B, M.blobFileOffset(Blob), &M); !S) {
      return rowContext(S.takeError(), TableId::StandAloneSig, R);
    }
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::TypeSpec); ++R) {
    if (Expected<TypeSig> S = typeSpecSig(M, R); !S)
      return rowContext(S.takeError(), TableId::TypeSpec, R);
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodSpec); ++R) {
    uint32_t Blob = M.get(TableId::MethodSpec, R, MethodSpecCol::Instantiation);
    if (auto S = decodeMethodSpec(M.getBlob(Blob), M.blobFileOffset(Blob), &M); !S)
      return rowContext(S.takeError(), TableId::MethodSpec, R);
    ++Stats.Signatures;
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::Property); ++R) {
    uint32_t Blob = M.get(TableId::Property, R, PropertyCol::Type);
    if (auto S = decodePropertySig(M.getBlob(Blob), M.blobFileOffset(Blob), &M); !S)
      return rowContext(S.takeError(), TableId::Property, R);
    ++Stats.Signatures;
  }
  return Error::success();
}

Error readSmallBlobs(const Module &M, ReadStats &Stats, const ReadOptions &Opts) {
  NamePrinter Names(M);
  raw_null_ostream Null;
  if (Opts.CustomAttributes)
    for (uint32_t R = 1; R <= M.rowCount(TableId::CustomAttribute); ++R) {
      Expected<CustomAttributeValue> V = decodeCustomAttribute(M, R, Opts.Resolver);
      if (!V)
        return rowContext(V.takeError(), TableId::CustomAttribute, R);
      ++Stats.CustomAttributes;
      Stats.UnresolvedEnumAttributes += V->GuessedEnumSize;
    }
  for (uint32_t R = 1; R <= M.rowCount(TableId::FieldMarshal); ++R) {
    uint32_t Blob = M.get(TableId::FieldMarshal, R, FieldMarshalCol::NativeType);
    if (Error E = writeMarshal(Null, M.getBlob(Blob), M.blobFileOffset(Blob)))
      return rowContext(std::move(E), TableId::FieldMarshal, R);
  }
  for (uint32_t R = 1; R <= M.rowCount(TableId::Constant); ++R) {
    uint32_t Blob = M.get(TableId::Constant, R, ConstantCol::Value);
    if (Error E = writeConstant(Null, M.get(TableId::Constant, R, ConstantCol::Type),
                                M.getBlob(Blob), M.blobFileOffset(Blob)))
      return rowContext(std::move(E), TableId::Constant, R);
  }
  if (Opts.CustomAttributes)
    for (uint32_t R = 1; R <= M.rowCount(TableId::DeclSecurity); ++R) {
      uint32_t Blob = M.get(TableId::DeclSecurity, R, DeclSecurityCol::PermissionSet);
      if (Error E = writePermissionSet(Null, M, M.getBlob(Blob), M.blobFileOffset(Blob), Names,
                                       Opts.Resolver))
        return rowContext(std::move(E), TableId::DeclSecurity, R);
    }
  return Error::success();
}

/// The header's local variable signature, if any: a StandAloneSig row whose locals decode.
Error checkLocals(const Module &M, const il::RawMethodBody &Body) {
  Token LT = Body.LocalVarSigToken;
  if (!LT)
    return Error::success();
  if (tokenTable(LT) != TableId::StandAloneSig || !M.isValidToken(LT))
    return formatError("fat method header", Body.FileOffset + 8,
                       "local variable signature token " + tokenText(LT) +
                           " is not a StandAloneSig row");
  uint32_t Blob = M.get(TableId::StandAloneSig, tokenRow(LT), StandAloneSigCol::Signature);
  if (auto L = decodeLocalsSig(M.getBlob(Blob), M.blobFileOffset(Blob), &M); !L)
    return L.takeError();
  return Error::success();
}

/// A token operand of the instruction \p Op at \p ILOffset: a user string for ldstr, a row of a
/// table the instruction accepts otherwise.
/// Whether \p Op's operand is a token (what checkTokenOperand checks; most instructions have
/// none, and are not worth its call).
bool hasTokenOperand(il::Opcode Op) {
  switch (il::info(Op).Operand) {
  case il::OperandKind::String:
  case il::OperandKind::Method:
  case il::OperandKind::Field:
  case il::OperandKind::Type:
  case il::OperandKind::Tok:
  case il::OperandKind::Sig: return true;
  default: return false;
  }
}

Error checkTokenOperand(const Module &M, const il::RawMethodBody &Body, il::Opcode Op,
                        uint32_t ILOffset, uint32_t Tok) {
  il::OperandKind K = il::info(Op).Operand;
  auto Fail = [&](const Twine &Why) {
    return formatError("IL code", Body.codeFileOffset() + ILOffset,
                       "IL_" + hexstr(ILOffset, true, 4) + " (" + il::name(Op) + "): " + Why);
  };
  switch (K) {
  case il::OperandKind::String:
    if ((Tok >> 24) != UserStringTokenType)
      return Fail("token " + tokenText(Tok) + " is not a user string");
    if (Expected<UserString> S = M.getUserString(Tok & 0xFFFFFF); !S)
      return S.takeError();
    return Error::success();
  case il::OperandKind::Method:
  case il::OperandKind::Field:
  case il::OperandKind::Type:
  case il::OperandKind::Tok:
  case il::OperandKind::Sig:
    if (!analysis::operandTokenAllowed(K, tokenTable(Tok)) || !M.isValidToken(Tok))
      return Fail("token " + tokenText(Tok) +
                  " does not name a row of a table this instruction accepts");
    return Error::success();
  default: return Error::success();
  }
}

/// What a clause names besides offsets: a catch clause's type, a kind the format has.
Error checkClauseKind(const Module &M, const il::RawMethodBody &Body, size_t C) {
  const il::ExceptionClause &E = Body.Clauses[C];
  auto Fail = [&](const Twine &Why) {
    return formatError("exception clause " + Twine(C), Body.FileOffset,
                       Twine("method body: ") + Why);
  };
  switch (E.Kind) {
  case il::ClauseException:
    if (!analysis::operandTokenAllowed(il::OperandKind::Type,
                                       tokenTable(E.ClassTokenOrFilterOffset)) ||
        !M.isValidToken(E.ClassTokenOrFilterOffset))
      return Fail("catch type token " + tokenText(E.ClassTokenOrFilterOffset) + " is not a type");
    return Error::success();
  case il::ClauseFilter:
  case il::ClauseFinally:
  case il::ClauseFault: return Error::success();
  default: return Fail("unknown clause kind 0x" + hexstr(E.Kind));
  }
}

Error readBody(const pe::Image &Img, const Module &M, uint32_t Row, ReadStats &Stats,
               std::vector<il::Instruction> &Insts, std::vector<uint32_t> &Starts,
               bool HeaderOnly) {
  uint32_t RVA = M.get(TableId::MethodDef, Row, MethodDefCol::RVA);
  uint64_t Off = 0;
  ArrayRef<uint8_t> Bytes = Img.rvaTail(RVA, &Off);
  if (Bytes.empty())
    return formatError("method body", M.rowOffset(TableId::MethodDef, Row),
                       "RVA 0x" + hexstr(RVA) + " is not inside any section's data");
  Expected<il::RawMethodBody> Body = il::readMethodBody(Bytes, Off);
  if (!Body)
    return Body.takeError();
  ++Stats.MethodsWithBody;
  Stats.ILBytes += Body->Code.size();
  if (HeaderOnly) // its reader decodes and checks the rest (checkMethodBody)
    return Error::success();
  if (Error E = checkLocals(M, *Body))
    return E;

  Insts.clear();
  Starts.clear();
  il::InstructionDecoder D(Body->Code, Body->codeFileOffset());
  il::Instruction I;
  while (D.next(I)) {
    Insts.push_back(I);
    Starts.push_back(I.Offset);
  }
  if (Error E = D.takeError())
    return E;
  Stats.Instructions += Insts.size();
  uint32_t CodeSize = uint32_t(Body->Code.size());
  auto IsStart = [&](uint32_t Off) {
    return std::binary_search(Starts.begin(), Starts.end(), Off);
  };
  auto InstError = [&](const il::Instruction &Ins, const Twine &Why) {
    return formatError("IL code", Body->codeFileOffset() + Ins.Offset,
                       "IL_" + hexstr(Ins.Offset, true, 4) + " (" + Ins.info().Name + "): " + Why);
  };
  for (const il::Instruction &Ins : Insts) {
    il::OperandKind K = Ins.info().Operand;
    switch (K) {
    case il::OperandKind::ShortBr:
    case il::OperandKind::Br:
      if (!IsStart(Ins.Target))
        return InstError(Ins, "branch target 0x" + hexstr(Ins.Target) +
                                  " is not the start of an instruction");
      break;
    case il::OperandKind::Switch:
      for (uint32_t C = 0; C < Ins.Count; ++C)
        if (!IsStart(D.switchTarget(Ins, C)))
          return InstError(Ins, "switch target " + Twine(C) + " (0x" + hex(D.switchTarget(Ins, C)) +
                                    ") is not the start of an instruction");
      break;
    default:
      if (hasTokenOperand(Ins.Op))
        if (Error E = checkTokenOperand(M, *Body, Ins.Op, Ins.Offset, Ins.Token))
          return E;
      break;
    }
  }
  for (size_t C = 0; C < Body->Clauses.size(); ++C) {
    const il::ExceptionClause &E = Body->Clauses[C];
    auto ClauseError = [&](const Twine &Why) {
      return formatError("exception clause " + Twine(C), Body->FileOffset,
                         Twine("method body: ") + Why);
    };
    auto InCode = [&](uint32_t Start, uint32_t Len) {
      return uint64_t(Start) + Len <= CodeSize && IsStart(Start) &&
             (Start + Len == CodeSize || IsStart(Start + Len));
    };
    if (!InCode(E.TryOffset, E.TryLength))
      return ClauseError("try block [0x" + hexstr(E.TryOffset) + ", +0x" + hexstr(E.TryLength) +
                         ") is not on instruction boundaries");
    if (!InCode(E.HandlerOffset, E.HandlerLength))
      return ClauseError("handler block [0x" + hexstr(E.HandlerOffset) + ", +0x" +
                         hex(E.HandlerLength) + ") is not on instruction boundaries");
    if (E.Kind == il::ClauseFilter &&
        (!IsStart(E.ClassTokenOrFilterOffset) || E.ClassTokenOrFilterOffset >= CodeSize))
      return ClauseError("filter offset 0x" + hexstr(E.ClassTokenOrFilterOffset) +
                         " is not the start of an instruction");
    if (Error Err = checkClauseKind(M, *Body, C))
      return Err;
  }
  Stats.ExceptionClauses += Body->Clauses.size();
  return Error::success();
}

} // namespace

Error checkMethodBody(const Module &M, const il::RawMethodBody &Raw, const il::MethodBody &Body) {
  if (Error E = checkLocals(M, Raw))
    return E;
  for (const il::Instr *I : Body.instructions())
    if (hasTokenOperand(I->Op))
      if (Error E = checkTokenOperand(M, Raw, I->Op, I->OriginalOffset, I->Token))
        return E;
  for (size_t C = 0; C < Raw.Clauses.size(); ++C)
    if (Error E = checkClauseKind(M, Raw, C))
      return E;
  // A filter starts inside the code: decoding found it on an instruction (or refused the body).
  return Error::success();
}

/// Reads the method bodies on the team; true if every one read and their code is within
/// \p Budget (Stats then counts them), false if the caller must read them in order to find the
/// error. The running total stops every member once the budget is spent, so a hostile file costs
/// no more than it would in order.
static bool readBodiesInParallel(const pe::Image &Img, const Module &M, ReadStats &Stats,
                                 uint64_t Budget, const ReadOptions &Opts) {
  std::vector<uint32_t> Rows;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R)
    if (hasILBody(M, R))
      Rows.push_back(R);
  constexpr size_t Chunk = 256;
  size_t Chunks = (Rows.size() + Chunk - 1) / Chunk;
  std::vector<ReadStats> Parts(Chunks);
  std::atomic<uint64_t> Code{0};
  std::atomic<bool> Failed{false};
  Opts.Team->forEach(Chunks, [&](size_t C) {
    std::vector<il::Instruction> Insts;
    std::vector<uint32_t> Starts;
    ReadStats &S = Parts[C];
    for (size_t I = C * Chunk; I < std::min(Rows.size(), (C + 1) * Chunk); ++I) {
      if (Failed.load(std::memory_order_relaxed))
        return;
      uint64_t Before = S.ILBytes;
      if (Error E = readBody(Img, M, Rows[I], S, Insts, Starts, headerOnly(Opts, Rows[I]))) {
        consumeError(std::move(E));
        Failed = true;
        return;
      }
      if ((Code += S.ILBytes - Before) > Budget) {
        Failed = true;
        return;
      }
    }
  });
  if (Failed)
    return false;
  for (const ReadStats &S : Parts) {
    Stats.MethodsWithBody += S.MethodsWithBody;
    Stats.ILBytes += S.ILBytes;
    Stats.Instructions += S.Instructions;
    Stats.ExceptionClauses += S.ExceptionClauses;
  }
  return true;
}

Error readEverything(const pe::Image &Img, const Module &M, ReadStats &Stats,
                     const ReadOptions &Opts) {
  if (Expected<std::vector<pe::DebugEntry>> D = Img.debugEntries(); !D)
    return D.takeError();
  if (Img.isReadyToRun())
    if (Expected<pe::ReadyToRunHeader> H = Img.readyToRunHeader(); !H)
      return H.takeError();
  if (Error E = readSignatures(M, Stats, Opts))
    return E;
  if (Error E = readSmallBlobs(M, Stats, Opts))
    return E;
  uint64_t Budget = Opts.CodeBudget ? Opts.CodeBudget : il::methodCodeBudget(Img.bytes().size());
  if (Opts.Team && Opts.Team->size() > 1 && readBodiesInParallel(Img, M, Stats, Budget, Opts))
    return Error::success();
  // In order: the first error is the one to report (also after a parallel read that failed).
  std::vector<il::Instruction> Insts;
  std::vector<uint32_t> Starts;
  uint64_t Code = 0;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    if (!hasILBody(M, R))
      continue;
    uint64_t Before = Stats.ILBytes;
    if (Error E = readBody(Img, M, R, Stats, Insts, Starts, headerOnly(Opts, R)))
      return addContext(std::move(E), "method " + tokenText(makeToken(TableId::MethodDef, R)));
    Code += Stats.ILBytes - Before;
    if (Code > Budget)
      return formatError("method body", M.rowOffset(TableId::MethodDef, R, MethodDefCol::RVA),
                         "the code of the methods up to " +
                             tokenText(makeToken(TableId::MethodDef, R)) + " adds up to " +
                             Twine(Code) + " bytes, more than " + Twine(Budget) +
                             " (8 times the file): methods share or overlap bodies beyond reason");
  }
  return Error::success();
}

} // namespace weft
