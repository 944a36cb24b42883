//===- CheckGraphKernels.cpp - What a QD_GRAPH kernel may hold ------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A QD_GRAPH kernel's later calls replay the graph of its
// first, giving each task node the call's argument block (DESIGN section
// 3.2). Kernel scalars (and so a returned value) live in device memory the
// runtime allocates for each call, which a replayed graph would not: such
// a kernel is refused until graphs carry that memory.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkGraphKernels(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    if (K.IsGraph && K.hasScalars())
      Diags.report(DiagID::err_graph_kernel_scalars, K.Loc)
          << K.Name
          << (K.ReturnStmt ? "return a value" : "keep kernel scalars");
}
