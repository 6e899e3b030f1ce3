/*===- tests/plugin/abi-v1/Trace.c - A C plugin of ABI version 1 ---------===*\
|*                                                                          *|
|* Built in C99 against the headers of the first version of weft's C ABI,  *|
|* kept beside it (weft-c/ here, never changed), so that every later weft  *|
|* is tested against a plugin built for version 1.                          *|
|*                                                                          *|
|* Its pass `c-trace` makes each method print "PREFIX: enter Type::Method"  *|
|* when entered and "PREFIX: leave Type::Method" before each way out (the   *|
|* option prefix, default c-trace); with fail=NAME it fails on the methods  *|
|* called NAME. It counts the methods it wove in FinishMethod and writes    *|
|* "methods N" to the side file OUTPUT.c-trace (EndModule). Its runtime     *|
|* hooks count JIT compilations, keeping a counter on each method object,   *|
|* and write "jit N" and "methods-with-data N" at exit to the file          *|
|* WEFT_C_TRACE_REPORT names.                                               *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#include "weft-c/Plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const weft_api *Api;
static weft_plugin *Self;

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

typedef struct Trace {
  char Prefix[64];
  char Fail[128];
  weft_token WriteLine; /* void [System.Console]System.Console::WriteLine(string) */
  unsigned Woven;       /* FinishMethod's count: the serial phase, no lock */
} Trace;

static weft_status create(void *Data, const weft_options *Options, void **Instance) {
  Trace *T = (Trace *)calloc(1, sizeof(Trace));
  weft_string V;
  (void)Data;
  if (!T)
    return failWith("c-trace: out of memory");
  strcpy(T->Prefix, "c-trace");
  if (Api->Option(Options, text("prefix"), &V) == WEFT_OK) {
    if (V.Size == 0 || V.Size >= sizeof T->Prefix) {
      free(T);
      return failWith("c-trace: prefix must have 1 to 63 bytes");
    }
    memcpy(T->Prefix, V.Data, V.Size);
    T->Prefix[V.Size] = 0;
  }
  if (Api->Option(Options, text("fail"), &V) == WEFT_OK && V.Size < sizeof T->Fail) {
    memcpy(T->Fail, V.Data, V.Size);
    T->Fail[V.Size] = 0;
  }
  *Instance = T;
  return WEFT_OK;
}

static void destroy(void *Instance) { free(Instance); }

static weft_status beginModule(void *Instance, weft_module *M) {
  Trace *T = (Trace *)Instance;
  weft_token Console;
  /* void (string): default calling convention, one parameter, void, string. */
  static const uint8_t Sig[] = {0x00, 0x01, 0x01, 0x0E};
  weft_bytes SigBytes;
  if (Api->FrameworkType(M, text("System.Console"), text("System"), text("Console"), &Console))
    return WEFT_FAILED; /* LastError already says why */
  SigBytes.Data = Sig;
  SigBytes.Size = sizeof Sig;
  T->WriteLine = Api->MemberRef(M, Console, text("WriteLine"), SigBytes);
  T->Woven = 0;
  return WEFT_OK;
}

/* Places `ldstr Line; call WriteLine` before Before. */
static void printLine(weft_body *B, weft_instr *Before, weft_token Line, weft_token WriteLine) {
  weft_instr *Load = Api->CreateInstr(B, WEFT_OP_LDSTR);
  weft_instr *Call = Api->CreateInstr(B, WEFT_OP_CALL);
  Api->SetToken(Load, Line);
  Api->SetToken(Call, WriteLine);
  Api->InsertBefore(B, Before, Load);
  Api->InsertBefore(B, Before, Call);
}

typedef struct Leave {
  weft_token Line, WriteLine;
} Leave;

static void beforeExit(void *User, weft_body *B, weft_instr *Before, int TailCall) {
  const Leave *L = (const Leave *)User;
  (void)TailCall;
  printLine(B, Before, L->Line, L->WriteLine);
}

