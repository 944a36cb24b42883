//===- ForkJoin.cpp - Launching a kernel's tasks
//----------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN section 2, written once over the device interface:
//
//   the tasks of group 0 before the first group's, on the launch stream
//   record Fork on the launch stream
//   each group's worker stream waits on Fork
//   each task is launched, in order, on its group's stream
//   after the last task: record Join[g] on stream g; the launch stream
//   waits on every Join[g]
//   the tasks of group 0 after the last group's, on the launch stream
//
// Nothing here blocks the host; later work on the launch stream sees every
// group's writes. Should a launch fail half-way, the groups already forked
// are still joined, so the launch stream never runs ahead of them.
//
//===----------------------------------------------------------------------===//

#include "Module.h"

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

using namespace qd::rt;

namespace {
/// Returns a lease to the pool however the launch ends.
class LeaseGuard {
public:
  LeaseGuard(StreamPool &P, Lease &L) : P(P), L(L) {}
  ~LeaseGuard() { P.release(std::move(L)); }

private:
  StreamPool &P;
  Lease &L;
};
} // namespace

/// The kernel scalars of one call, whose address goes into a copy of the
/// argument block: memory stream-ordered on the launch stream, or, for a
/// call that returns a value and so waits for its stream, one of the
/// device's reused blocks (DeviceContext::takeScalarBlock), given back by
/// done() once the stream has run everything: a block and its free cost
/// a GPU driver call each.
class ScalarBlock {
public:
  ScalarBlock(DeviceContext &DC, const qdrt_kernel_desc &K, const void *Args,
              Handle Stream, bool Waits)
      : DC(DC), Stream(Stream) {
    if (!K.scalars_size)
      return;
    Copy.assign(static_cast<const char *>(Args),
                static_cast<const char *>(Args) + K.arg_size);
    Reused = Waits && K.scalars_size <= DeviceContext::ScalarBlockBytes;
    Memory = Reused ? DC.takeScalarBlock()
                    : DC.device().allocateAsync(K.scalars_size, Stream);
    __builtin_memcpy(Copy.data() + K.scalars_offset, &Memory, sizeof(void *));
  }
  ~ScalarBlock() {
    if (!Memory)
      return;
    if (Reused) {
      // A failed call: once its stream has run what it queued, the block
      // is idle again; if the stream cannot tell, it is not used again.
      try {
        DC.device().synchronizeStream(Stream);
        DC.keepScalarBlock(Memory);
      } catch (const qd::Error &) {
        DC.retireScalarBlock(Memory);
      }
      return;
    }
    try {
      DC.device().deallocateAsync(Memory, Stream);
    } catch (const qd::Error &) {
      // A failing stream already reported its error; the memory goes with
      // the context.
    }
  }
  ScalarBlock(const ScalarBlock &) = delete;
  ScalarBlock &operator=(const ScalarBlock &) = delete;

  const void *args(const void *Original) const {
    return Memory ? Copy.data() : Original;
  }
  const char *memory() const { return static_cast<const char *>(Memory); }

  /// The launch stream has run everything of the call: a reused block
  /// serves the next call.
  void done() {
    if (Memory && Reused) {
      DC.keepScalarBlock(Memory);
      Memory = nullptr;
    }
  }

private:
  DeviceContext &DC;
  Handle Stream;
  std::vector<char> Copy;
  void *Memory = nullptr;
  bool Reused = false;
};

/// Whether a task with scalar fills (qdrt_task_desc::fills) writes them
/// instead of launching: not in the body of a device-side while node,
/// which takes kernels only.
enum class FillScalars { No, Yes };

/// Enqueues tasks [Begin, End) of a kernel (all of them, forked and
/// joined, when it has groups) on LaunchStream.
static void launchTasks(DeviceContext &DC, const qdrt_module_desc &Desc,
                        const LoadedModule &LM, uint32_t Kernel,
                        const void *Args, const uint64_t *Iterations,
                        Handle LaunchStream, uint32_t Begin, uint32_t End,
                        FillScalars Fills);

