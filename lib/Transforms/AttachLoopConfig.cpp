//===- AttachLoopConfig.cpp - loop_config sets the next loop's block ------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `qd::loop_config({.block_dim = N});` configures the top-level
// loop right after it (qd.loop_config in Quadrants). The pass copies the
// block size (or tile, over an ndrange loop's last dimensions) onto that
// loop; a loop_config followed by anything else is an
// error, since it would silently configure nothing.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

static void attachInList(std::vector<Stmt> &Stmts, DiagEngine &Diags) {
  for (size_t I = 0; I < Stmts.size(); ++I) {
    Stmt &S = Stmts[I];
    if (S.Kind == StmtKind::Block) {
      attachInList(S.Body, Diags);
      continue;
    }
    if (S.Kind != StmtKind::LoopConfig)
      continue;
    Stmt *Next = I + 1 < Stmts.size() ? &Stmts[I + 1] : nullptr;
    if (Next && Next->Kind == StmtKind::Loop) {
      Next->BlockDim = S.Config.BlockDim;
      Next->Parallelize = S.Config.Parallelize;
      // A tile lies over the loop's last dimensions.
      size_t Dims = S.Config.BlockShape.size();
      if (Dims &&
          (Next->Form != LoopForm::NdRange || Next->Extents.size() < Dims))
        Diags.report(DiagID::err_block_shape_needs_ndrange, S.Loc)
            << std::to_string(Dims);
      else
        Next->BlockShape = S.Config.BlockShape;
    } else if (!Next || !Next->SerializedLoop) {
      // A serialized loop was built as a serial statement; its block is
      // one thread.
      Diags.report(DiagID::err_loop_config_not_before_loop, S.Loc);
    }
  }
}

void qdc::attachLoopConfig(Module &M, DiagEngine &Diags) {
  for (Kernel &K : M.Kernels)
    attachInList(K.Body, Diags);
}
