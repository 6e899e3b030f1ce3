/*===- weft-c/Plugin.h - The stable C ABI of weft's plugins ------*- C -*-===*\
|*                                                                          *|
|* A plugin is a shared library (.so, .dll) that adds passes to weft. It    *|
|* includes this header (C99; C++ includes it too), links against nothing   *|
|* of weft's, and exports one function, weft_plugin_init. weft calls it     *|
|* once with a table of functions, weft_api: the plugin names itself and    *|
|* registers its passes through it, and its passes reach everything they    *|
|* see (the module, the method, its instruction graph) through the same     *|
|* table. The same library loads in `weft` and in the runtime profiler, on  *|
|* every platform weft runs on.                                             *|
|*                                                                          *|
|* Compatibility (docs/plugins.md):                                         *|
|*  - WEFT_ABI_VERSION changes only when something a built plugin relies on *|
|*    changes meaning; weft refuses a plugin of another ABI version.        *|
|*  - Within one ABI version, later weft versions only add: functions at the*|
|*    end of weft_api (its Size says how many a weft has: check with        *|
|*    WEFT_API_HAS before calling one added after WEFT_API_MINOR 0), members *|
|*    at the end of the structs a plugin fills (their Size members say which*|
|*    the plugin knew), constants. Nothing is reordered or removed.         *|
|*                                                                          *|
|* Conventions: handles are opaque pointers weft owns; strings are UTF-8,   *|
|* given as pointer and length (weft_string) and not NUL-terminated unless  *|
|* said; what weft returns lives as long as the handle it came from. A      *|
|* function that can fail returns a weft_status; its message is then the   *|
|* thread's last error (weft_api::LastError). A plugin's callback fails the *|
|* same way: it calls weft_api::SetError and returns WEFT_FAILED.           *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#ifndef WEFT_C_PLUGIN_H
#define WEFT_C_PLUGIN_H

#include "weft-c/Opcodes.h"

#include <stddef.h>
#include <stdint.h>

/* The ABI version this header describes, and the number of its additions (weft_api's
 * functions grow with it; a plugin needs a weft whose minor is at least the one it uses). */
#define WEFT_ABI_VERSION 1
#define WEFT_API_MINOR 0

#if defined(_WIN32)
#define WEFT_EXPORT __declspec(dllexport)
#else
#define WEFT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Values ---------------------------------------------------------------------------- */

typedef int32_t weft_status;
#define WEFT_OK 0
#define WEFT_FAILED 1       /* the operation failed; LastError says why */
#define WEFT_BAD_ARGUMENT 2 /* a handle, index, token or kind that does not fit the call */
#define WEFT_NOT_FOUND 3    /* what was looked up is not there (an option, a type) */

/* A metadata token: the table in the top byte (ECMA-335 II.22), the row below; 0 for none. */
typedef uint32_t weft_token;

typedef struct weft_string {
  const char *Data;
  size_t Size;
} weft_string;

typedef struct weft_bytes {
  const uint8_t *Data;
  size_t Size;
} weft_bytes;

/* ---- Handles --------------------------------------------------------------------------- */

typedef struct weft_plugin weft_plugin;     /* the plugin being loaded (weft_plugin_init) */
typedef struct weft_options weft_options;   /* the options a pass was made with */
typedef struct weft_metadata weft_metadata; /* a module's metadata, read-only */
typedef struct weft_module weft_module;     /* the module in the serial phases */
typedef struct weft_method weft_method;     /* one method, in run_method and finish_method */
typedef struct weft_body weft_body;         /* an instruction graph */
typedef struct weft_instr weft_instr;       /* an instruction of a body */

/* ---- Exception clauses ----------------------------------------------------------------- */

#define WEFT_REGION_CATCH 0
#define WEFT_REGION_FILTER 1
#define WEFT_REGION_FINALLY 2
#define WEFT_REGION_FAULT 3

/* An exception clause. An end is the first instruction after its block, or null for the end
 * of the code. */
