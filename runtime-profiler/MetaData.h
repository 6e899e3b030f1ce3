//===- runtime-profiler/MetaData.h - CoreCLR metadata interfaces, Linux x64 -*- C++ -*-===//
//
// weft's own declarations of the unmanaged metadata interfaces a profiler gets from
// ICorProfilerInfo::GetModuleMetaData: import, emit, and their assembly counterparts, with the
// method order and IIDs of cor.h in dotnet/runtime and the PAL types of CorProfiler.h.
// Interfaces weft never calls through (IStream, IMapToken) are only declared.
//
//===----------------------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_METADATA_H
#define WEFT_RUNTIME_PROFILER_METADATA_H

#include "runtime-profiler/CorProfiler.h"

namespace weft::prof {

//===----------------------------------------------------------------------===//
// Tokens, enumerators and small types
//===----------------------------------------------------------------------===//

using mdTypeRef = mdToken;
using mdInterfaceImpl = mdToken;
using mdMemberRef = mdToken;
using mdParamDef = mdToken;
using mdProperty = mdToken;
using mdEvent = mdToken;
using mdPermission = mdToken;
using mdSignature = mdToken;
using mdModuleRef = mdToken;
using mdTypeSpec = mdToken;
using mdString = mdToken;
using mdCustomAttribute = mdToken;
using mdGenericParam = mdToken;
using mdMethodSpec = mdToken;
using mdGenericParamConstraint = mdToken;
using mdAssembly = mdToken;
using mdAssemblyRef = mdToken;
using mdFile = mdToken;
using mdExportedType = mdToken;
using mdManifestResource = mdToken;

/// An enumeration in progress (opaque; close it with CloseEnum).
using HCORENUM = void *;
/// A UTF-8 name inside the metadata heap.
using MDUTF8CSTR = const char *;
/// A constant value's bytes, possibly unaligned.
using UVCP_CONSTANT = const void *;

/// How precise GetSaveSize is.
enum CorSaveSize : uint32_t {
  cssAccurate = 0x0000,
  cssQuick = 0x0001,
  cssDiscardTransientCAs = 0x0002,
};

struct IStream;
struct IMapToken;
struct COR_SECATTR;
struct IMetaDataImport;
struct IMetaDataAssemblyImport;
struct IMetaDataAssemblyEmit;

//===----------------------------------------------------------------------===//
// Emit
//===----------------------------------------------------------------------===//

/// Defines and changes metadata of a module (types, members, references, attributes).
struct IMetaDataEmit : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 49;

