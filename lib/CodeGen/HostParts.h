//===- HostParts.h - The host object made in two parts ----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A large host module (many kernels: their CPU tasks and launchers) is cut
// in two (llvm::SplitModule), each part's machine code is made on a thread
// of its own, the two objects are joined by `ld.lld -r`, and the symbols
// the cut made global are made local again, so that the object has the
// symbols one object would have. Whether a module is cut depends on its
// size alone, never on the thread count: the object is the same with one
// thread (the parts one after the other) as with several.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_HOSTPARTS_H
#define QDC_LIB_CODEGEN_HOSTPARTS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace qdc::codegen {

/// Whether M is large enough that making it in two parts is faster.
bool shouldEmitInParts(const llvm::Module &M);

/// M's object, made in two parts on up to Threads threads: MakeTarget
/// makes a target machine for a part, Join runs `ld.lld -r` on the two
/// parts' objects. M is left cut (unusable).
llvm::Expected<std::string> emitInParts(
    llvm::Module &M, unsigned Threads,
    llvm::function_ref<std::unique_ptr<llvm::TargetMachine>()> MakeTarget,
    llvm::function_ref<llvm::Expected<std::string>(const std::string &,
                                                   const std::string &)>
        Join);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_HOSTPARTS_H
