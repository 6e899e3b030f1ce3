//===- tests/fuzz/CheckedErrors.h - LLVM's Error checks in the fuzz build -*- C++ -*-===//
//
// The fuzz build includes this first in every translation unit of weft (-include), so that an
// llvm::Error or llvm::Expected dropped without being checked aborts, as in an LLVM build with
// LLVM_ENABLE_ABI_BREAKING_CHECKS. Debian's LLVM 14 is built without them, and turning the macro
// on everywhere would change the layout of DenseMap, SmallPtrSet and json::Value (their epoch
// counters), which weft shares with the library. Only Error.h is read with the checks on; its
// classes keep their size (the "unchecked" state lives in a spare pointer bit and a spare
// bit-field bit), and what the library hands over arrives marked as checked. The library's code
// never receives an unchecked Error from weft's, except through logAllUnhandledErrors,
// errorToErrorCode and report_fatal_error(Error), which weft does not call on these paths.
// Error::fatalUncheckedError, which the library lacks, is in CheckedErrors.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_FUZZ_CHECKEDERRORS_H
#define WEFT_TESTS_FUZZ_CHECKEDERRORS_H

#ifdef __cplusplus
// What Error.h includes, read first with the library's setting.
#include "llvm-c/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/abi-breaking.h"
#include "llvm/Support/AlignOf.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#ifdef LLVM_SUPPORT_ERROR_H
#error "llvm/Support/Error.h was read before tests/fuzz/CheckedErrors.h"
#endif
#undef LLVM_ENABLE_ABI_BREAKING_CHECKS
#define LLVM_ENABLE_ABI_BREAKING_CHECKS 1
#include "llvm/Support/Error.h"
#undef LLVM_ENABLE_ABI_BREAKING_CHECKS
#define LLVM_ENABLE_ABI_BREAKING_CHECKS 0
#endif

#endif
