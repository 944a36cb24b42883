//===- FormTasks.cpp - Top-level statements become tasks ------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The unit the runtime launches is a task: each top-level loop
// is one parallel task, and each run of consecutive other statements is one
// serial task (one thread), in program order (DESIGN section 1). Inside a
// QD_STREAM_PARALLEL block the same holds, and the tasks take the block's
// group. Shareable locals (constants, values computed from parameters) are
// not tasks: every task recomputes them.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

namespace {
class TaskFormer {
public:
  explicit TaskFormer(Kernel &K) : K(K) {}

  void run() {
    K.Tasks.clear();
    K.Loops.clear();
    K.RecomputedLocals.clear();
    formFrom(K.Body, /*Group=*/0);
    // Task names are entry points with C linkage on GPUs: kernels of the
    // same name in different namespaces get the namespace in front.
    std::string Prefix;
    for (char C : K.Scope)
      Prefix += C == ':' ? '_' : C;
    if (!Prefix.empty())
      Prefix += "__";
    for (size_t I = 0; I < K.Tasks.size(); ++I) {
      K.Tasks[I].Name = Prefix + K.Name + "_t" + std::to_string(I);
      K.Tasks[I].Index = I;
    }
  }

private:
  void formFrom(const std::vector<Stmt> &Stmts, unsigned Group) {
    Task *Serial = nullptr; // the serial task being extended, if any
    for (const Stmt &S : Stmts) {
      switch (S.Kind) {
      case StmtKind::Loop:
        if (S.BoundsReadMemory)
          K.Tasks.push_back(makeBoundsTask(S, Group));
        K.Tasks.push_back(makeLoopTask(S, Group));
        // A graph replays the launches it captured, whichever they were.
        K.Tasks.back().LatencyVersion &= !K.IsGraph;
        Serial = nullptr;
        break;
      case StmtKind::Local:
        if (S.Shareable) {
          // Later tasks recompute it; a serial run it stands in declares
          // it where it stands.
          K.RecomputedLocals.push_back(S.Id);
          if (Serial)
            Serial->StmtIds.push_back(S.Id);
          break;
        }
        [[fallthrough]];
      case StmtKind::Serial:
        if (!Serial) {
          K.Tasks.emplace_back();
          Serial = &K.Tasks.back();
          Serial->Kind = TaskKind::Serial;
          Serial->Group = Group;
          Serial->Loc = S.Loc;
        }
        Serial->StmtIds.push_back(S.Id);
        break;
      case StmtKind::LoopConfig:
        break;
      case StmtKind::Block:
        Serial = nullptr;
        formFrom(S.Body, S.Group);
        break;
      case StmtKind::GraphLoop: {
        // The body's tasks, which the runtime repeats; no serial run
        // reaches into or out of them. The loop goes before the loops
        // nested in it (preorder).
        Serial = nullptr;
        size_t Slot = K.Loops.size();
        K.Loops.push_back({S.Id, unsigned(K.Tasks.size()), 0});
        formFrom(S.Body, Group);
        K.Loops[Slot].NumTasks = K.Tasks.size() - K.Loops[Slot].FirstTask;
        break;
      }
      }
    }
  }

  /// Evaluates the bounds of loop S once, before any of its iterations
  /// runs: they may read memory the iterations write (DESIGN section 1.1).
  static Task makeBoundsTask(const Stmt &S, unsigned Group) {
    Task T;
    T.Kind = TaskKind::Serial;
    T.Group = Group;
    T.EvaluatesBounds = true;
    T.StmtIds.push_back(S.Id);
    T.Loc = S.Loc;
    return T;
  }

  static Task makeLoopTask(const Stmt &S, unsigned Group) {
    Task T;
    T.Kind = S.Form == LoopForm::NdRange ? TaskKind::NdRange : TaskKind::Range;
    T.Group = Group;
    T.BlockDim = S.BlockDim;
    T.BlockShape = S.BlockShape;
    T.LatencyVersion = S.HasInnerLoop;
    T.UnrollReduction = S.StraightLine;
    T.CpuThreads = S.Parallelize;
    T.IndexType = S.IndexType;
    T.IndexVars = S.IndexVars;
    T.Extents = S.Extents;
    T.DeviceBounds = S.BoundsReadMemory;
    T.BoundsInScalars = S.BoundsReadMemory;
    T.StmtIds.push_back(S.Id);
    T.Loc = S.Loc;
    return T;
  }

  Kernel &K;
};
} // namespace

void qdc::formTasks(Module &M, DiagEngine &) {
  for (Kernel &K : M.Kernels)
    TaskFormer(K).run();
}