typedef struct weft_region {
  uint32_t Kind; /* WEFT_REGION_* */
  weft_instr *TryStart, *TryEnd;
  weft_instr *HandlerStart, *HandlerEnd;
  weft_instr *FilterStart; /* WEFT_REGION_FILTER only */
  weft_token CatchType;    /* WEFT_REGION_CATCH: the caught type */
} weft_region;

/* What make_single_exit did (weaving/Returns.h describes the shape). */
typedef struct weft_single_exit {
  weft_instr *Epilogue; /* `ldloc value; ret` or `ret`; null if the method never returns */
  int HasValue;         /* whether ValueLocal holds the return value */
  uint32_t ValueLocal;
  weft_instr *End; /* where the method's own code ends: handlers go before it */
} weft_single_exit;

/* ---- What a plugin gives ---------------------------------------------------------------- */

typedef struct weft_api weft_api;

#define WEFT_PASS_USES_SIGNATURES 1u /* run_method asks every method for its parameters */

typedef struct weft_option_info {
  const char *Name;        /* NUL-terminated */
  const char *Description; /* NUL-terminated */
} weft_option_info;

/* A pass, registered with weft_api::RegisterPass (which copies it). Size is
 * sizeof(weft_pass_info) as the plugin was built: members past it count as null. Every
 * callback but Create is optional. The instance Create makes is used by one module at a time;
 * RunMethod runs for many methods of that module at once, on several threads. */
typedef struct weft_pass_info {
  uint32_t Size;
  uint32_t Flags;          /* WEFT_PASS_* */
  const char *Name;        /* NUL-terminated; unique among every pass weft knows */
  const char *Description; /* NUL-terminated, one line */
  const weft_option_info *Options;
  size_t OptionCount;
  void *Data; /* the plugin's own, given to Create */
  /* Makes an instance for the options (checked against Options before); fails with a message
   * naming the option, through SetError. */
  weft_status (*Create)(void *Data, const weft_options *Options, void **Instance);
  void (*Destroy)(void *Instance);
  weft_status (*BeginModule)(void *Instance, weft_module *Module);
  weft_status (*RunMethod)(void *Instance, weft_method *Method);
  /* After every method of a batch ran, for each in row order, with real tokens in place. */
  void (*FinishMethod)(void *Instance, weft_method *Method);
  weft_status (*EndModule)(void *Instance, weft_module *Module);
} weft_pass_info;

/* The runtime profiler's events (weft run, weft attach), for plugins that ask for them. */
typedef struct weft_object weft_object; /* a module, type or method the profiler tracks */

#define WEFT_HOOK_MODULE_LOAD 1u
#define WEFT_HOOK_MODULE_UNLOAD 2u
#define WEFT_HOOK_JIT 4u
#define WEFT_HOOK_REJIT 8u
#define WEFT_HOOK_GC 16u

typedef struct weft_module_event {
  weft_object *Module;
  uint64_t ModuleId; /* the runtime's ModuleID */
  weft_string Path;  /* the file it was loaded from (empty for none) */
} weft_module_event;

typedef struct weft_method_event {
  weft_object *Module, *Type, *Method; /* Type: the declaring TypeDef (null if unknown) */
  uint64_t ModuleId, FunctionId;
  weft_token Token; /* the MethodDef */
  int Woven;        /* 1 if weft's passes gave this compilation a new body */
} weft_method_event;

typedef struct weft_gc_event {
  int Finished;         /* 0: a collection starts; 1: it has ended */
  uint32_t Reason;      /* at the start: 1 induced, 0 other */
  uint32_t Generations; /* at the start: how many entries Collected has */
  const int *Collected; /* at the start: Collected[G] is 1 if generation G is collected */
} weft_gc_event;

/* Callbacks in the runtime profiler (offline weaving never calls them), any of them null. They
 * run on the runtime's threads, several at once; Data is the plugin's. Per-object data of the
 * plugin's own: weft_api::GetObjectData/SetObjectData. */
