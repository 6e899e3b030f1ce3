/*===- weft-c/Opcodes.h - CIL opcodes and operand kinds --------*- C -*-===*\
|*                                                                          *|
|* The instructions of ECMA-335 Partition III as weft's C ABI names them.  *|
|* An opcode's value is its encoding: the byte of a one-byte opcode        *|
|* (WEFT_OP_RET 0x2A), 0xFE00 with the second byte of a two-byte one       *|
|* (WEFT_OP_CEQ 0xFE01). WEFT_OPCODES(X) lists them as                     *|
|* X(NAME, "mnemonic", value, operand kind).                                *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#ifndef WEFT_C_OPCODES_H
#define WEFT_C_OPCODES_H

/* The inline operand of an instruction (ECMA-335 III.1.9), and which accessor of
 * weft-c/Plugin.h reads and sets it. */
#define WEFT_OPERAND_NONE 0       /* none */
#define WEFT_OPERAND_SHORT_VAR 1  /* an argument or local number (index) */
#define WEFT_OPERAND_VAR 2        /* an argument or local number (index) */
#define WEFT_OPERAND_SHORT_I 3    /* a signed 8-bit integer (integer) */
#define WEFT_OPERAND_SHORT_U 4    /* an unsigned 8-bit value: unaligned., no. (integer) */
#define WEFT_OPERAND_I 5          /* a 32-bit integer (integer) */
#define WEFT_OPERAND_I8 6         /* a 64-bit integer (integer) */
#define WEFT_OPERAND_SHORT_R 7    /* a float32 (integer: its bits) */
#define WEFT_OPERAND_R 8          /* a float64 (integer: its bits) */
#define WEFT_OPERAND_SHORT_BR 9   /* a branch target (target) */
#define WEFT_OPERAND_BR 10        /* a branch target (target) */
#define WEFT_OPERAND_SWITCH 11    /* switch targets */
#define WEFT_OPERAND_METHOD 12    /* a MethodDef, MemberRef or MethodSpec token */
#define WEFT_OPERAND_FIELD 13     /* a Field or MemberRef token */
#define WEFT_OPERAND_TYPE 14      /* a TypeDef, TypeRef or TypeSpec token */
#define WEFT_OPERAND_TOK 15       /* any of the three above */
#define WEFT_OPERAND_STRING 16    /* a user string token */
#define WEFT_OPERAND_SIG 17       /* a StandAloneSig token */