  virtual HRESULT SetModuleProps(LPCWSTR Name) = 0;
  virtual HRESULT Save(LPCWSTR File, DWORD SaveFlags) = 0;
  virtual HRESULT SaveToStream(IStream *Stream, DWORD SaveFlags) = 0;
  virtual HRESULT GetSaveSize(CorSaveSize Save, DWORD *SaveSize) = 0;
  virtual HRESULT DefineTypeDef(LPCWSTR TypeDefName, DWORD TypeDefFlags, mdToken Extends,
                                mdToken *Implements, mdTypeDef *TypeDef) = 0;
  virtual HRESULT DefineNestedType(LPCWSTR TypeDefName, DWORD TypeDefFlags, mdToken Extends,
                                   mdToken *Implements, mdTypeDef Encloser, mdTypeDef *TypeDef) = 0;
  virtual HRESULT SetHandler(IUnknown *Handler) = 0;
  virtual HRESULT DefineMethod(mdTypeDef Parent, LPCWSTR Name, DWORD MethodFlags,
                               PCCOR_SIGNATURE Sig, ULONG SigSize, ULONG CodeRVA, DWORD ImplFlags,
                               mdMethodDef *Method) = 0;
  virtual HRESULT DefineMethodImpl(mdTypeDef Parent, mdToken Body, mdToken Decl) = 0;
  virtual HRESULT DefineTypeRefByName(mdToken ResolutionScope, LPCWSTR Name,
                                      mdTypeRef *TypeRef) = 0;
  virtual HRESULT DefineImportType(IMetaDataAssemblyImport *AssemblyImport, const void *HashValue,
                                   ULONG HashValueSize, IMetaDataImport *Import,
                                   mdTypeDef ImportedTypeDef, IMetaDataAssemblyEmit *AssemblyEmit,
                                   mdTypeRef *TypeRef) = 0;
  virtual HRESULT DefineMemberRef(mdToken Parent, LPCWSTR Name, PCCOR_SIGNATURE Sig, ULONG SigSize,
                                  mdMemberRef *MemberRef) = 0;
  virtual HRESULT DefineImportMember(IMetaDataAssemblyImport *AssemblyImport, const void *HashValue,
                                     ULONG HashValueSize, IMetaDataImport *Import, mdToken Member,
                                     IMetaDataAssemblyEmit *AssemblyEmit, mdToken Parent,
                                     mdMemberRef *MemberRef) = 0;
  virtual HRESULT DefineEvent(mdTypeDef Parent, LPCWSTR Name, DWORD EventFlags, mdToken EventType,
                              mdMethodDef AddOn, mdMethodDef RemoveOn, mdMethodDef Fire,
                              mdMethodDef *OtherMethods, mdEvent *Event) = 0;
  virtual HRESULT SetClassLayout(mdTypeDef TypeDef, DWORD PackSize, COR_FIELD_OFFSET *FieldOffsets,
                                 ULONG ClassSize) = 0;
  virtual HRESULT DeleteClassLayout(mdTypeDef TypeDef) = 0;
  virtual HRESULT SetFieldMarshal(mdToken Token, PCCOR_SIGNATURE NativeType,
                                  ULONG NativeTypeSize) = 0;
  virtual HRESULT DeleteFieldMarshal(mdToken Token) = 0;
  virtual HRESULT DefinePermissionSet(mdToken Token, DWORD Action, const void *Permission,
                                      ULONG PermissionSize, mdPermission *PermissionSet) = 0;
  virtual HRESULT SetRVA(mdMethodDef Method, ULONG RVA) = 0;
  virtual HRESULT GetTokenFromSig(PCCOR_SIGNATURE Sig, ULONG SigSize, mdSignature *Signature) = 0;
  virtual HRESULT DefineModuleRef(LPCWSTR Name, mdModuleRef *ModuleRef) = 0;
  virtual HRESULT SetParent(mdMemberRef MemberRef, mdToken Parent) = 0;
  virtual HRESULT GetTokenFromTypeSpec(PCCOR_SIGNATURE Sig, ULONG SigSize,
                                       mdTypeSpec *TypeSpec) = 0;
  virtual HRESULT SaveToMemory(void *Data, ULONG DataSize) = 0;
  virtual HRESULT DefineUserString(LPCWSTR String, ULONG Length, mdString *StringToken) = 0;
  virtual HRESULT DeleteToken(mdToken Token) = 0;
  virtual HRESULT SetMethodProps(mdMethodDef Method, DWORD MethodFlags, ULONG CodeRVA,
                                 DWORD ImplFlags) = 0;
  virtual HRESULT SetTypeDefProps(mdTypeDef TypeDef, DWORD TypeDefFlags, mdToken Extends,
                                  mdToken *Implements) = 0;
  virtual HRESULT SetEventProps(mdEvent Event, DWORD EventFlags, mdToken EventType,
                                mdMethodDef AddOn, mdMethodDef RemoveOn, mdMethodDef Fire,
                                mdMethodDef *OtherMethods) = 0;
  virtual HRESULT SetPermissionSetProps(mdToken Token, DWORD Action, const void *Permission,
                                        ULONG PermissionSize, mdPermission *PermissionSet) = 0;
  virtual HRESULT DefinePinvokeMap(mdToken Token, DWORD MappingFlags, LPCWSTR ImportName,
                                   mdModuleRef ImportDll) = 0;
  virtual HRESULT SetPinvokeMap(mdToken Token, DWORD MappingFlags, LPCWSTR ImportName,
                                mdModuleRef ImportDll) = 0;
  virtual HRESULT DeletePinvokeMap(mdToken Token) = 0;
  virtual HRESULT DefineCustomAttribute(mdToken Owner, mdToken Ctor, const void *Blob,
                                        ULONG BlobSize, mdCustomAttribute *Attribute) = 0;
  virtual HRESULT SetCustomAttributeValue(mdCustomAttribute Attribute, const void *Blob,
                                          ULONG BlobSize) = 0;
  virtual HRESULT DefineField(mdTypeDef Parent, LPCWSTR Name, DWORD FieldFlags, PCCOR_SIGNATURE Sig,
                              ULONG SigSize, DWORD CPlusTypeFlag, const void *Value,
                              ULONG ValueLength, mdFieldDef *Field) = 0;
  virtual HRESULT DefineProperty(mdTypeDef Parent, LPCWSTR Name, DWORD PropFlags,
                                 PCCOR_SIGNATURE Sig, ULONG SigSize, DWORD CPlusTypeFlag,
                                 const void *Value, ULONG ValueLength, mdMethodDef Setter,
                                 mdMethodDef Getter, mdMethodDef *OtherMethods,
                                 mdProperty *Property) = 0;
  virtual HRESULT DefineParam(mdMethodDef Method, ULONG Sequence, LPCWSTR Name, DWORD ParamFlags,
                              DWORD CPlusTypeFlag, const void *Value, ULONG ValueLength,
                              mdParamDef *Param) = 0;
  virtual HRESULT SetFieldProps(mdFieldDef Field, DWORD FieldFlags, DWORD CPlusTypeFlag,
                                const void *Value, ULONG ValueLength) = 0;
  virtual HRESULT SetPropertyProps(mdProperty Property, DWORD PropFlags, DWORD CPlusTypeFlag,
                                   const void *Value, ULONG ValueLength, mdMethodDef Setter,
                                   mdMethodDef Getter, mdMethodDef *OtherMethods) = 0;
  virtual HRESULT SetParamProps(mdParamDef Param, LPCWSTR Name, DWORD ParamFlags,
                                DWORD CPlusTypeFlag, const void *Value, ULONG ValueLength) = 0;
  virtual HRESULT DefineSecurityAttributeSet(mdToken Owner, COR_SECATTR *SecAttrs,
                                             ULONG SecAttrCount, ULONG *ErrorAttr) = 0;
  virtual HRESULT ApplyEditAndContinue(IUnknown *DeltaImport) = 0;
  virtual HRESULT TranslateSigWithScope(IMetaDataAssemblyImport *AssemblyImport,
                                        const void *HashValue, ULONG HashValueSize,
                                        IMetaDataImport *Import, PCCOR_SIGNATURE Sig, ULONG SigSize,
                                        IMetaDataAssemblyEmit *AssemblyEmit, IMetaDataEmit *Emit,
                                        PCOR_SIGNATURE TranslatedSig, ULONG TranslatedSigCapacity,
                                        ULONG *TranslatedSigSize) = 0;
  virtual HRESULT SetMethodImplFlags(mdMethodDef Method, DWORD ImplFlags) = 0;
  virtual HRESULT SetFieldRVA(mdFieldDef Field, ULONG RVA) = 0;
  virtual HRESULT Merge(IMetaDataImport *Import, IMapToken *HostMapToken, IUnknown *Handler) = 0;
  virtual HRESULT MergeEnd() = 0;
};

