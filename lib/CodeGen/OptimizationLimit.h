//===- OptimizationLimit.h - Functions too large to optimize ----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// LLVM's CFG simplification, instruction combining and jump
// threading take time quadratic in the number of branches that meet in one
// block, and one long `?:`, `&&` or `if`/`else if` chain makes thousands of
// them (a 10,000-deep `?:` takes half a minute at -O1 and above, in clang
// too). As GCC does with its size limits, qdc compiles a function of more
// basic blocks than the limit without optimization and warns at the
// function, so that compile time stays about linear in the input. Private
// to lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_OPTIMIZATIONLIMIT_H
#define QDC_LIB_CODEGEN_OPTIMIZATIONLIMIT_H

#include "llvm/IR/PassManager.h"

namespace qdc::codegen {

/// Functions of more basic blocks than this, as Clang emits them, are not
/// optimized. Ordinary kernels have a few hundred; a chain of N `?:` has
/// about 3N.
constexpr unsigned MaxOptimizedBlocks = 8192;

/// Adds the limit to MPM, at the start of the pipeline: a function over it
/// is marked `optnone` before the optimizing passes, and a warning is
/// reported.
void addOptimizationLimit(llvm::ModulePassManager &MPM);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_OPTIMIZATIONLIMIT_H
