//===- StreamPool.h - Worker streams and events for fork/join ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stream-parallel launch borrows G worker streams and G+1
// events (one fork, one join per group) for the time it takes to enqueue
// the launch, then returns them. Nothing is created per launch once the pool
// holds enough: modules reserve their largest group count when they load.
// A lease is exclusive, so launches from several host threads never record
// the same event concurrently. Idle streams are handed out oldest first,
// spreading consecutive launches over different streams.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_STREAMPOOL_H
#define QDRT_STREAMPOOL_H

#include "Device.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

namespace qd::rt {

struct PoolStats {
  uint64_t StreamsCreated = 0;
  uint64_t EventsCreated = 0;
  uint64_t StreamsReused = 0; ///< streams handed out that already existed
  uint64_t EventsReused = 0;
  uint64_t Leases = 0;
};

struct Lease {
  std::vector<Handle> Streams; ///< Streams[g - 1] runs group g
  Handle Fork = nullptr;
  std::vector<Handle> Joins; ///< Joins[g - 1] is recorded after group g
};

class StreamPool {
public:
  /// MaxStreams bounds the worker streams the pool ever creates; a lease
  /// that would exceed it waits for another lease to come back.
  StreamPool(Device &D, unsigned MaxStreams = 256);
  /// Destroys every stream and event (after their work, as the driver
  /// does for a destroyed stream).
  ~StreamPool();
  StreamPool(const StreamPool &) = delete;
  StreamPool &operator=(const StreamPool &) = delete;

  /// Makes sure Groups streams and Groups + 1 events are idle.
  void reserve(unsigned Groups);
  Lease acquire(unsigned Groups);
  void release(Lease &&L);

  PoolStats stats() const;
  unsigned maxStreams() const { return MaxStreams; }

private:
  /// The pooled objects of one kind, streams or events: how the device
  /// makes and destroys one, every one made, and the idle ones, oldest
  /// first.
  struct Stock {
    using CreateFn = Handle (*)(Device &);
    using DestroyFn = void (*)(Device &, Handle);
    Stock(CreateFn Create, DestroyFn Destroy)
        : Create(Create), Destroy(Destroy) {}

    CreateFn Create;
    DestroyFn Destroy;
    std::deque<Handle> Idle;
    std::vector<Handle> All;
    uint64_t Created = 0;
    uint64_t Reused = 0; ///< objects handed out that already existed
  };

  /// Throws when Groups streams could never be leased at once.
  void checkGroups(unsigned Groups) const;
  /// Makes one more object of S; the caller uses it or puts it in S.Idle.
  Handle create(Stock &S);
  /// Hands out the oldest idle object of S, or a new one.
  Handle take(Stock &S);
  /// Puts the streams and events of L back among the idle ones.
  void shelve(const Lease &L);

  Device &D;
  const unsigned MaxStreams;
  mutable std::mutex Mutex;
  std::condition_variable Released;
  Stock Streams, Events;
  uint64_t Leases = 0;
  /// Returned leases, kept for their vectors' capacity: a warmed-up launch
  /// allocates nothing.
  std::vector<Lease> SpareLeases;
};

} // namespace qd::rt

#endif // QDRT_STREAMPOOL_H
