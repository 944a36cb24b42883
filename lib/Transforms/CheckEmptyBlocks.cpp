//===- CheckEmptyBlocks.cpp - Warn about blocks with nothing to run -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 5 of DESIGN section 2: an empty block still takes a group
// number but schedules no work, which is almost always a mistake.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkEmptyBlocks(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    for (const Stmt &Top : K.Body)
      walkStmts(Top, [&](const Stmt &S) {
        if (S.Kind == StmtKind::Block && S.Body.empty())
          Diags.report(DiagID::warn_sp_empty, S.Loc);
      });
}