/// Writes the constants of task T, a serial task that only sets kernel
/// scalars, into the call's scalar block on Stream: one memset per run of
/// equal 32-bit words at consecutive offsets.
static void fillScalars(Device &D, const qdrt_kernel_desc &K,
                        const qdrt_task_desc &T, const void *Args,
                        Handle Stream) {
  char *Block = nullptr;
  std::memcpy(&Block, static_cast<const char *>(Args) + K.scalars_offset,
              sizeof(Block));
  // The run of equal words being gathered: Count words of Word from Start.
  uint32_t Start = 0, Word = 0, Count = 0;
  auto Flush = [&] {
    if (Count)
      D.memset(Block + Start, Word, 4, Count, Stream);
  };
  for (uint32_t F = 0; F < T.num_fills; ++F) {
    const qdrt_scalar_fill &SF = T.fills[F];
    for (uint32_t W = 0; W < SF.bytes / 4; ++W) {
      uint32_t Offset = SF.offset + 4 * W,
               Value = uint32_t(SF.bits >> (32 * W));
      if (Count && Offset == Start + 4 * Count && Value == Word) {
        ++Count;
        continue;
      }
      Flush();
      Start = Offset;
      Word = Value;
      Count = 1;
    }
  }
  Flush();
}

/// The device address of a do_while loop's flag.
static const void *flagAddress(const qdrt_kernel_desc &K,
                               const qdrt_graph_loop &L, const LoadedModule &LM,
                               const void *Args) {
  const void *Flag = nullptr;
  if (L.flag_field != QDRT_FLAG_IN_ARGS)
    Flag = LM.Fields[L.flag_field];
  else
    std::memcpy(&Flag, static_cast<const char *>(Args) + L.flag_offset,
                sizeof(Flag));
  if (!Flag)
    throw qd::Error(std::string("kernel '") + K.name +
                    "': the flag of its qd::graph::do_while has no memory");
  return Flag;
}

/// Loops [First, Last) of a kernel, in preorder, all within tasks [Begin,
/// End), walked in task order: Tasks(Begin, End) for each run of tasks
/// outside them (maybe empty), Loop(L, Inner, InnerEnd) for each outermost
/// one, with the loops nested in it [Inner, InnerEnd), which Loop walks
/// itself (walkLoops again) for each run of L's body.
template <typename TasksFn, typename LoopFn>
static void walkLoops(const qdrt_kernel_desc &K, uint32_t First, uint32_t Last,
                      uint32_t Begin, uint32_t End, TasksFn Tasks,
                      LoopFn Loop) {
  uint32_t Next = Begin;
  for (uint32_t I = First; I < Last;) {
    const qdrt_graph_loop &L = K.loops[I];
    uint32_t LEnd = L.first_task + L.num_tasks;
    // A nested loop has a task, so it starts before LEnd; a later sibling
    // at LEnd or after.
    uint32_t Nest = I + 1;
    while (Nest < Last && K.loops[Nest].first_task < LEnd)
      ++Nest;
    Tasks(Next, L.first_task);
    Loop(L, I + 1, Nest);
    Next = LEnd;
    I = Nest;
  }
  Tasks(Next, End);
}

/// Runs a kernel with do_while loops from the host: each loop's tasks,
/// then a read of its flag, until the flag is zero.
static void runLoopsOnHost(DeviceContext &DC, const qdrt_module_desc &Desc,
                           const LoadedModule &LM, uint32_t Kernel,
                           const void *Args, const uint64_t *Iterations,
                           Handle LaunchStream,
                           qdrt_assert_record *LaunchRecord) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = DC.device();
  auto Tasks = [&](uint32_t Begin, uint32_t End) {
    launchTasks(DC, Desc, LM, Kernel, Args, Iterations, LaunchStream, Begin,
                End, FillScalars::Yes);
  };
  std::function<void(const qdrt_graph_loop &, uint32_t, uint32_t)> Loop =
      [&](const qdrt_graph_loop &L, uint32_t Inner, uint32_t InnerEnd) {
        const void *Flag = flagAddress(K, L, LM, Args);
        int32_t Value = 0;
        do {
          uint64_t Mark = DC.launchMark();
          walkLoops(K, Inner, InnerEnd, L.first_task,
                    L.first_task + L.num_tasks, Tasks, Loop);
          D.copyToHost(&Value, Flag, sizeof(Value), LaunchStream);
          D.synchronizeStream(LaunchStream);
          // A failed assertion stops its task, which may never clear the
          // flag: the loop ends with the error (this call waited anyway).
          if (LaunchRecord) {
            if (LaunchRecord->failed) {
              qdrt_assert_record R = *LaunchRecord;
              *LaunchRecord = qdrt_assert_record{};
              nameKernel(R, Desc);
              throw qd::Error(describeAssert("qd::graph::do_while", R));
            }
          } else if (LM.AssertRecord) {
            DC.checkAsserts("qd::graph::do_while", LaunchStream, Mark);
          }
        } while (Value != 0);
      };
  walkLoops(K, 0, K.num_loops, 0, K.num_tasks, Tasks, Loop);
}

