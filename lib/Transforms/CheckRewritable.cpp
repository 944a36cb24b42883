//===- CheckRewritable.cpp - Kernels are spelled in the .qd ---------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Code generation is source to source: it replaces a kernel's
// text and copies its statements and loop bodies at the byte ranges the
// frontend recorded. A kernel produced by a macro or written in an included
// file has no such text, so it can be checked but not compiled. A
// code-generation rule: it runs only when code is generated.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

/// Whether everything code generation copies from K has a text.
/// The statement that copies an assigned parameter in has no text.
static bool isParamCopy(const Stmt &S) {
  return S.Kind == StmtKind::Local && !S.Vars.empty() && S.Vars[0].FromParam;
}

static bool isRewritable(const Kernel &K) {
  if (!K.Range.isValid())
    return false;
  for (const Task &T : K.Tasks)
    for (unsigned Id : T.StmtIds)
      if (const Stmt *S = K.findStmt(Id))
        if ((!S->Range.isValid() && !isParamCopy(*S)) ||
            (S->Kind == StmtKind::Loop && !S->LoopBody.isValid()))
          return false;
  return true;
}

void qdc::checkRewritable(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    if (!isRewritable(K))
      Diags.report(DiagID::err_kernel_not_rewritable, K.Loc) << K.Name;
}
