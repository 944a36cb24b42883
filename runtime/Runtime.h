//===- Runtime.h - The running runtime: one device and its pool -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::init starts a Runtime on one device; qd::reset ends it.
// Every Runtime has a generation number, so handles and buffers made by an
// earlier one are recognised (and only forgotten) after a reset.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_RUNTIME_H
#define QDRT_RUNTIME_H

#include "Device.h"
#include "StreamPool.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct qdrt_module;

namespace qd::rt {

/// A module loaded on a runtime's device.
struct LoadedModule {
  Handle Native = nullptr;
  std::vector<Handle> Functions; ///< one per task
  std::vector<void *> Fields;    ///< one per field
  void *AssertRecord = nullptr;  ///< its qdrt_assert_record, if it has one
};

class Runtime;

/// The graphs of QD_GRAPH kernels, one per (module, kernel) for the
/// runtime's device, recorded on the first call and again when a task's
/// iteration count changes (the launch geometry), replayed otherwise with
/// the call's arguments. Thread-safe. Defined in ForkJoin.cpp.
class GraphKernels {
public:
  explicit GraphKernels(Device &D) : D(D) {}
  ~GraphKernels();
  /// Enqueues kernel Kernel of Desc on LaunchStream from its graph;
  /// Result, when not null, receives its return value once the graph has
  /// run (the only case that waits).
  void launch(Runtime &RT, const qdrt_module_desc &Desc, const LoadedModule &LM,
              uint32_t Kernel, const void *Args, const uint64_t *Iterations,
              Handle LaunchStream, void *Result);

private:
  struct Entry {
    std::vector<uint64_t> Iterations;
    Handle Recorded = nullptr, Exec = nullptr;
    std::vector<Device::KernelNode> Nodes;
    std::vector<uint32_t> NodeTask; ///< the task of each node
    /// The kernel scalars of every replay (launches of one executable
    /// graph run one after another), kept across recordings.
    void *Scalars = nullptr;
    /// A kernel with do_while loops: the argument block it was recorded
    /// with (its loop bodies' nodes are not updated in place).
    std::vector<char> Args;
  };
  /// Destroys E's graphs; its scalars stay.
  void release(Entry &E);

  Device &D;
  std::mutex Mutex;
  Handle CaptureStream = nullptr;
  std::unordered_map<const qdrt_kernel_desc *, Entry> Entries;
};

class Runtime {
public:
  Runtime(std::unique_ptr<Device> D, int Ordinal, uint64_t Generation);
  /// Waits for the device, unloads modules, destroys the pool.
  ~Runtime();

  Device &device() { return *D; }
  GraphKernels &graphKernels() { return *Graphs; }
  StreamPool &pool() { return Pool; }
  uint64_t generation() const { return Generation; }
  int ordinal() const { return Ordinal; }

  /// Loads the module on first use and reserves its largest group count
  /// in the pool.
  LoadedModule &load(qdrt_module &M);

  /// After a synchronization: a QD_ASSERT that failed in a loaded module
  /// is a qd::Error naming where (the record is cleared first, so the
  /// runtime stays usable). What names the synchronizing call.
  void checkAsserts(const char *What);

  /// Device memory the runtime tracks, so that reset() frees what users
  /// still hold (their buffers then know they belong to a gone runtime).
  void *allocate(size_t Bytes);
  void deallocate(void *Pointer);

private:
  std::unique_ptr<Device> D;
  StreamPool Pool;
  std::unique_ptr<GraphKernels> Graphs;
  int Ordinal;
  uint64_t Generation;
  std::mutex ModulesMutex;
  std::unordered_map<const qdrt_module *, std::unique_ptr<LoadedModule>>
      Modules;
  std::mutex BuffersMutex;
  std::unordered_set<void *> Buffers;
};

/// The current runtime; starts the default one when there is none.
Runtime &current();
/// The current runtime, or null when none runs.
Runtime *currentIfRunning();
/// Generation of the current runtime, 0 when none runs.
uint64_t currentGeneration();
/// The device, when Generation is the running runtime's; null otherwise
/// (an object made before qd::reset()).
Device *deviceOf(uint64_t Generation);

/// Starts a runtime on Arch (see qd::init).
void start(Arch A, InitOptions Options);
/// Starts a runtime on a given device (tests use the mock device).
void startWithDevice(std::unique_ptr<Device> D);
/// Ends the current runtime, if any.
void shutdown();

} // namespace qd::rt

#endif // QDRT_RUNTIME_H
