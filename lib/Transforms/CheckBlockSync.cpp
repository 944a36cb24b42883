//===- CheckBlockSync.cpp - Loops with block syncs name their block -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::simt::block::sync() is a barrier of the threads of a
// block (DESIGN section 1.2): the loop calling it must say how many threads
// a block has, with qd::loop_config({.block_dim = N}), both for the code to
// mean something (a shared_array indexed by the block's threads) and for
// the runtime check that the loop's iteration count fills whole blocks.
// That block is one of N threads, not a tile ({.block_dim = {32, 8}}),
// whose blocks at the edges of the index space run partly empty.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkBlockSync(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    for (const Stmt &Top : K.Body)
      walkStmts(Top, [&](const Stmt &S) {
        if (S.Kind != StmtKind::Loop || !S.BlockSync.isValid())
          return;
        if (S.BlockDim == 0)
          Diags.report(DiagID::err_block_sync_needs_block_dim, S.BlockSync);
        // A tile's edge blocks run fewer iterations in some threads.
        else if (!S.BlockShape.empty())
          Diags.report(DiagID::err_block_shape_sync, S.BlockSync);
      });
}
