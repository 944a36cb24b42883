//===- SourceGen.h - KIR to generated C++ -----------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The three generated translation units: the device source per
// GPU dialect (KernelRewriter.cpp), the launcher source with the CPU tasks
// and the module descriptor, and the public header that declares the same
// launchers (Launcher.cpp). Private to lib/CodeGen; qdc/CodeGen/CodeGen.h is
// the entry point.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_SOURCEGEN_H
#define QDC_LIB_CODEGEN_SOURCEGEN_H

#include "TargetHooks.h"

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace qdc::codegen {

/// A parameter's C++ type: in the argument block (`qd::ndarray<T, N>`) or
/// in the launcher's signature (`const qd::Ndarray<T, N> &`).
std::string getParamType(const kir::Param &P, bool Host);

/// Shareable locals a task recomputes: those with a text, declared before
/// its first statement at the kernel's top level or in its own block.
std::vector<const kir::Stmt *> getVisibleLocals(const kir::Kernel &K,
                                                const kir::Task &Tk);

/// The .qd file rewritten for target T: each kernel replaced by its
/// argument struct and task functions, fields qualified as T needs.
std::string rewriteModule(const kir::Module &M, const TargetHooks &T,
                          llvm::StringRef InputPath);

/// The device translation unit for a GPU target.
std::string generateDeviceSource(const kir::Module &M, const TargetHooks &T,
                                 llvm::StringRef InputPath);

/// The host translation unit: the CPU code of every task, the module
/// descriptor with Images embedded, one launcher per kernel, field handles.
std::string generateLauncherSource(const kir::Module &M,
                                   llvm::StringRef Namespace,
                                   llvm::StringRef InputPath,
                                   llvm::ArrayRef<DeviceImage> Images);

/// The public header: kernel functions and field handles in Namespace.
std::string generateHeader(const kir::Module &M, llvm::StringRef Namespace,
                           llvm::StringRef InputPath);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_SOURCEGEN_H
