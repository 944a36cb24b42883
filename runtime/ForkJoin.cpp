//===- ForkJoin.cpp - Launching a kernel's tasks
//----------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN section 2, written once over the device interface:
//
//   record Fork on the launch stream
//   each group's worker stream waits on Fork
//   each task is launched, in order, on its group's stream
//   after the last task: record Join[g] on stream g; the launch stream
//   waits on every Join[g]
//
// Nothing here blocks the host; later work on the launch stream sees every
// group's writes. Should a launch fail half-way, the groups already forked
// are still joined, so the launch stream never runs ahead of them.
//
//===----------------------------------------------------------------------===//

#include "Module.h"

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

/// The kernel scalars of one call: device memory, stream-ordered on the
/// launch stream, whose address goes into a copy of the argument block.
class ScalarBlock {
public:
  ScalarBlock(Device &D, const qdrt_kernel_desc &K, const void *Args,
              Handle Stream)
      : D(D), Stream(Stream) {
    if (!K.scalars_size)
      return;
    Copy.assign(static_cast<const char *>(Args),
                static_cast<const char *>(Args) + K.arg_size);
    Memory = D.allocateAsync(K.scalars_size, Stream);
    __builtin_memcpy(Copy.data() + K.scalars_offset, &Memory, sizeof(void *));
  }
  ~ScalarBlock() {
    if (!Memory)
      return;
    try {
      D.deallocateAsync(Memory, Stream);
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

private:
  Device &D;
  Handle Stream;
  std::vector<char> Copy;
  void *Memory = nullptr;
};

static void launchTasks(Runtime &RT, const qdrt_module_desc &Desc,
                        const LoadedModule &LM, uint32_t Kernel,
                        const void *Args, const uint64_t *Iterations,
                        Handle LaunchStream);

void qd::rt::launchKernel(Runtime &RT, const qdrt_module_desc &Desc,
                          const LoadedModule &LM, uint32_t Kernel,
                          const void *Args, const uint64_t *Iterations,
                          Handle LaunchStream, void *Result) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = RT.device();
  // QD_GRAPH kernels keep no scalars (qdc refuses them), so their argument
  // block is the caller's.
  if ((K.flags & QDRT_KERNEL_GRAPH) && !K.scalars_size && !Result &&
      D.canUpdateGraphs()) {
    RT.graphKernels().launch(RT, Desc, LM, Kernel, Args, Iterations,
                             LaunchStream);
    return;
  }
  ScalarBlock Scalars(D, K, Args, LaunchStream);
  launchTasks(RT, Desc, LM, Kernel, Scalars.args(Args), Iterations,
              LaunchStream);
  if (Result) {
    D.copyToHost(Result, Scalars.memory() + K.result_offset, K.result_size,
                 LaunchStream);
    D.synchronizeStream(LaunchStream);
  }
}

static void launchTasks(Runtime &RT, const qdrt_module_desc &Desc,
                        const LoadedModule &LM, uint32_t Kernel,
                        const void *Args, const uint64_t *Iterations,
                        Handle LaunchStream) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  Device &D = RT.device();
  auto LaunchTask = [&](uint32_t I, Handle Stream) {
    uint32_t T = K.first_task + I;
    if (Iterations[I] == 0)
      return;
    D.launch(LM.Functions[T], Desc.tasks[T], Iterations[I], Args, K.arg_size,
             Stream);
  };

  if (K.num_groups == 0 || !D.hasStreams()) {
    // In order on the launch stream; on the CPU the groups simply run one
    // after another in source order.
    for (uint32_t I = 0; I < K.num_tasks; ++I)
      LaunchTask(I, LaunchStream);
    return;
  }

  StreamPool &Pool = RT.pool();
  Lease L = Pool.acquire(K.num_groups);
  LeaseGuard Guard(Pool, L);
  unsigned Forked = 0;
  try {
    D.recordEvent(L.Fork, LaunchStream);
    for (; Forked < K.num_groups; ++Forked)
      D.streamWaitEvent(L.Streams[Forked], L.Fork);
    for (uint32_t I = 0; I < K.num_tasks; ++I) {
      uint32_t Group = Desc.tasks[K.first_task + I].group;
      LaunchTask(I, L.Streams[Group - 1]);
    }
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
}

//===----------------------------------------------------------------------===//
// Graph kernels
//===----------------------------------------------------------------------===//

GraphKernels::~GraphKernels() {
  for (auto &[K, E] : Entries)
    release(E);
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
  E = Entry();
}

void GraphKernels::launch(Runtime &RT, const qdrt_module_desc &Desc,
                          const LoadedModule &LM, uint32_t Kernel,
                          const void *Args, const uint64_t *Iterations,
                          Handle LaunchStream) {
  const qdrt_kernel_desc &K = Desc.kernels[Kernel];
  std::lock_guard<std::mutex> Lock(Mutex);
  Entry &E = Entries[&K];
  std::vector<uint64_t> Counts(Iterations, Iterations + K.num_tasks);
  if (!E.Exec || E.Iterations != Counts) {
    // Record the tasks (fork and join included) on a stream of our own:
    // the launch stream may be the default stream, which cannot be
    // captured.
    release(E);
    if (!CaptureStream)
      CaptureStream = D.createStream();
    D.beginCapture(CaptureStream);
    try {
      launchTasks(RT, Desc, LM, Kernel, Args, Iterations, CaptureStream);
    } catch (...) {
      try {
        D.destroyGraph(D.endCapture(CaptureStream));
      } catch (const qd::Error &) {
      }
      throw;
    }
    E.Exec = D.endCaptureForUpdate(CaptureStream, E.Recorded, E.Nodes);
    E.Iterations = Counts;
    for (const Device::KernelNode &N : E.Nodes) {
      uint32_t Task = K.num_tasks;
      for (uint32_t I = 0; I < K.num_tasks; ++I)
        if (LM.Functions[K.first_task + I] == N.Function)
          Task = I;
      E.NodeTask.push_back(Task);
    }
  } else {
    // The same geometry: give each task node this call's arguments.
    for (size_t I = 0; I < E.Nodes.size(); ++I)
      if (E.NodeTask[I] < K.num_tasks)
        D.setKernelArgs(E.Exec, E.Nodes[I], K.arg_size ? Args : nullptr,
                        Iterations[E.NodeTask[I]]);
  }
  D.launchGraph(E.Exec, LaunchStream);
}
