//===- weft/Plugin.hpp - weft's C++ plugin API over the C ABI ---*- C++ -*-===//
//
// A header-only layer over include/weft-c/Plugin.h for plugins written in C++17: classes for
// the handles, exceptions for failures, and a pass base class. Everything it does goes through
// the C ABI's function table, so a plugin built with it depends on nothing of weft's build
// (compiler, standard library, LLVM) and keeps loading in later weft versions of the same ABI.
//
//   class Hello : public weft::sdk::Pass {
//     void runMethod(weft::sdk::Method &M) override { ... }
//   };
//   WEFT_PLUGIN("my-plugin", "1.0", [](weft::sdk::Plugin &P) {
//     P.addPass<Hello>({"hello", "says hello", {{"prefix", "what the lines start with"}}});
//   })
//
// Exceptions never cross into weft: a pass's callbacks throw weft::sdk::Failure (or any
// std::exception) and the trampolines turn it into the ABI's error.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PLUGIN_HPP
#define WEFT_PLUGIN_HPP

#include "weft-c/Plugin.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::sdk {

/// The table weft gave the plugin (set before anything else runs).
inline const weft_api *Api = nullptr;

inline std::string_view view(weft_string S) { return S.Data ? std::string_view(S.Data, S.Size) : std::string_view(); }
inline weft_string str(std::string_view S) { return {S.data(), S.size()}; }
inline weft_bytes bytes(const std::vector<uint8_t> &B) { return {B.data(), B.size()}; }
inline std::vector<uint8_t> copy(weft_bytes B) { return B.Data ? std::vector<uint8_t>(B.Data, B.Data + B.Size) : std::vector<uint8_t>(); }

/// A failure, with the message weft shows.
class Failure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws the thread's last error if \p S is not WEFT_OK.
inline void check(weft_status S) {
  if (S != WEFT_OK)
    throw Failure(std::string(view(Api->LastError())));
}

/// A text weft writes snprintf's way.
template <typename Fn> std::string text(Fn &&Write) {
  std::string Out(64, '\0');
  size_t N = Write(Out.data(), Out.size());
  if (N > Out.size()) {
    Out.resize(N);
    Write(Out.data(), Out.size());
  }
  Out.resize(N);
  return Out;
}

class Instr {
public:
  Instr(weft_instr *I = nullptr) : I(I) {}
  weft_instr *handle() const { return I; }
  explicit operator bool() const { return I != nullptr; }
  bool operator==(const Instr &O) const { return I == O.I; }
  bool operator!=(const Instr &O) const { return I != O.I; }

  uint32_t opcode() const { return Api->Opcode(I); }
  void setOpcode(uint32_t Op) { Api->SetOpcode(I, Op); }
  uint32_t operandKind() const { return Api->OperandKind(opcode()); }
  int64_t integer() const { return Api->Integer(I); }
  void setInteger(int64_t V) { Api->SetInteger(I, V); }
  weft_token token() const { return Api->Token(I); }
  void setToken(weft_token T) { Api->SetToken(I, T); }
  uint32_t index() const { return Api->Index(I); }
  void setIndex(uint32_t V) { Api->SetIndex(I, V); }
  Instr target() const { return Api->Target(I); }
  void setTarget(Instr T) { Api->SetTarget(I, T.I); }
  std::vector<Instr> switchTargets() const {
    weft_instr *const *All = nullptr;
    size_t N = Api->SwitchTargets(I, &All);
    return std::vector<Instr>(All, All + N);
  }
  uint32_t originalOffset() const { return Api->OriginalOffset(I); }

private:
  weft_instr *I;
};

class Body;

/// Places new instructions before one instruction (null: at the end), in the short forms of
/// constants, locals and arguments (the encoder widens branches as needed).
class Emitter {
public:
  Emitter(weft_body *B, Instr Before) : B(B), Before(Before) {}