/// Emit, version 2: generics (method specs, generic parameters) and edit-and-continue deltas.
struct IMetaDataEmit2 : IMetaDataEmit {
  static constexpr unsigned SlotCount = IMetaDataEmit::SlotCount + 8;

  virtual HRESULT DefineMethodSpec(mdToken Parent, PCCOR_SIGNATURE Sig, ULONG SigSize,
                                   mdMethodSpec *MethodSpec) = 0;
  virtual HRESULT GetDeltaSaveSize(CorSaveSize Save, DWORD *SaveSize) = 0;
  virtual HRESULT SaveDelta(LPCWSTR File, DWORD SaveFlags) = 0;
  virtual HRESULT SaveDeltaToStream(IStream *Stream, DWORD SaveFlags) = 0;
  virtual HRESULT SaveDeltaToMemory(void *Data, ULONG DataSize) = 0;
  virtual HRESULT DefineGenericParam(mdToken Owner, ULONG Sequence, DWORD ParamFlags, LPCWSTR Name,
                                     DWORD Reserved, mdToken *Constraints,
                                     mdGenericParam *GenericParam) = 0;
  virtual HRESULT SetGenericParamProps(mdGenericParam GenericParam, DWORD ParamFlags, LPCWSTR Name,
                                       DWORD Reserved, mdToken *Constraints) = 0;
  virtual HRESULT ResetENCLog() = 0;
};

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

