//===- CpuDevice.cpp - The CPU backend
//----------------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Tasks run on the host when they are launched, split across a
// pool of std::threads; launch returns when the task is done. Events have
// handle 0 and stream and event calls do nothing, so code written for GPUs
// runs unchanged; each stream is a distinct token (qd::Stream::handle()
// still says 0), so that errors belong to the stream whose work failed.
// Stream-parallel groups run one after another in source order. Fields
// live in the module's own host storage. Each thread that runs a chunk of
// a launch writes failed assertions to the launching thread's record
// (qd::detail::cpu_assert_record_).
//
//===----------------------------------------------------------------------===//

#include "../Device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include <unistd.h>
#include <unordered_map>
#include <vector>

using namespace qd::rt;

__thread qdrt_assert_record *qd::detail::cpu_assert_record_ = nullptr;

namespace {

/// A fixed set of worker threads running one parallel-for at a time.
class ThreadPool {
public:
  explicit ThreadPool(unsigned Threads) {
    for (unsigned I = 1; I < Threads; ++I)
      Workers.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Stopping = true;
    }
    Wake.notify_all();
    for (std::thread &T : Workers)
      T.join();
  }

  unsigned size() const { return static_cast<unsigned>(Workers.size()) + 1; }

  /// Runs Fn(begin, end) over [0, N) in chunks on every thread, the caller's
  /// included, or in MaxThreads chunks when that is not 0 (so that at most
  /// MaxThreads threads run it); returns when all chunks are done.
  void parallelFor(uint64_t N, unsigned MaxThreads,
                   const std::function<void(uint64_t, uint64_t)> &Fn) {
    std::lock_guard<std::mutex> Serial(LaunchMutex);
    uint64_t Chunks = std::min<uint64_t>(N, MaxThreads ? uint64_t(MaxThreads)
                                                       : uint64_t(size()) * 4);
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Job = &Fn;
      Total = N;
      NumChunks = Chunks;
      NextChunk = 0;
      Pending = Chunks;
      ++Round;
    }
    Wake.notify_all();
    runChunks();
    std::unique_lock<std::mutex> Lock(Mutex);
    Done.wait(Lock, [&] { return Pending == 0; });
    Job = nullptr;
  }

private:
  void runChunks() {
    for (;;) {
      uint64_t C;
      const std::function<void(uint64_t, uint64_t)> *Fn;
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        if (!Job || NextChunk >= NumChunks)
          return;
        C = NextChunk++;
        Fn = Job;
      }
      uint64_t Begin = Total * C / NumChunks, End = Total * (C + 1) / NumChunks;
      (*Fn)(Begin, End);
      std::lock_guard<std::mutex> Lock(Mutex);
      if (--Pending == 0)
        Done.notify_all();
    }
  }

  void work() {
    uint64_t Seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> Lock(Mutex);
        Wake.wait(Lock, [&] { return Stopping || Round != Seen; });
        if (Stopping)
          return;
        Seen = Round;
      }
      runChunks();
    }
  }

  std::vector<std::thread> Workers;
  std::mutex LaunchMutex; // one parallel-for at a time
  std::mutex Mutex;
  std::condition_variable Wake, Done;
  const std::function<void(uint64_t, uint64_t)> *Job = nullptr;
  uint64_t Total = 0, NumChunks = 0, NextChunk = 0, Pending = 0, Round = 0;
  bool Stopping = false;
};

unsigned threadCount() {
  if (const char *Env = std::getenv("QD_CPU_THREADS"))
    if (int N = std::atoi(Env); N > 0)
      return static_cast<unsigned>(N);
  return std::max(1u, std::thread::hardware_concurrency());
}

class CpuDevice final : public Device {
public:
  CpuDevice() : Pool(threadCount()) {}

  qd::Arch arch() const override { return qd::Arch::cpu; }
  std::string describe() const override {
    return "host CPU (" + std::to_string(Pool.size()) + " threads)";
  }
  Properties properties() const override {
    long Pages = sysconf(_SC_PHYS_PAGES), Page = sysconf(_SC_PAGE_SIZE);
    return {describe(), 0, 1,
            Pages > 0 && Page > 0 ? size_t(Pages) * size_t(Page) : 0};
  }
  bool hasLaunchRecords() const override { return true; }

