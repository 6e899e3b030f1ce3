/*===- bench/plugins/EntryExit.c - entry-exit through the C ABI -----------===*\
|*                                                                          *|
|* The pass `c-entry-exit`: what the built-in entry-exit does with probes   *|
|* that take the method's token and cannot throw (called directly, no try   *|
|* block): `ldc.i4 token; call Enter` where the body may be wrapped (after  *|
|* a constructor's base call), one exit for every ret, `ldc.i4 token; call  *|
|* Exit` at its head and before each tail call. Options as the built-in's:  *|
|* probe-assembly, probe-type, enter, exit. For bench/plugin.sh, which      *|
|* weighs what crossing the ABI costs a pass.                               *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#include "weft-c/Plugin.h"

#include <stdlib.h>
#include <string.h>

static const weft_api *Api;

typedef struct EntryExit {
  char ProbeAssembly[4096];
  char ProbeType[512];
  char Enter[128], Exit[128];
  weft_token EnterRef, ExitRef;
} EntryExit;

static weft_string text(const char *S) {
  weft_string Out;
  Out.Data = S;
  Out.Size = strlen(S);
  return Out;
}

static weft_status failWith(const char *Message) {
  Api->SetError(text(Message));
  return WEFT_FAILED;
}

static void option(const weft_options *O, const char *Key, const char *Default, char *Out,
                   size_t Capacity) {
  weft_string V;
  if (Api->Option(O, text(Key), &V) != WEFT_OK) {
    V = text(Default);
  }
  if (V.Size >= Capacity)
    V.Size = Capacity - 1;
  memcpy(Out, V.Data, V.Size);
  Out[V.Size] = 0;
}

static weft_status create(void *Data, const weft_options *O, void **Instance) {
  EntryExit *P = calloc(1, sizeof *P);
  size_t N;
  (void)Data;
  if (!P)
    return failWith("out of memory");
  N = Api->OptionPath(O, text("probe-assembly"), P->ProbeAssembly, sizeof P->ProbeAssembly);
  option(O, "probe-type", "", P->ProbeType, sizeof P->ProbeType);
  option(O, "enter", "OnEnter", P->Enter, sizeof P->Enter);
  option(O, "exit", "OnExit", P->Exit, sizeof P->Exit);
  if (N == 0 || N >= sizeof P->ProbeAssembly || !P->ProbeType[0]) {
    free(P);
    return failWith("c-entry-exit needs the options probe-assembly and probe-type");
  }
  *Instance = P;
  return WEFT_OK;
}

static void destroy(void *Instance) { free(Instance); }

/* The probe assembly as the woven module references it, its probe type and the two probes:
 * static void (int32). */
static weft_status beginModule(void *Instance, weft_module *M) {
  EntryExit *P = Instance;
  const weft_metadata *Md;
  weft_string Name, Culture, Ns, Type;
  weft_bytes Key = {NULL, 0};
  uint16_t Version[4];
  uint32_t I, V;
  weft_token Scope, Probes;
  static const uint8_t Sig[] = {0x00, 0x01, 0x01, 0x08};
  weft_bytes Signature = {Sig, sizeof Sig};
  const char *Dot = strrchr(P->ProbeType, '.');
  if (Api->OpenAssembly(M, text(P->ProbeAssembly), &Md) != WEFT_OK)
    return WEFT_FAILED;
  if (Api->RowCount(Md, 0x20) == 0)
    return failWith("the probe assembly has no assembly manifest");
  for (I = 0; I < 4; ++I) {
    if (Api->Column(Md, 0x20, 1, 1 + I, &V) != WEFT_OK)
      return WEFT_FAILED;
    Version[I] = (uint16_t)V;
  }
  if (Api->ColumnString(Md, 0x20, 1, 7, &Name) != WEFT_OK ||
      Api->ColumnString(Md, 0x20, 1, 8, &Culture) != WEFT_OK)
    return WEFT_FAILED;
  Scope = Api->AssemblyRef(M, Name, Version, Key, Culture);
  Ns.Data = P->ProbeType;
  Ns.Size = Dot ? (size_t)(Dot - P->ProbeType) : 0;
  Type = text(Dot ? Dot + 1 : P->ProbeType);
  Probes = Api->TypeRef(M, Scope, Ns, Type);
  P->EnterRef = P->Enter[0] ? Api->MemberRef(M, Probes, text(P->Enter), Signature) : 0;
  P->ExitRef = P->Exit[0] ? Api->MemberRef(M, Probes, text(P->Exit), Signature) : 0;
  return WEFT_OK;
}