  Instr op(uint32_t Op) { return place(Api->CreateInstr(B, Op)); }
  Instr tok(uint32_t Op, weft_token T) {
    Instr I = Api->CreateInstr(B, Op);
    I.setToken(T);
    return place(I);
  }
  Instr branch(uint32_t Op, Instr Target) {
    Instr I = Api->CreateInstr(B, Op);
    I.setTarget(Target);
    return place(I);
  }
  Instr ldc(int32_t V) {
    if (V >= -1 && V <= 8)
      return op(uint32_t(WEFT_OP_LDC_I4_0 + V));
    Instr I = Api->CreateInstr(B, V >= -128 && V <= 127 ? WEFT_OP_LDC_I4_S : WEFT_OP_LDC_I4);
    I.setInteger(V);
    return place(I);
  }
  Instr ldarg(uint32_t N) { return var(N, WEFT_OP_LDARG_0, WEFT_OP_LDARG_S); }
  Instr ldloc(uint32_t N) { return var(N, WEFT_OP_LDLOC_0, WEFT_OP_LDLOC_S); }
  Instr stloc(uint32_t N) { return var(N, WEFT_OP_STLOC_0, WEFT_OP_STLOC_S); }
  /// Places an instruction made before (a branch target made before its branch).
  Instr put(Instr I) { return place(I); }
  Instr before() const { return Before; }

private:
  Instr var(uint32_t N, uint32_t Zero, uint32_t Short) {
    if (N < 4)
      return op(Zero + N);
    Instr I = Api->CreateInstr(B, Short);
    I.setIndex(N);
    return place(I);
  }
  Instr place(Instr I) {
    if (!I)
      check(WEFT_BAD_ARGUMENT);
    Api->InsertBefore(B, Before.handle(), I.handle());
    return I;
  }
  weft_body *B;
  Instr Before;
};

class Body {
public:
  Body(weft_body *B) : B(B) {}
  weft_body *handle() const { return B; }

  /// The instructions in order (a copy: edit freely while walking it).
  std::vector<Instr> instructions() const {
    size_t N = 0;
    weft_instr *const *All = Api->Instructions(B, &N);
    return std::vector<Instr>(All, All + N);
  }
  Instr create(uint32_t Op) { return Api->CreateInstr(B, Op); }
  void insertBefore(Instr Before, Instr I) { Api->InsertBefore(B, Before.handle(), I.handle()); }
  void remove(Instr I) { Api->Remove(B, I.handle()); }
  void retarget(Instr From, Instr To) { Api->Retarget(B, From.handle(), To.handle()); }
  Emitter emitBefore(Instr Before) { return Emitter(B, Before); }
  Emitter emitAtEnd() { return Emitter(B, nullptr); }

  std::vector<weft_region> regions() const {
    std::vector<weft_region> Out(Api->RegionCount(B));
    for (size_t I = 0; I < Out.size(); ++I)
      Api->GetRegion(B, I, &Out[I]);
    return Out;
  }
  void setRegion(size_t Index, const weft_region &R) { Api->SetRegion(B, Index, &R); }
  void addRegion(const weft_region &R) { Api->AddRegion(B, &R); }
  size_t protect(Instr TryFirst, Instr HandlerFirst, Instr End, uint32_t Kind,
                 weft_token CatchType = 0) {
    return Api->ProtectBody(B, TryFirst.handle(), HandlerFirst.handle(), End.handle(), Kind,
                            CatchType);
  }

private:
  weft_body *B;
};

/// A module's metadata, read-only (ECMA-335 II.22's tables and columns).
class Metadata {
public:
  Metadata(const weft_metadata *Md) : Md(Md) {}
  const weft_metadata *handle() const { return Md; }
  uint32_t rows(uint32_t Table) const { return Api->RowCount(Md, Table); }
  uint32_t value(uint32_t Table, uint32_t Row, uint32_t Column) const {
    uint32_t V = 0;
    check(Api->Column(Md, Table, Row, Column, &V));
    return V;
  }
  weft_token token(uint32_t Table, uint32_t Row, uint32_t Column) const {
    weft_token T = 0;
    check(Api->ColumnToken(Md, Table, Row, Column, &T));
    return T;
  }
  std::string_view string(uint32_t Table, uint32_t Row, uint32_t Column) const {
    weft_string S{};
    check(Api->ColumnString(Md, Table, Row, Column, &S));
    return view(S);
  }
  weft_bytes blob(uint32_t Table, uint32_t Row, uint32_t Column) const {
    weft_bytes B{};
    check(Api->ColumnBlob(Md, Table, Row, Column, &B));
    return B;
  }
  /// The CustomAttribute rows of \p Parent.
  std::vector<uint32_t> customAttributes(weft_token Parent) const {
    const uint32_t *Rows = nullptr;
    size_t N = 0;
    check(Api->CustomAttributes(Md, Parent, &Rows, &N));
    return std::vector<uint32_t>(Rows, Rows + N);
  }
  std::string tokenText(weft_token T) const {
    return text([&](char *B, size_t N) { return Api->TokenText(Md, T, B, N); });
  }

private:
  const weft_metadata *Md;
};

