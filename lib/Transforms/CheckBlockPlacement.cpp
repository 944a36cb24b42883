//===- CheckBlockPlacement.cpp - Blocks are top-level statements ----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 4 of DESIGN section 2: groups are forked once per
// launch, so a block inside a loop, an `if` or a lambda (which would run per
// iteration, conditionally or per thread) has no meaning.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkBlockPlacement(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    for (const StrayBlock &B : K.StrayBlocks)
      Diags.report(DiagID::err_sp_not_top_level, B.Loc) << K.Name << B.Context;
}