/* ldc.i4 Token; call Probe, before Before; the first of the two. */
static weft_instr *callProbe(weft_body *B, weft_instr *Before, weft_token Token,
                             weft_token Probe) {
  weft_instr *Load = Api->CreateInstr(B, WEFT_OP_LDC_I4);
  weft_instr *Call = Api->CreateInstr(B, WEFT_OP_CALL);
  Api->SetInteger(Load, (int32_t)Token);
  Api->SetToken(Call, Probe);
  Api->InsertBefore(B, Before, Load);
  Api->InsertBefore(B, Before, Call);
  return Load;
}

static int isPrefix(uint32_t Op) {
  return Op == WEFT_OP_TAIL || Op == WEFT_OP_CONSTRAINED || Op == WEFT_OP_READONLY ||
         Op == WEFT_OP_VOLATILE || Op == WEFT_OP_UNALIGNED || Op == WEFT_OP_NO;
}

/* Before each `tail. call`: the exit probe (the frame ends with the call). The prefixes are
 * collected first: inserting changes the array. */
static void beforeTailCalls(weft_method *C, EntryExit *P) {
  weft_body *B = Api->Body(C);
  size_t Count = 0, I, N = 0;
  weft_instr *const *All = Api->Instructions(B, &Count);
  weft_instr **Tails = NULL;
  for (I = 0; I < Count; ++I)
    if (Api->Opcode(All[I]) == WEFT_OP_TAIL) {
      if (!Tails)
        Tails = malloc(Count * sizeof *Tails);
      if (!Tails)
        return;
      /* the first prefix of the run this tail. is in */
      size_t First = I;
      while (First > 0 && isPrefix(Api->Opcode(All[First - 1])))
        --First;
      Tails[N++] = All[First];
    }
  for (I = 0; I < N; ++I) {
    weft_instr *First = callProbe(B, Tails[I], Api->MethodToken(C), P->ExitRef);
    Api->Retarget(B, Tails[I], First);
  }
  free(Tails);
}

static weft_status runMethod(void *Instance, weft_method *C) {
  EntryExit *P = Instance;
  weft_single_exit X;
  size_t Start = 0, Count = 0;
  weft_body *B = Api->Body(C);
  weft_token Token = Api->MethodToken(C);
  if (Api->WrapStart(C, &Start) != WEFT_OK) {
    Api->Skip(C, Api->LastError());
    return WEFT_OK;
  }
  if (Api->MakeSingleExit(C, 0, NULL, NULL, &X) != WEFT_OK) {
    Api->Skip(C, Api->LastError());
    return WEFT_OK;
  }
  if (P->EnterRef)
    callProbe(B, Api->Instructions(B, &Count)[Start], Token, P->EnterRef);
  if (P->ExitRef) {
    beforeTailCalls(C, P);
    if (X.Epilogue) {
      weft_instr *First = callProbe(B, X.Epilogue, Token, P->ExitRef);
      Api->Retarget(B, X.Epilogue, First);
    }
  }
  return WEFT_OK;
}

WEFT_EXPORT weft_status weft_plugin_init(const weft_api *A, weft_plugin *Plugin) {
  static const weft_option_info Options[] = {
      {"probe-assembly", "the probe assembly (.dll), relative to the spec file"},
      {"probe-type", "the type holding the probes (Namespace.Type)"},
      {"enter", "the entry probe's name (default OnEnter; empty for none)"},
      {"exit", "the exit probe's name (default OnExit; empty for none)"}};
  weft_pass_info Pass;
  Api = A;
  if (A->SetPluginInfo(Plugin, WEFT_ABI_VERSION, text("bench-entry-exit"), text("1.0")) != WEFT_OK)
    return WEFT_FAILED;
  memset(&Pass, 0, sizeof Pass);
  Pass.Size = sizeof Pass;
  Pass.Name = "c-entry-exit";
  Pass.Description = "entry-exit with token probes through the C ABI (bench/plugin.sh)";
  Pass.Options = Options;
  Pass.OptionCount = sizeof Options / sizeof Options[0];
  Pass.Create = create;
  Pass.Destroy = destroy;
  Pass.BeginModule = beginModule;
  Pass.RunMethod = runMethod;
  return A->RegisterPass(Plugin, &Pass);
}