typedef struct weft_runtime_hooks {
  uint32_t Size;
  uint32_t Events; /* WEFT_HOOK_* */
  void *Data;
  void (*ModuleLoaded)(void *Data, const weft_module_event *Event);
  void (*ModuleUnloading)(void *Data, const weft_module_event *Event);
  void (*MethodCompiling)(void *Data, const weft_method_event *Event);
  void (*MethodReJitting)(void *Data, const weft_method_event *Event);
  void (*GarbageCollection)(void *Data, const weft_gc_event *Event);
} weft_runtime_hooks;

/* ---- The functions weft gives --------------------------------------------------------- */

/* Calls back for each instruction sequence a helper asks the plugin to place: the plugin
 * creates instructions and inserts them before Before (null: the end of the body). */
typedef void (*weft_emit_fn)(void *User, weft_body *Body, weft_instr *Before, int TailCall);
/* Receives one signature blob of a list. */
typedef void (*weft_bytes_fn)(void *User, weft_bytes Bytes);

struct weft_api {
  uint32_t Size;       /* sizeof(weft_api) of this weft: WEFT_API_HAS checks against it */
  uint32_t AbiVersion; /* WEFT_ABI_VERSION */
  uint32_t Minor;      /* WEFT_API_MINOR of this weft */
  weft_string WeftVersion;

  /* Errors: the thread's last error, and the message of the failure a callback returns. */
  weft_string (*LastError)(void);
  void (*SetError)(weft_string Message);

  /* -- Loading (weft_plugin_init only) -- */
  /* First: the ABI version the plugin was built for (WEFT_ABI_VERSION), its name and version
   * (for messages and `weft passes`). FAILED if weft does not implement that ABI version. */
  weft_status (*SetPluginInfo)(weft_plugin *Plugin, uint32_t AbiVersion, weft_string Name,
                               weft_string Version);
  weft_status (*RegisterPass)(weft_plugin *Plugin, const weft_pass_info *Pass);
  weft_status (*SetRuntimeHooks)(weft_plugin *Plugin, const weft_runtime_hooks *Hooks);

  /* -- Options -- */
  size_t (*OptionCount)(const weft_options *Options);
  void (*OptionAt)(const weft_options *Options, size_t Index, weft_string *Key,
                   weft_string *Value);
  /* WEFT_NOT_FOUND if the option was not given. */
  weft_status (*Option)(const weft_options *Options, weft_string Key, weft_string *Value);
  /* A path option, made relative to the spec file's folder: written as TokenText writes;
   * returns 0 if the option was not given. */
  size_t (*OptionPath)(const weft_options *Options, weft_string Key, char *Buffer,
                       size_t Capacity);
  /* The rule that gave the options, for messages ("rules[0] 'name'", "--pass"). */
  weft_string (*OptionRule)(const weft_options *Options);

  /* -- Metadata, read-only (tables and columns as ECMA-335 II.22 and the portable PDB number
   * them: column 0 is the first) -- */
  uint32_t (*RowCount)(const weft_metadata *Md, uint32_t Table);
  /* A column of a row: a constant or flags (U8/U16/U32), as is. */
  weft_status (*Column)(const weft_metadata *Md, uint32_t Table, uint32_t Row, uint32_t Column,
                        uint32_t *Value);
  /* An index or coded index column, as the token of the row it names (0 for none). */
  weft_status (*ColumnToken)(const weft_metadata *Md, uint32_t Table, uint32_t Row,
                             uint32_t Column, weft_token *Token);
  weft_status (*ColumnString)(const weft_metadata *Md, uint32_t Table, uint32_t Row,
                              uint32_t Column, weft_string *Value);
  weft_status (*ColumnBlob)(const weft_metadata *Md, uint32_t Table, uint32_t Row,
                            uint32_t Column, weft_bytes *Value);
  /* The rows of CustomAttribute whose parent is Parent, in order. */
  weft_status (*CustomAttributes)(const weft_metadata *Md, weft_token Parent,
                                  const uint32_t **Rows, size_t *Count);
  /* The Param rows of a method, the methods and fields of a type: the first and how many
   * (through the Ptr tables where the module has them: Ptr rows resolved). */
  weft_status (*MethodParams)(const weft_metadata *Md, uint32_t MethodRow, uint32_t *Rows,
                              size_t Capacity, size_t *Count);
  weft_status (*TypeMethods)(const weft_metadata *Md, uint32_t TypeRow, uint32_t *First,
                             uint32_t *Count);
  weft_status (*TypeFields)(const weft_metadata *Md, uint32_t TypeRow, uint32_t *First,
                            uint32_t *Count);
  uint32_t (*DeclaringTypeOfMethod)(const weft_metadata *Md, uint32_t MethodRow);
  /* A TypeDef by namespace and name (nested types: "Outer/Inner"); 0 if none. */
  uint32_t (*FindTypeDef)(const weft_metadata *Md, weft_string Namespace, weft_string Name);
  /* The token as ildasm writes an ldtoken operand: `[System.Runtime]System.Object`,
   * `method instance void Ns.Type::M(int32)`, `field int32 Ns.Type::f`. Writes at most
   * Capacity bytes (no NUL) and returns the text's whole length, as snprintf does. */
  size_t (*TokenText)(const weft_metadata *Md, weft_token Token, char *Buffer, size_t Capacity);

