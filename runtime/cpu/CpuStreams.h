//===- CpuStreams.h - Stream-ordered work on oneTBB -------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The CPU backend's streams (DESIGN section 3.4): each stream is an in-order
// queue of work, run asynchronously on one oneTBB task_arena shared by all
// streams (TaskPool). A stream with work has one drain task in the arena, which
// runs the stream's items in order until the queue is empty or its next item
// waits for an event not yet reached; a stream that waits is resumed by the
// item that reaches the event. Different streams run at the same time, and
// a parallel loop in an item uses the arena's free threads.
//
// Events are records: Event::record puts a marker in a stream's queue, and a
// wait (another stream's, or the host's) waits for the marker the event had
// when the wait was issued, as cudaStreamWaitEvent does. A host thread that
// waits for a stream whose drain has not started runs the stream's work
// itself (oneTBB is slow to wake a sleeping worker for a caller that waits
// at once).
//
// One mutex guards every queue and marker; work runs outside it. A thread
// may also claim an idle stream to run a small piece of work at once, with
// one compare-exchange and none of the mutex. An item
// that throws is the stream's error, rethrown by the stream's next
// synchronize().
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_CPU_CPUSTREAMS_H
#define QDRT_CPU_CPUSTREAMS_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "../TaskPool.h"

namespace qd::rt::cpu {

/// One record of an event: reached when its stream runs past it.
struct Marker {
  bool Reached = false;
  double Ms = -1; ///< host time it was reached (steady clock)
  std::vector<struct Stream *> Waiters;
};

/// An in-order queue of work.
struct Stream : std::enable_shared_from_this<Stream> {
  struct Item {
    std::function<void()> Work;      ///< work to run, or:
    std::shared_ptr<Marker> Record;  ///< a marker this item reaches, or
    std::shared_ptr<Marker> WaitFor; ///< a marker to wait for
  };
  enum class State {
    Idle,            ///< nothing queued, nothing running
    Scheduled,       ///< queued, with a drain task in the arena not yet started
    Running,         ///< a thread is running its items
    Waiting,         ///< its next item waits for a marker not yet reached
    Inline,          ///< a thread that claimed it idle runs work of its own
    InlineAndQueued, ///< the same, and work was queued or waited for since
  };
  std::deque<Item> Queue;
  /// Changed with the mutex held, except Idle -> Inline -> Idle by the
  /// thread that claims it (claimIfIdle, release): every change from Idle
  /// or Inline is a compare-exchange.
  std::atomic<State> Now{State::Idle};
  std::exception_ptr Error; ///< the first failure of its work
  std::atomic<bool> Failed{false}; ///< whether Error is set
};

/// Streams and events over one task_arena.
class Streams {
public:
  /// Threads: how many threads run work (the arena's concurrency).
  explicit Streams(unsigned Threads);
  /// Waits for every stream's work, then for the arena's tasks.
  ~Streams();
  Streams(const Streams &) = delete;
  Streams &operator=(const Streams &) = delete;

  unsigned threads() const { return Pool.threads(); }

  /// The stream of handle 0 (the default stream), and made ones.
  Stream *defaultStream() { return Default.get(); }
  Stream *create();
  /// Waits for S's work, then forgets it.
  void destroy(Stream *S);

  /// Queues Work on S; returns at once.
  void enqueue(Stream *S, std::function<void()> Work);
  /// Claims S for the calling thread when nothing is queued on it or
  /// running (so that work run now keeps its order) and returns true; the
  /// thread runs its work, then calls release(S), and work other threads
  /// queue meanwhile waits behind it.
  bool claimIfIdle(Stream *S);
  void release(Stream *S);
  /// Runs Work after S's queued work and waits for it: on the calling
  /// thread, at once when S is idle.
  void run(Stream *S, const std::function<void()> &Work);
  /// Waits until S has run everything queued on it (running it on the
  /// calling thread when its drain has not started); rethrows (and
  /// forgets) the first error of its work.
  void synchronize(Stream *S);
  /// synchronize() of every stream, errors left in place.
  void waitAll();

  /// Events: a handle to the latest marker recorded for it.
  using EventMarker = std::shared_ptr<Marker>;
  /// Queues a new marker on S and returns it.
  EventMarker record(Stream *S);
  /// S waits for M (null: nothing to wait for).
  void wait(Stream *S, const EventMarker &M);
  /// The host waits for M.
  void waitHost(const EventMarker &M);
  bool reached(const EventMarker &M);

  /// Runs Body(Begin, End) over [0, N) in Chunks chunks (at most N) on the
  /// arena's threads, the caller's included; returns when all are done.
  void parallelFor(uint64_t N, uint64_t Chunks,
                   const std::function<void(uint64_t, uint64_t)> &Body);

private:
  using Lock = std::unique_lock<std::mutex>;
  /// Gives S, just made Scheduled, a drain task. With M held.
  void schedule(const std::shared_ptr<Stream> &S);
  /// After something was queued on S: a drain task when it was idle, a
  /// word to the thread that runs it inline otherwise. With M held.
  void wake(Stream &S);
  /// Runs S's items (S claimed: Running) until it is idle or waits. With M
  /// held on entry and on return.
  void drain(Stream &S, Lock &L);
  /// Marks Mk reached and resumes the streams that wait for it. With M held.
  void reach(Marker &Mk);
  /// Waits (with L) until S is idle, running it here when no thread has.
  void settle(Stream &S, Lock &L);
  /// Rethrows (and forgets) S's error, if any. With M held.
  void takeError(Stream &S);
  /// A drain task: Context is a DrainTask.
  static void drainTask(void *Context);

  std::mutex M;
  std::condition_variable Changed; ///< a stream went idle, a marker reached
  std::shared_ptr<Stream> Default;
  std::unordered_map<Stream *, std::shared_ptr<Stream>> Made;
  /// Last, so that it goes first: it waits for the drain tasks, which use
  /// the members above.
  TaskPool Pool;
};

} // namespace qd::rt::cpu

#endif // QDRT_CPU_CPUSTREAMS_H
