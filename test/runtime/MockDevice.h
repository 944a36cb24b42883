//===- MockDevice.h - A recording device for runtime tests ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Implements the device interface without hardware: every call
// is appended to a log in a readable form ("record e2 s0", "launch k_t1
// n=64 s3"), objects are counted so tests can prove nothing leaks, and the
// Nth call can be made to fail to test error paths. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_TEST_MOCKDEVICE_H
#define QDRT_TEST_MOCKDEVICE_H

#include "Device.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace qd::rt::test {

/// When set, every call this thread makes is logged as "<tag> <call>".
extern thread_local std::string ThreadTag;

/// What a test can see of a mock device, even after the runtime that owned
/// the device is gone.
struct MockState {
  std::mutex Mutex;
  std::vector<std::string> Calls;
  unsigned CallCount = 0;
  unsigned FailAt = 0;    ///< 1-based call number that throws; 0: none
  bool FailOn = false;    ///< every call from FailAt on throws (a dead context)
  std::string FailedCall; ///< the call that was made to fail
  int LiveStreams = 0, LiveEvents = 0, LiveModules = 0, LiveBuffers = 0;
  bool RunCpuTasks = false; ///< run tasks' CPU code on launch
  /// What the devices' getLatencyBound answers (0: latency versions of
  /// tasks never run); set before the first launch.
  uint64_t LatencyBound = 0;
  /// What the devices' getTiledGridBlocks answers.
  uint64_t TiledGridBlocks = 0;
  /// What the devices' waitsForGrids answers (as a GPU of compute
  /// capability 9.0 running code compiled for it); set before the first
  /// launch.
  bool WaitsForGrids = false;
  /// Further copies of a global getGlobals finds, by name, as in a module
  /// in parts whose parts each define it (the assert record).
  std::map<std::string, std::vector<void *>> PartCopies;

  std::vector<std::string> takeCalls() {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::vector<std::string> Out;
    Out.swap(Calls);
    return Out;
  }
  int liveObjects() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return LiveStreams + LiveEvents + LiveModules + LiveBuffers;
  }
};

class MockDevice final : public Device {
public:
  /// Device Ordinal of Count mock devices; the calls of one but device 0
  /// are recorded as "d<ordinal>: <call>".
  explicit MockDevice(std::shared_ptr<MockState> State, int Ordinal = 0,
                      int Count = 1)
      : State(std::move(State)), Ordinal(Ordinal), Count(Count) {}

  qd::Arch arch() const override { return qd::Arch::cuda; }
  std::string describe() const override {
    return "mock device " + std::to_string(Ordinal);
  }
  Properties properties() const override {
    return {describe(), 80 + Ordinal, Count, size_t(1) << 30};
  }

  Handle createStream() override;
  void destroyStream(Handle S) override;
  void synchronizeStream(Handle S) override;
  Handle createEvent(bool Timing) override;
  void destroyEvent(Handle E) override;
  void recordEvent(Handle E, Handle S) override;
  void streamWaitEvent(Handle S, Handle E) override;
  void synchronizeEvent(Handle E) override;
  bool queryEvent(Handle E) override;
  float elapsedMs(Handle A, Handle B) override;
  Handle loadModule(const qdrt_module_desc &M) override;
  void unloadModule(Handle M) override;
  Handle getFunction(Handle M, const qdrt_task_desc &T) override;
  Handle getLatencyFunction(Handle M, const qdrt_task_desc &T) override;
  Handle getNarrowFunction(Handle M, const qdrt_task_desc &T) override;
  uint64_t getLatencyBound() const override { return State->LatencyBound; }
  uint64_t getTiledGridBlocks() const override {
    return State->TiledGridBlocks;
  }
  void *getGlobal(Handle M, const qdrt_field_desc &F) override;
  std::vector<void *> getGlobals(Handle M, const qdrt_field_desc &F) override;
  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t ArgSize, Handle S,
              const uint32_t *Grid = nullptr, bool Overlap = false) override;
  bool waitsForGrids(Handle) const override { return State->WaitsForGrids; }
  void registerHost(void *P, size_t Bytes) override;
  void unregisterHost(void *P) override;
  void *allocate(size_t Bytes) override;
  void deallocate(void *P) override;
  void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override;
  void copyToHost(void *Dst, const void *Src, size_t Bytes, Handle S) override;
  void copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override;
  bool hasGraphs() const override { return true; }
  void beginCapture(Handle S) override;
  Handle endCapture(Handle S) override;
  void launchGraph(Handle G, Handle S) override;
  void destroyGraph(Handle G) override;
  bool canUpdateGraphs() const override { return true; }
  Handle endCaptureForUpdate(Handle S, Handle &Recorded,
                             std::vector<KernelNode> &Nodes) override;
  void setKernelArgs(Handle Graph, const KernelNode &Node, const void *Args,
                     uint64_t Iterations) override;
  void destroyRecordedGraph(Handle) override { call("destroyRecordedGraph"); }
  void memset(void *Dst, uint32_t Word, unsigned WordBytes, size_t Count,
              Handle S) override;
  bool fillWords(void *Dst, const uint32_t *Pattern, unsigned Period,
                 size_t Count, Handle S) override;

  /// "s0" for the default stream, "s3", "e2", ... for the others.
  std::string name(Handle H);

private:
  /// The tasks launched while a capture is open: the graph's kernel nodes.
  std::vector<const qdrt_task_desc *> Captured;
  bool Capturing = false;
  /// Logs a call, or throws when it is the one chosen to fail.
  void call(const std::string &What);
  Handle make(char Kind);

  std::shared_ptr<MockState> State;
  int Ordinal, Count;
  std::map<Handle, std::string> Names;
  unsigned NextId[128] = {};
  std::vector<std::unique_ptr<char[]>> Objects;
  std::map<void *, std::unique_ptr<char[]>> Buffers;
};

} // namespace qd::rt::test

#endif // QDRT_TEST_MOCKDEVICE_H
