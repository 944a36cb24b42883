//===- CpuStreams.cpp - Stream-ordered work on oneTBB ---------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "CpuStreams.h"

#include <algorithm>
#include <chrono>

using namespace qd::rt::cpu;

static double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

Streams::Streams(unsigned Threads)
    : Default(std::make_shared<Stream>()), Pool(Threads) {}

Streams::~Streams() {
  waitAll();
  // Drain tasks that found their stream run by another thread may still
  // be about to return.
  Pool.wait();
  tsanAcquire(&Pool);
}

Stream *Streams::create() {
  auto S = std::make_shared<Stream>();
  Lock L(M);
  Made.emplace(S.get(), S);
  return S.get();
}

void Streams::destroy(Stream *S) {
  Lock L(M);
  settle(*S, L);
  Made.erase(S);
}

namespace {
struct DrainTask {
  Streams *Owner;
  std::shared_ptr<Stream> S;
};
} // namespace

void Streams::schedule(const std::shared_ptr<Stream> &S) {
  auto *Task = new DrainTask{this, S};
  tsanRelease(Task);
  Pool.enqueue(&drainTask, Task);
}

void Streams::wake(Stream &S) {
  using St = Stream::State;
  for (;;) {
    St Now = S.Now.load();
    if (Now == St::Idle) {
      if (S.Now.compare_exchange_weak(Now, St::Scheduled)) {
        schedule(S.shared_from_this());
        return;
      }
    } else if (Now == St::Inline) {
      // Its release takes the slow way, which schedules what was queued.
      if (S.Now.compare_exchange_weak(Now, St::InlineAndQueued))
        return;
    } else {
      return; // whoever runs it will see the item
    }
  }
}

void Streams::drainTask(void *Context) {
  tsanAcquire(Context);
  auto *Task = static_cast<DrainTask *>(Context);
  Streams &Self = *Task->Owner;
  {
    Lock L(Self.M);
    Stream &S = *Task->S;
    if (S.Now.load() == Stream::State::Scheduled) {
      S.Now.store(Stream::State::Running);
      Self.drain(S, L);
    }
    // (Otherwise another thread ran the stream: nothing to do.)
  }
  delete Task;
  tsanRelease(&Self.Pool);
}

void Streams::drain(Stream &S, Lock &L) {
  while (!S.Queue.empty()) {
    Stream::Item &Front = S.Queue.front();
    if (Front.WaitFor) {
      if (!Front.WaitFor->Reached) {
        S.Now.store(Stream::State::Waiting);
        Front.WaitFor->Waiters.push_back(&S);
        return;
      }
      S.Queue.pop_front();
      continue;
    }
    if (Front.Record) {
      std::shared_ptr<Marker> Mk = std::move(Front.Record);
      S.Queue.pop_front();
      reach(*Mk);
      continue;
    }
    std::function<void()> Work = std::move(Front.Work);
    S.Queue.pop_front();
    L.unlock();
    std::exception_ptr Failed;
    try {
      Work();
    } catch (...) {
      Failed = std::current_exception();
    }
    Work = nullptr; // what it holds goes before the lock is taken
    L.lock();
    if (Failed && !S.Error) {
      S.Error = Failed;
      S.Failed.store(true);
    }
  }
  S.Now.store(Stream::State::Idle);
  Changed.notify_all();
}

void Streams::reach(Marker &Mk) {
  Mk.Reached = true;
  Mk.Ms = nowMs();
  for (Stream *W : Mk.Waiters) {
    W->Now.store(Stream::State::Scheduled); // (it was Waiting)
    schedule(W->shared_from_this());
  }
  Mk.Waiters.clear();
  Changed.notify_all();
}

void Streams::settle(Stream &S, Lock &L) {
  using St = Stream::State;
  for (;;) {
    St Now = S.Now.load();
    if (Now == St::Idle)
      return;
    if (Now == St::Scheduled) {
      // Its drain task has not started: run its work here.
      S.Now.store(St::Running);
      drain(S, L);
      continue;
    }
    // Its inline runner must tell the waiters when it is done.
    if (Now == St::Inline &&
        !S.Now.compare_exchange_strong(Now, St::InlineAndQueued))
      continue;
    Changed.wait(L);
  }
}

