//===- SplitLargeFunctions.h - Functions cut into pieces ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ptxas takes time quadratic in the basic blocks of one function: 21 s
// for the 30,006 blocks of a 10,000-deep `if`/`else if` chain on a
// 2-core machine, at every optimization level. A device function over the
// optimization limit (OptimizationLimit.h) is therefore cut into pieces:
// single-entry regions of about MaxPieceBlocks blocks are moved into
// functions of their own (LLVM's CodeExtractor), each called where its
// region was, so that every function the assembler sees is bounded. The
// pieces are named `<function>_qd_piece_<n>` (names::Piece); a PTX module
// that has them is assembled function by function (`ptxas -c`, then
// `nvlink`): in whole-program mode ptxas stays quadratic along the chain
// of calls (the chain above: 26 s in 118 pieces whole, 1.2 s by pieces).
// Such a function is compiled without optimization already; a piece costs
// a call. Private to lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_SPLITLARGEFUNCTIONS_H
#define QDC_LIB_CODEGEN_SPLITLARGEFUNCTIONS_H

#include "llvm/IR/PassManager.h"

namespace qdc::codegen {

/// The basic blocks of a piece: ptxas -c on the chain above took 1.64,
/// 1.25, 1.24, 1.59, 2.95 s for pieces of 64, 128, 256, 512 and 1,024.
constexpr unsigned MaxPieceBlocks = 256;

/// Adds the splitting to MPM; it acts on functions over the optimization
/// limit only, and belongs after it (a device image only).
void addLargeFunctionSplitting(llvm::ModulePassManager &MPM);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_SPLITLARGEFUNCTIONS_H
