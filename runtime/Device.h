//===- Device.h - The device layer of libqdrt -------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The small interface every backend implements: streams,
// events, modules, launches, memory. Fork/join, the stream pool and the
// public API are written once above it. Handles are opaque; on the CPU
// backend they are the CPU device's own streams and event tokens.
// Every failure throws qd::Error naming the call.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_DEVICE_H
#define QDRT_DEVICE_H

#include "qd/abi.h"
#include "qd/error.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace qd::detail {
/// The record that a failed QD_ASSERT of CPU code run by this thread
/// writes, or null (the module's own): the runtime points it at a launch's
/// record around the launch, the CPU device on each thread that runs one
/// of its chunks (<qd/detail/kernel.h> declares it for generated code).
extern __thread qdrt_assert_record *cpu_assert_record_;
} // namespace qd::detail

namespace qd::rt {
/// Points this thread's CPU assertion record at R while it lives (a
/// launch on the launching thread, a chunk on a pool thread).
class CpuRecordScope {
public:
  explicit CpuRecordScope(qdrt_assert_record *R)
      : Saved(qd::detail::cpu_assert_record_) {
    qd::detail::cpu_assert_record_ = R;
  }
  ~CpuRecordScope() { qd::detail::cpu_assert_record_ = Saved; }
  CpuRecordScope(const CpuRecordScope &) = delete;
  CpuRecordScope &operator=(const CpuRecordScope &) = delete;

private:
  qdrt_assert_record *Saved;
};
} // namespace qd::rt

namespace qd::rt {

using Handle = void *;

class Device {
public:
  virtual ~Device();

  virtual Arch arch() const = 0;
  /// E.g. "NVIDIA H100 80GB HBM3 (sm_90)".
  virtual std::string describe() const = 0;
  /// What qd::device() reports of it, and how many devices its backend has
  /// (the ordinals the runtime may open).
  struct Properties {
    std::string Name;
    int Capability = 0; ///< NVIDIA: 90 for sm_90; 0 elsewhere
    int Count = 1;
    size_t Memory = 0; ///< bytes of device memory (the host's on the CPU)
  };
  virtual Properties properties() const { return {describe(), 0, 1, 0}; }
  /// Lets this device's kernels and copies reach Peer's memory (another
  /// device of the same backend).
  virtual void enablePeerAccess(Device &Peer) {
    (void)Peer;
    throw qd::Error(std::string("qd::enable_peer_access: the ") +
                    arch_name(arch()) + " backend has one device");
  }
  /// True when the task a launch() queues runs on host threads, each
  /// running its chunk with qd::detail::cpu_assert_record_ set to what the
  /// launching thread had when it queued it (the CPU backend): a launch's
  /// assertions then have a record of their own. GPUs have the module's
  /// global record only.
  virtual bool hasLaunchRecords() const { return false; }

  virtual Handle createStream() = 0;
  /// What qd::Stream::handle() shows for Stream: the driver's stream on a
  /// GPU; none (nullptr) on the CPU, whose streams are its own.
  virtual Handle getNativeStream(Handle Stream) const { return Stream; }
  virtual void destroyStream(Handle Stream) = 0;
  virtual void synchronizeStream(Handle Stream) = 0;
  /// Waits for the work of every stream (GPUs: the whole context's).
  virtual void waitIdle() { synchronizeStream(nullptr); }
  /// Runs Fn on a host thread after the work queued on Stream before it,
  /// and before the work queued after it. By default it waits for Stream
  /// and runs Fn on the calling thread.
  virtual void hostCall(Handle Stream, std::function<void()> Fn) {
    synchronizeStream(Stream);
    Fn();
  }

  virtual Handle createEvent(bool Timing) = 0;
  /// What qd::Event::handle() shows for Event: the driver's event on a
  /// GPU; none (nullptr) on the CPU.
  virtual Handle getNativeEvent(Handle Event) const { return Event; }
  virtual void destroyEvent(Handle Event) = 0;
  virtual void recordEvent(Handle Event, Handle Stream) = 0;
  virtual void streamWaitEvent(Handle Stream, Handle Event) = 0;
  virtual void synchronizeEvent(Handle Event) = 0;
  virtual bool queryEvent(Handle Event) = 0;
  virtual float elapsedMs(Handle Start, Handle End) = 0;

