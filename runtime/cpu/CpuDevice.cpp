//===- CpuDevice.cpp - The CPU backend
//----------------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Streams are in-order queues run on oneTBB (CpuStreams.h): a launch,
// copy or fill on a stream is queued and returns at once, and work on
// different streams runs at the same time, so the groups of a
// stream-parallel kernel run concurrently. Events order streams as on a
// GPU; qd::Stream::handle() and qd::Event::handle() say 0 (no driver
// object). A launch's iterations are split into chunks that the pool's
// free threads run. Fields live in the module's own host storage. Each
// chunk of a launch writes failed assertions to the record the launching
// thread had when it queued it (qd::detail::cpu_assert_record_).
//
//===----------------------------------------------------------------------===//

#include "../Device.h"
#include "CpuStreams.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

using namespace qd::rt;

__thread qdrt_assert_record *qd::detail::cpu_assert_record_ = nullptr;

namespace {

unsigned threadCount() {
  if (const char *Env = std::getenv("QD_CPU_THREADS"))
    if (int N = std::atoi(Env); N > 0)
      return static_cast<unsigned>(N);
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Whether each task ran quickly of late (a small table indexed by the
/// task's function; a collision only costs a queued launch).
class TaskCosts {
public:
  /// Whether Task's runs took less than about 10 microseconds (its last
  /// one, or the one before: one run slowed down by the machine does not
  /// count).
  bool quick(qdrt_cpu_task_fn Task) const {
    const Entry &E = slot(Task);
    return E.Task.load(std::memory_order_relaxed) == Task &&
           E.SlowRuns.load(std::memory_order_relaxed) < 2;
  }
  /// Whether to time this run of a quick task run inline: one in 32 (the
  /// clock costs as much as such a run's other overheads).
  bool sample(qdrt_cpu_task_fn Task) {
    // (Not a read-modify-write: a count lost to a race is of no account.)
    Entry &E = slot(Task);
    unsigned N = E.Unsampled.load(std::memory_order_relaxed) + 1;
    E.Unsampled.store(N, std::memory_order_relaxed);
    return N % 32 == 0;
  }
  /// Times one run of Task.
  class Timer {
  public:
    Timer(TaskCosts &C, qdrt_cpu_task_fn Task)
        : C(C), Task(Task), Start(ticks()) {}
    ~Timer() {
      bool Slow = ticks() - Start >= QuickTicks;
      Entry &E = C.slot(Task);
      unsigned Runs = E.Task.load(std::memory_order_relaxed) == Task
                          ? E.SlowRuns.load(std::memory_order_relaxed)
                          : 0;
      E.SlowRuns.store(Slow ? std::min(Runs + 1, 2u) : 0,
                       std::memory_order_relaxed);
      E.Task.store(Task, std::memory_order_relaxed);
    }

  private:
    TaskCosts &C;
    qdrt_cpu_task_fn Task;
    uint64_t Start;
  };

private:
  /// A cheap clock: the time-stamp counter on x86 (some 2-4 ticks a
  /// nanosecond), nanoseconds elsewhere.
  static uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch() /
                    std::chrono::nanoseconds(1));
#endif
  }
  static constexpr uint64_t QuickTicks = 20000;
  struct Entry {
    std::atomic<qdrt_cpu_task_fn> Task{nullptr};
    std::atomic<unsigned> SlowRuns{0}; ///< slow runs in a row, at most 2
    std::atomic<unsigned> Unsampled{0};
  };
  Entry &slot(qdrt_cpu_task_fn Task) const {
    auto Bits = reinterpret_cast<uintptr_t>(Task);
    return Table[(Bits >> 4 ^ Bits >> 12) % Table.size()];
  }
  mutable std::array<Entry, 256> Table;
};

class CpuDevice final : public Device {
public:
  CpuDevice() : Queues(threadCount()) {}
  /// Runs what the streams hold before anything goes.
  ~CpuDevice() override { Queues.waitAll(); }

  qd::Arch arch() const override { return qd::Arch::cpu; }
  std::string describe() const override {
    return "host CPU (" + std::to_string(Queues.threads()) + " threads)";
  }
  Properties properties() const override {
    long Pages = sysconf(_SC_PHYS_PAGES), Page = sysconf(_SC_PAGE_SIZE);
    return {describe(), 0, 1,
            Pages > 0 && Page > 0 ? size_t(Pages) * size_t(Page) : 0};
  }
  bool hasLaunchRecords() const override { return true; }

  Handle createStream() override { return Queues.create(); }
  Handle getNativeStream(Handle) const override { return nullptr; }
  void destroyStream(Handle S) override { Queues.destroy(stream(S)); }
  void synchronizeStream(Handle S) override { Queues.synchronize(stream(S)); }
  void waitIdle() override { Queues.waitAll(); }
  /// At once when nothing is queued on S (nothing to wait for).
  void hostCall(Handle S, std::function<void()> Fn) override {
    cpu::Stream *Q = stream(S);
    if (!Queues.claimIfIdle(Q))
      return Queues.enqueue(Q, std::move(Fn));
    Fn();
    Queues.release(Q);
  }