/// launchKernel with the launch's own assertion record (CPU), or null.
static void launchWithRecord(DeviceContext &DC, const qdrt_module_desc &Desc,
                             const LoadedModule &LM, uint32_t Kernel,
                             const void *Args, const uint64_t *Iterations,
                             Handle LaunchStream, void *Result,
                             const std::shared_ptr<qdrt_assert_record> &Record);

void qd::rt::launchKernel(DeviceContext &DC, const qdrt_module_desc &Desc,
                          const LoadedModule &LM, uint32_t Kernel,
                          const void *Args, const uint64_t *Iterations,
                          Handle LaunchStream, void *Result) {
  if (!LM.AssertRecord || !DC.device().hasLaunchRecords()) {
    // GPUs: the module's record, read at synchronizations, belongs to the
    // streams that launched it.
    DC.noteLaunch(LM, LaunchStream);
    launchWithRecord(DC, Desc, LM, Kernel, Args, Iterations, LaunchStream,
                     Result, nullptr);
    return;
  }
  // The CPU: this launch's own record, which the CPU device gives each
  // chunk of the tasks queued while it is this thread's.
  auto Record = std::make_shared<qdrt_assert_record>();
  CpuRecordScope Scope(Record.get());
  launchWithRecord(DC, Desc, LM, Kernel, Args, Iterations, LaunchStream,
                   Result, Record);
}

/// After the work queued on LaunchStream so far (a launch's tasks, joined):
/// a failure in Record becomes the stream's pending error. Record lives
/// until then.
static void parkWhenDone(DeviceContext &DC, const qdrt_module_desc &Desc,
                         Handle LaunchStream,
                         std::shared_ptr<qdrt_assert_record> Record) {
  DC.device().hostCall(LaunchStream, [&DC, &Desc, LaunchStream, Record] {
    if (!Record->failed)
      return;
    qdrt_assert_record R = *Record;
    nameKernel(R, Desc);
    DC.park(LaunchStream, R);
  });
}

static void launchWithRecord(DeviceContext &DC, const qdrt_module_desc &Desc,
                             const LoadedModule &LM, uint32_t Kernel,
                             const void *Args, const uint64_t *Iterations,
                             Handle LaunchStream, void *Result,
                             const std::shared_ptr<qdrt_assert_record> &Record) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = DC.device();
  if ((K.flags & QDRT_KERNEL_GRAPH) && D.canUpdateGraphs() &&
      (!K.num_loops || D.hasGraphLoops())) {
    DC.graphKernels().launch(DC, Desc, LM, Kernel, Args, Iterations,
                             LaunchStream, Result);
    return;
  }
  ScalarBlock Scalars(DC, K, Args, LaunchStream, Result != nullptr);
  try {
    if (K.num_loops)
      runLoopsOnHost(DC, Desc, LM, Kernel, Scalars.args(Args), Iterations,
                     LaunchStream, Record.get());
    else
      launchTasks(DC, Desc, LM, Kernel, Scalars.args(Args), Iterations,
                  LaunchStream, 0, K.num_tasks, FillScalars::Yes);
  } catch (...) {
    // What was queued may still fail; the error of this call comes first.
    if (Record)
      parkWhenDone(DC, Desc, LaunchStream, Record);
    throw;
  }
  if (Record)
    parkWhenDone(DC, Desc, LaunchStream, Record);
  if (Result) {
    D.copyToHost(Result, Scalars.memory() + K.result_offset, K.result_size,
                 LaunchStream);
    D.synchronizeStream(LaunchStream);
    Scalars.done();
  }
}

