//===- TaskPool.h - libqdrt's oneTBB threads --------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The only file that includes oneTBB: a task_arena of a given number of
// threads, to which the CPU streams hand tasks and parallel loops, and
// the GPU backends their host-side copies of staged transfers. Under
// ThreadSanitizer this file is compiled without instrumentation (as
// libtbb itself is), and the hand-offs through it are annotated (see
// tsanRelease/tsanAcquire), so that the sanitizer sees the ordering oneTBB
// gives and nothing of oneTBB's own uninstrumented memory traffic.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_TASKPOOL_H
#define QDRT_TASKPOOL_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace qd::rt {

class TaskPool {
public:
  /// Threads: how many oneTBB worker threads run its tasks.
  explicit TaskPool(unsigned Threads);
  /// Waits for the tasks it was given.
  ~TaskPool();
  TaskPool(const TaskPool &) = delete;
  TaskPool &operator=(const TaskPool &) = delete;

  unsigned threads() const { return Threads; }

  /// Runs Fn(Context) on a worker thread, later; returns at once. Fn must
  /// not throw.
  void enqueue(void (*Fn)(void *), void *Context);
  /// Waits until every task enqueued so far has returned.
  void wait();
  /// Runs Body(Context, C) for every C in [0, Chunks) on the pool's
  /// threads, the caller's included; returns when all are done. The first
  /// exception a call throws is rethrown.
  void parallelFor(uint64_t Chunks, void (*Body)(void *, uint64_t),
                   void *Context);
  /// memcpy of Bytes by up to MaxThreads of the pool's threads, in pieces
  /// of at least 1 MiB (a host copy is bound by one core's bandwidth).
  void copy(void *Dst, const void *Src, size_t Bytes, unsigned MaxThreads);

private:
  struct Impl;
  unsigned Threads;
  std::unique_ptr<Impl> P;
};

/// Happens-before edges for ThreadSanitizer across oneTBB (no-ops in other
/// builds): what a thread did before tsanRelease(A) happens before what
/// another thread does after a later tsanAcquire(A).
/// (TaskPool.cpp itself is built without the sanitizer, with
/// QDRT_TSAN_ANNOTATE.)
#if defined(__SANITIZE_THREAD__) || defined(QDRT_TSAN_ANNOTATE)
extern "C" void __tsan_acquire(void *Address);
extern "C" void __tsan_release(void *Address);
inline void tsanRelease(void *A) { __tsan_release(A); }
inline void tsanAcquire(void *A) { __tsan_acquire(A); }
#else
inline void tsanRelease(void *) {}
inline void tsanAcquire(void *) {}
#endif

} // namespace qd::rt

#endif // QDRT_TASKPOOL_H