class Options {
public:
  Options(const weft_options *O) : O(O) {}
  bool has(std::string_view Key) const {
    weft_string V{};
    return Api->Option(O, str(Key), &V) == WEFT_OK;
  }
  std::string get(std::string_view Key, std::string_view Default = "") const {
    weft_string V{};
    return std::string(Api->Option(O, str(Key), &V) == WEFT_OK ? view(V) : Default);
  }
  std::string path(std::string_view Key) const {
    return text([&](char *B, size_t N) { return Api->OptionPath(O, str(Key), B, N); });
  }
  std::string rule() const { return std::string(view(Api->OptionRule(O))); }

private:
  const weft_options *O;
};

class Module {
public:
  Module(weft_module *M) : M(M) {}
  weft_module *handle() const { return M; }
  Metadata metadata() const { return Api->ModuleMetadata(M); }
  std::string_view assemblyName() const { return view(Api->AssemblyName(M)); }
  std::string_view inputPath() const { return view(Api->InputPath(M)); }
  weft_token typeRef(weft_token Scope, std::string_view Ns, std::string_view Name) {
    return Api->TypeRef(M, Scope, str(Ns), str(Name));
  }
  weft_token memberRef(weft_token Parent, std::string_view Name, const std::vector<uint8_t> &Sig) {
    return Api->MemberRef(M, Parent, str(Name), bytes(Sig));
  }
  weft_token typeSpec(const std::vector<uint8_t> &Sig) { return Api->TypeSpec(M, bytes(Sig)); }
  weft_token userString(std::string_view Text) {
    weft_token T = 0;
    check(Api->UserString(M, str(Text), &T));
    return T;
  }
  weft_token coreScope() { return Api->CoreScope(M); }
  weft_token coreType(std::string_view Ns, std::string_view Name) {
    weft_token T = 0;
    check(Api->CoreType(M, str(Ns), str(Name), &T));
    return T;
  }
  weft_token frameworkType(std::string_view Assembly, std::string_view Ns, std::string_view Name) {
    weft_token T = 0;
    check(Api->FrameworkType(M, str(Assembly), str(Ns), str(Name), &T));
    return T;
  }
  void warn(std::string_view Message) { Api->Warn(M, str(Message)); }
  void addSideFile(std::string_view Suffix, std::string_view Contents) {
    Api->AddSideFile(M, str(Suffix),
                     {reinterpret_cast<const uint8_t *>(Contents.data()), Contents.size()});
  }

private:
  weft_module *M;
};

class Method {
public:
  Method(weft_method *C) : C(C) {}
  weft_method *handle() const { return C; }
  Metadata metadata() const { return Api->MethodMetadata(C); }
  weft_token token() const { return Api->MethodToken(C); }
  std::string_view displayName() const { return view(Api->MethodDisplayName(C)); }
  bool isConstructor() const { return Api->IsConstructor(C); }
  bool isStatic() const { return Api->IsStatic(C); }
  Body body() const { return Api->Body(C); }
  weft_bytes returnType() const { return Api->ReturnType(C); }
  uint32_t paramCount() const { return Api->ParamCount(C); }
  weft_bytes paramType(uint32_t I) const { return Api->ParamType(C, I); }
  weft_token userString(std::string_view Text) { return Api->MethodUserString(C, str(Text)); }
  weft_token memberRef(weft_token Parent, std::string_view Name, const std::vector<uint8_t> &Sig) {
    return Api->MethodMemberRef(C, Parent, str(Name), bytes(Sig));
  }
  weft_token typeToken(weft_bytes Type) { return Api->TypeToken(C, Type); }
  uint32_t addLocal(const std::vector<uint8_t> &Type) { return Api->AddLocal(C, bytes(Type)); }
  void skip(std::string_view Reason) { Api->Skip(C, str(Reason)); }
  void note(std::string_view What) { Api->Note(C, str(What)); }
  void setData(void *D) { Api->SetMethodData(C, D); }
  void *data() const { return Api->MethodData(C); }

  /// Emit(E, TailCall) places code before each way out of the method (weft-c's BeforeEachExit).
  template <typename Fn> void beforeEachExit(Fn &&Emit) {
    Api->BeforeEachExit(
        C,
        [](void *User, weft_body *B, weft_instr *Before, int TailCall) {
          Emitter E(B, Before);
          (*static_cast<Fn *>(User))(E, TailCall != 0);
        },
        &Emit);
  }
  /// Where code wrapping the body may begin; throws, saying why, when it cannot be wrapped.
  size_t wrapStart() {
    size_t At = 0;
    check(Api->WrapStart(C, &At));
    return At;
  }
  weft_single_exit makeSingleExit(bool Wrap) {
    weft_single_exit X{};
    check(Api->MakeSingleExit(C, Wrap, nullptr, nullptr, &X));
    return X;
  }

private:
  weft_method *C;
};

