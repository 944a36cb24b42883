//===- AnalyzeLocals.cpp - Which locals every task can recompute ----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A kernel's top-level statements run as separate tasks, so a
// local declared in one and used in another must be recomputed by every
// task that uses it. That is faithful only when the value cannot differ:
// the variable is recomputable (a constant, or computed without side
// effects from parameters, constants and other locals), it is const or
// never written, and every local it reads is itself shareable. The frontend
// records these facts per variable; this pass decides, in declaration
// order, and marks each local statement whose variables all qualify.
// check-shared-locals reports the uses that are not; form-tasks schedules
// the recomputation of the rest.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

using namespace qdc;
using namespace qdc::kir;

static void analyzeKernel(Kernel &K) {
  // (statement id, variable index) -> shareable, filled in declaration
  // order: a variable only reads locals declared before it.
  llvm::DenseMap<std::pair<unsigned, unsigned>, bool> Shareable;
  for (Stmt &Top : K.Body)
    walkStmts(Top, [&](Stmt &S) {
      if (S.Kind != StmtKind::Local)
        return;
      S.Shareable = true;
      for (unsigned I = 0; I < S.Vars.size(); ++I) {
        const LocalVar &V = S.Vars[I];
        bool OK = V.Recomputable && (V.Const || !V.Written);
        for (const auto &Dep : V.Deps)
          OK = OK && Shareable.lookup(Dep);
        Shareable[{S.Id, I}] = OK;
        S.Shareable = S.Shareable && OK;
      }
    });
}

void qdc::analyzeLocals(Module &M, DiagEngine &) {
  for (Kernel &K : M.Kernels)
    analyzeKernel(K);
}