static weft_status runMethod(void *Instance, weft_method *C) {
  const Trace *T = (const Trace *)Instance;
  weft_string Name = Api->MethodDisplayName(C);
  weft_body *B = Api->Body(C);
  size_t Count = 0;
  weft_instr *const *All = Api->Instructions(B, &Count);
  char Line[1024];
  Leave L;
  if (T->Fail[0]) {
    size_t N = strlen(T->Fail);
    if (Name.Size > N + 2 && memcmp(Name.Data + Name.Size - N, T->Fail, N) == 0 &&
        memcmp(Name.Data + Name.Size - N - 2, "::", 2) == 0) {
      snprintf(Line, sizeof Line, "c-trace fails on %.*s", (int)Name.Size, Name.Data);
      return failWith(Line);
    }
  }
  snprintf(Line, sizeof Line, "%s: enter %.*s", T->Prefix, (int)Name.Size, Name.Data);
  printLine(B, Count ? All[0] : NULL, Api->MethodUserString(C, text(Line)), T->WriteLine);
  snprintf(Line, sizeof Line, "%s: leave %.*s", T->Prefix, (int)Name.Size, Name.Data);
  L.Line = Api->MethodUserString(C, text(Line));
  L.WriteLine = T->WriteLine;
  Api->BeforeEachExit(C, beforeExit, &L);
  Api->SetMethodData(C, (void *)1);
  return WEFT_OK;
}

static void finishMethod(void *Instance, weft_method *C) {
  if (Api->MethodData(C))
    ++((Trace *)Instance)->Woven;
}

static weft_status endModule(void *Instance, weft_module *M) {
  char Line[64];
  weft_bytes Contents;
  int N = snprintf(Line, sizeof Line, "methods %u\n", ((Trace *)Instance)->Woven);
  Contents.Data = (const uint8_t *)Line;
  Contents.Size = (size_t)N;
  Api->AddSideFile(M, text(".c-trace"), Contents);
  return WEFT_OK;
}

/* ---- Runtime hooks ---- */

static unsigned long Jitted, WithData;

static void releaseCounter(void *Data) { free(Data); }

static void methodCompiling(void *Data, const weft_method_event *E) {
  unsigned *Counter = (unsigned *)Api->GetObjectData(E->Method, Self);
  (void)Data;
  __atomic_fetch_add(&Jitted, 1, __ATOMIC_RELAXED);
  if (!Counter) {
    Counter = (unsigned *)calloc(1, sizeof(unsigned));
    if (!Counter)
      return;
    Api->SetObjectData(E->Method, Self, Counter, releaseCounter);
    __atomic_fetch_add(&WithData, 1, __ATOMIC_RELAXED);
  }
  ++*Counter;
}

static void report(void) {
  const char *Path = getenv("WEFT_C_TRACE_REPORT");
  FILE *F;
  if (!Path || !Jitted)
    return;
  F = fopen(Path, "w");
  if (!F)
    return;
  fprintf(F, "jit %lu\nmethods-with-data %lu\n", Jitted, WithData);
  fclose(F);
}

static const weft_option_info Options[] = {
    {"prefix", "what the lines start with (default c-trace)"},
    {"fail", "fail on the methods of this name"},
};

WEFT_EXPORT weft_status weft_plugin_init(const weft_api *A, weft_plugin *P) {
  weft_pass_info Pass;
  weft_runtime_hooks Hooks;
  Api = A;
  Self = P;
  if (A->SetPluginInfo(P, WEFT_ABI_VERSION, text("c-trace"), text("1.0")) != WEFT_OK)
    return WEFT_FAILED;
  memset(&Pass, 0, sizeof Pass);
  Pass.Size = sizeof Pass;
  Pass.Name = "c-trace";
  Pass.Description = "C plugin pass: every method prints 'c-trace: enter/leave Type::Method'";
  Pass.Options = Options;
  Pass.OptionCount = sizeof Options / sizeof Options[0];
  Pass.Create = create;
  Pass.Destroy = destroy;
  Pass.BeginModule = beginModule;
  Pass.RunMethod = runMethod;
  Pass.FinishMethod = finishMethod;
  Pass.EndModule = endModule;
  if (A->RegisterPass(P, &Pass) != WEFT_OK)
    return WEFT_FAILED;
  memset(&Hooks, 0, sizeof Hooks);
  Hooks.Size = sizeof Hooks;
  Hooks.Events = WEFT_HOOK_JIT;
  Hooks.MethodCompiling = methodCompiling;
  atexit(report);
  return A->SetRuntimeHooks(P, &Hooks);
}
