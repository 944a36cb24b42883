//===- TaskPool.cpp - libqdrt's oneTBB threads ----------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TaskPool.h"

#include <algorithm>
#include <cstring>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

using namespace qd::rt;

// The arena's threads are all oneTBB workers (no slot is kept for threads
// that call in: a host thread that waits runs its stream's work itself),
// and oneTBB starts at most max_allowed_parallelism - 1 workers: raised so
// that Threads of them exist however many cores the machine has.
struct TaskPool::Impl {
  explicit Impl(unsigned Threads)
      : Workers(oneapi::tbb::global_control::max_allowed_parallelism,
                Threads + 1),
        Arena(static_cast<int>(Threads), /*reserved_for_masters=*/0) {}
  oneapi::tbb::global_control Workers;
  oneapi::tbb::task_arena Arena;
  oneapi::tbb::task_group Group; ///< the enqueued tasks, waited for at the end
};

TaskPool::TaskPool(unsigned Threads)
    : Threads(Threads), P(std::make_unique<Impl>(Threads)) {}

TaskPool::~TaskPool() { wait(); }

void TaskPool::wait() {
  P->Arena.execute([&] { P->Group.wait(); });
}

void TaskPool::enqueue(void (*Fn)(void *), void *Context) {
  P->Arena.enqueue(P->Group.defer([Fn, Context] { Fn(Context); }));
}

void TaskPool::parallelFor(uint64_t Chunks, void (*Body)(void *, uint64_t),
                           void *Context) {
  P->Arena.execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<uint64_t>(0, Chunks, 1),
        [&](const oneapi::tbb::blocked_range<uint64_t> &R) {
          for (uint64_t C = R.begin(); C != R.end(); ++C)
            Body(Context, C);
        },
        oneapi::tbb::simple_partitioner());
  });
}

void TaskPool::copy(void *Dst, const void *Src, size_t Bytes,
                    unsigned MaxThreads) {
  constexpr size_t Piece = size_t(1) << 20;
  size_t Pieces = std::min<size_t>(std::max(1u, MaxThreads), Bytes / Piece);
  if (Pieces <= 1) {
    std::memcpy(Dst, Src, Bytes);
    return;
  }
  // (The pieces' copies are intercepted by ThreadSanitizer: the caller's
  // writes before come before them, theirs before its return.)
  tsanRelease(&Pieces);
  P->Arena.execute([&] {
    oneapi::tbb::parallel_for(
        size_t(0), Pieces,
        [&](size_t I) {
          tsanAcquire(&Pieces);
          size_t Begin = Bytes * I / Pieces, End = Bytes * (I + 1) / Pieces;
          std::memcpy(static_cast<char *>(Dst) + Begin,
                      static_cast<const char *>(Src) + Begin, End - Begin);
          tsanRelease(&Pieces);
        },
        oneapi::tbb::simple_partitioner());
  });
  tsanAcquire(&Pieces);
}