  /// A token, never 0 (the default stream), never reused.
  Handle createStream() override {
    return reinterpret_cast<Handle>(
        uintptr_t(NextStream.fetch_add(1, std::memory_order_relaxed)));
  }
  Handle getNativeStream(Handle) const override { return nullptr; }
  void destroyStream(Handle) override {}
  void synchronizeStream(Handle) override {}

  /// A token, as streams are; its record is the host time of its last
  /// record (work is done when its launch returns), or none.
  Handle createEvent(bool) override {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Handle E = reinterpret_cast<Handle>(uintptr_t(NextEvent++));
    Events[E] = -1.0;
    return E;
  }
  Handle getNativeEvent(Handle) const override { return nullptr; }
  void destroyEvent(Handle E) override {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Events.erase(E);
  }
  void recordEvent(Handle E, Handle) override {
    using namespace std::chrono;
    double Now =
        duration<double, std::milli>(steady_clock::now().time_since_epoch())
            .count();
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Events[E] = Now;
  }
  void streamWaitEvent(Handle, Handle) override {}
  void synchronizeEvent(Handle) override {}
  bool queryEvent(Handle) override { return true; }
  float elapsedMs(Handle Start, Handle End) override {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    auto S = Events.find(Start), E = Events.find(End);
    if (S == Events.end() || E == Events.end() || S->second < 0 ||
        E->second < 0)
      throw qd::Error("qd::elapsed_ms: an event was never recorded");
    return static_cast<float>(E->second - S->second);
  }

  Handle loadModule(const qdrt_module_desc &M) override {
    return const_cast<qdrt_module_desc *>(&M);
  }
  void unloadModule(Handle) override {}
  Handle getFunction(Handle, const qdrt_task_desc &T) override {
    if (!T.cpu_fn)
      throw qd::Error(std::string("task '") + T.name +
                      "' has no CPU code in its module");
    return reinterpret_cast<Handle>(T.cpu_fn);
  }
  void *getGlobal(Handle, const qdrt_field_desc &F) override {
    if (!F.host_data)
      throw qd::Error(std::string("field '") + F.name +
                      "' has no host storage in its module");
    return F.host_data;
  }

  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t, Handle) override {
    auto Task = reinterpret_cast<qdrt_cpu_task_fn>(Fn);
    // The launch's assertion record, for the pool's threads too.
    qdrt_assert_record *Record = qd::detail::cpu_assert_record_;
    if (Iterations == QDRT_DEVICE_TRIP) {
      // The earlier tasks have run: the range reads what they wrote.
      if (!T.cpu_trip)
        throw qd::Error(std::string("launch: task '") + T.name +
                        "' computes its range when it starts but has no "
                        "CPU trip function");
      Iterations = T.cpu_trip(Args);
      if (Iterations == 0)
        return;
    }
    if (Iterations == 1) {
      Task(Args, 0, 1);
      return;
    }
    Pool.parallelFor(Iterations, T.cpu_threads,
                     [&](uint64_t Begin, uint64_t End) {
                       CpuRecordScope Scope(Record);
                       Task(Args, Begin, End);
                     });
  }

  void *allocate(size_t Bytes) override {
    // aligned_alloc wants a multiple of the alignment: round up, without
    // wrapping, and to at least one block so that 0 bytes is a buffer too.
    if (Bytes > static_cast<size_t>(PTRDIFF_MAX))
      throw qd::Error("allocate: " + std::to_string(Bytes) +
                      " bytes is too large: more than " +
                      std::to_string(PTRDIFF_MAX));
    void *P =
        std::aligned_alloc(64, std::max<size_t>(Bytes + 63, 64) / 64 * 64);
    if (!P)
      throw qd::Error("allocate: out of host memory for " +
                      std::to_string(Bytes) + " bytes");
    return P;
  }
  void deallocate(void *P) override { std::free(P); }
  void copyToDevice(void *Dst, const void *Src, size_t Bytes, Handle) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes, Handle) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void memset(void *Dst, uint32_t Word, unsigned WordBytes, size_t Count,
              Handle) override {
    if (WordBytes == 1)
      std::memset(Dst, int(Word & 0xff), Count);
    else
      memsetHost(Dst, Word, WordBytes, Count);
  }

private:
  ThreadPool Pool;
  std::atomic<uintptr_t> NextStream{1};
  std::mutex EventsMutex;
  uintptr_t NextEvent = 1;
  std::unordered_map<Handle, double> Events; ///< ms of the last record; -1
};

} // namespace

std::unique_ptr<Device> qd::rt::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}