#define WEFT_OPCODES(X) \
  X(NOP, "nop", 0x00, WEFT_OPERAND_NONE) \
  X(BREAK, "break", 0x01, WEFT_OPERAND_NONE) \
  X(LDARG_0, "ldarg.0", 0x02, WEFT_OPERAND_NONE) \
  X(LDARG_1, "ldarg.1", 0x03, WEFT_OPERAND_NONE) \
  X(LDARG_2, "ldarg.2", 0x04, WEFT_OPERAND_NONE) \
  X(LDARG_3, "ldarg.3", 0x05, WEFT_OPERAND_NONE) \
  X(LDLOC_0, "ldloc.0", 0x06, WEFT_OPERAND_NONE) \
  X(LDLOC_1, "ldloc.1", 0x07, WEFT_OPERAND_NONE) \
  X(LDLOC_2, "ldloc.2", 0x08, WEFT_OPERAND_NONE) \
  X(LDLOC_3, "ldloc.3", 0x09, WEFT_OPERAND_NONE) \
  X(STLOC_0, "stloc.0", 0x0A, WEFT_OPERAND_NONE) \
  X(STLOC_1, "stloc.1", 0x0B, WEFT_OPERAND_NONE) \
  X(STLOC_2, "stloc.2", 0x0C, WEFT_OPERAND_NONE) \
  X(STLOC_3, "stloc.3", 0x0D, WEFT_OPERAND_NONE) \
  X(LDARG_S, "ldarg.s", 0x0E, WEFT_OPERAND_SHORT_VAR) \
  X(LDARGA_S, "ldarga.s", 0x0F, WEFT_OPERAND_SHORT_VAR) \
  X(STARG_S, "starg.s", 0x10, WEFT_OPERAND_SHORT_VAR) \
  X(LDLOC_S, "ldloc.s", 0x11, WEFT_OPERAND_SHORT_VAR) \
  X(LDLOCA_S, "ldloca.s", 0x12, WEFT_OPERAND_SHORT_VAR) \
  X(STLOC_S, "stloc.s", 0x13, WEFT_OPERAND_SHORT_VAR) \
  X(LDNULL, "ldnull", 0x14, WEFT_OPERAND_NONE) \
  X(LDC_I4_M1, "ldc.i4.m1", 0x15, WEFT_OPERAND_NONE) \
  X(LDC_I4_0, "ldc.i4.0", 0x16, WEFT_OPERAND_NONE) \
  X(LDC_I4_1, "ldc.i4.1", 0x17, WEFT_OPERAND_NONE) \
  X(LDC_I4_2, "ldc.i4.2", 0x18, WEFT_OPERAND_NONE) \
  X(LDC_I4_3, "ldc.i4.3", 0x19, WEFT_OPERAND_NONE) \
  X(LDC_I4_4, "ldc.i4.4", 0x1A, WEFT_OPERAND_NONE) \
  X(LDC_I4_5, "ldc.i4.5", 0x1B, WEFT_OPERAND_NONE) \
  X(LDC_I4_6, "ldc.i4.6", 0x1C, WEFT_OPERAND_NONE) \
  X(LDC_I4_7, "ldc.i4.7", 0x1D, WEFT_OPERAND_NONE) \
  X(LDC_I4_8, "ldc.i4.8", 0x1E, WEFT_OPERAND_NONE) \
  X(LDC_I4_S, "ldc.i4.s", 0x1F, WEFT_OPERAND_SHORT_I) \
  X(LDC_I4, "ldc.i4", 0x20, WEFT_OPERAND_I) \
  X(LDC_I8, "ldc.i8", 0x21, WEFT_OPERAND_I8) \
  X(LDC_R4, "ldc.r4", 0x22, WEFT_OPERAND_SHORT_R) \
  X(LDC_R8, "ldc.r8", 0x23, WEFT_OPERAND_R) \
  X(DUP, "dup", 0x25, WEFT_OPERAND_NONE) \
  X(POP, "pop", 0x26, WEFT_OPERAND_NONE) \
  X(JMP, "jmp", 0x27, WEFT_OPERAND_METHOD) \
  X(CALL, "call", 0x28, WEFT_OPERAND_METHOD) \
  X(CALLI, "calli", 0x29, WEFT_OPERAND_SIG) \
  X(RET, "ret", 0x2A, WEFT_OPERAND_NONE) \
  X(BR_S, "br.s", 0x2B, WEFT_OPERAND_SHORT_BR) \
  X(BRFALSE_S, "brfalse.s", 0x2C, WEFT_OPERAND_SHORT_BR) \
  X(BRTRUE_S, "brtrue.s", 0x2D, WEFT_OPERAND_SHORT_BR) \
  X(BEQ_S, "beq.s", 0x2E, WEFT_OPERAND_SHORT_BR) \
  X(BGE_S, "bge.s", 0x2F, WEFT_OPERAND_SHORT_BR) \
  X(BGT_S, "bgt.s", 0x30, WEFT_OPERAND_SHORT_BR) \
  X(BLE_S, "ble.s", 0x31, WEFT_OPERAND_SHORT_BR) \
  X(BLT_S, "blt.s", 0x32, WEFT_OPERAND_SHORT_BR) \
  X(BNE_UN_S, "bne.un.s", 0x33, WEFT_OPERAND_SHORT_BR) \
  X(BGE_UN_S, "bge.un.s", 0x34, WEFT_OPERAND_SHORT_BR) \
  X(BGT_UN_S, "bgt.un.s", 0x35, WEFT_OPERAND_SHORT_BR) \
  X(BLE_UN_S, "ble.un.s", 0x36, WEFT_OPERAND_SHORT_BR) \
  X(BLT_UN_S, "blt.un.s", 0x37, WEFT_OPERAND_SHORT_BR) \
  X(BR, "br", 0x38, WEFT_OPERAND_BR) \
  X(BRFALSE, "brfalse", 0x39, WEFT_OPERAND_BR) \
  X(BRTRUE, "brtrue", 0x3A, WEFT_OPERAND_BR) \
  X(BEQ, "beq", 0x3B, WEFT_OPERAND_BR) \
  X(BGE, "bge", 0x3C, WEFT_OPERAND_BR) \
  X(BGT, "bgt", 0x3D, WEFT_OPERAND_BR) \
  X(BLE, "ble", 0x3E, WEFT_OPERAND_BR) \
  X(BLT, "blt", 0x3F, WEFT_OPERAND_BR) \
  X(BNE_UN, "bne.un", 0x40, WEFT_OPERAND_BR) \
  X(BGE_UN, "bge.un", 0x41, WEFT_OPERAND_BR) \
  X(BGT_UN, "bgt.un", 0x42, WEFT_OPERAND_BR) \
  X(BLE_UN, "ble.un", 0x43, WEFT_OPERAND_BR) \
  X(BLT_UN, "blt.un", 0x44, WEFT_OPERAND_BR) \
  X(SWITCH, "switch", 0x45, WEFT_OPERAND_SWITCH) \
  X(LDIND_I1, "ldind.i1", 0x46, WEFT_OPERAND_NONE) \
  X(LDIND_U1, "ldind.u1", 0x47, WEFT_OPERAND_NONE) \
  X(LDIND_I2, "ldind.i2", 0x48, WEFT_OPERAND_NONE) \
  X(LDIND_U2, "ldind.u2", 0x49, WEFT_OPERAND_NONE) \
  X(LDIND_I4, "ldind.i4", 0x4A, WEFT_OPERAND_NONE) \
  X(LDIND_U4, "ldind.u4", 0x4B, WEFT_OPERAND_NONE) \
  X(LDIND_I8, "ldind.i8", 0x4C, WEFT_OPERAND_NONE) \
  X(LDIND_I, "ldind.i", 0x4D, WEFT_OPERAND_NONE) \
  X(LDIND_R4, "ldind.r4", 0x4E, WEFT_OPERAND_NONE) \
  X(LDIND_R8, "ldind.r8", 0x4F, WEFT_OPERAND_NONE) \
  X(LDIND_REF, "ldind.ref", 0x50, WEFT_OPERAND_NONE) \
  X(STIND_REF, "stind.ref", 0x51, WEFT_OPERAND_NONE) \
  X(STIND_I1, "stind.i1", 0x52, WEFT_OPERAND_NONE) \
  X(STIND_I2, "stind.i2", 0x53, WEFT_OPERAND_NONE) \
  X(STIND_I4, "stind.i4", 0x54, WEFT_OPERAND_NONE) \
  X(STIND_I8, "stind.i8", 0x55, WEFT_OPERAND_NONE) \
  X(STIND_R4, "stind.r4", 0x56, WEFT_OPERAND_NONE) \
  X(STIND_R8, "stind.r8", 0x57, WEFT_OPERAND_NONE) \
  X(ADD, "add", 0x58, WEFT_OPERAND_NONE) \
  X(SUB, "sub", 0x59, WEFT_OPERAND_NONE) \
  X(MUL, "mul", 0x5A, WEFT_OPERAND_NONE) \
  X(DIV, "div", 0x5B, WEFT_OPERAND_NONE) \
  X(DIV_UN, "div.un", 0x5C, WEFT_OPERAND_NONE) \
  X(REM, "rem", 0x5D, WEFT_OPERAND_NONE) \
  X(REM_UN, "rem.un", 0x5E, WEFT_OPERAND_NONE) \
  X(AND, "and", 0x5F, WEFT_OPERAND_NONE) \
  X(OR, "or", 0x60, WEFT_OPERAND_NONE) \
  X(XOR, "xor", 0x61, WEFT_OPERAND_NONE) \
  X(SHL, "shl", 0x62, WEFT_OPERAND_NONE) \
  X(SHR, "shr", 0x63, WEFT_OPERAND_NONE) \
  X(SHR_UN, "shr.un", 0x64, WEFT_OPERAND_NONE) \
  X(NEG, "neg", 0x65, WEFT_OPERAND_NONE) \
  X(NOT, "not", 0x66, WEFT_OPERAND_NONE) \
  X(CONV_I1, "conv.i1", 0x67, WEFT_OPERAND_NONE) \
  X(CONV_I2, "conv.i2", 0x68, WEFT_OPERAND_NONE) \
  X(CONV_I4, "conv.i4", 0x69, WEFT_OPERAND_NONE) \
  X(CONV_I8, "conv.i8", 0x6A, WEFT_OPERAND_NONE) \
  X(CONV_R4, "conv.r4", 0x6B, WEFT_OPERAND_NONE) \
  X(CONV_R8, "conv.r8", 0x6C, WEFT_OPERAND_NONE) \
  X(CONV_U4, "conv.u4", 0x6D, WEFT_OPERAND_NONE) \
  X(CONV_U8, "conv.u8", 0x6E, WEFT_OPERAND_NONE) \
  X(CALLVIRT, "callvirt", 0x6F, WEFT_OPERAND_METHOD) \
  X(CPOBJ, "cpobj", 0x70, WEFT_OPERAND_TYPE) \
  X(LDOBJ, "ldobj", 0x71, WEFT_OPERAND_TYPE) \
  X(LDSTR, "ldstr", 0x72, WEFT_OPERAND_STRING) \
  X(NEWOBJ, "newobj", 0x73, WEFT_OPERAND_METHOD) \
  X(CASTCLASS, "castclass", 0x74, WEFT_OPERAND_TYPE) \
  X(ISINST, "isinst", 0x75, WEFT_OPERAND_TYPE) \
  X(CONV_R_UN, "conv.r.un", 0x76, WEFT_OPERAND_NONE) \
  X(UNBOX, "unbox", 0x79, WEFT_OPERAND_TYPE) \
  X(THROW, "throw", 0x7A, WEFT_OPERAND_NONE) \
  X(LDFLD, "ldfld", 0x7B, WEFT_OPERAND_FIELD) \
  X(LDFLDA, "ldflda", 0x7C, WEFT_OPERAND_FIELD) \
  X(STFLD, "stfld", 0x7D, WEFT_OPERAND_FIELD) \
  X(LDSFLD, "ldsfld", 0x7E, WEFT_OPERAND_FIELD) \
  X(LDSFLDA, "ldsflda", 0x7F, WEFT_OPERAND_FIELD) \
  X(STSFLD, "stsfld", 0x80, WEFT_OPERAND_FIELD) \
  X(STOBJ, "stobj", 0x81, WEFT_OPERAND_TYPE) \
  X(CONV_OVF_I1_UN, "conv.ovf.i1.un", 0x82, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I2_UN, "conv.ovf.i2.un", 0x83, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I4_UN, "conv.ovf.i4.un", 0x84, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I8_UN, "conv.ovf.i8.un", 0x85, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U1_UN, "conv.ovf.u1.un", 0x86, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U2_UN, "conv.ovf.u2.un", 0x87, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U4_UN, "conv.ovf.u4.un", 0x88, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U8_UN, "conv.ovf.u8.un", 0x89, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I_UN, "conv.ovf.i.un", 0x8A, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U_UN, "conv.ovf.u.un", 0x8B, WEFT_OPERAND_NONE) \
  X(BOX, "box", 0x8C, WEFT_OPERAND_TYPE) \
  X(NEWARR, "newarr", 0x8D, WEFT_OPERAND_TYPE) \
  X(LDLEN, "ldlen", 0x8E, WEFT_OPERAND_NONE) \
  X(LDELEMA, "ldelema", 0x8F, WEFT_OPERAND_TYPE) \
  X(LDELEM_I1, "ldelem.i1", 0x90, WEFT_OPERAND_NONE) \
  X(LDELEM_U1, "ldelem.u1", 0x91, WEFT_OPERAND_NONE) \
  X(LDELEM_I2, "ldelem.i2", 0x92, WEFT_OPERAND_NONE) \
  X(LDELEM_U2, "ldelem.u2", 0x93, WEFT_OPERAND_NONE) \
  X(LDELEM_I4, "ldelem.i4", 0x94, WEFT_OPERAND_NONE) \
  X(LDELEM_U4, "ldelem.u4", 0x95, WEFT_OPERAND_NONE) \
  X(LDELEM_I8, "ldelem.i8", 0x96, WEFT_OPERAND_NONE) \
  X(LDELEM_I, "ldelem.i", 0x97, WEFT_OPERAND_NONE) \
  X(LDELEM_R4, "ldelem.r4", 0x98, WEFT_OPERAND_NONE) \
  X(LDELEM_R8, "ldelem.r8", 0x99, WEFT_OPERAND_NONE) \
  X(LDELEM_REF, "ldelem.ref", 0x9A, WEFT_OPERAND_NONE) \
  X(STELEM_I, "stelem.i", 0x9B, WEFT_OPERAND_NONE) \
  X(STELEM_I1, "stelem.i1", 0x9C, WEFT_OPERAND_NONE) \
  X(STELEM_I2, "stelem.i2", 0x9D, WEFT_OPERAND_NONE) \
  X(STELEM_I4, "stelem.i4", 0x9E, WEFT_OPERAND_NONE) \
  X(STELEM_I8, "stelem.i8", 0x9F, WEFT_OPERAND_NONE) \
  X(STELEM_R4, "stelem.r4", 0xA0, WEFT_OPERAND_NONE) \
  X(STELEM_R8, "stelem.r8", 0xA1, WEFT_OPERAND_NONE) \
  X(STELEM_REF, "stelem.ref", 0xA2, WEFT_OPERAND_NONE) \
  X(LDELEM, "ldelem", 0xA3, WEFT_OPERAND_TYPE) \
  X(STELEM, "stelem", 0xA4, WEFT_OPERAND_TYPE) \
  X(UNBOX_ANY, "unbox.any", 0xA5, WEFT_OPERAND_TYPE) \
  X(CONV_OVF_I1, "conv.ovf.i1", 0xB3, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U1, "conv.ovf.u1", 0xB4, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I2, "conv.ovf.i2", 0xB5, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U2, "conv.ovf.u2", 0xB6, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I4, "conv.ovf.i4", 0xB7, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U4, "conv.ovf.u4", 0xB8, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I8, "conv.ovf.i8", 0xB9, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U8, "conv.ovf.u8", 0xBA, WEFT_OPERAND_NONE) \
  X(REFANYVAL, "refanyval", 0xC2, WEFT_OPERAND_TYPE) \
  X(CKFINITE, "ckfinite", 0xC3, WEFT_OPERAND_NONE) \
  X(MKREFANY, "mkrefany", 0xC6, WEFT_OPERAND_TYPE) \
  X(LDTOKEN, "ldtoken", 0xD0, WEFT_OPERAND_TOK) \
  X(CONV_U2, "conv.u2", 0xD1, WEFT_OPERAND_NONE) \
  X(CONV_U1, "conv.u1", 0xD2, WEFT_OPERAND_NONE) \
  X(CONV_I, "conv.i", 0xD3, WEFT_OPERAND_NONE) \
  X(CONV_OVF_I, "conv.ovf.i", 0xD4, WEFT_OPERAND_NONE) \
  X(CONV_OVF_U, "conv.ovf.u", 0xD5, WEFT_OPERAND_NONE) \
  X(ADD_OVF, "add.ovf", 0xD6, WEFT_OPERAND_NONE) \
  X(ADD_OVF_UN, "add.ovf.un", 0xD7, WEFT_OPERAND_NONE) \
  X(MUL_OVF, "mul.ovf", 0xD8, WEFT_OPERAND_NONE) \
  X(MUL_OVF_UN, "mul.ovf.un", 0xD9, WEFT_OPERAND_NONE) \
  X(SUB_OVF, "sub.ovf", 0xDA, WEFT_OPERAND_NONE) \
  X(SUB_OVF_UN, "sub.ovf.un", 0xDB, WEFT_OPERAND_NONE) \
  X(ENDFINALLY, "endfinally", 0xDC, WEFT_OPERAND_NONE) \
  X(LEAVE, "leave", 0xDD, WEFT_OPERAND_BR) \
  X(LEAVE_S, "leave.s", 0xDE, WEFT_OPERAND_SHORT_BR) \
  X(STIND_I, "stind.i", 0xDF, WEFT_OPERAND_NONE) \
  X(CONV_U, "conv.u", 0xE0, WEFT_OPERAND_NONE) \
  X(ARGLIST, "arglist", 0xFE00, WEFT_OPERAND_NONE) \
  X(CEQ, "ceq", 0xFE01, WEFT_OPERAND_NONE) \
  X(CGT, "cgt", 0xFE02, WEFT_OPERAND_NONE) \
  X(CGT_UN, "cgt.un", 0xFE03, WEFT_OPERAND_NONE) \
  X(CLT, "clt", 0xFE04, WEFT_OPERAND_NONE) \
  X(CLT_UN, "clt.un", 0xFE05, WEFT_OPERAND_NONE) \
  X(LDFTN, "ldftn", 0xFE06, WEFT_OPERAND_METHOD) \
  X(LDVIRTFTN, "ldvirtftn", 0xFE07, WEFT_OPERAND_METHOD) \
  X(LDARG, "ldarg", 0xFE09, WEFT_OPERAND_VAR) \
  X(LDARGA, "ldarga", 0xFE0A, WEFT_OPERAND_VAR) \
  X(STARG, "starg", 0xFE0B, WEFT_OPERAND_VAR) \
  X(LDLOC, "ldloc", 0xFE0C, WEFT_OPERAND_VAR) \
  X(LDLOCA, "ldloca", 0xFE0D, WEFT_OPERAND_VAR) \
  X(STLOC, "stloc", 0xFE0E, WEFT_OPERAND_VAR) \
  X(LOCALLOC, "localloc", 0xFE0F, WEFT_OPERAND_NONE) \
  X(ENDFILTER, "endfilter", 0xFE11, WEFT_OPERAND_NONE) \
  X(UNALIGNED, "unaligned.", 0xFE12, WEFT_OPERAND_SHORT_U) \
  X(VOLATILE, "volatile.", 0xFE13, WEFT_OPERAND_NONE) \
  X(TAIL, "tail.", 0xFE14, WEFT_OPERAND_NONE) \
  X(INITOBJ, "initobj", 0xFE15, WEFT_OPERAND_TYPE) \
  X(CONSTRAINED, "constrained.", 0xFE16, WEFT_OPERAND_TYPE) \
  X(CPBLK, "cpblk", 0xFE17, WEFT_OPERAND_NONE) \
  X(INITBLK, "initblk", 0xFE18, WEFT_OPERAND_NONE) \
  X(NO, "no.", 0xFE19, WEFT_OPERAND_SHORT_U) \
  X(RETHROW, "rethrow", 0xFE1A, WEFT_OPERAND_NONE) \
  X(SIZEOF, "sizeof", 0xFE1C, WEFT_OPERAND_TYPE) \
  X(REFANYTYPE, "refanytype", 0xFE1D, WEFT_OPERAND_NONE) \
  X(READONLY, "readonly.", 0xFE1E, WEFT_OPERAND_NONE)

enum weft_opcode {
#define WEFT_OPCODE_ENUM_(Name, Mnemonic, Value, Operand) WEFT_OP_##Name = Value,
  WEFT_OPCODES(WEFT_OPCODE_ENUM_)
#undef WEFT_OPCODE_ENUM_
  WEFT_OP_INVALID_ = 0xFFFF
};

#endif
