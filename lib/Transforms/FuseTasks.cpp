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
// part after part. The block has at least as many threads as the widest
// part has iterations: on a GPU each thread runs at most one iteration of
// a part, with no loop around it (GpuHooks::getPartIndexLoop).
//
// A task can be fused when its whole range is known at compile time and
// has at most MaxFusedIterations iterations (serial tasks have one), and
// it needs nothing of the launch: no block_dim of its own, no block
// barrier or shared array in its body, no range computed on the device.
// A run is consecutive tasks of one group that can be fused. A
// qd::graph::do_while loop whose tasks can all be fused joins a run
// whole, with the loops nested in it: the fused task then repeats those
// parts itself, with no graph node or host round trip per iteration.
// Other loops keep their tasks, which fuse among themselves, and a run
// never crosses into or out of them.
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

/// The most tasks one fused task takes (a do_while loop's count whole): a
/// longer run becomes several fused tasks. A fused task is one function,
/// and LLVM's optimizations (GVN's memory dependences among them) grow
/// faster than its length: 1,000 small loops fused into one took 9 s to
/// compile and 2,000 took 34 s; in runs of 32 a launch still serves 32
/// loops.
constexpr unsigned MaxFusedTasks = 32;

/// A fused task's threads are a whole number of the widest warp (AMD's
/// 64), so that its reductions combine by shuffles.
constexpr unsigned FusedWarp = 64;

/// What a run is made of: a task, or a do_while loop's tasks.
struct Unit {
  unsigned FirstTask = 0;
  unsigned NumTasks = 1;
  /// A loop's: the loop, then the loops nested in it (preorder).
  llvm::ArrayRef<GraphLoop> Loops;
};

class TaskFuser {
public:
  explicit TaskFuser(Kernel &K) : K(K) {}

  void run() {
    // An empty loop is an error (check-graph-loops): nothing to fuse.
    if (llvm::any_of(K.Loops, [](const GraphLoop &L) { return !L.NumTasks; }))
      return;
    std::vector<Task> Old = std::move(K.Tasks);
    std::vector<GraphLoop> OldLoops = std::move(K.Loops);
    K.Tasks.clear();
    K.Loops.clear();
    fuseUnits(Old, getUnits(0, Old.size(), OldLoops));
  }

private:
  /// The units of tasks [Begin, End): the loops of Loops (in preorder, all
  /// within those tasks) whole, the other tasks one by one.
  static std::vector<Unit> getUnits(unsigned Begin, unsigned End,
                                    llvm::ArrayRef<GraphLoop> Loops) {
    std::vector<Unit> Units;
    size_t L = 0;
    for (unsigned I = Begin; I < End;) {
      if (L < Loops.size() && Loops[L].FirstTask == I) {
        size_t Nest = getLoopNestEnd(Loops, L);
        Units.push_back({I, Loops[L].NumTasks, Loops.slice(L, Nest - L)});
        I += Loops[L].NumTasks;
        L = Nest;
        continue;
      }
      Units.push_back({I, 1, {}});
      ++I;
    }
    return Units;
  }

  /// Appends Units to the kernel's tasks, each run of them fused.
  void fuseUnits(std::vector<Task> &Old, llvm::ArrayRef<Unit> Units) {
    for (size_t I = 0; I < Units.size();) {
      size_t End = I;
      unsigned Tasks = 0;
      std::optional<unsigned> Group;
      while (End < Units.size() && canFuse(Old, Units[End]) &&
             (!Group || *Group == Old[Units[End].FirstTask].Group) &&
             (End == I || Tasks + Units[End].NumTasks <= MaxFusedTasks)) {
        Group = Old[Units[End].FirstTask].Group;
        Tasks += Units[End].NumTasks;
        ++End;
      }
      // A run worth a fused task: two tasks or more, or a loop.
      if (End - I > 1 || (End > I && !Units[I].Loops.empty())) {
        K.Tasks.push_back(fuse(Old, Units.slice(I, End - I)));
        I = End;
        continue;
      }
      const Unit &U = Units[I++];
      if (U.Loops.empty()) {
        K.Tasks.push_back(std::move(Old[U.FirstTask]));
        continue;
      }
      // A loop that stays: its own tasks and loops fuse among themselves.
      size_t Slot = K.Loops.size();
      K.Loops.push_back(U.Loops.front());
      K.Loops[Slot].FirstTask = K.Tasks.size();
      fuseUnits(Old, getUnits(U.FirstTask, U.FirstTask + U.NumTasks,
                              U.Loops.drop_front()));
      K.Loops[Slot].NumTasks = K.Tasks.size() - K.Loops[Slot].FirstTask;
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
      for (GraphLoop L : U.Loops) {
        L.FirstTask = L.FirstTask - U.FirstTask + F.Parts.size();
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