/// A pass: a class with a constructor taking Options.
class Pass {
public:
  virtual ~Pass() = default;
  virtual void beginModule(Module &) {}
  virtual void runMethod(Method &) = 0;
  virtual void finishMethod(Method &) {}
  virtual void endModule(Module &) {}
};

struct PassDescription {
  std::string Name, Description;
  std::vector<std::pair<std::string, std::string>> Options; // name, description
  uint32_t Flags = 0;
};

namespace detail {

/// Runs \p Fn, turning what it throws into the ABI's failure.
template <typename Fn> weft_status guarded(Fn &&F) {
  try {
    F();
    return WEFT_OK;
  } catch (const std::exception &E) {
    Api->SetError(str(E.what()));
  } catch (...) {
    Api->SetError(str("an exception that is no std::exception"));
  }
  return WEFT_FAILED;
}

/// What the ABI keeps of a registered pass: its strings and its maker, for the plugin's life.
struct Registered {
  PassDescription Description;
  std::vector<weft_option_info> OptionInfos;
  std::function<Pass *(const Options &)> Make;
};

inline std::vector<std::unique_ptr<Registered>> &registered() {
  static std::vector<std::unique_ptr<Registered>> All;
  return All;
}

} // namespace detail

class Plugin {
public:
  explicit Plugin(weft_plugin *Handle) : Handle(Handle) {}

  /// Registers the pass class \p T (its constructor takes the Options).
  template <typename T> void addPass(PassDescription D) {
    addPass(std::move(D), [](const Options &O) -> Pass * { return new T(O); });
  }
  void addPass(PassDescription D, std::function<Pass *(const Options &)> Make) {
    auto R = std::make_unique<detail::Registered>();
    R->Description = std::move(D);
    for (const auto &[Name, Text] : R->Description.Options)
      R->OptionInfos.push_back({Name.c_str(), Text.c_str()});
    R->Make = std::move(Make);
    weft_pass_info Info{};
    Info.Size = sizeof Info;
    Info.Flags = R->Description.Flags;
    Info.Name = R->Description.Name.c_str();
    Info.Description = R->Description.Description.c_str();
    Info.Options = R->OptionInfos.data();
    Info.OptionCount = R->OptionInfos.size();
    Info.Data = R.get();
    Info.Create = [](void *Data, const weft_options *O, void **Instance) {
      return detail::guarded([&] {
        *Instance = static_cast<detail::Registered *>(Data)->Make(Options(O));
      });
    };
    Info.Destroy = [](void *Instance) { delete static_cast<Pass *>(Instance); };
    Info.BeginModule = [](void *Instance, weft_module *M) {
      return detail::guarded([&] {
        Module Mod(M);
        static_cast<Pass *>(Instance)->beginModule(Mod);
      });
    };
    Info.RunMethod = [](void *Instance, weft_method *C) {
      return detail::guarded([&] {
        Method M(C);
        static_cast<Pass *>(Instance)->runMethod(M);
      });
    };
    Info.FinishMethod = [](void *Instance, weft_method *C) {
      detail::guarded([&] {
        Method M(C);
        static_cast<Pass *>(Instance)->finishMethod(M);
      });
    };
    Info.EndModule = [](void *Instance, weft_module *M) {
      return detail::guarded([&] {
        Module Mod(M);
        static_cast<Pass *>(Instance)->endModule(Mod);
      });
    };
    check(Api->RegisterPass(Handle, &Info));
    detail::registered().push_back(std::move(R));
  }

private:
  weft_plugin *Handle;
};

} // namespace weft::sdk

/// Defines the plugin's entry point: its name, version and a function that registers its passes
/// (given a weft::sdk::Plugin&).
#define WEFT_PLUGIN(NAME, VERSION, REGISTER)                                                    \
  extern "C" WEFT_EXPORT weft_status weft_plugin_init(const weft_api *A, weft_plugin *P) {      \
    weft::sdk::Api = A;                                                                         \
    weft_status S = A->SetPluginInfo(P, WEFT_ABI_VERSION, weft::sdk::str(NAME),                 \
                                     weft::sdk::str(VERSION));                                  \
    if (S != WEFT_OK)                                                                           \
      return S;                                                                                 \
    return weft::sdk::detail::guarded([&] {                                                     \
      weft::sdk::Plugin Registrar(P);                                                           \
      REGISTER(Registrar);                                                                      \
    });                                                                                         \
  }

#endif