void Streams::enqueue(Stream *S, std::function<void()> Work) {
  Lock L(M);
  S->Queue.push_back({std::move(Work), nullptr, nullptr});
  wake(*S);
}

bool Streams::claimIfIdle(Stream *S) {
  Stream::State Idle = Stream::State::Idle;
  return S->Now.compare_exchange_strong(Idle, Stream::State::Inline);
}

void Streams::release(Stream *S) {
  Stream::State Inline = Stream::State::Inline;
  if (S->Now.compare_exchange_strong(Inline, Stream::State::Idle))
    return;
  // Work was queued, or a thread waits for the stream.
  Lock L(M);
  if (S->Queue.empty()) {
    S->Now.store(Stream::State::Idle);
  } else {
    S->Now.store(Stream::State::Scheduled);
    schedule(S->shared_from_this());
  }
  Changed.notify_all();
}

void Streams::run(Stream *S, const std::function<void()> &Work) {
  if (claimIfIdle(S)) {
    // Nothing before it: run it now, on this thread.
    struct Release {
      Streams &Self;
      Stream *S;
      ~Release() { Self.release(S); }
    } Done{*this, S};
    Work();
    return;
  }
  Lock L(M);
  S->Queue.push_back({[&Work] { Work(); }, nullptr, nullptr});
  wake(*S);
  settle(*S, L);
  takeError(*S);
}

void Streams::synchronize(Stream *S) {
  // Nothing to wait for, no error: done, without the mutex (the thread
  // that made it idle did so after its work).
  if (S->Now.load() == Stream::State::Idle && !S->Failed.load())
    return;
  Lock L(M);
  settle(*S, L);
  takeError(*S);
}

void Streams::takeError(Stream &S) {
  if (std::exception_ptr E = S.Error) {
    S.Error = nullptr;
    S.Failed.store(false);
    std::rethrow_exception(E);
  }
}

void Streams::waitAll() {
  Lock L(M);
  std::vector<std::shared_ptr<Stream>> All{Default};
  for (auto &[P, S] : Made)
    All.push_back(S);
  for (const std::shared_ptr<Stream> &S : All)
    settle(*S, L);
}

Streams::EventMarker Streams::record(Stream *S) {
  auto Mk = std::make_shared<Marker>();
  Lock L(M);
  S->Queue.push_back({nullptr, Mk, nullptr});
  wake(*S);
  return Mk;
}

void Streams::wait(Stream *S, const EventMarker &Mk) {
  if (!Mk)
    return;
  Lock L(M);
  if (Mk->Reached)
    return;
  S->Queue.push_back({nullptr, nullptr, Mk});
  Stream::State Idle = Stream::State::Idle;
  if (S->Now.compare_exchange_strong(Idle, Stream::State::Waiting))
    // It waits at once: no drain task until the marker is reached.
    Mk->Waiters.push_back(S);
  else
    wake(*S);
}

void Streams::waitHost(const EventMarker &Mk) {
  if (!Mk)
    return;
  Lock L(M);
  Changed.wait(L, [&] { return Mk->Reached; });
}

bool Streams::reached(const EventMarker &Mk) {
  if (!Mk)
    return true;
  Lock L(M);
  return Mk->Reached;
}

namespace {
struct Loop {
  uint64_t N, Chunks;
  const std::function<void(uint64_t, uint64_t)> *Body;
};
} // namespace

void Streams::parallelFor(
    uint64_t N, uint64_t Chunks,
    const std::function<void(uint64_t, uint64_t)> &Body) {
  Chunks = std::min(N, Chunks);
  if (Chunks <= 1) {
    if (N)
      Body(0, N);
    return;
  }
  Loop L{N, Chunks, &Body};
  tsanRelease(&L);
  Pool.parallelFor(
      Chunks,
      [](void *Context, uint64_t C) {
        tsanAcquire(Context);
        const Loop &L = *static_cast<const Loop *>(Context);
        struct Done {
          void *Context;
          ~Done() { tsanRelease(Context); }
        } Release{Context};
        (*L.Body)(L.N * C / L.Chunks, L.N * (C + 1) / L.Chunks);
      },
      &L);
  tsanAcquire(&L);
}
