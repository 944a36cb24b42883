//===- StreamPool.cpp - Worker streams and events for fork/join -----------===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#include "StreamPool.h"

using namespace qd::rt;

StreamPool::StreamPool(Device &D, unsigned MaxStreams)
    : D(D), MaxStreams(MaxStreams) {}

StreamPool::~StreamPool() {
  for (Handle S : AllStreams)
    try {
      D.destroyStream(S);
    } catch (const qd::Error &) {
      // Destruction continues; the driver reclaims the rest with the
      // context.
    }
  for (Handle E : AllEvents)
    try {
      D.destroyEvent(E);
    } catch (const qd::Error &) {
    }
}

void StreamPool::reserve(unsigned Groups) {
  if (Groups == 0)
    return; // a module without stream-parallel kernels needs nothing
  if (Groups > MaxStreams)
    throw qd::Error("stream pool: " + std::to_string(Groups) +
                    " groups exceed the pool's bound of " +
                    std::to_string(MaxStreams) + " streams");
  std::lock_guard<std::mutex> Lock(Mutex);
  while (IdleStreams.size() < Groups && AllStreams.size() < MaxStreams) {
    Handle S = D.createStream();
    AllStreams.push_back(S);
    IdleStreams.push_back(S);
    ++Stats.StreamsCreated;
  }
  while (IdleEvents.size() < Groups + 1) {
    Handle E = D.createEvent(/*Timing=*/false);
    AllEvents.push_back(E);
    IdleEvents.push_back(E);
    ++Stats.EventsCreated;
  }
}

Handle StreamPool::takeStream() {
  if (IdleStreams.empty()) {
    Handle S = D.createStream();
    AllStreams.push_back(S);
    ++Stats.StreamsCreated;
    return S;
  }
  Handle S = IdleStreams.front();
  IdleStreams.pop_front();
  ++Stats.StreamsReused;
  return S;
}

Handle StreamPool::takeEvent() {
  if (IdleEvents.empty()) {
    Handle E = D.createEvent(/*Timing=*/false);
    AllEvents.push_back(E);
    ++Stats.EventsCreated;
    return E;
  }
  Handle E = IdleEvents.front();
  IdleEvents.pop_front();
  ++Stats.EventsReused;
  return E;
}

Lease StreamPool::acquire(unsigned Groups) {
  if (Groups > MaxStreams)
    throw qd::Error("stream pool: " + std::to_string(Groups) +
                    " groups exceed the pool's bound of " +
                    std::to_string(MaxStreams) + " streams");
  std::unique_lock<std::mutex> Lock(Mutex);
  // All or nothing: two leases each holding part of what they need would
  // wait for each other forever.
  Released.wait(Lock, [&] {
    return IdleStreams.size() + (MaxStreams - AllStreams.size()) >= Groups;
  });
  Lease L;
  if (!SpareLeases.empty()) {
    L = std::move(SpareLeases.back());
    SpareLeases.pop_back();
  }
  try {
    L.Fork = takeEvent();
    for (unsigned G = 0; G < Groups; ++G) {
      L.Streams.push_back(takeStream());
      L.Joins.push_back(takeEvent());
    }
  } catch (...) {
    // Return what was taken; what was created stays in the pool.
    if (L.Fork)
      IdleEvents.push_back(L.Fork);
    IdleEvents.insert(IdleEvents.end(), L.Joins.begin(), L.Joins.end());
    IdleStreams.insert(IdleStreams.end(), L.Streams.begin(), L.Streams.end());
    Released.notify_all();
    throw;
  }
  ++Stats.Leases;
  return L;
}

void StreamPool::release(Lease &&L) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    IdleStreams.insert(IdleStreams.end(), L.Streams.begin(), L.Streams.end());
    if (L.Fork)
      IdleEvents.push_back(L.Fork);
    IdleEvents.insert(IdleEvents.end(), L.Joins.begin(), L.Joins.end());
    L.Streams.clear();
    L.Joins.clear();
    L.Fork = nullptr;
    SpareLeases.push_back(std::move(L));
  }
  Released.notify_all();
}

PoolStats StreamPool::stats() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Stats;
}
