//===- CheckSharedLocals.cpp - Locals that cross task boundaries ----------===//
//
// Part of qdc. Tasks run as separate launches, possibly on different
// streams, so a top-level local lives in one task only. A later task may use
// it only when it can recompute it: a constant expression, or a value
// computed from parameters alone (DESIGN section 1). Anything else (a value
// read from a field, a counter updated by a serial statement) would be
// silently wrong, so it is an error that points at the declaration and the
// first use in another task.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

using namespace qdc;
using namespace qdc::kir;

static void checkKernel(const Kernel &K, DiagEngine &Diags) {
  llvm::DenseMap<unsigned, unsigned> TaskOf; // statement id -> task index
  for (size_t I = 0; I < K.Tasks.size(); ++I)
    for (unsigned Id : K.Tasks[I].StmtIds)
      TaskOf[Id] = I;

  for (const Stmt &Top : K.Body)
    walkStmts(Top, [&](const Stmt &S) {
      if (S.Kind != StmtKind::Local || S.Shareable)
        return;
      auto Own = TaskOf.find(S.Id);
      for (const LocalUse &U : S.Uses) {
        auto User = TaskOf.find(U.StmtId);
        bool SameTask = Own != TaskOf.end() && User != TaskOf.end() &&
                        Own->second == User->second;
        if (SameTask)
          continue;
        Diags.report(DiagID::err_shared_local, S.Loc) << S.Name;
        Diags.report(DiagID::note_shared_local_use, U.Loc) << S.Name;
        return;
      }
    });
}

void qdc::checkSharedLocals(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    checkKernel(K, Diags);
}