  /* -- The module, in BeginModule and EndModule -- */
  const weft_metadata *(*ModuleMetadata)(weft_module *M);
  weft_string (*AssemblyName)(weft_module *M);
  /* The file it was read from (offline), empty in the runtime profiler. */
  weft_string (*InputPath)(weft_module *M);
  /* The process weaving it (the runtime profiler), 0 offline. */
  uint32_t (*ProcessId)(weft_module *M);
  /* References: an equal existing row, or a new one. */
  weft_token (*AssemblyRef)(weft_module *M, weft_string Name, const uint16_t Version[4],
                            weft_bytes PublicKeyOrToken, weft_string Culture);
  weft_token (*TypeRef)(weft_module *M, weft_token Scope, weft_string Namespace,
                        weft_string Name);
  weft_token (*MemberRef)(weft_module *M, weft_token Parent, weft_string Name,
                          weft_bytes Signature);
  weft_token (*TypeSpec)(weft_module *M, weft_bytes Signature);
  weft_token (*MethodSpec)(weft_module *M, weft_token Method, weft_bytes Instantiation);
  weft_token (*StandAloneSig)(weft_module *M, weft_bytes Signature);
  weft_status (*UserString)(weft_module *M, weft_string Text, weft_token *Token);
  /* The AssemblyRef through which the module reaches the core library; 0 in the core library. */
  weft_token (*CoreScope)(weft_module *M);
  /* A type of the core library ("System", "Object"), or of a framework assembly
   * ("System.Console"), referenced as the module references the framework. */
  weft_status (*CoreType)(weft_module *M, weft_string Namespace, weft_string Name,
                          weft_token *Token);
  weft_status (*FrameworkType)(weft_module *M, weft_string Assembly, weft_string Namespace,
                               weft_string Name, weft_token *Token);
  /* Name, or Name followed by as many ' as make it free in Namespace (a string weft owns for
   * the module's time). */
  weft_string (*FreeTypeName)(weft_module *M, weft_string Namespace, weft_string Name);
  /* Definitions: types at the end; members to the last type added. */
  weft_token (*AddType)(weft_module *M, uint32_t Flags, weft_string Namespace, weft_string Name,
                        weft_token Extends);
  weft_status (*AddField)(weft_module *M, weft_token Type, uint16_t Flags, weft_string Name,
                          weft_bytes Signature, weft_token *Field);
  weft_status (*AddMethod)(weft_module *M, weft_token Type, uint16_t Flags, uint16_t ImplFlags,
                           weft_string Name, weft_bytes Signature, weft_token *Method);
  void (*AddCustomAttribute)(weft_module *M, weft_token Parent, weft_token Constructor,
                             weft_bytes Value);
  /* An empty body to fill and give to SetBody. */
  weft_body *(*NewBody)(weft_module *M);
  /* Gives a method added with AddMethod its body (max-stack is computed); Body is consumed. */
  weft_status (*SetBody)(weft_module *M, weft_token Method, weft_body *Body, int ReturnsValue);
  /* A file written next to the output, its name the output's with Suffix (".map"). */
  void (*AddSideFile)(weft_module *M, weft_string Suffix, weft_bytes Contents);
  void (*Warn)(weft_module *M, weft_string Message);
  /* Another assembly's metadata by path (probes, replacements), read once per run; it lives
   * as long as the module. */
  weft_status (*OpenAssembly)(weft_module *M, weft_string Path, const weft_metadata **Md);

