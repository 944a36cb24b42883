//===- FuseTasks.cpp - Small consecutive tasks become one -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A task is a kernel launch (or a node of a graph), and on a GPU a launch
// costs a microsecond or more whatever it does. Consecutive tasks that one
// block of threads can run need no grid-wide barrier between them: a block
// barrier orders their memory accesses. This pass makes each run of such
// tasks one Fused task (DESIGN section 3.2), which the GPU runs as one
// block of at most MaxFusedIterations threads and the CPU as one thread,
// part after part.
//
// A task can be fused when its whole range is known at compile time and
// has at most MaxFusedIterations iterations (serial tasks have one), and
// it needs nothing of the launch: no block_dim of its own, no block
// barrier or shared array in its body, no range computed on the device.
// A run is consecutive tasks of one group that can be fused. A
// qd::graph::do_while loop whose tasks can all be fused joins a run
// whole: the fused task then repeats those parts itself, with no graph
// node or host round trip per iteration. Other loops keep their tasks,
// which fuse among themselves, and a run never crosses into or out of
// them.
//
// -fno-fuse-tasks (Module::FuseTasks) leaves the tasks as form-tasks made
// them.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include <algorithm>
#include <optional>

using namespace qdc;
using namespace qdc::kir;

namespace {

/// The most iterations of a loop that a fused task runs: one block of
/// threads, each taking one iteration.
constexpr int64_t MaxFusedIterations = 1024;

/// A fused task's threads are a whole number of the widest warp (AMD's
/// 64), so that its reductions combine by shuffles.
constexpr unsigned FusedWarp = 64;

/// What a run is made of: a task, or a do_while loop's tasks.
struct Unit {
  unsigned FirstTask = 0;
  unsigned NumTasks = 1;
  const GraphLoop *Loop = nullptr;
};

class TaskFuser {
public:
  explicit TaskFuser(Kernel &K) : K(K) {}

  void run() {
    std::vector<Task> Old = std::move(K.Tasks);
    std::vector<GraphLoop> OldLoops = std::move(K.Loops);
    K.Tasks.clear();
    K.Loops.clear();
    // The kernel's units: its loops whole, the other tasks one by one.
    std::vector<Unit> Units;
    for (unsigned I = 0; I < Old.size();) {
      auto L = llvm::find_if(OldLoops, [&](const GraphLoop &GL) {
        return GL.FirstTask == I && GL.NumTasks;
      });
      if (L == OldLoops.end()) {
        Units.push_back({I, 1, nullptr});
        ++I;
        continue;
      }
      Units.push_back({I, L->NumTasks, &*L});
      I += L->NumTasks;
    }
    fuseUnits(Old, Units);
  }

private:
  /// Appends Units to the kernel's tasks, each run of them fused.
  void fuseUnits(std::vector<Task> &Old, llvm::ArrayRef<Unit> Units) {
    for (size_t I = 0; I < Units.size();) {
      size_t End = I;
      std::optional<unsigned> Group;
      while (End < Units.size() && canFuse(Old, Units[End]) &&
             (!Group || *Group == Old[Units[End].FirstTask].Group)) {
        Group = Old[Units[End].FirstTask].Group;
        ++End;
      }
      // A run worth a fused task: two tasks or more, or a loop.
      if (End - I > 1 || (End > I && Units[I].Loop)) {
        K.Tasks.push_back(fuse(Old, Units.slice(I, End - I)));
        I = End;
        continue;
      }
      const Unit &U = Units[I++];
      if (!U.Loop) {
        K.Tasks.push_back(std::move(Old[U.FirstTask]));
        continue;
      }
      // A loop that stays: its own tasks fuse among themselves.
      GraphLoop L = *U.Loop;
      L.FirstTask = K.Tasks.size();
      std::vector<Unit> Inner;
      for (unsigned T = U.FirstTask; T < U.FirstTask + U.NumTasks; ++T)
        Inner.push_back({T, 1, nullptr});
      fuseUnits(Old, Inner);
      L.NumTasks = K.Tasks.size() - L.FirstTask;
      K.Loops.push_back(L);
    }
  }

  bool canFuse(const std::vector<Task> &Old, const Unit &U) const {
    unsigned Group = Old[U.FirstTask].Group;
    for (unsigned T = U.FirstTask; T < U.FirstTask + U.NumTasks; ++T)
      if (Old[T].Group != Group || !getFusedTrip(Old[T]))
        return false;
    return true;
  }

  /// The iterations a fusable task runs (a serial task: 1), or nothing
  /// when it cannot be fused.
  std::optional<int64_t> getFusedTrip(const Task &T) const {
    if (T.Kind != TaskKind::Serial) {
      if (T.BlockDim)
        return std::nullopt;
      const Stmt *Loop = K.findStmt(T.StmtIds.front());
      if (!Loop || Loop->BlockSync.isValid() || !Loop->SharedArrays.empty())
        return std::nullopt;
    }
    return getConstantTripCount(T, MaxFusedIterations);
  }

  Task fuse(std::vector<Task> &Old, llvm::ArrayRef<Unit> Run) const {
    Task F;
    F.Kind = TaskKind::Fused;
    F.Group = Old[Run.front().FirstTask].Group;
    F.Loc = Old[Run.front().FirstTask].Loc;
    F.Index = Old[Run.front().FirstTask].Index;
    F.CpuThreads = 1;
    int64_t Widest = 0;
    for (const Unit &U : Run) {
      if (U.Loop) {
        GraphLoop L = *U.Loop;
        L.FirstTask = F.Parts.size();
        F.PartLoops.push_back(L);
      }
      for (unsigned T = U.FirstTask; T < U.FirstTask + U.NumTasks; ++T) {
        if (Old[T].Kind != TaskKind::Serial)
          Widest = std::max(Widest, *getFusedTrip(Old[T]));
        F.StmtIds.append(Old[T].StmtIds.begin(), Old[T].StmtIds.end());
        F.Parts.push_back(std::move(Old[T]));
      }
    }
    // Parts keep their names (device functions now); the fused task is
    // named after its first and last.
    F.Name =
        F.Parts.front().Name + "_to_" + std::to_string(F.Parts.back().Index);
    F.BlockDim = Widest == 0 ? 1
                             : static_cast<unsigned>((Widest + FusedWarp - 1) /
                                                     FusedWarp * FusedWarp);
    return F;
  }

  Kernel &K;
};

} // namespace

void qdc::fuseTasks(Module &M, DiagEngine &) {
  if (!M.FuseTasks)
    return;
  for (Kernel &K : M.Kernels)
    TaskFuser(K).run();
}
