//===- AssignKernelScalars.cpp - Locals that live on the device -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A kernel's top-level statements run as separate tasks. A
// local that a later task uses and that cannot be recomputed there (it
// reads a field, calls a QD_FUNC, is updated by a serial statement or
// reduced by a loop) is a kernel scalar (DESIGN section 1.1): it lives in
// a block of device memory for the call, which every task reaches through
// its argument block. This pass marks them and checks their rules:
//
//  - its type can be stored there (trivially copyable, declared outside
//    the kernel, not a reference, an array or static);
//  - a parallel loop only reads it, or only reduces it with one operator
//    (+= and -= are one), never both, and never writes it otherwise;
//  - reductions are of 32- and 64-bit integers and floating point;
//  - it is not shared by two stream-parallel groups, which run at once,
//    unless it is set before the fork and the groups' loops only read it,
//    or only reduce it with one operator (DESIGN section 2, rule 1).
//
// A loop whose range reads a kernel scalar evaluates it on the device.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace qdc;
using namespace qdc::kir;

namespace {

class ScalarAssigner {
public:
  ScalarAssigner(Kernel &K, DiagEngine &Diags) : K(K), Diags(Diags) {}

  void run() {
    K.Scalars.clear();
    for (size_t I = 0; I < K.Tasks.size(); ++I)
      for (unsigned Id : K.Tasks[I].StmtIds)
        TaskOf[Id] = I;
    for (Stmt &Top : K.Body)
      walkStmts(Top, [&](Stmt &S) {
        if (S.Kind == StmtKind::Local && !S.Shareable)
          assignLocal(S);
      });
    for (Stmt &Top : K.Body)
      walkStmts(Top, [&](Stmt &S) {
        if (S.Kind == StmtKind::Loop)
          checkLoop(S);
      });
  }

private:
  std::optional<size_t> getTask(unsigned StmtId) const {
    auto It = TaskOf.find(StmtId);
    if (It == TaskOf.end())
      return std::nullopt;
    return It->second;
  }

  void assignLocal(Stmt &S) {
    std::optional<size_t> Own = getTask(S.Id);
    const LocalUse *Crossing = nullptr;
    llvm::DenseSet<unsigned> Groups;
    if (Own)
      Groups.insert(K.Tasks[*Own].Group);
    for (const LocalUse &U : S.Uses) {
      std::optional<size_t> User = getTask(U.StmtId);
      if (User)
        Groups.insert(K.Tasks[*User].Group);
      if (!Crossing && (!Own || !User || *Own != *User))
        Crossing = &U;
    }
    // Before the fork and after the join (group 0 of a kernel of blocks),
    // a scalar is no group's: what counts is how the groups use it.
    if (K.NumGroups && Own && K.Tasks[*Own].Group == 0) {
      Groups.erase(0);
      if (Groups.size() > 1 && sharedSafely(S))
        Groups.clear();
    }
    if (!Crossing)
      return;
    bool Stored = false;
    for (unsigned I = 0; I < S.Vars.size(); ++I) {
      LocalVar &V = S.Vars[I];
      if (!V.NotStorable.empty()) {
        Diags.report(DiagID::err_scalar_not_storable, V.Loc)
            << V.Name << V.NotStorable;
        Diags.report(DiagID::note_shared_local_use, Crossing->Loc) << V.Name;
        continue;
      }
      V.Scalar = true;
      K.Scalars.push_back({S.Id, I});
      Stored = true;
    }
    if (Stored && Groups.size() > 1)
      Diags.report(DiagID::err_scalar_across_groups, S.Loc) << S.Name;
  }

  /// A scalar set before the fork that several groups use only in their
  /// parallel loops, all reading it or all reducing it with one operator:
  /// no group's value depends on another's (DESIGN section 2, rule 1).
  bool sharedSafely(const Stmt &Decl) const {
    std::optional<ReduceOp> Op;
    bool Reads = false;
    for (const LocalUse &U : Decl.Uses) {
      const Stmt *User = K.findStmt(U.StmtId);
      if (!User || (K.ReturnStmt && *K.ReturnStmt == U.StmtId))
        continue; // the final return reads it after the join
      if (User->Kind != StmtKind::Loop)
        return false;
      for (const LoopAccess &A : User->Accesses) {
        if (A.DeclId != Decl.Id)
          continue;
        if (A.What == LoopAccess::Write || A.What == LoopAccess::Atomic)
          return false;
        if (A.What == LoopAccess::Read) {
          Reads = true;
          continue;
        }
        if (Op && *Op != A.Op)
          return false;
        Op = A.Op;
      }
    }
    return !(Reads && Op);
  }

