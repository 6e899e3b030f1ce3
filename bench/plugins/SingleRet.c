/*===- bench/plugins/SingleRet.c - single-ret through the C ABI -----------===*\
|*                                                                          *|
|* The pass `c-single-ret`: what the built-in single-ret does (the same    *|
|* methods left alone, MakeSingleExit for the others), through the C ABI,  *|
|* for bench/plugin.sh to weigh what crossing the ABI costs a pass.         *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#include "weft-c/Plugin.h"

#include <string.h>

static const weft_api *Api;

static weft_status create(void *Data, const weft_options *Options, void **Instance) {
  (void)Data;
  (void)Options;
  *Instance = (void *)&Api;
  return WEFT_OK;
}

static int isPrefix(uint32_t Op) {
  return Op == WEFT_OP_TAIL || Op == WEFT_OP_CONSTRAINED || Op == WEFT_OP_READONLY ||
         Op == WEFT_OP_VOLATILE || Op == WEFT_OP_UNALIGNED || Op == WEFT_OP_NO;
}

/* Whether the ret at I completes a tail call: `tail.` (among the prefixes) call; ret. */
static int isTailCallReturn(weft_instr *const *All, size_t I) {
  uint32_t Op;
  if (I == 0)
    return 0;
  Op = Api->Opcode(All[I - 1]);
  if (Op != WEFT_OP_CALL && Op != WEFT_OP_CALLVIRT && Op != WEFT_OP_CALLI)
    return 0;
  for (size_t J = I - 1; J-- > 0 && isPrefix(Api->Opcode(All[J]));)
    if (Api->Opcode(All[J]) == WEFT_OP_TAIL)
      return 1;
  return 0;
}

static weft_status runMethod(void *Instance, weft_method *C) {
  weft_single_exit Exit;
  size_t Count = 0, Rets = 0, I;
  weft_instr *const *All = Api->Instructions(Api->Body(C), &Count);
  weft_string NoRet = {"it never returns but through tail calls, if at all", 51};
  weft_string AtEnd = {"it already returns only at its end", 34};
  (void)Instance;
  for (I = 0; I < Count; ++I)
    Rets += Api->Opcode(All[I]) == WEFT_OP_RET && !isTailCallReturn(All, I);
  if (Rets == 0) {
    Api->Skip(C, NoRet);
    return WEFT_OK;
  }
  if (Rets == 1 && Api->Opcode(All[Count - 1]) == WEFT_OP_RET &&
      !isTailCallReturn(All, Count - 1)) {
    Api->Skip(C, AtEnd);
    return WEFT_OK;
  }
  if (Api->MakeSingleExit(C, 0, NULL, NULL, &Exit) != WEFT_OK) {
    Api->Skip(C, Api->LastError());
    return WEFT_OK;
  }
  return WEFT_OK;
}

WEFT_EXPORT weft_status weft_plugin_init(const weft_api *A, weft_plugin *P) {
  weft_pass_info Pass;
  weft_string Name = {"bench-single-ret", 16}, Version = {"1.0", 3};
  Api = A;
  if (A->SetPluginInfo(P, WEFT_ABI_VERSION, Name, Version) != WEFT_OK)
    return WEFT_FAILED;
  memset(&Pass, 0, sizeof Pass);
  Pass.Size = sizeof Pass;
  Pass.Name = "c-single-ret";
  Pass.Description = "single-ret through the C ABI (bench/plugin.sh)";
  Pass.Create = create;
  Pass.RunMethod = runMethod;
  return A->RegisterPass(P, &Pass);
}