/// Reads metadata of a module: enumerations, lookups and the properties of every token kind.
struct IMetaDataImport : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 62;

  virtual void CloseEnum(HCORENUM Enum) = 0;
  virtual HRESULT CountEnum(HCORENUM Enum, ULONG *Count) = 0;
  virtual HRESULT ResetEnum(HCORENUM Enum, ULONG Position) = 0;
  virtual HRESULT EnumTypeDefs(HCORENUM *Enum, mdTypeDef *TypeDefs, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumInterfaceImpls(HCORENUM *Enum, mdTypeDef TypeDef, mdInterfaceImpl *Impls,
                                     ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumTypeRefs(HCORENUM *Enum, mdTypeRef *TypeRefs, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT FindTypeDefByName(LPCWSTR Name, mdToken EnclosingClass, mdTypeDef *TypeDef) = 0;
  virtual HRESULT GetScopeProps(LPWSTR Name, ULONG NameCapacity, ULONG *NameLength, GUID *Mvid) = 0;
  virtual HRESULT GetModuleFromScope(mdModule *Module) = 0;
  virtual HRESULT GetTypeDefProps(mdTypeDef TypeDef, LPWSTR Name, ULONG NameCapacity,
                                  ULONG *NameLength, DWORD *TypeDefFlags, mdToken *Extends) = 0;
  virtual HRESULT GetInterfaceImplProps(mdInterfaceImpl Impl, mdTypeDef *Class,
                                        mdToken *Interface) = 0;
  virtual HRESULT GetTypeRefProps(mdTypeRef TypeRef, mdToken *ResolutionScope, LPWSTR Name,
                                  ULONG NameCapacity, ULONG *NameLength) = 0;
  virtual HRESULT ResolveTypeRef(mdTypeRef TypeRef, REFIID Riid, IUnknown **Scope,
                                 mdTypeDef *TypeDef) = 0;
  virtual HRESULT EnumMembers(HCORENUM *Enum, mdTypeDef TypeDef, mdToken *Members, ULONG Max,
                              ULONG *Count) = 0;
  virtual HRESULT EnumMembersWithName(HCORENUM *Enum, mdTypeDef TypeDef, LPCWSTR Name,
                                      mdToken *Members, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumMethods(HCORENUM *Enum, mdTypeDef TypeDef, mdMethodDef *Methods, ULONG Max,
                              ULONG *Count) = 0;
  virtual HRESULT EnumMethodsWithName(HCORENUM *Enum, mdTypeDef TypeDef, LPCWSTR Name,
                                      mdMethodDef *Methods, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumFields(HCORENUM *Enum, mdTypeDef TypeDef, mdFieldDef *Fields, ULONG Max,
                             ULONG *Count) = 0;
  virtual HRESULT EnumFieldsWithName(HCORENUM *Enum, mdTypeDef TypeDef, LPCWSTR Name,
                                     mdFieldDef *Fields, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumParams(HCORENUM *Enum, mdMethodDef Method, mdParamDef *Params, ULONG Max,
                             ULONG *Count) = 0;
  virtual HRESULT EnumMemberRefs(HCORENUM *Enum, mdToken Parent, mdMemberRef *MemberRefs, ULONG Max,
                                 ULONG *Count) = 0;
  virtual HRESULT EnumMethodImpls(HCORENUM *Enum, mdTypeDef TypeDef, mdToken *Bodies,
                                  mdToken *Decls, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumPermissionSets(HCORENUM *Enum, mdToken Token, DWORD Actions,
                                     mdPermission *Permissions, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT FindMember(mdTypeDef TypeDef, LPCWSTR Name, PCCOR_SIGNATURE Sig, ULONG SigSize,
                             mdToken *Member) = 0;
  virtual HRESULT FindMethod(mdTypeDef TypeDef, LPCWSTR Name, PCCOR_SIGNATURE Sig, ULONG SigSize,
                             mdMethodDef *Method) = 0;
  virtual HRESULT FindField(mdTypeDef TypeDef, LPCWSTR Name, PCCOR_SIGNATURE Sig, ULONG SigSize,
                            mdFieldDef *Field) = 0;
  virtual HRESULT FindMemberRef(mdTypeRef TypeRef, LPCWSTR Name, PCCOR_SIGNATURE Sig, ULONG SigSize,
                                mdMemberRef *MemberRef) = 0;
  virtual HRESULT GetMethodProps(mdMethodDef Method, mdTypeDef *Class, LPWSTR Name,
                                 ULONG NameCapacity, ULONG *NameLength, DWORD *Attr,
                                 PCCOR_SIGNATURE *Sig, ULONG *SigSize, ULONG *CodeRVA,
                                 DWORD *ImplFlags) = 0;
  virtual HRESULT GetMemberRefProps(mdMemberRef MemberRef, mdToken *Parent, LPWSTR Name,
                                    ULONG NameCapacity, ULONG *NameLength, PCCOR_SIGNATURE *Sig,
                                    ULONG *SigSize) = 0;
  virtual HRESULT EnumProperties(HCORENUM *Enum, mdTypeDef TypeDef, mdProperty *Properties,
                                 ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumEvents(HCORENUM *Enum, mdTypeDef TypeDef, mdEvent *Events, ULONG Max,
                             ULONG *Count) = 0;
  // cor.h types the name buffer of GetEventProps and GetPropertyProps as LPCWSTR although it
  // is written to; kept as it is.
  virtual HRESULT GetEventProps(mdEvent Event, mdTypeDef *Class, LPCWSTR Name, ULONG NameCapacity,
                                ULONG *NameLength, DWORD *EventFlags, mdToken *EventType,
                                mdMethodDef *AddOn, mdMethodDef *RemoveOn, mdMethodDef *Fire,
                                mdMethodDef *OtherMethods, ULONG Max, ULONG *OtherMethodCount) = 0;
  virtual HRESULT EnumMethodSemantics(HCORENUM *Enum, mdMethodDef Method, mdToken *EventProps,
                                      ULONG Max, ULONG *Count) = 0;
  virtual HRESULT GetMethodSemantics(mdMethodDef Method, mdToken EventProp,
                                     DWORD *SemanticsFlags) = 0;
  virtual HRESULT GetClassLayout(mdTypeDef TypeDef, DWORD *PackSize, COR_FIELD_OFFSET *FieldOffsets,
                                 ULONG Max, ULONG *FieldOffsetCount, ULONG *ClassSize) = 0;
  virtual HRESULT GetFieldMarshal(mdToken Token, PCCOR_SIGNATURE *NativeType,
                                  ULONG *NativeTypeSize) = 0;
  virtual HRESULT GetRVA(mdToken Token, ULONG *CodeRVA, DWORD *ImplFlags) = 0;
  virtual HRESULT GetPermissionSetProps(mdPermission Permission, DWORD *Action, const void **Blob,
                                        ULONG *BlobSize) = 0;
  virtual HRESULT GetSigFromToken(mdSignature Signature, PCCOR_SIGNATURE *Sig, ULONG *SigSize) = 0;
  virtual HRESULT GetModuleRefProps(mdModuleRef ModuleRef, LPWSTR Name, ULONG NameCapacity,
                                    ULONG *NameLength) = 0;
  virtual HRESULT EnumModuleRefs(HCORENUM *Enum, mdModuleRef *ModuleRefs, ULONG Max,
                                 ULONG *Count) = 0;
  virtual HRESULT GetTypeSpecFromToken(mdTypeSpec TypeSpec, PCCOR_SIGNATURE *Sig,
                                       ULONG *SigSize) = 0;
  virtual HRESULT GetNameFromToken(mdToken Token, MDUTF8CSTR *Utf8Name) = 0;
  virtual HRESULT EnumUnresolvedMethods(HCORENUM *Enum, mdToken *Methods, ULONG Max,
                                        ULONG *Count) = 0;
  virtual HRESULT GetUserString(mdString String, LPWSTR Chars, ULONG Capacity, ULONG *Length) = 0;
  virtual HRESULT GetPinvokeMap(mdToken Token, DWORD *MappingFlags, LPWSTR ImportName,
                                ULONG NameCapacity, ULONG *NameLength, mdModuleRef *ImportDll) = 0;
  virtual HRESULT EnumSignatures(HCORENUM *Enum, mdSignature *Signatures, ULONG Max,
                                 ULONG *Count) = 0;
  virtual HRESULT EnumTypeSpecs(HCORENUM *Enum, mdTypeSpec *TypeSpecs, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumUserStrings(HCORENUM *Enum, mdString *Strings, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT GetParamForMethodIndex(mdMethodDef Method, ULONG Sequence, mdParamDef *Param) = 0;
  virtual HRESULT EnumCustomAttributes(HCORENUM *Enum, mdToken Owner, mdToken Type,
                                       mdCustomAttribute *Attributes, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT GetCustomAttributeProps(mdCustomAttribute Attribute, mdToken *Owner,
                                          mdToken *Type, const void **Blob, ULONG *BlobSize) = 0;
  virtual HRESULT FindTypeRef(mdToken ResolutionScope, LPCWSTR Name, mdTypeRef *TypeRef) = 0;
  virtual HRESULT GetMemberProps(mdToken Member, mdTypeDef *Class, LPWSTR Name, ULONG NameCapacity,
                                 ULONG *NameLength, DWORD *Attr, PCCOR_SIGNATURE *Sig,
                                 ULONG *SigSize, ULONG *CodeRVA, DWORD *ImplFlags,
                                 DWORD *CPlusTypeFlag, UVCP_CONSTANT *Value,
                                 ULONG *ValueLength) = 0;
  virtual HRESULT GetFieldProps(mdFieldDef Field, mdTypeDef *Class, LPWSTR Name, ULONG NameCapacity,
                                ULONG *NameLength, DWORD *Attr, PCCOR_SIGNATURE *Sig,
                                ULONG *SigSize, DWORD *CPlusTypeFlag, UVCP_CONSTANT *Value,
                                ULONG *ValueLength) = 0;
  virtual HRESULT GetPropertyProps(mdProperty Property, mdTypeDef *Class, LPCWSTR Name,
                                   ULONG NameCapacity, ULONG *NameLength, DWORD *PropFlags,
                                   PCCOR_SIGNATURE *Sig, ULONG *SigSize, DWORD *CPlusTypeFlag,
                                   UVCP_CONSTANT *DefaultValue, ULONG *DefaultValueLength,
                                   mdMethodDef *Setter, mdMethodDef *Getter,
                                   mdMethodDef *OtherMethods, ULONG Max,
                                   ULONG *OtherMethodCount) = 0;
  virtual HRESULT GetParamProps(mdParamDef Param, mdMethodDef *Method, ULONG *Sequence, LPWSTR Name,
                                ULONG NameCapacity, ULONG *NameLength, DWORD *Attr,
                                DWORD *CPlusTypeFlag, UVCP_CONSTANT *Value, ULONG *ValueLength) = 0;
  virtual HRESULT GetCustomAttributeByName(mdToken Owner, LPCWSTR Name, const void **Data,
                                           ULONG *DataSize) = 0;
  virtual BOOL IsValidToken(mdToken Token) = 0;
  virtual HRESULT GetNestedClassProps(mdTypeDef NestedClass, mdTypeDef *EnclosingClass) = 0;
  virtual HRESULT GetNativeCallConvFromSig(const void *Sig, ULONG SigSize, ULONG *CallConv) = 0;
  virtual HRESULT IsGlobal(mdToken Token, int *Global) = 0;
};

/// Import, version 2: generic parameters and constraints, method specs, PE kind and version.
struct IMetaDataImport2 : IMetaDataImport {
  static constexpr unsigned SlotCount = IMetaDataImport::SlotCount + 8;

  virtual HRESULT EnumGenericParams(HCORENUM *Enum, mdToken Owner, mdGenericParam *GenericParams,
                                    ULONG Max, ULONG *Count) = 0;
  virtual HRESULT GetGenericParamProps(mdGenericParam GenericParam, ULONG *Sequence,
                                       DWORD *ParamFlags, mdToken *Owner, DWORD *Reserved,
                                       LPWSTR Name, ULONG NameCapacity, ULONG *NameLength) = 0;
  virtual HRESULT GetMethodSpecProps(mdMethodSpec MethodSpec, mdToken *Parent, PCCOR_SIGNATURE *Sig,
                                     ULONG *SigSize) = 0;
  virtual HRESULT EnumGenericParamConstraints(HCORENUM *Enum, mdGenericParam GenericParam,
                                              mdGenericParamConstraint *Constraints, ULONG Max,
                                              ULONG *Count) = 0;
  virtual HRESULT GetGenericParamConstraintProps(mdGenericParamConstraint Constraint,
                                                 mdGenericParam *GenericParam,
                                                 mdToken *ConstraintType) = 0;
  virtual HRESULT GetPEKind(DWORD *PEKind, DWORD *Machine) = 0;
  virtual HRESULT GetVersionString(LPWSTR Buffer, DWORD Capacity, DWORD *Length) = 0;
  virtual HRESULT EnumMethodSpecs(HCORENUM *Enum, mdToken Parent, mdMethodSpec *MethodSpecs,
                                  ULONG Max, ULONG *Count) = 0;
};

//===----------------------------------------------------------------------===//
// Assemblies
//===----------------------------------------------------------------------===//

/// Defines and changes the assembly manifest (assembly, references, files, exported types,
/// resources).
struct IMetaDataAssemblyEmit : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 10;

  virtual HRESULT DefineAssembly(const void *PublicKey, ULONG PublicKeySize, ULONG HashAlgId,
                                 LPCWSTR Name, const ASSEMBLYMETADATA *MetaData,
                                 DWORD AssemblyFlags, mdAssembly *Assembly) = 0;
  virtual HRESULT DefineAssemblyRef(const void *PublicKeyOrToken, ULONG PublicKeyOrTokenSize,
                                    LPCWSTR Name, const ASSEMBLYMETADATA *MetaData,
                                    const void *HashValue, ULONG HashValueSize,
                                    DWORD AssemblyRefFlags, mdAssemblyRef *AssemblyRef) = 0;
  virtual HRESULT DefineFile(LPCWSTR Name, const void *HashValue, ULONG HashValueSize,
                             DWORD FileFlags, mdFile *File) = 0;
  virtual HRESULT DefineExportedType(LPCWSTR Name, mdToken Implementation, mdTypeDef TypeDef,
                                     DWORD ExportedTypeFlags, mdExportedType *ExportedType) = 0;
  virtual HRESULT DefineManifestResource(LPCWSTR Name, mdToken Implementation, DWORD Offset,
                                         DWORD ResourceFlags, mdManifestResource *Resource) = 0;
  virtual HRESULT SetAssemblyProps(mdAssembly Assembly, const void *PublicKey, ULONG PublicKeySize,
                                   ULONG HashAlgId, LPCWSTR Name, const ASSEMBLYMETADATA *MetaData,
                                   DWORD AssemblyFlags) = 0;
  virtual HRESULT SetAssemblyRefProps(mdAssemblyRef AssemblyRef, const void *PublicKeyOrToken,
                                      ULONG PublicKeyOrTokenSize, LPCWSTR Name,
                                      const ASSEMBLYMETADATA *MetaData, const void *HashValue,
                                      ULONG HashValueSize, DWORD AssemblyRefFlags) = 0;
  virtual HRESULT SetFileProps(mdFile File, const void *HashValue, ULONG HashValueSize,
                               DWORD FileFlags) = 0;
  virtual HRESULT SetExportedTypeProps(mdExportedType ExportedType, mdToken Implementation,
                                       mdTypeDef TypeDef, DWORD ExportedTypeFlags) = 0;
  virtual HRESULT SetManifestResourceProps(mdManifestResource Resource, mdToken Implementation,
                                           DWORD Offset, DWORD ResourceFlags) = 0;
};

/// Reads the assembly manifest.
struct IMetaDataAssemblyImport : IUnknown {
  static constexpr unsigned SlotCount = IUnknown::SlotCount + 14;

  virtual HRESULT GetAssemblyProps(mdAssembly Assembly, const void **PublicKey,
                                   ULONG *PublicKeySize, ULONG *HashAlgId, LPWSTR Name,
                                   ULONG NameCapacity, ULONG *NameLength,
                                   ASSEMBLYMETADATA *MetaData, DWORD *AssemblyFlags) = 0;
  virtual HRESULT GetAssemblyRefProps(mdAssemblyRef AssemblyRef, const void **PublicKeyOrToken,
                                      ULONG *PublicKeyOrTokenSize, LPWSTR Name, ULONG NameCapacity,
                                      ULONG *NameLength, ASSEMBLYMETADATA *MetaData,
                                      const void **HashValue, ULONG *HashValueSize,
                                      DWORD *AssemblyRefFlags) = 0;
  virtual HRESULT GetFileProps(mdFile File, LPWSTR Name, ULONG NameCapacity, ULONG *NameLength,
                               const void **HashValue, ULONG *HashValueSize, DWORD *FileFlags) = 0;
  virtual HRESULT GetExportedTypeProps(mdExportedType ExportedType, LPWSTR Name, ULONG NameCapacity,
                                       ULONG *NameLength, mdToken *Implementation,
                                       mdTypeDef *TypeDef, DWORD *ExportedTypeFlags) = 0;
  virtual HRESULT GetManifestResourceProps(mdManifestResource Resource, LPWSTR Name,
                                           ULONG NameCapacity, ULONG *NameLength,
                                           mdToken *Implementation, DWORD *Offset,
                                           DWORD *ResourceFlags) = 0;
  virtual HRESULT EnumAssemblyRefs(HCORENUM *Enum, mdAssemblyRef *AssemblyRefs, ULONG Max,
                                   ULONG *Count) = 0;
  virtual HRESULT EnumFiles(HCORENUM *Enum, mdFile *Files, ULONG Max, ULONG *Count) = 0;
  virtual HRESULT EnumExportedTypes(HCORENUM *Enum, mdExportedType *ExportedTypes, ULONG Max,
                                    ULONG *Count) = 0;
  virtual HRESULT EnumManifestResources(HCORENUM *Enum, mdManifestResource *Resources, ULONG Max,
                                        ULONG *Count) = 0;
  virtual HRESULT GetAssemblyFromScope(mdAssembly *Assembly) = 0;
  virtual HRESULT FindExportedTypeByName(LPCWSTR Name, mdToken EnclosingType,
                                         mdExportedType *ExportedType) = 0;
  virtual HRESULT FindManifestResourceByName(LPCWSTR Name, mdManifestResource *Resource) = 0;
  virtual void CloseEnum(HCORENUM Enum) = 0;
  virtual HRESULT FindAssembliesByName(LPCWSTR AppBase, LPCWSTR PrivateBin, LPCWSTR AssemblyName,
                                       IUnknown **Assemblies, ULONG Max, ULONG *Count) = 0;
};

//===----------------------------------------------------------------------===//
// IIDs
//===----------------------------------------------------------------------===//

inline constexpr GUID IID_IMetaDataImport = guid("7DAC8207-D3AE-4C75-9B67-92801A497D44");
inline constexpr GUID IID_IMetaDataImport2 = guid("FCE5EFA0-8BBA-4F8E-A036-8F2022B08466");
inline constexpr GUID IID_IMetaDataEmit = guid("BA3FEE4C-ECB9-4E41-83B7-183FA41CD859");
inline constexpr GUID IID_IMetaDataEmit2 = guid("F5DD9950-F693-42E6-830E-7B833E8146A9");
inline constexpr GUID IID_IMetaDataAssemblyEmit = guid("211EF15B-5317-4438-B196-DEC87B887693");
inline constexpr GUID IID_IMetaDataAssemblyImport = guid("EE62470B-E94B-424E-9B7C-2F00C9249F93");

} // namespace weft::prof

#endif // WEFT_RUNTIME_PROFILER_METADATA_H
