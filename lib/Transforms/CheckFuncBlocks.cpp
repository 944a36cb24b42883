//===- CheckFuncBlocks.cpp - QD_STREAM_PARALLEL only in kernels -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 3 of DESIGN section 2: a stream-parallel block schedules
// a kernel's top-level loops onto streams, which only a kernel launch has; a
// QD_FUNC (or any other function) runs inside a task and cannot fork.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkFuncBlocks(Module &M, DiagEngine &Diags) {
  for (const Function &F : M.Functions)
    for (const SourceLoc &Loc : F.StreamParallelBlocks)
      Diags.report(F.IsDevice ? DiagID::err_sp_in_func
                              : DiagID::err_sp_outside_kernel,
                   Loc)
          << F.Name;
}
