//===- ReturnKernelScalar.cpp - A returned kernel scalar is the result ----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A kernel that ends with `return s;`, s a kernel scalar of the return type
// (the reduction `float s = 0; for (...) s += x[i]; return s;`), would
// launch a last serial task only to copy s into the result slot the
// launcher copies back. The launcher copies s's own slot instead, and that
// task is gone: one launch fewer per call. The copy back is ordered after
// every task on the launch stream, as it was after the serial one. Only a
// last task that holds the return alone, outside do_while loops, in a
// kernel without stream-parallel groups, goes.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::returnKernelScalar(Module &M, DiagEngine &) {
  for (Kernel &K : M.Kernels) {
    if (!K.ReturnStmt || !K.ReturnLocal || K.NumGroups != 0 || K.Tasks.empty())
      continue;
    const Stmt *Decl = K.findStmt(K.ReturnLocal->first);
    if (!Decl || !Decl->Vars[K.ReturnLocal->second].Scalar)
      continue;
    const Task &Last = K.Tasks.back();
    unsigned LastIndex = K.Tasks.size() - 1;
    if (Last.Kind != TaskKind::Serial || Last.StmtIds.size() != 1 ||
        Last.StmtIds.front() != *K.ReturnStmt || Last.Group != 0 ||
        llvm::any_of(K.Loops, [&](const GraphLoop &L) {
          return L.FirstTask <= LastIndex &&
                 LastIndex < L.FirstTask + L.NumTasks;
        }))
      continue;
    K.Tasks.pop_back();
    K.ReturnsScalarSlot = true;
  }
}
