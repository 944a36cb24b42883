//===- AssignGroups.cpp - Number the stream-parallel groups ---------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each top-level QD_STREAM_PARALLEL block is one group; groups
// are numbered 1, 2, 3... in source order, and 0 means "not stream-parallel"
// (DESIGN section 2). The runtime sizes its stream pool from the largest
// group count, so it is recorded on the kernel.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::assignGroups(Module &M, DiagEngine &) {
  for (Kernel &K : M.Kernels) {
    unsigned Next = 0;
    for (Stmt &S : K.Body)
      if (S.Kind == StmtKind::Block)
        S.Group = ++Next;
    K.NumGroups = Next;
  }
}