  /* -- A method, in RunMethod and FinishMethod -- */
  const weft_metadata *(*MethodMetadata)(weft_method *C);
  weft_token (*MethodToken)(weft_method *C);
  uint32_t (*DeclaringType)(weft_method *C); /* a TypeDef row; 0 for a global method */
  weft_string (*MethodDisplayName)(weft_method *C); /* "Ns.Type::Method" */
  int (*IsConstructor)(weft_method *C);
  int (*IsStatic)(weft_method *C);
  int (*DeclaringTypeIsValueType)(weft_method *C);
  weft_body *(*Body)(weft_method *C);
  /* The method's signature: its return type and each parameter's, as type signature bytes
   * (ECMA-335 II.23.2.12). Parameters are decoded when first asked for. */
  weft_bytes (*ReturnType)(weft_method *C);
  uint32_t (*ParamCount)(weft_method *C);
  weft_bytes (*ParamType)(weft_method *C, uint32_t Index);
  /* The declaring type seen from inside it (its instantiation over its own parameters). */
  weft_bytes (*DeclaringTypeSignature)(weft_method *C);
  /* Whether a value of the type cannot be boxed (Span<T>, pointers, TypedReference); 0 also for
   * bytes that are no type signature. */
  int (*IsByRefLike)(weft_method *C, weft_bytes Type);
  /* Provisional tokens (real after the batch: FinishMethod sees the real ones). */
  weft_token (*MethodTypeRef)(weft_method *C, weft_token Scope, weft_string Namespace,
                              weft_string Name);
  weft_token (*MethodMemberRef)(weft_method *C, weft_token Parent, weft_string Name,
                                weft_bytes Signature);
  weft_token (*MethodTypeSpec)(weft_method *C, weft_bytes Signature);
  weft_token (*MethodMethodSpec)(weft_method *C, weft_token Method, weft_bytes Instantiation);
  weft_token (*MethodUserString)(weft_method *C, weft_string Text);
  /* A token for box, ldobj and the like of a type: its TypeDef, TypeRef or a TypeSpec; 0, with
   * the last error, for bytes that are no type signature. */
  weft_token (*TypeToken)(weft_method *C, weft_bytes Type);
  /* The types of the values a call instruction takes from the stack, each as local variable
   * type bytes, given to Each in order; Constrained: the constrained. prefix's type or 0. */
  weft_status (*CallOperandTypes)(weft_method *C, const weft_instr *Call, weft_token Constrained,
                                  weft_bytes_fn Each, void *User);
  /* A new local of the type (its signature bytes); returns its number. */
  uint32_t (*AddLocal)(weft_method *C, weft_bytes Type);
  uint32_t (*LocalCount)(weft_method *C);
  /* The pass leaves the method as it was, for Reason; or notes something (--verbose shows). */
  void (*Skip)(weft_method *C, weft_string Reason);
  void (*Note)(weft_method *C, weft_string What);
  /* One pointer of the pass's own per method, from RunMethod to FinishMethod. */
  void (*SetMethodData)(weft_method *C, void *Data);
  void *(*MethodData)(weft_method *C);