static void launchTasks(DeviceContext &DC, const qdrt_module_desc &Desc,
                        const LoadedModule &LM, uint32_t Kernel,
                        const void *Args, const uint64_t *Iterations,
                        Handle LaunchStream, uint32_t Begin, uint32_t End,
                        FillScalars Fills) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = DC.device();
  auto LaunchTask = [&](uint32_t I, Handle Stream) {
    uint32_t T = K.first_task + I;
    if (Iterations[I] == 0)
      return;
    if (Desc.tasks[T].num_fills && Fills == FillScalars::Yes) {
      fillScalars(D, K, Desc.tasks[T], Args, Stream);
      return;
    }
    // A launch too small to fill the device runs the latency version; a
    // tiled task, its narrow entry where the arguments allow: at any size
    // where the task asks, else where the launch is that small or has no
    // more tiles than its own entry would get blocks (each block would run
    // one tile at most: LU's updates), not where the spans of tiles keep
    // neighbouring tiles in one block (runtime.md).
    if (LM.LatencyFunctions[T] && Iterations[I] <= D.getLatencyBound()) {
      D.launch(LM.LatencyFunctions[T], Desc.tasks[T], Iterations[I], Args,
               K.arg_size, Stream, nullptr, LM.Overlaps[T]);
      return;
    }
    uint32_t Grid[3];
    if (LM.NarrowFunctions[T] && Desc.tasks[T].narrow_grid(Args, Grid) &&
        ((Desc.tasks[T].flags & QDRT_TASK_NARROW_ALWAYS) ||
         Iterations[I] <= D.getLatencyBound() ||
         uint64_t(Grid[0]) * Grid[1] * Grid[2] <= D.getTiledGridBlocks())) {
      D.launch(LM.NarrowFunctions[T], Desc.tasks[T], Iterations[I], Args,
               K.arg_size, Stream, Grid, LM.Overlaps[T]);
      return;
    }
    D.launch(LM.Functions[T], Desc.tasks[T], Iterations[I], Args, K.arg_size,
             Stream, nullptr, LM.Overlaps[T]);
  };

  if (K.num_groups == 0) {
    // In order on the launch stream.
    for (uint32_t I = Begin; I < End; ++I)
      LaunchTask(I, LaunchStream);
    return;
  }

  // Tasks of group 0 come before the first group's (kernel scalars set
  // before the fork) and after the last one's (the return value, read
  // after the join); they run on the launch stream.
  auto GroupOf = [&](uint32_t I) { return Desc.tasks[K.first_task + I].group; };
  uint32_t Fork = 0, Join = K.num_tasks;
  while (Fork < K.num_tasks && GroupOf(Fork) == 0)
    LaunchTask(Fork++, LaunchStream);
  while (Join > Fork && GroupOf(Join - 1) == 0)
    --Join;

  StreamPool &Pool = DC.pool();
  Lease L = Pool.acquire(K.num_groups);
  LeaseGuard Guard(Pool, L);
  unsigned Forked = 0;
  try {
    D.recordEvent(L.Fork, LaunchStream);
    for (; Forked < K.num_groups; ++Forked)
      D.streamWaitEvent(L.Streams[Forked], L.Fork);
    for (uint32_t I = Fork; I < Join; ++I)
      LaunchTask(I, L.Streams[GroupOf(I) - 1]);
    for (unsigned G = 0; G < K.num_groups; ++G) {
      D.recordEvent(L.Joins[G], L.Streams[G]);
      D.streamWaitEvent(LaunchStream, L.Joins[G]);
    }
  } catch (...) {
    for (unsigned G = 0; G < Forked; ++G)
      try {
        D.recordEvent(L.Joins[G], L.Streams[G]);
        D.streamWaitEvent(LaunchStream, L.Joins[G]);
      } catch (const qd::Error &) {
        // The first error is the one reported.
      }
    throw;
  }
  for (uint32_t I = Join; I < K.num_tasks; ++I)
    LaunchTask(I, LaunchStream);
}

//===----------------------------------------------------------------------===//
// Graph kernels
//===----------------------------------------------------------------------===//

GraphKernels::~GraphKernels() {
  for (auto &[K, E] : Entries) {
    release(E);
    if (E.Scalars)
      try {
        D.deallocate(E.Scalars);
      } catch (const qd::Error &) {
      }
  }
  if (CaptureStream)
    try {
      D.destroyStream(CaptureStream);
    } catch (const qd::Error &) {
    }
}

void GraphKernels::release(Entry &E) {
  try {
    if (E.Exec)
      D.destroyGraph(E.Exec);
    if (E.Recorded)
      D.destroyRecordedGraph(E.Recorded);
  } catch (const qd::Error &) {
  }
  void *Scalars = E.Scalars;
  E = Entry();
  E.Scalars = Scalars;
}

