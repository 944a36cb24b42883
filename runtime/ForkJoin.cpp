//===- ForkJoin.cpp - Launching a kernel's tasks
//----------------------------===//
//
// Part of qdc. DESIGN section 2, written once over the device interface:
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

void qd::rt::launchKernel(Runtime &RT, const qdrt_module_desc &Desc,
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