  /// Loads the module's image for this device.
  virtual Handle loadModule(const qdrt_module_desc &Module) = 0;
  virtual void unloadModule(Handle Module) = 0;
  virtual Handle getFunction(Handle Module, const qdrt_task_desc &Task) = 0;
  /// The task's latency version (qdrt_task_desc::latency_name), where the
  /// device has one: null by default.
  virtual Handle getLatencyFunction(Handle Module, const qdrt_task_desc &Task) {
    (void)Module;
    (void)Task;
    return nullptr;
  }
  /// The task's narrow entry (qdrt_task_desc::narrow_name), where the
  /// device has one: null by default.
  virtual Handle getNarrowFunction(Handle Module, const qdrt_task_desc &Task) {
    (void)Module;
    (void)Task;
    return nullptr;
  }
  /// The most iterations a launch may have to run a task's latency
  /// version: fewer than the device can keep busy (0: never).
  virtual uint64_t getLatencyBound() const { return 0; }
  /// The most blocks a tiled task's own entry gets (its spans' grid): a
  /// launch of no more tiles gives each block one tile at most, which its
  /// narrow entry runs without finding spans (0: never).
  virtual uint64_t getTiledGridBlocks() const { return 0; }
  virtual void *getGlobal(Handle Module, const qdrt_field_desc &Field) = 0;
  /// Every copy of Field: one, or of a module in parts, one in each part
  /// that defines it for itself (the assert record); the first is
  /// getGlobal's.
  virtual std::vector<void *> getGlobals(Handle Module,
                                         const qdrt_field_desc &Field) {
    return {getGlobal(Module, Field)};
  }
  /// Whether the code loaded for Function, an entry of a task flagged
  /// QDRT_TASK_GRID_WAIT, begins with that wait: a launch of it may then
  /// start before the kernel ahead of it on its stream has ended (NVIDIA
  /// GPUs of compute capability 9.0 and later, code compiled for them).
  virtual bool waitsForGrids(Handle Function) const {
    (void)Function;
    return false;
  }
  /// Enqueues one task over [0, Iterations) on Stream: on the grid Grid
  /// gives (x, y, z blocks: a narrow entry's, qdrt_task_desc::narrow_grid),
  /// or where it is null on the one the device picks. Overlap: Function
  /// waits for the grids before it (waitsForGrids), so its launch may
  /// overlap the end of the kernel ahead of it.
  virtual void launch(Handle Function, const qdrt_task_desc &Task,
                      uint64_t Iterations, const void *Args, size_t ArgSize,
                      Handle Stream, const uint32_t *Grid = nullptr,
                      bool Overlap = false) = 0;

  /// Makes P's Bytes of host memory (whole pages) fast to copy to and from
  /// every device: page-locked on GPUs (registered with the driver, for
  /// all its contexts); nothing on the CPU. The memory stays the caller's.
  virtual void registerHost(void *P, size_t Bytes) {
    (void)P;
    (void)Bytes;
  }
  /// Waits until no queued work of this device can use P, then drops
  /// registerHost's registration.
  virtual void unregisterHost(void *P) {
    (void)P;
    waitIdle();
  }
  virtual void *allocate(size_t Bytes) = 0;
  virtual void deallocate(void *Pointer) = 0;
  /// Memory for work on Stream, usable by what Stream runs next, and freed
  /// after what Stream runs before the free (stream-ordered). By default
  /// ordinary memory, freed once Stream has run everything before.
  virtual void *allocateAsync(size_t Bytes, Handle Stream) {
    (void)Stream;
    return allocate(Bytes);
  }
  virtual void deallocateAsync(void *Pointer, Handle Stream) {
    synchronizeStream(Stream);
    deallocate(Pointer);
  }
  virtual void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                            Handle Stream) = 0;
  virtual void copyToHost(void *Dst, const void *Src, size_t Bytes,
                          Handle Stream) = 0;
  /// The same as copyToDevice and copyToHost, for callers that do not wait:
  /// a GPU copies pageable host memory through pinned staging buffers, so
  /// that the copy returns at once and overlaps other streams' work (the
  /// host buffer must stay alive until the stream has run the copy).
  virtual void copyToDeviceAsync(void *Dst, const void *Src, size_t Bytes,
                                 Handle Stream) {
    copyToDevice(Dst, Src, Bytes, Stream);
  }
  virtual void copyToHostAsync(void *Dst, const void *Src, size_t Bytes,
                               Handle Stream) {
    copyToHost(Dst, Src, Bytes, Stream);
  }
  /// Graphs (CUDA and HIP graphs): what Stream is given between
  /// beginCapture and endCapture is recorded, not run (work forked to other
  /// streams through events is recorded too); endCapture returns it as an
  /// executable graph, which launchGraph replays on a stream. A backend
  /// without graphs says so (the CPU's: the API replays the calls).
  virtual bool hasGraphs() const { return false; }
  virtual void beginCapture(Handle Stream) { (void)Stream; }
  virtual Handle endCapture(Handle Stream) {
    (void)Stream;
    return nullptr;
  }
  virtual void launchGraph(Handle Graph, Handle Stream) {
    (void)Graph;
    (void)Stream;
  }
  virtual void destroyGraph(Handle Graph) { (void)Graph; }