  const LocalVar *getScalar(const LoopAccess &A) const {
    const Stmt *Decl = K.findStmt(A.DeclId);
    if (!Decl || A.VarIndex >= Decl->Vars.size() ||
        !Decl->Vars[A.VarIndex].Scalar)
      return nullptr;
    return &Decl->Vars[A.VarIndex];
  }

  /// 32- and 64-bit integers and floating point: what GPUs update
  /// atomically in one instruction or one compare-and-swap.
  static bool isReducible(const LocalVar &V) {
    return V.Elem && *V.Elem != ScalarType::Bool &&
           getScalarTypeSize(*V.Elem) >= 4;
  }

  void checkLoop(Stmt &L) {
    for (const LoopAccess &A : L.Accesses) {
      const LocalVar *V = getScalar(A);
      if (!V)
        continue;
      switch (A.What) {
      case LoopAccess::Write:
        Diags.report(DiagID::err_scalar_write_in_loop, A.Loc) << V->Name;
        break;
      case LoopAccess::Read:
        // Also in the range: a chunk or block that starts late would see
        // what earlier ones reduced.
        if (const LoopAccess *R = L.findReduction(A.DeclId, A.VarIndex))
          reportReadOfReduced(*V, A, *R);
        else if (A.InHeader)
          setDeviceBounds(L.Id);
        break;
      case LoopAccess::Reduce:
        checkReduction(L, A, *V);
        break;
      case LoopAccess::Atomic:
        checkAtomic(L, A, *V);
        break;
      }
    }
  }

  void reportReadOfReduced(const LocalVar &V, const LoopAccess &Read,
                           const LoopAccess &Reduce) {
    Diags.report(DiagID::err_scalar_read_reduced, Read.Loc) << V.Name;
    Diags.report(DiagID::note_scalar_reduced_here, Reduce.Loc) << V.Name;
  }

  void checkReduction(const Stmt &L, const LoopAccess &A, const LocalVar &V) {
    if (!isReducible(V)) {
      Diags.report(DiagID::err_scalar_reduce_type, A.Loc) << V.Name << V.Type;
      return;
    }
    const LoopAccess *First = L.findReduction(A.DeclId, A.VarIndex);
    if (First != &A && First->Op != A.Op) {
      Diags.report(DiagID::err_scalar_mixed_reductions, A.Loc)
          << V.Name << getReduceOpSpelling(First->Op)
          << getReduceOpSpelling(A.Op);
      Diags.report(DiagID::note_scalar_reduced_here, First->Loc) << V.Name;
    }
  }

  /// An atomic whose old value the loop uses updates the scalar's memory
  /// itself: of a type GPUs update atomically, and neither read plainly nor
  /// reduced in the same loop (a read would race with the atomics; a
  /// reduction's private accumulators would not show in the old values).
  void checkAtomic(const Stmt &L, const LoopAccess &A, const LocalVar &V) {
    if (!isReducible(V)) {
      Diags.report(DiagID::err_scalar_reduce_type, A.Loc) << V.Name << V.Type;
      return;
    }
    for (const LoopAccess &Other : L.Accesses)
      if (Other.DeclId == A.DeclId && Other.VarIndex == A.VarIndex &&
          (Other.What == LoopAccess::Read ||
           Other.What == LoopAccess::Reduce)) {
        Diags.report(DiagID::err_scalar_atomic_mixed, Other.Loc)
            << V.Name << (Other.What == LoopAccess::Read ? "read" : "reduce");
        return;
      }
  }

  /// Loop Id's task evaluates its bounds when it starts, on the device.
  void setDeviceBounds(unsigned Id) {
    if (std::optional<size_t> T = getTask(Id))
      K.Tasks[*T].DeviceBounds = true;
  }

  Kernel &K;
  DiagEngine &Diags;
  llvm::DenseMap<unsigned, size_t> TaskOf; // statement id -> task index
};

} // namespace

void qdc::assignKernelScalars(Module &M, DiagEngine &Diags) {
  for (Kernel &K : M.Kernels)
    ScalarAssigner(K, Diags).run();
}
