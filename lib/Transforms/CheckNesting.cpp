//===- CheckNesting.cpp - No block inside a block -------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 2 of DESIGN section 2: a block's statements run in order
// on one stream; a block inside it would ask for a second fork from a
// worker stream, which the fork/join model does not have.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

static void checkBlockBody(const Stmt &Outer, DiagEngine &Diags) {
  for (const Stmt &S : Outer.Body) {
    if (S.Kind != StmtKind::Block)
      continue;
    Diags.report(DiagID::err_sp_nested, S.Loc);
    Diags.report(DiagID::note_sp_enclosing_block, Outer.Loc);
    checkBlockBody(S, Diags);
  }
}

void qdc::checkNesting(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    for (const Stmt &S : K.Body)
      if (S.Kind == StmtKind::Block)
        checkBlockBody(S, Diags);
}
