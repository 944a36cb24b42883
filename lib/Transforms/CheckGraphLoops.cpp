//===- CheckGraphLoops.cpp - qd::graph::do_while bodies do work -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime repeats a qd::graph::do_while loop's tasks
// until the flag is zero (DESIGN section 3.2); a body with no task, or
// whose tasks write nothing outside the body and call nothing, could
// never change the flag, so it repeats forever or once for nothing. The
// frontend has checked where the loop stands and what its flag is.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkGraphLoops(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    for (const GraphLoop &L : K.Loops)
      if (const Stmt *S = K.findStmt(L.StmtId)) {
        if (L.NumTasks == 0)
          Diags.report(DiagID::err_do_while_empty, S->Loc);
        else if (!S->BodyMayWrite)
          Diags.report(DiagID::err_do_while_no_writes, S->Loc);
      }
}
