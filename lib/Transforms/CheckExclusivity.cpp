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
// error names the first offending statement. Two kinds of statement create
// no such barrier and may stand beside the blocks: declarations of kernel
// scalars from constants and parameters before the first block, and a
// final `return e;` after the last.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace qdc;
using namespace qdc::kir;

/// The two statements that may stand beside the blocks, as they create no
/// hidden barrier (DESIGN section 2, rule 1): before the first block, a
/// declaration of locals initialized from constants and parameters only
/// (set before the fork); after the last block, the kernel's final
/// `return e;` (read after the join).
static bool isAllowedBesideBlocks(const Kernel &K, const Stmt &S,
                                  bool BeforeFirst, bool AfterLast) {
  if (BeforeFirst && S.Kind == StmtKind::Local)
    return llvm::all_of(S.Vars, [](const LocalVar &V) {
      return V.Recomputable || V.FromParam;
    });
  return AfterLast && K.ReturnStmt && *K.ReturnStmt == S.Id;
}

void qdc::checkExclusivity(Module &M, DiagEngine &Diags) {
  auto IsBlock = [](const Stmt &S) { return S.Kind == StmtKind::Block; };
  for (const Kernel &K : M.Kernels) {
    auto FirstBlock = llvm::find_if(K.Body, IsBlock);
    if (FirstBlock == K.Body.end())
      continue;
    auto LastBlock = std::find_if(K.Body.rbegin(), K.Body.rend(), IsBlock);
    for (auto It = K.Body.begin(); It != K.Body.end(); ++It) {
      if (IsBlock(*It) ||
          isAllowedBesideBlocks(K, *It, It < FirstBlock,
                                It > LastBlock.base() - 1))
        continue;
      Diags.report(DiagID::err_sp_exclusive, It->Loc) << K.Name;
      Diags.report(DiagID::note_sp_first_block, FirstBlock->Loc) << K.Name;
      break;
    }
  }
}
