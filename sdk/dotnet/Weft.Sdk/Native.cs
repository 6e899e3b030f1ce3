// Weft.Sdk: weft's C ABI (include/weft-c/Plugin.h) as C# sees it. Every struct here has the
// layout of its C namesake, member for member: weft_api's function pointers in the header's
// order (the ABI only ever adds at the end). Nothing else of the SDK touches raw pointers.
using System.Runtime.InteropServices;

namespace Weft.Native;

[StructLayout(LayoutKind.Sequential)]
public unsafe struct WeftString
{
    public byte* Data;
    public nuint Size;

    public override string ToString() =>
        Data == null ? "" : System.Text.Encoding.UTF8.GetString(Data, checked((int)Size));
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct WeftBytes
{
    public byte* Data;
    public nuint Size;

    public byte[] ToArray() => Data == null ? [] : new ReadOnlySpan<byte>(Data, checked((int)Size)).ToArray();
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct OptionInfo
{
    public byte* Name;
    public byte* Description;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct PassInfo
{
    public uint Size;
    public uint Flags;
    public byte* Name;
    public byte* Description;
    public OptionInfo* Options;
    public nuint OptionCount;
    public void* Data;
    public delegate* unmanaged<void*, void*, void**, int> Create;
    public delegate* unmanaged<void*, void> Destroy;
    public delegate* unmanaged<void*, void*, int> BeginModule;
    public delegate* unmanaged<void*, void*, int> RunMethod;
    public delegate* unmanaged<void*, void*, void> FinishMethod;
    public delegate* unmanaged<void*, void*, int> EndModule;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct Region
{
    public uint Kind;
    public void* TryStart, TryEnd, HandlerStart, HandlerEnd, FilterStart;
    public uint CatchType;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct SingleExit
{
    public void* Epilogue;
    public int HasValue;
    public uint ValueLocal;
    public void* End;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct Api
{
    public uint Size, AbiVersion, Minor;
    public WeftString WeftVersion;

    public delegate* unmanaged<WeftString> LastError;
    public delegate* unmanaged<WeftString, void> SetError;

    public delegate* unmanaged<void*, uint, WeftString, WeftString, int> SetPluginInfo;
    public delegate* unmanaged<void*, PassInfo*, int> RegisterPass;
    public delegate* unmanaged<void*, void*, int> SetRuntimeHooks;

    public delegate* unmanaged<void*, nuint> OptionCount;
    public delegate* unmanaged<void*, nuint, WeftString*, WeftString*, void> OptionAt;
    public delegate* unmanaged<void*, WeftString, WeftString*, int> Option;
    public delegate* unmanaged<void*, WeftString, byte*, nuint, nuint> OptionPath;
    public delegate* unmanaged<void*, WeftString> OptionRule;

    public delegate* unmanaged<void*, uint, uint> RowCount;
    public delegate* unmanaged<void*, uint, uint, uint, uint*, int> Column;
    public delegate* unmanaged<void*, uint, uint, uint, uint*, int> ColumnToken;
    public delegate* unmanaged<void*, uint, uint, uint, WeftString*, int> ColumnString;
    public delegate* unmanaged<void*, uint, uint, uint, WeftBytes*, int> ColumnBlob;
    public delegate* unmanaged<void*, uint, uint**, nuint*, int> CustomAttributes;
    public delegate* unmanaged<void*, uint, uint*, nuint, nuint*, int> MethodParams;
    public delegate* unmanaged<void*, uint, uint*, uint*, int> TypeMethods;
    public delegate* unmanaged<void*, uint, uint*, uint*, int> TypeFields;
    public delegate* unmanaged<void*, uint, uint> DeclaringTypeOfMethod;
    public delegate* unmanaged<void*, WeftString, WeftString, uint> FindTypeDef;
    public delegate* unmanaged<void*, uint, byte*, nuint, nuint> TokenText;

    public delegate* unmanaged<void*, void*> ModuleMetadata;
    public delegate* unmanaged<void*, WeftString> AssemblyName;
    public delegate* unmanaged<void*, WeftString> InputPath;
    public delegate* unmanaged<void*, uint> ProcessId;
    public delegate* unmanaged<void*, WeftString, ushort*, WeftBytes, WeftString, uint> AssemblyRef;
    public delegate* unmanaged<void*, uint, WeftString, WeftString, uint> TypeRef;
    public delegate* unmanaged<void*, uint, WeftString, WeftBytes, uint> MemberRef;
    public delegate* unmanaged<void*, WeftBytes, uint> TypeSpec;
    public delegate* unmanaged<void*, uint, WeftBytes, uint> MethodSpec;
    public delegate* unmanaged<void*, WeftBytes, uint> StandAloneSig;
    public delegate* unmanaged<void*, WeftString, uint*, int> UserString;
    public delegate* unmanaged<void*, uint> CoreScope;
    public delegate* unmanaged<void*, WeftString, WeftString, uint*, int> CoreType;
    public delegate* unmanaged<void*, WeftString, WeftString, WeftString, uint*, int> FrameworkType;
    public delegate* unmanaged<void*, WeftString, WeftString, WeftString> FreeTypeName;
    public delegate* unmanaged<void*, uint, WeftString, WeftString, uint, uint> AddType;
    public delegate* unmanaged<void*, uint, ushort, WeftString, WeftBytes, uint*, int> AddField;
    public delegate* unmanaged<void*, uint, ushort, ushort, WeftString, WeftBytes, uint*, int> AddMethod;
    public delegate* unmanaged<void*, uint, uint, WeftBytes, void> AddCustomAttribute;
    public delegate* unmanaged<void*, void*> NewBody;
    public delegate* unmanaged<void*, uint, void*, int, int> SetBody;
    public delegate* unmanaged<void*, WeftString, WeftBytes, void> AddSideFile;
    public delegate* unmanaged<void*, WeftString, void> Warn;
    public delegate* unmanaged<void*, WeftString, void**, int> OpenAssembly;

    public delegate* unmanaged<void*, void*> MethodMetadata;
    public delegate* unmanaged<void*, uint> MethodToken;
    public delegate* unmanaged<void*, uint> DeclaringType;
    public delegate* unmanaged<void*, WeftString> MethodDisplayName;
    public delegate* unmanaged<void*, int> IsConstructor;
    public delegate* unmanaged<void*, int> IsStatic;
    public delegate* unmanaged<void*, int> DeclaringTypeIsValueType;
    public delegate* unmanaged<void*, void*> Body;
    public delegate* unmanaged<void*, WeftBytes> ReturnType;
    public delegate* unmanaged<void*, uint> ParamCount;
    public delegate* unmanaged<void*, uint, WeftBytes> ParamType;
    public delegate* unmanaged<void*, WeftBytes> DeclaringTypeSignature;
    public delegate* unmanaged<void*, WeftBytes, int> IsByRefLike;
    public delegate* unmanaged<void*, uint, WeftString, WeftString, uint> MethodTypeRef;
    public delegate* unmanaged<void*, uint, WeftString, WeftBytes, uint> MethodMemberRef;
    public delegate* unmanaged<void*, WeftBytes, uint> MethodTypeSpec;
    public delegate* unmanaged<void*, uint, WeftBytes, uint> MethodMethodSpec;
    public delegate* unmanaged<void*, WeftString, uint> MethodUserString;
    public delegate* unmanaged<void*, WeftBytes, uint> TypeToken;
    public delegate* unmanaged<void*, void*, uint, delegate* unmanaged<void*, WeftBytes, void>, void*, int> CallOperandTypes;
    public delegate* unmanaged<void*, WeftBytes, uint> AddLocal;
    public delegate* unmanaged<void*, uint> LocalCount;
    public delegate* unmanaged<void*, WeftString, void> Skip;
    public delegate* unmanaged<void*, WeftString, void> Note;
    public delegate* unmanaged<void*, void*, void> SetMethodData;
    public delegate* unmanaged<void*, void*> MethodData;

    public delegate* unmanaged<void*, nuint*, void**> Instructions;
    public delegate* unmanaged<void*, uint, void*> CreateInstr;
    public delegate* unmanaged<void*, void*, void*, void> InsertBefore;
    public delegate* unmanaged<void*, void*, void> Remove;
    public delegate* unmanaged<void*, void*, void*, void> Retarget;
    public delegate* unmanaged<void*, uint> Opcode;
    public delegate* unmanaged<void*, uint, void> SetOpcode;
    public delegate* unmanaged<uint, uint> OperandKind;
    public delegate* unmanaged<void*, long> Integer;
    public delegate* unmanaged<void*, long, void> SetInteger;
    public delegate* unmanaged<void*, uint> Token;
    public delegate* unmanaged<void*, uint, void> SetToken;
    public delegate* unmanaged<void*, uint> Index;
    public delegate* unmanaged<void*, uint, void> SetIndex;
    public delegate* unmanaged<void*, void*> Target;
    public delegate* unmanaged<void*, void*, void> SetTarget;
    public delegate* unmanaged<void*, void***, nuint> SwitchTargets;
    public delegate* unmanaged<void*, void**, nuint, void> SetSwitchTargets;
    public delegate* unmanaged<void*, uint> OriginalOffset;
    public delegate* unmanaged<void*, nuint> RegionCount;
    public delegate* unmanaged<void*, nuint, Region*, void> GetRegion;
    public delegate* unmanaged<void*, nuint, Region*, void> SetRegion;
    public delegate* unmanaged<void*, Region*, void> AddRegion;
    public delegate* unmanaged<void*, int> InitLocals;
    public delegate* unmanaged<void*, int, void> SetInitLocals;

    public delegate* unmanaged<void*, delegate* unmanaged<void*, void*, void*, int, void>, void*, void> BeforeEachExit;
    public delegate* unmanaged<void*, nuint*, int> WrapStart;
    public delegate* unmanaged<void*, int, delegate* unmanaged<void*, void*, void*, int, void>, void*, SingleExit*, int> MakeSingleExit;
    public delegate* unmanaged<void*, void*, void*, void*, uint, uint, nuint> ProtectBody;

    public delegate* unmanaged<void*, void*, void*> GetObjectData;
    public delegate* unmanaged<void*, void*, void*, delegate* unmanaged<void*, void>, void> SetObjectData;
}