  /* -- Instruction graphs -- */
  /* The instructions in order: an array valid until the body is next edited. */
  weft_instr *const *(*Instructions)(weft_body *B, size_t *Count);
  weft_instr *(*CreateInstr)(weft_body *B, uint32_t Opcode);
  /* Places I (created, not yet placed) before Before; null Before: at the end. */
  void (*InsertBefore)(weft_body *B, weft_instr *Before, weft_instr *I);
  /* Removes I; what pointed at it points at the next instruction. */
  void (*Remove)(weft_body *B, weft_instr *I);
  /* Every branch, switch case and clause boundary at From goes to To. */
  void (*Retarget)(weft_body *B, weft_instr *From, weft_instr *To);
  uint32_t (*Opcode)(const weft_instr *I);
  /* A value that is no opcode leaves the instruction as it was (CreateInstr returns null for
   * one, with the last error). */
  void (*SetOpcode)(weft_instr *I, uint32_t Opcode);
  uint32_t (*OperandKind)(uint32_t Opcode); /* WEFT_OPERAND_* */
  /* The operand, by its kind: integers (and float bits), tokens, argument and local numbers,
   * a branch target, switch targets. */
  int64_t (*Integer)(const weft_instr *I);
  void (*SetInteger)(weft_instr *I, int64_t Value);
  weft_token (*Token)(const weft_instr *I);
  void (*SetToken)(weft_instr *I, weft_token Token);
  uint32_t (*Index)(const weft_instr *I);
  void (*SetIndex)(weft_instr *I, uint32_t Index);
  weft_instr *(*Target)(const weft_instr *I);
  void (*SetTarget)(weft_instr *I, weft_instr *Target);
  size_t (*SwitchTargets)(const weft_instr *I, weft_instr *const **Targets);
  void (*SetSwitchTargets)(weft_instr *I, weft_instr *const *Targets, size_t Count);
  /* Where the instruction was in the file (0xFFFFFFFF: added by a pass). */
  uint32_t (*OriginalOffset)(const weft_instr *I);
  size_t (*RegionCount)(weft_body *B);
  void (*GetRegion)(weft_body *B, size_t Index, weft_region *Region);
  void (*SetRegion)(weft_body *B, size_t Index, const weft_region *Region);
  void (*AddRegion)(weft_body *B, const weft_region *Region);
  int (*InitLocals)(weft_body *B);
  void (*SetInitLocals)(weft_body *B, int InitLocals);

  /* -- What the built-in passes share (weaving/Returns.h) -- */
  /* Places code before every way out of the method: each ret (the value on the stack) and each
   * tail call (its arguments on the stack; the code must leave the stack as it found it). */
  void (*BeforeEachExit)(weft_method *C, weft_emit_fn Emit, void *User);
  /* Where code wrapping the body may begin (0, or after the base constructor call); FAILED,
   * with the reason, when the body cannot be wrapped in a try block. */
  weft_status (*WrapStart)(weft_method *C, size_t *Index);
  /* Sends every ret to one epilogue at the end; with Wrap, as leave, and tail calls moved to
   * stubs after it, each starting with StubExit's code (may be null). */
  weft_status (*MakeSingleExit)(weft_method *C, int Wrap, weft_emit_fn StubExit, void *User,
                                weft_single_exit *Exit);
  /* Makes TryFirst up to HandlerFirst a try block whose handler runs from HandlerFirst to End;
   * returns the new clause's index. */
  size_t (*ProtectBody)(weft_body *B, weft_instr *TryFirst, weft_instr *HandlerFirst,
                        weft_instr *End, uint32_t Kind, weft_token CatchType);

  /* -- The runtime profiler's per-object data (hooks) -- */
  void *(*GetObjectData)(weft_object *Object, weft_plugin *Plugin);
  void (*SetObjectData)(weft_object *Object, weft_plugin *Plugin, void *Data,
                        void (*Release)(void *));
};

/* Whether weft's table has the function Member (one added after the plugin's minimum). */
#define WEFT_API_HAS(Api, Member)                                                             \
  ((Api)->Size >= offsetof(weft_api, Member) + sizeof((Api)->Member) && (Api)->Member)

/* The entry point every plugin exports. It calls SetPluginInfo, then RegisterPass for each
 * pass; returns WEFT_OK, or fails (SetError) and weft refuses the plugin.
 * Plugin identifies the plugin in the calls that take it, for the plugin's lifetime. */
WEFT_EXPORT weft_status weft_plugin_init(const weft_api *Api, weft_plugin *Plugin);

#ifdef __cplusplus
}
#endif

#endif
