//===- DeviceLinkage.h - Device functions local to their module -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A device image is loaded on its own: nothing outside it calls into it
// but the runtime, and the runtime looks up only kernels and variables
// (fields) by name. Every other function of a device compile becomes local
// to the module before the optimizer runs, as the host object's do
// (Compiler::compileHostObject), so that one inlined everywhere is dropped.
// Left external, such a copy is dead code, and on AMDGPU one that uses
// shared memory (qd::random's slots) cannot be given its memory: the back
// end compiles it to a trap and warns at the user's function. Private to
// lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_DEVICELINKAGE_H
#define QDC_LIB_CODEGEN_DEVICELINKAGE_H

#include "llvm/IR/PassManager.h"

namespace qdc::codegen {

/// Adds to MPM a pass that makes every function definition but the kernels
/// internal; it belongs at the start of the pipeline.
void addDeviceInternalization(llvm::ModulePassManager &MPM);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_DEVICELINKAGE_H
