// Weft.Sdk: the CIL opcodes as weft's C ABI numbers them (include/weft-c/Opcodes.h): an opcode's
// value is its encoding, the byte of a one-byte opcode, 0xFE00 with the second byte of a two-byte
// one. The names are System.Reflection.Emit.OpCodes' field names.
namespace Weft;

public static class Op
{
    /// <summary><c>nop</c></summary>
    public const uint Nop = 0x00;
    /// <summary><c>break</c></summary>
    public const uint Break = 0x01;
    /// <summary><c>ldarg.0</c></summary>
    public const uint Ldarg_0 = 0x02;
    /// <summary><c>ldarg.1</c></summary>
    public const uint Ldarg_1 = 0x03;
    /// <summary><c>ldarg.2</c></summary>
    public const uint Ldarg_2 = 0x04;
    /// <summary><c>ldarg.3</c></summary>
    public const uint Ldarg_3 = 0x05;
    /// <summary><c>ldloc.0</c></summary>
    public const uint Ldloc_0 = 0x06;
    /// <summary><c>ldloc.1</c></summary>
    public const uint Ldloc_1 = 0x07;
    /// <summary><c>ldloc.2</c></summary>
    public const uint Ldloc_2 = 0x08;
    /// <summary><c>ldloc.3</c></summary>
    public const uint Ldloc_3 = 0x09;
    /// <summary><c>stloc.0</c></summary>
    public const uint Stloc_0 = 0x0A;
    /// <summary><c>stloc.1</c></summary>
    public const uint Stloc_1 = 0x0B;
    /// <summary><c>stloc.2</c></summary>
    public const uint Stloc_2 = 0x0C;
    /// <summary><c>stloc.3</c></summary>
    public const uint Stloc_3 = 0x0D;
    /// <summary><c>ldarg.s</c></summary>
    public const uint Ldarg_S = 0x0E;
    /// <summary><c>ldarga.s</c></summary>
    public const uint Ldarga_S = 0x0F;
    /// <summary><c>starg.s</c></summary>
    public const uint Starg_S = 0x10;
    /// <summary><c>ldloc.s</c></summary>
    public const uint Ldloc_S = 0x11;
    /// <summary><c>ldloca.s</c></summary>
    public const uint Ldloca_S = 0x12;
    /// <summary><c>stloc.s</c></summary>
    public const uint Stloc_S = 0x13;
    /// <summary><c>ldnull</c></summary>
    public const uint Ldnull = 0x14;
    /// <summary><c>ldc.i4.m1</c></summary>
    public const uint Ldc_I4_M1 = 0x15;
    /// <summary><c>ldc.i4.0</c></summary>
    public const uint Ldc_I4_0 = 0x16;
    /// <summary><c>ldc.i4.1</c></summary>
    public const uint Ldc_I4_1 = 0x17;
    /// <summary><c>ldc.i4.2</c></summary>
    public const uint Ldc_I4_2 = 0x18;
    /// <summary><c>ldc.i4.3</c></summary>
    public const uint Ldc_I4_3 = 0x19;
    /// <summary><c>ldc.i4.4</c></summary>
    public const uint Ldc_I4_4 = 0x1A;
    /// <summary><c>ldc.i4.5</c></summary>
    public const uint Ldc_I4_5 = 0x1B;
    /// <summary><c>ldc.i4.6</c></summary>
    public const uint Ldc_I4_6 = 0x1C;
    /// <summary><c>ldc.i4.7</c></summary>
    public const uint Ldc_I4_7 = 0x1D;
    /// <summary><c>ldc.i4.8</c></summary>
    public const uint Ldc_I4_8 = 0x1E;
    /// <summary><c>ldc.i4.s</c></summary>
    public const uint Ldc_I4_S = 0x1F;
    /// <summary><c>ldc.i4</c></summary>
    public const uint Ldc_I4 = 0x20;
    /// <summary><c>ldc.i8</c></summary>
    public const uint Ldc_I8 = 0x21;
    /// <summary><c>ldc.r4</c></summary>
    public const uint Ldc_R4 = 0x22;
    /// <summary><c>ldc.r8</c></summary>
    public const uint Ldc_R8 = 0x23;
    /// <summary><c>dup</c></summary>
    public const uint Dup = 0x25;
    /// <summary><c>pop</c></summary>
    public const uint Pop = 0x26;
    /// <summary><c>jmp</c></summary>
    public const uint Jmp = 0x27;
    /// <summary><c>call</c></summary>
    public const uint Call = 0x28;
    /// <summary><c>calli</c></summary>
    public const uint Calli = 0x29;
    /// <summary><c>ret</c></summary>
    public const uint Ret = 0x2A;
    /// <summary><c>br.s</c></summary>
    public const uint Br_S = 0x2B;
    /// <summary><c>brfalse.s</c></summary>
    public const uint Brfalse_S = 0x2C;
    /// <summary><c>brtrue.s</c></summary>
    public const uint Brtrue_S = 0x2D;
    /// <summary><c>beq.s</c></summary>
    public const uint Beq_S = 0x2E;
    /// <summary><c>bge.s</c></summary>
    public const uint Bge_S = 0x2F;
    /// <summary><c>bgt.s</c></summary>
    public const uint Bgt_S = 0x30;
    /// <summary><c>ble.s</c></summary>
    public const uint Ble_S = 0x31;
    /// <summary><c>blt.s</c></summary>
    public const uint Blt_S = 0x32;
    /// <summary><c>bne.un.s</c></summary>
    public const uint Bne_Un_S = 0x33;
    /// <summary><c>bge.un.s</c></summary>
    public const uint Bge_Un_S = 0x34;
    /// <summary><c>bgt.un.s</c></summary>
    public const uint Bgt_Un_S = 0x35;
    /// <summary><c>ble.un.s</c></summary>
    public const uint Ble_Un_S = 0x36;
    /// <summary><c>blt.un.s</c></summary>
    public const uint Blt_Un_S = 0x37;
    /// <summary><c>br</c></summary>
    public const uint Br = 0x38;
    /// <summary><c>brfalse</c></summary>
    public const uint Brfalse = 0x39;
    /// <summary><c>brtrue</c></summary>
    public const uint Brtrue = 0x3A;
    /// <summary><c>beq</c></summary>
    public const uint Beq = 0x3B;
    /// <summary><c>bge</c></summary>
    public const uint Bge = 0x3C;
    /// <summary><c>bgt</c></summary>
    public const uint Bgt = 0x3D;
    /// <summary><c>ble</c></summary>
    public const uint Ble = 0x3E;
    /// <summary><c>blt</c></summary>
    public const uint Blt = 0x3F;
    /// <summary><c>bne.un</c></summary>
    public const uint Bne_Un = 0x40;
    /// <summary><c>bge.un</c></summary>
    public const uint Bge_Un = 0x41;
    /// <summary><c>bgt.un</c></summary>
    public const uint Bgt_Un = 0x42;
    /// <summary><c>ble.un</c></summary>
    public const uint Ble_Un = 0x43;
    /// <summary><c>blt.un</c></summary>
    public const uint Blt_Un = 0x44;
    /// <summary><c>switch</c></summary>
    public const uint Switch = 0x45;
    /// <summary><c>ldind.i1</c></summary>
    public const uint Ldind_I1 = 0x46;
    /// <summary><c>ldind.u1</c></summary>
    public const uint Ldind_U1 = 0x47;
    /// <summary><c>ldind.i2</c></summary>
    public const uint Ldind_I2 = 0x48;
    /// <summary><c>ldind.u2</c></summary>
    public const uint Ldind_U2 = 0x49;
    /// <summary><c>ldind.i4</c></summary>
    public const uint Ldind_I4 = 0x4A;
    /// <summary><c>ldind.u4</c></summary>
    public const uint Ldind_U4 = 0x4B;
    /// <summary><c>ldind.i8</c></summary>
    public const uint Ldind_I8 = 0x4C;
    /// <summary><c>ldind.i</c></summary>
    public const uint Ldind_I = 0x4D;
    /// <summary><c>ldind.r4</c></summary>
    public const uint Ldind_R4 = 0x4E;
    /// <summary><c>ldind.r8</c></summary>
    public const uint Ldind_R8 = 0x4F;
    /// <summary><c>ldind.ref</c></summary>
    public const uint Ldind_Ref = 0x50;
    /// <summary><c>stind.ref</c></summary>
    public const uint Stind_Ref = 0x51;
    /// <summary><c>stind.i1</c></summary>
    public const uint Stind_I1 = 0x52;
    /// <summary><c>stind.i2</c></summary>
    public const uint Stind_I2 = 0x53;
    /// <summary><c>stind.i4</c></summary>
    public const uint Stind_I4 = 0x54;
    /// <summary><c>stind.i8</c></summary>
    public const uint Stind_I8 = 0x55;
    /// <summary><c>stind.r4</c></summary>
    public const uint Stind_R4 = 0x56;
    /// <summary><c>stind.r8</c></summary>
    public const uint Stind_R8 = 0x57;
    /// <summary><c>add</c></summary>
    public const uint Add = 0x58;
    /// <summary><c>sub</c></summary>
    public const uint Sub = 0x59;
    /// <summary><c>mul</c></summary>
    public const uint Mul = 0x5A;
    /// <summary><c>div</c></summary>
    public const uint Div = 0x5B;
    /// <summary><c>div.un</c></summary>
    public const uint Div_Un = 0x5C;
    /// <summary><c>rem</c></summary>
    public const uint Rem = 0x5D;
    /// <summary><c>rem.un</c></summary>
    public const uint Rem_Un = 0x5E;
    /// <summary><c>and</c></summary>
    public const uint And = 0x5F;
    /// <summary><c>or</c></summary>
    public const uint Or = 0x60;
    /// <summary><c>xor</c></summary>
    public const uint Xor = 0x61;
    /// <summary><c>shl</c></summary>
    public const uint Shl = 0x62;
    /// <summary><c>shr</c></summary>
    public const uint Shr = 0x63;
    /// <summary><c>shr.un</c></summary>
    public const uint Shr_Un = 0x64;
    /// <summary><c>neg</c></summary>
    public const uint Neg = 0x65;
    /// <summary><c>not</c></summary>
    public const uint Not = 0x66;
    /// <summary><c>conv.i1</c></summary>
    public const uint Conv_I1 = 0x67;
    /// <summary><c>conv.i2</c></summary>
    public const uint Conv_I2 = 0x68;
    /// <summary><c>conv.i4</c></summary>
    public const uint Conv_I4 = 0x69;
    /// <summary><c>conv.i8</c></summary>
    public const uint Conv_I8 = 0x6A;
    /// <summary><c>conv.r4</c></summary>
    public const uint Conv_R4 = 0x6B;
    /// <summary><c>conv.r8</c></summary>
    public const uint Conv_R8 = 0x6C;
    /// <summary><c>conv.u4</c></summary>
    public const uint Conv_U4 = 0x6D;
    /// <summary><c>conv.u8</c></summary>
    public const uint Conv_U8 = 0x6E;
    /// <summary><c>callvirt</c></summary>
    public const uint Callvirt = 0x6F;
    /// <summary><c>cpobj</c></summary>
    public const uint Cpobj = 0x70;
    /// <summary><c>ldobj</c></summary>
    public const uint Ldobj = 0x71;
    /// <summary><c>ldstr</c></summary>
    public const uint Ldstr = 0x72;
    /// <summary><c>newobj</c></summary>
    public const uint Newobj = 0x73;
    /// <summary><c>castclass</c></summary>
    public const uint Castclass = 0x74;
    /// <summary><c>isinst</c></summary>
    public const uint Isinst = 0x75;
    /// <summary><c>conv.r.un</c></summary>
    public const uint Conv_R_Un = 0x76;
    /// <summary><c>unbox</c></summary>
    public const uint Unbox = 0x79;
    /// <summary><c>throw</c></summary>
    public const uint Throw = 0x7A;
    /// <summary><c>ldfld</c></summary>
    public const uint Ldfld = 0x7B;
    /// <summary><c>ldflda</c></summary>
    public const uint Ldflda = 0x7C;
    /// <summary><c>stfld</c></summary>
    public const uint Stfld = 0x7D;
    /// <summary><c>ldsfld</c></summary>
    public const uint Ldsfld = 0x7E;
    /// <summary><c>ldsflda</c></summary>
    public const uint Ldsflda = 0x7F;
    /// <summary><c>stsfld</c></summary>
    public const uint Stsfld = 0x80;
    /// <summary><c>stobj</c></summary>
    public const uint Stobj = 0x81;
    /// <summary><c>conv.ovf.i1.un</c></summary>
    public const uint Conv_Ovf_I1_Un = 0x82;
    /// <summary><c>conv.ovf.i2.un</c></summary>
    public const uint Conv_Ovf_I2_Un = 0x83;
    /// <summary><c>conv.ovf.i4.un</c></summary>
    public const uint Conv_Ovf_I4_Un = 0x84;
    /// <summary><c>conv.ovf.i8.un</c></summary>
    public const uint Conv_Ovf_I8_Un = 0x85;
    /// <summary><c>conv.ovf.u1.un</c></summary>
    public const uint Conv_Ovf_U1_Un = 0x86;
    /// <summary><c>conv.ovf.u2.un</c></summary>
    public const uint Conv_Ovf_U2_Un = 0x87;
    /// <summary><c>conv.ovf.u4.un</c></summary>
    public const uint Conv_Ovf_U4_Un = 0x88;
    /// <summary><c>conv.ovf.u8.un</c></summary>
    public const uint Conv_Ovf_U8_Un = 0x89;
    /// <summary><c>conv.ovf.i.un</c></summary>
    public const uint Conv_Ovf_I_Un = 0x8A;
    /// <summary><c>conv.ovf.u.un</c></summary>
    public const uint Conv_Ovf_U_Un = 0x8B;
    /// <summary><c>box</c></summary>
    public const uint Box = 0x8C;
    /// <summary><c>newarr</c></summary>
    public const uint Newarr = 0x8D;
    /// <summary><c>ldlen</c></summary>
    public const uint Ldlen = 0x8E;
    /// <summary><c>ldelema</c></summary>
    public const uint Ldelema = 0x8F;
    /// <summary><c>ldelem.i1</c></summary>
    public const uint Ldelem_I1 = 0x90;
    /// <summary><c>ldelem.u1</c></summary>
    public const uint Ldelem_U1 = 0x91;
    /// <summary><c>ldelem.i2</c></summary>
    public const uint Ldelem_I2 = 0x92;
    /// <summary><c>ldelem.u2</c></summary>
    public const uint Ldelem_U2 = 0x93;
    /// <summary><c>ldelem.i4</c></summary>
    public const uint Ldelem_I4 = 0x94;
    /// <summary><c>ldelem.u4</c></summary>
    public const uint Ldelem_U4 = 0x95;
    /// <summary><c>ldelem.i8</c></summary>
    public const uint Ldelem_I8 = 0x96;
    /// <summary><c>ldelem.i</c></summary>
    public const uint Ldelem_I = 0x97;
    /// <summary><c>ldelem.r4</c></summary>
    public const uint Ldelem_R4 = 0x98;
    /// <summary><c>ldelem.r8</c></summary>
    public const uint Ldelem_R8 = 0x99;
    /// <summary><c>ldelem.ref</c></summary>
    public const uint Ldelem_Ref = 0x9A;
    /// <summary><c>stelem.i</c></summary>
    public const uint Stelem_I = 0x9B;
    /// <summary><c>stelem.i1</c></summary>
    public const uint Stelem_I1 = 0x9C;
    /// <summary><c>stelem.i2</c></summary>
    public const uint Stelem_I2 = 0x9D;
    /// <summary><c>stelem.i4</c></summary>
    public const uint Stelem_I4 = 0x9E;
    /// <summary><c>stelem.i8</c></summary>
    public const uint Stelem_I8 = 0x9F;
    /// <summary><c>stelem.r4</c></summary>
    public const uint Stelem_R4 = 0xA0;
    /// <summary><c>stelem.r8</c></summary>
    public const uint Stelem_R8 = 0xA1;
    /// <summary><c>stelem.ref</c></summary>
    public const uint Stelem_Ref = 0xA2;
    /// <summary><c>ldelem</c></summary>
    public const uint Ldelem = 0xA3;
    /// <summary><c>stelem</c></summary>
    public const uint Stelem = 0xA4;
    /// <summary><c>unbox.any</c></summary>
    public const uint Unbox_Any = 0xA5;
    /// <summary><c>conv.ovf.i1</c></summary>
    public const uint Conv_Ovf_I1 = 0xB3;
    /// <summary><c>conv.ovf.u1</c></summary>
    public const uint Conv_Ovf_U1 = 0xB4;
    /// <summary><c>conv.ovf.i2</c></summary>
    public const uint Conv_Ovf_I2 = 0xB5;
    /// <summary><c>conv.ovf.u2</c></summary>
    public const uint Conv_Ovf_U2 = 0xB6;
    /// <summary><c>conv.ovf.i4</c></summary>
    public const uint Conv_Ovf_I4 = 0xB7;
    /// <summary><c>conv.ovf.u4</c></summary>
    public const uint Conv_Ovf_U4 = 0xB8;
    /// <summary><c>conv.ovf.i8</c></summary>
    public const uint Conv_Ovf_I8 = 0xB9;
    /// <summary><c>conv.ovf.u8</c></summary>
    public const uint Conv_Ovf_U8 = 0xBA;
    /// <summary><c>refanyval</c></summary>
    public const uint Refanyval = 0xC2;
    /// <summary><c>ckfinite</c></summary>
    public const uint Ckfinite = 0xC3;
    /// <summary><c>mkrefany</c></summary>
    public const uint Mkrefany = 0xC6;
    /// <summary><c>ldtoken</c></summary>
    public const uint Ldtoken = 0xD0;
    /// <summary><c>conv.u2</c></summary>
    public const uint Conv_U2 = 0xD1;
    /// <summary><c>conv.u1</c></summary>
    public const uint Conv_U1 = 0xD2;
    /// <summary><c>conv.i</c></summary>
    public const uint Conv_I = 0xD3;
    /// <summary><c>conv.ovf.i</c></summary>
    public const uint Conv_Ovf_I = 0xD4;
    /// <summary><c>conv.ovf.u</c></summary>
    public const uint Conv_Ovf_U = 0xD5;
    /// <summary><c>add.ovf</c></summary>
    public const uint Add_Ovf = 0xD6;
    /// <summary><c>add.ovf.un</c></summary>
    public const uint Add_Ovf_Un = 0xD7;
    /// <summary><c>mul.ovf</c></summary>
    public const uint Mul_Ovf = 0xD8;
    /// <summary><c>mul.ovf.un</c></summary>
    public const uint Mul_Ovf_Un = 0xD9;
    /// <summary><c>sub.ovf</c></summary>
    public const uint Sub_Ovf = 0xDA;
    /// <summary><c>sub.ovf.un</c></summary>
    public const uint Sub_Ovf_Un = 0xDB;
    /// <summary><c>endfinally</c></summary>
    public const uint Endfinally = 0xDC;
    /// <summary><c>leave</c></summary>
    public const uint Leave = 0xDD;
    /// <summary><c>leave.s</c></summary>
    public const uint Leave_S = 0xDE;
    /// <summary><c>stind.i</c></summary>
    public const uint Stind_I = 0xDF;
    /// <summary><c>conv.u</c></summary>
    public const uint Conv_U = 0xE0;
    /// <summary><c>arglist</c></summary>
    public const uint Arglist = 0xFE00;
    /// <summary><c>ceq</c></summary>
    public const uint Ceq = 0xFE01;
    /// <summary><c>cgt</c></summary>
    public const uint Cgt = 0xFE02;
    /// <summary><c>cgt.un</c></summary>
    public const uint Cgt_Un = 0xFE03;
    /// <summary><c>clt</c></summary>
    public const uint Clt = 0xFE04;
    /// <summary><c>clt.un</c></summary>
    public const uint Clt_Un = 0xFE05;
    /// <summary><c>ldftn</c></summary>
    public const uint Ldftn = 0xFE06;
    /// <summary><c>ldvirtftn</c></summary>
    public const uint Ldvirtftn = 0xFE07;
    /// <summary><c>ldarg</c></summary>
    public const uint Ldarg = 0xFE09;
    /// <summary><c>ldarga</c></summary>
    public const uint Ldarga = 0xFE0A;
    /// <summary><c>starg</c></summary>
    public const uint Starg = 0xFE0B;
    /// <summary><c>ldloc</c></summary>
    public const uint Ldloc = 0xFE0C;
    /// <summary><c>ldloca</c></summary>
    public const uint Ldloca = 0xFE0D;
    /// <summary><c>stloc</c></summary>
    public const uint Stloc = 0xFE0E;
    /// <summary><c>localloc</c></summary>
    public const uint Localloc = 0xFE0F;
    /// <summary><c>endfilter</c></summary>
    public const uint Endfilter = 0xFE11;
    /// <summary><c>unaligned.</c></summary>
    public const uint Unaligned = 0xFE12;
    /// <summary><c>volatile.</c></summary>
    public const uint Volatile = 0xFE13;
    /// <summary><c>tail.</c></summary>
    public const uint Tailcall = 0xFE14;
    /// <summary><c>initobj</c></summary>
    public const uint Initobj = 0xFE15;
    /// <summary><c>constrained.</c></summary>
    public const uint Constrained = 0xFE16;
    /// <summary><c>cpblk</c></summary>
    public const uint Cpblk = 0xFE17;
    /// <summary><c>initblk</c></summary>
    public const uint Initblk = 0xFE18;
    /// <summary><c>no.</c></summary>
    public const uint No = 0xFE19;
    /// <summary><c>rethrow</c></summary>
    public const uint Rethrow = 0xFE1A;
    /// <summary><c>sizeof</c></summary>
    public const uint Sizeof = 0xFE1C;
    /// <summary><c>refanytype</c></summary>
    public const uint Refanytype = 0xFE1D;
    /// <summary><c>readonly.</c></summary>
    public const uint Readonly = 0xFE1E;
}
