//===- CheckExclusivity.cpp - All blocks or none --------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 1 of DESIGN section 2, as in Quadrants: when any
// top-level statement of a kernel is a QD_STREAM_PARALLEL block, all must be.
// A statement between blocks would need its own place in the fork/join
// order, which the user should make explicit with a separate kernel. The
// error names the first offending statement.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkExclusivity(Module &M, DiagEngine &Diags) {
  auto IsBlock = [](const Stmt &S) { return S.Kind == StmtKind::Block; };
  for (const Kernel &K : M.Kernels) {
    auto FirstBlock = llvm::find_if(K.Body, IsBlock);
    if (FirstBlock == K.Body.end())
      continue;
    auto FirstOther = llvm::find_if_not(K.Body, IsBlock);
    if (FirstOther == K.Body.end())
      continue;
    Diags.report(DiagID::err_sp_exclusive, FirstOther->Loc) << K.Name;
    Diags.report(DiagID::note_sp_first_block, FirstBlock->Loc) << K.Name;
  }
}