/// Records a kernel with do_while loops on a capturing stream: each loop
/// becomes a device-side while node around its tasks.
static void recordLoops(DeviceContext &DC, const qdrt_module_desc &Desc,
                        const LoadedModule &LM, uint32_t Kernel,
                        const void *Args, const uint64_t *Iterations,
                        Handle Stream) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = DC.device();
  // Records loops [First, Last) and the tasks around them, within tasks
  // [Begin, End), on stream S.
  std::function<void(Handle, uint32_t, uint32_t, uint32_t, uint32_t)> Record =
      [&](Handle S, uint32_t First, uint32_t Last, uint32_t Begin,
          uint32_t End) {
        walkLoops(
            K, First, Last, Begin, End,
            [&](uint32_t B, uint32_t E) {
              launchTasks(DC, Desc, LM, Kernel, Args, Iterations, S, B, E,
                          FillScalars::No);
            },
            [&](const qdrt_graph_loop &L, uint32_t Inner, uint32_t InnerEnd) {
              Handle Body = D.beginGraphLoop(S, flagAddress(K, L, LM, Args),
                                             LM.AssertRecord);
              try {
                Record(Body, Inner, InnerEnd, L.first_task,
                       L.first_task + L.num_tasks);
              } catch (...) {
                try {
                  D.endGraphLoop(Body);
                } catch (const qd::Error &) {
                }
                throw;
              }
              D.endGraphLoop(Body);
            });
      };
  Record(Stream, 0, K.num_loops, 0, K.num_tasks);
}

void GraphKernels::launch(DeviceContext &DC, const qdrt_module_desc &Desc,
                          const LoadedModule &LM, uint32_t Kernel,
                          const void *Args, const uint64_t *Iterations,
                          Handle LaunchStream, void *Result) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  // Held until a returned value is read, so no other replay of this graph
  // overwrites the scalars first.
  std::lock_guard<std::mutex> Lock(Mutex);
  Entry &E = Entries[&K];
  // The call's argument block, with the graph's own scalars.
  std::vector<char> Block;
  if (K.scalars_size) {
    if (!E.Scalars)
      E.Scalars = D.allocate(K.scalars_size);
    Block.assign(static_cast<const char *>(Args),
                 static_cast<const char *>(Args) + K.arg_size);
    std::memcpy(Block.data() + K.scalars_offset, &E.Scalars, sizeof(void *));
    Args = Block.data();
  }
  std::vector<uint64_t> Counts(Iterations, Iterations + K.num_tasks);
  const char *Bytes = static_cast<const char *>(Args);
  bool Same = E.Exec && E.Iterations == Counts;
  if (Same && K.num_loops)
    Same = E.Args.size() == K.arg_size &&
           (!K.arg_size || std::memcmp(E.Args.data(), Bytes, K.arg_size) == 0);
  if (!Same) {
    // Record the tasks (fork and join, or while nodes, included) on a
    // stream of our own: the launch stream may be the default stream,
    // which cannot be captured.
    release(E);
    if (!CaptureStream)
      CaptureStream = D.createStream();
    D.beginCapture(CaptureStream);
    try {
      if (K.num_loops)
        recordLoops(DC, Desc, LM, Kernel, Args, Iterations, CaptureStream);
      else
        launchTasks(DC, Desc, LM, Kernel, Args, Iterations, CaptureStream, 0,
                    K.num_tasks, FillScalars::Yes);
    } catch (...) {
      try {
        D.destroyGraph(D.endCapture(CaptureStream));
      } catch (const qd::Error &) {
      }
      throw;
    }
    E.Exec = D.endCaptureForUpdate(CaptureStream, E.Recorded, E.Nodes);
    E.Iterations = Counts;
    if (K.num_loops)
      E.Args.assign(Bytes, Bytes + K.arg_size);
    for (const Device::KernelNode &N : E.Nodes) {
      uint32_t Task = K.num_tasks;
      for (uint32_t I = 0; I < K.num_tasks; ++I)
        if (LM.Functions[K.first_task + I] == N.Function ||
            (LM.LatencyFunctions[K.first_task + I] &&
             LM.LatencyFunctions[K.first_task + I] == N.Function) ||
            (LM.NarrowFunctions[K.first_task + I] &&
             LM.NarrowFunctions[K.first_task + I] == N.Function))
          Task = I;
      E.NodeTask.push_back(Task);
    }
  } else if (!K.num_loops) {
    // The same geometry: give each task node this call's arguments.
    for (size_t I = 0; I < E.Nodes.size(); ++I)
      if (E.NodeTask[I] < K.num_tasks)
        D.setKernelArgs(E.Exec, E.Nodes[I], K.arg_size ? Args : nullptr,
                        Iterations[E.NodeTask[I]]);
  }
  D.launchGraph(E.Exec, LaunchStream);
  if (Result) {
    D.copyToHost(Result, static_cast<char *>(E.Scalars) + K.result_offset,
                 K.result_size, LaunchStream);
    D.synchronizeStream(LaunchStream);
  }
}