  /// Graph kernels (QD_GRAPH): a captured graph whose kernel nodes take new
  /// arguments before each replay. endCaptureForUpdate is endCapture that
  /// also keeps the recorded graph (Recorded) and lists its kernel nodes;
  /// setKernelArgs gives one of them a call's argument block and count.
  struct KernelNode {
    Handle Function = nullptr, Node = nullptr;
    unsigned Grid = 0, Block = 0;
  };
  virtual bool canUpdateGraphs() const { return false; }
  virtual Handle endCaptureForUpdate(Handle Stream, Handle &Recorded,
                                     std::vector<KernelNode> &Nodes) {
    (void)Recorded;
    (void)Nodes;
    return endCapture(Stream);
  }
  virtual void setKernelArgs(Handle Graph, const KernelNode &Node,
                             const void *Args, uint64_t Iterations) {
    (void)Graph;
    (void)Node;
    (void)Args;
    (void)Iterations;
  }
  virtual void destroyRecordedGraph(Handle Recorded) { (void)Recorded; }

  /// qd::graph::do_while on the device: a while node (a conditional graph
  /// node) recorded in a capture. hasGraphLoops says whether the device
  /// can (it may load what it needs the first time). During a capture on
  /// Stream, beginGraphLoop adds the node and returns a stream that records
  /// its body; endGraphLoop ends the body with a node that sets the
  /// loop's condition from the int32_t at Flag (zero, or a failed
  /// assertion in AssertRecord when not null, ends it). The body runs once
  /// before the first check.
  virtual bool hasGraphLoops() { return false; }
  virtual Handle beginGraphLoop(Handle Stream, const void *Flag,
                                const void *AssertRecord) {
    (void)Stream;
    (void)Flag;
    (void)AssertRecord;
    throw qd::Error("this device has no device-side graph loops");
  }
  virtual void endGraphLoop(Handle Body) { (void)Body; }
  /// Copies between two buffers of this device (which do not overlap).
  virtual void copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                            Handle Stream) = 0;
  /// Sets Count words of WordBytes (1, 2 or 4) bytes at Dst, which is
  /// aligned to WordBytes, to the low bytes of Word.
  virtual void memset(void *Dst, uint32_t Word, unsigned WordBytes,
                      size_t Count, Handle Stream) = 0;
  /// Queues on Stream the setting of Count 32-bit words at Dst (aligned to
  /// 4) to Pattern, Period words (1 to 16) repeated: word i is
  /// Pattern[i % Period]. False when this device has no such fill (the
  /// caller then copies one element and doubles it on the device).
  virtual bool fillWords(void *Dst, const uint32_t *Pattern, unsigned Period,
                         size_t Count, Handle Stream) {
    (void)Dst;
    (void)Pattern;
    (void)Period;
    (void)Count;
    (void)Stream;
    return false;
  }
  /// Empty when the Bytes at P are memory this device's kernels and copies
  /// can use; otherwise why not ("host memory the driver does not know").
  /// Backends that cannot tell say nothing.
  virtual std::string checkUsable(const void *P, size_t Bytes) {
    (void)P;
    (void)Bytes;
    return {};
  }
};

/// Device::memset on memory the host can write (the CPU backend's, and the
/// test device's).
inline void memsetHost(void *Dst, uint32_t Word, unsigned WordBytes,
                       size_t Count) {
  auto *Out = static_cast<unsigned char *>(Dst);
  for (size_t I = 0; I < Count; ++I)
    std::memcpy(Out + I * WordBytes, &Word, WordBytes); // little-endian
}

/// The backends. Each throws qd::Error saying exactly what is missing
/// (the driver library, a device) when it cannot start.
std::unique_ptr<Device> createCudaDevice(int Ordinal);
std::unique_ptr<Device> createHipDevice(int Ordinal);
std::unique_ptr<Device> createCpuDevice();

} // namespace qd::rt

#endif // QDRT_DEVICE_H
