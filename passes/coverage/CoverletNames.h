//===- passes/coverage/CoverletNames.h - Methods named as coverlet names them -*- C++ -*-===//
//
// coverlet keys a method of its results by Mono.Cecil's MethodReference.FullName: the return
// type, the declaring type, "::", the name and the parameter types, every type as Cecil's
// TypeReference.FullName writes it ("System.Int32", "Ns.Outer/Inner", "System.Func`2<T,
// System.String>" without the space, "System.Int32[]", "System.Int32&", generic parameters by
// name), no generic parameters after a method's name:
//
//   System.Collections.Generic.IEnumerable`1<TKey> Ns.Lictionary`2::get_Keys()
//
// The coverage map carries this name beside weft's own, so that the reports' JSON is coverlet's
// to the method (one it can merge with MergeWith), and so that two methods that differ only in
// their return type or generic parameters (op_Explicit overloads, F() and F<T>()) stay two.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PASSES_COVERAGE_COVERLETNAMES_H
#define WEFT_PASSES_COVERAGE_COVERLETNAMES_H

#include "metadata/Module.h"
#include "metadata/Signature.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace weft::passes {

/// The full name coverlet gives method \p MethodRow of type \p TypeRow (named \p TypeName, as
/// Cecil names it: "Ns.Outer/Inner"), whose signature is \p Sig.
std::string coverletMethodName(const metadata::Module &M, uint32_t TypeRow,
                               llvm::StringRef TypeName, uint32_t MethodRow,
                               const metadata::MethodSig &Sig);

} // namespace weft::passes

#endif
