//===- StreamPool.cpp - Worker streams and events for fork/join -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Streams and events are pooled the same way, each kind in a
// Stock that knows how the device makes and destroys one.
//
//===----------------------------------------------------------------------===//

#include "StreamPool.h"

using namespace qd::rt;

namespace {
// How the pool makes and destroys its objects; its events record no time.
Handle createStream(Device &D) { return D.createStream(); }
void destroyStream(Device &D, Handle S) { D.destroyStream(S); }
Handle createEvent(Device &D) { return D.createEvent(/*Timing=*/false); }
void destroyEvent(Device &D, Handle E) { D.destroyEvent(E); }
} // namespace

StreamPool::StreamPool(Device &D, unsigned MaxStreams)
    : D(D), MaxStreams(MaxStreams), Streams(createStream, destroyStream),
      Events(createEvent, destroyEvent) {}

StreamPool::~StreamPool() {
  for (Stock *S : {&Streams, &Events})
    for (Handle H : S->All)
      try {
        S->Destroy(D, H);
      } catch (const qd::Error &) {
        // Destruction continues; the driver reclaims the rest with the
        // context.
      }
}

void StreamPool::checkGroups(unsigned Groups) const {
  if (Groups > MaxStreams)
    throw qd::Error("stream pool: " + std::to_string(Groups) +
                    " groups exceed the pool's bound of " +
                    std::to_string(MaxStreams) + " streams");
}

Handle StreamPool::create(Stock &S) {
  Handle H = S.Create(D);
  S.All.push_back(H);
  ++S.Created;
  return H;
}

Handle StreamPool::take(Stock &S) {
  if (S.Idle.empty())
    return create(S);
  Handle H = S.Idle.front();
  S.Idle.pop_front();
  ++S.Reused;
  return H;
}

void StreamPool::shelve(const Lease &L) {
  Streams.Idle.insert(Streams.Idle.end(), L.Streams.begin(), L.Streams.end());
  if (L.Fork)
    Events.Idle.push_back(L.Fork);
  Events.Idle.insert(Events.Idle.end(), L.Joins.begin(), L.Joins.end());
}

void StreamPool::reserve(unsigned Groups) {
  if (Groups == 0)
    return; // a module without stream-parallel kernels needs nothing
  checkGroups(Groups);
  std::lock_guard<std::mutex> Lock(Mutex);
  while (Streams.Idle.size() < Groups && Streams.All.size() < MaxStreams)
    Streams.Idle.push_back(create(Streams));
  while (Events.Idle.size() < Groups + 1)
    Events.Idle.push_back(create(Events));
}

Lease StreamPool::acquire(unsigned Groups) {
  checkGroups(Groups);
  std::unique_lock<std::mutex> Lock(Mutex);
  // All or nothing: two leases each holding part of what they need would
  // wait for each other forever.
  Released.wait(Lock, [&] {
    return Streams.Idle.size() + (MaxStreams - Streams.All.size()) >= Groups;
  });
  Lease L;
  if (!SpareLeases.empty()) {
    L = std::move(SpareLeases.back());
    SpareLeases.pop_back();
  }
  try {
    L.Fork = take(Events);
    for (unsigned G = 0; G < Groups; ++G) {
      L.Streams.push_back(take(Streams));
      L.Joins.push_back(take(Events));
    }
  } catch (...) {
    // Return what was taken; what was created stays in the pool.
    shelve(L);
    Released.notify_all();
    throw;
  }
  ++Leases;
  return L;
}

void StreamPool::release(Lease &&L) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    shelve(L);
    L.Streams.clear();
    L.Joins.clear();
    L.Fork = nullptr;
    SpareLeases.push_back(std::move(L));
  }
  Released.notify_all();
}

PoolStats StreamPool::stats() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  PoolStats S;
  S.StreamsCreated = Streams.Created;
  S.EventsCreated = Events.Created;
  S.StreamsReused = Streams.Reused;
  S.EventsReused = Events.Reused;
  S.Leases = Leases;
  return S;
}
