//===- FoldSerialTails.cpp - Serial tasks at the end of parallel ones -----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A serial task right after a parallel loop, on the same stream
// and in the same qd::graph::do_while body (or both outside one), usually
// turns the loop's reductions into the next loop's scalars: `alpha = rTr /
// pAp;`. On a GPU it then costs a launch of its own, which in a graph is a
// node and microseconds of latency per run. In QD_GRAPH kernels it is
// folded: on GPUs the loop's task runs it at its end, in one thread of the
// block that finishes last, once every block's work is visible (the "last
// block" pattern: each block takes a ticket from a counter in the kernel
// scalars); the runtime does not launch it there. The CPU runs it as
// before. Loops whose bodies call qd::simt::block::sync are not folded
// (their launch check may end every thread early).
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

/// The do_while loop task I is in (1 + its index), or 0.
static unsigned getLoopOf(const Kernel &K, size_t I) {
  for (size_t L = 0; L < K.Loops.size(); ++L)
    if (I >= K.Loops[L].FirstTask &&
        I < K.Loops[L].FirstTask + K.Loops[L].NumTasks)
      return L + 1;
  return 0;
}

void qdc::foldSerialTails(Module &M, DiagEngine &) {
  for (Kernel &K : M.Kernels) {
    if (!K.IsGraph)
      continue;
    for (size_t I = 1; I < K.Tasks.size(); ++I) {
      const Task &Loop = K.Tasks[I - 1];
      Task &Tail = K.Tasks[I];
      const Stmt *S = K.findStmt(Loop.StmtIds.front());
      Tail.TailOfPrevious =
          Loop.Kind != TaskKind::Serial && Tail.Kind == TaskKind::Serial &&
          !Loop.TailOfPrevious && Loop.Group == Tail.Group &&
          getLoopOf(K, I - 1) == getLoopOf(K, I) && S &&
          !S->BlockSync.isValid();
    }
  }
}