  /// A token; its latest record is a marker of the stream it was recorded
  /// on (none until then).
  Handle createEvent(bool) override {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Handle E = reinterpret_cast<Handle>(uintptr_t(NextEvent++));
    Events[E] = nullptr;
    return E;
  }
  Handle getNativeEvent(Handle) const override { return nullptr; }
  void destroyEvent(Handle E) override {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Events.erase(E);
  }
  void recordEvent(Handle E, Handle S) override {
    cpu::Streams::EventMarker Mk = Queues.record(stream(S));
    std::lock_guard<std::mutex> Lock(EventsMutex);
    Events[E] = std::move(Mk);
  }
  void streamWaitEvent(Handle S, Handle E) override {
    Queues.wait(stream(S), marker(E));
  }
  void synchronizeEvent(Handle E) override { Queues.waitHost(marker(E)); }
  bool queryEvent(Handle E) override { return Queues.reached(marker(E)); }
  float elapsedMs(Handle Start, Handle End) override {
    cpu::Streams::EventMarker S = marker(Start), E = marker(End);
    if (!S || !E)
      throw qd::Error("qd::elapsed_ms: an event was never recorded");
    if (!Queues.reached(S) || !Queues.reached(E))
      throw qd::Error("qd::elapsed_ms: an event's work has not run yet "
                      "(synchronize the event first)");
    return static_cast<float>(E->Ms - S->Ms);
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

  /// Queued with a copy of the arguments and the calling thread's
  /// assertion record (the launch's), which every chunk writes to. A task
  /// whose last run was quick runs at once on the calling thread when
  /// nothing is queued on S: queueing it would cost more than it does.
  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t ArgSize, Handle S,
              const uint32_t *Grid = nullptr, bool Overlap = false) override {
    (void)Grid;    // no narrow entries on the CPU
    (void)Overlap; // nor waits for grids
    if (Iterations == QDRT_DEVICE_TRIP && !T.cpu_trip)
      throw qd::Error(std::string("launch: task '") + T.name +
                      "' computes its range when it starts but has no "
                      "CPU trip function");
    auto Task = reinterpret_cast<qdrt_cpu_task_fn>(Fn);
    qdrt_assert_record *Record = qd::detail::cpu_assert_record_;
    cpu::Stream *Q = stream(S);
    if (Costs.quick(Task) && Queues.claimIfIdle(Q)) {
      run(Task, T, Iterations, Args, Record, Costs.sample(Task));
      Queues.release(Q);
      return;
    }
    std::vector<char> Block(static_cast<const char *>(Args),
                            static_cast<const char *>(Args) + ArgSize);
    Queues.enqueue(
        Q, [this, Task, &T, Iterations, Record, Block = std::move(Block)]() {
          run(Task, T, Iterations, Block.data(), Record);
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
  /// After every stream's work, which may still use it (as cuMemFree).
  void deallocate(void *P) override {
    Queues.waitAll();
    std::free(P);
  }
  void deallocateAsync(void *P, Handle S) override {
    Queues.enqueue(stream(S), [P] { std::free(P); });
  }
  void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    Queues.run(stream(S), [&] { std::memcpy(Dst, Src, Bytes); });
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes,
                  Handle S) override {
    Queues.run(stream(S), [&] { std::memcpy(Dst, Src, Bytes); });
  }
  void copyToDeviceAsync(void *Dst, const void *Src, size_t Bytes,
                         Handle S) override {
    copyOnDevice(Dst, Src, Bytes, S);
  }
  void copyToHostAsync(void *Dst, const void *Src, size_t Bytes,
                       Handle S) override {
    copyOnDevice(Dst, Src, Bytes, S);
  }
  void copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    Queues.enqueue(stream(S), [=] { std::memcpy(Dst, Src, Bytes); });
  }
  void memset(void *Dst, uint32_t Word, unsigned WordBytes, size_t Count,
              Handle S) override {
    Queues.enqueue(stream(S), [=] {
      if (WordBytes == 1)
        std::memset(Dst, int(Word & 0xff), Count);
      else
        memsetHost(Dst, Word, WordBytes, Count);
    });
  }

private:
  cpu::Stream *stream(Handle S) {
    return S ? static_cast<cpu::Stream *>(S) : Queues.defaultStream();
  }
  cpu::Streams::EventMarker marker(Handle E) {
    std::lock_guard<std::mutex> Lock(EventsMutex);
    auto It = Events.find(E);
    return It == Events.end() ? nullptr : It->second;
  }

  /// One launch, on a thread of the pool (or a caller that waits for it).
  void run(qdrt_cpu_task_fn Task, const qdrt_task_desc &T, uint64_t Iterations,
           const void *Args, qdrt_assert_record *Record, bool Timed = true) {
    std::optional<TaskCosts::Timer> Time;
    if (Timed)
      Time.emplace(Costs, Task);
    CpuRecordScope Scope(Record);
    if (Iterations == QDRT_DEVICE_TRIP) {
      // The earlier tasks have run: the range reads what they wrote.
      Iterations = T.cpu_trip(Args);
      if (Iterations == 0)
        return;
    }
    if (Iterations == 1) {
      Task(Args, 0, 1);
      return;
    }
    uint64_t Chunks =
        T.cpu_threads ? uint64_t(T.cpu_threads) : uint64_t(Queues.threads()) * 4;
    Queues.parallelFor(Iterations, Chunks, [&](uint64_t Begin, uint64_t End) {
      CpuRecordScope Chunk(Record);
      Task(Args, Begin, End);
    });
  }

  TaskCosts Costs;
  cpu::Streams Queues;
  std::mutex EventsMutex;
  uintptr_t NextEvent = 1;
  /// Each event's latest record; null until recorded.
  std::unordered_map<Handle, cpu::Streams::EventMarker> Events;
};

} // namespace

std::unique_ptr<Device> qd::rt::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}
