//===- Runtime.h - The running runtime and its devices ----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::init starts a Runtime on one backend; qd::reset ends it. The Runtime
// holds a list of DeviceContexts, one per device it opened, each with its
// own Device, stream pool, loaded modules (images and fields), buffers,
// graphs and assertion bookkeeping. A call names its device (a launch by
// its qd::Launch, an object by the device it was made on); a call that
// names none runs on the calling thread's current device (qd::set_device;
// at first the ordinal InitOptions::device names). A device is opened the
// first time a call names it.
// Every Runtime has a generation number, so handles and buffers made by an
// earlier one are recognised (and only forgotten) after a reset.
//
// Every public entry point of libqdrt holds a CallGuard while it uses the
// runtime: qd::reset() takes the runtime away from new calls at once, then
// waits for the calls in flight before it destroys it, so no call ever
// uses a freed runtime.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_RUNTIME_H
#define QDRT_RUNTIME_H

#include "Device.h"
#include "StreamPool.h"

#include "qd/runtime.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct qdrt_module;

namespace qd::rt {

/// A module loaded on one device of the runtime.
struct LoadedModule {
  Handle Native = nullptr;
  std::vector<Handle> Functions; ///< one per task
  /// One per task: its latency version, or null.
  std::vector<Handle> LatencyFunctions;
  /// One per task: its narrow entry, or null.
  std::vector<Handle> NarrowFunctions;
  /// One per task: its entries wait for the grids before them
  /// (Device::waitsForGrids), so their launches may overlap those grids.
  std::vector<char> Overlaps;
  std::vector<void *> Fields;   ///< one per field
  void *AssertRecord = nullptr; ///< its qdrt_assert_record, if it has one
  /// Every copy of the record: AssertRecord, and in a module in parts, each
  /// part's own (Device::getGlobals).
  std::vector<void *> AssertRecords;
};

/// Held by every public entry point of libqdrt for as long as it uses the
/// runtime (calls nested in one, such as the kernels a captured function
/// launches, share the outermost one's). qd::reset() waits until no call
/// holds one before it destroys the runtime.
///
/// A public call that only checks an object made earlier (an array's or a
/// stream's generation) and the call that then uses its memory or handle
/// are two calls: the check remembers, for this thread, the generation it
/// accepted (Pins::check), and the call that uses the memory refuses to
/// run when a reset came in between (Pins::consume). Any other outermost
/// call forgets what was remembered (Pins::clear).
class CallGuard {
public:
  enum class Pins { clear, keep, consume };
  explicit CallGuard(Pins P = Pins::clear);
  ~CallGuard();
  CallGuard(const CallGuard &) = delete;
  CallGuard &operator=(const CallGuard &) = delete;

  /// Whether this thread is inside a runtime call.
  static bool active();
  /// Remembers Generation (not 0) for the consuming call that follows on
  /// this thread; only the outermost call remembers.
  static void pin(uint64_t Generation);
  /// In a consuming call: throws qd::Error "<What>: ..." (naming Kernel
  /// when not null) when what was remembered belongs to another runtime
  /// than Generation's; forgets it.
  static void checkPins(uint64_t Generation, const char *What,
                        const char *Kernel = nullptr);
  /// Forgets what was remembered (a check's call failed before using it).
  static void forgetPins();

private:
  bool Outermost;
};

class DeviceContext;

/// A function given to qd::capture runs inside one: while the GPU
/// backends capture it, and while the CPU backend (which has no graphs)
/// replays it. Waiting on the host there is refused on every backend, by
/// the runtime before any driver call (a GPU's driver would refuse it too,
/// and compute-sanitizer count its refusal as an error). Defined in
/// Graph.cpp.
class CaptureScope {
public:
  CaptureScope();
  ~CaptureScope();
  CaptureScope(const CaptureScope &) = delete;
  CaptureScope &operator=(const CaptureScope &) = delete;
  /// Throws qd::Error "<What>: ..." inside a capture scope on this thread.
  static void checkNoWait(const char *What);
};

/// The graphs of QD_GRAPH kernels, one per (module, kernel) for one
/// device, recorded on the first call and again when a task's
/// iteration count changes (the launch geometry), replayed otherwise with
/// the call's arguments. Thread-safe. Defined in ForkJoin.cpp.
class GraphKernels {
public:
  explicit GraphKernels(Device &D) : D(D) {}
  ~GraphKernels();
  /// Enqueues kernel Kernel of Desc on LaunchStream from its graph;
  /// Result, when not null, receives its return value once the graph has
  /// run (the only case that waits).
  void launch(DeviceContext &DC, const qdrt_module_desc &Desc,
              const LoadedModule &LM, uint32_t Kernel, const void *Args,
              const uint64_t *Iterations, Handle LaunchStream, void *Result);

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

/// One device of the runtime and everything the runtime keeps for it.
class DeviceContext {
public:
  DeviceContext(std::unique_ptr<Device> D, int Ordinal, uint64_t Generation);
  /// Waits for the device, unloads modules, destroys the pool.
  ~DeviceContext();

  Device &device() { return *D; }
  GraphKernels &graphKernels() { return *Graphs; }
  StreamPool &pool() { return Pool; }
  /// The generation of the runtime it belongs to.
  uint64_t generation() const { return Generation; }
  /// The backend's ordinal of the device (0 on the CPU).
  int ordinal() const { return Ordinal; }

  /// Loads the module on this device on first use and reserves its
  /// largest group count in the pool.
  LoadedModule &load(qdrt_module &M);

  /// Assertions (docs/runtime.md, "Assertions"). A failed QD_ASSERT is the
  /// error of the stream whose work failed, raised at that stream's next
  /// synchronization.
  ///
  /// launchMark() is taken before a stream is synchronized; noteLaunch()
  /// remembers that Stream launched a kernel of LM (GPUs: the module's
  /// record is shared by all its launches).
  uint64_t launchMark();
  void noteLaunch(const LoadedModule &LM, Handle Stream);
  /// A failure of work on Stream, kept until its next synchronization (the
  /// first one is kept).
  void park(Handle Stream, const qdrt_assert_record &Record);
  /// After Stream was synchronized (Mark from before): reads and clears
  /// the modules' records, keeping each failure as the pending error of
  /// the streams that launched the module since its last check, then
  /// throws Stream's pending error as a qd::Error naming What. Forget: the
  /// stream is destroyed; nothing stays for it.
  void checkAsserts(const char *What, Handle Stream, uint64_t Mark,
                    bool Forget = false);
  /// Graphs of qd::capture: the modules whose kernels Graph replays, so
  /// that a replay on a stream counts as their launches.
  void captureBegin(Handle Stream);
  void captureEnd(Handle Stream, Handle Graph);
  void noteGraphLaunch(Handle Graph, Handle Stream);
  void forgetGraph(Handle Graph);
  /// qd::capture on a device without graphs (the CPU): the function is
  /// kept here, and a launch of the graph calls it again. keepReplay's
  /// handle names it; findReplay is null for a device's own graph.
  Handle keepReplay(std::function<void()> Fn);
  const std::function<void()> *findReplay(Handle Graph);
  /// Whether Graph was a kept function (now dropped).
  bool dropReplay(Handle Graph);

  /// Device memory the runtime tracks, so that reset() frees what users
  /// still hold (their buffers then know they belong to a gone runtime).
  /// Zero-filled by a device memset before it is returned.
  void *allocate(size_t Bytes);
  /// Frees Pointer when this device allocated it (and it is not freed
  /// yet); whether it did.
  bool deallocate(void *Pointer);

  /// The kernel scalars of calls that return a value (ForkJoin.cpp): such
  /// a call waits for its stream, after which its block is idle and can
  /// serve the next one. takeScalarBlock gives an idle block of
  /// ScalarBlockBytes (allocated when none is); keepScalarBlock takes back
  /// one whose work is done, retireScalarBlock one that work may still use
  /// (a failed call's), freed with the context.
  static constexpr size_t ScalarBlockBytes = 256;
  void *takeScalarBlock();
  void keepScalarBlock(void *Block);
  void retireScalarBlock(void *Block);

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
  /// The stream on which new buffers are zeroed (GPUs), made on first use.
  Handle ZeroStream = nullptr;
  std::mutex ScalarBlocksMutex;
  std::vector<void *> IdleScalarBlocks, RetiredScalarBlocks;

  std::mutex AssertMutex;
  uint64_t LaunchSeq = 0;
  /// Per module with a record: the streams that launched it since its
  /// last check, each with the sequence number of its latest launch.
  std::unordered_map<const LoadedModule *, std::unordered_map<Handle, uint64_t>>
      Launchers;
  std::unordered_map<Handle, qdrt_assert_record> Pending;
  /// qd::capture: the modules launched on each stream being captured, and
  /// those of each graph.
  std::map<Handle, std::vector<const LoadedModule *>> Capturing;
  std::map<Handle, std::vector<const LoadedModule *>> GraphModules;
  std::mutex ReplaysMutex;
  /// keepReplay's functions, by their address, which is the handle.
  std::unordered_map<Handle, std::unique_ptr<std::function<void()>>> Replays;
};

/// Makes the device of an ordinal of one backend (createCudaDevice, ...).
using DeviceFactory = std::function<std::unique_ptr<Device>(int Ordinal)>;

/// A running runtime: its generation and the devices of its backend, each
/// opened (a DeviceContext made) the first time a call names it.
class Runtime {
public:
  /// Starts on First, the device of ordinal Ordinal: the current device of
  /// every thread until it calls setCurrent. Make opens the backend's other
  /// devices (First's properties().Count of them); without it, none.
  Runtime(std::unique_ptr<Device> First, int Ordinal, DeviceFactory Make,
          uint64_t Generation);
  /// Destroys the devices' contexts.
  ~Runtime();

  uint64_t generation() const { return Generation; }
  /// How many devices the backend has (ordinals 0 to deviceCount() - 1).
  int deviceCount() const { return Count; }
  /// The ordinal the runtime started on (InitOptions::device).
  int defaultOrdinal() const { return Default; }
  /// The device a call that names none runs on: the calling thread's
  /// (setCurrent), else the one the runtime started on.
  DeviceContext &currentDevice();
  /// Makes Ordinal the calling thread's current device, opening it; a
  /// qd::Error "<What>: ..." when there is no such device.
  void setCurrent(int Ordinal, const char *What);
  /// The device of ordinal Ordinal (QDRT_CURRENT_DEVICE: the current one),
  /// opened on first use; null when the backend has no such device. An
  /// error opening it is a qd::Error.
  DeviceContext *findDevice(int Ordinal);
  /// findDevice, or a qd::Error "<What>: no device <n>: ...".
  DeviceContext &getDevice(int Ordinal, const char *What);
  /// Frees what one of the devices allocated (on that device).
  void deallocate(void *Pointer);
  /// Drops the registration of host memory P made with device Ordinal
  /// (Device::registerHost), once no open device's queued work can use it.
  void unregisterHost(void *P, int Ordinal);
  /// Lets A's kernels and copies reach B's memory and B's reach A's.
  void enablePeerAccess(int A, int B, const char *What);
  /// Whether kernels on device From may use memory of device To.
  bool canAccess(int From, int To);

private:
  uint64_t Generation;
  int Count;
  int Default;
  DeviceFactory Make;
  std::mutex OpenMutex;
  /// By ordinal; null until opened. Opened holds the same pointers, read
  /// without the lock.
  std::vector<std::unique_ptr<DeviceContext>> Owned;
  std::unique_ptr<std::atomic<DeviceContext *>[]> Opened;
  /// (From, To) pairs of enabled peer access.
  std::vector<std::pair<int, int>> Peers;
};

/// "<What>: QD_ASSERT failed in '<function>' at <file>:<line>: <text>".
std::string describeAssert(const char *What, const qdrt_assert_record &Record);
/// Where Record's function is one of Desc's generated tasks (`k_t0`, a part
/// of a fused `k_t0_to_3`, with or without its signature), the kernel's
/// name instead: messages name the user's kernel.
void nameKernel(qdrt_assert_record &Record, const qdrt_module_desc &Desc);

/// The current runtime; starts the default one when there is none. Like
/// the three below, only for a thread that holds a CallGuard (or a test
/// that runs alone), and valid while it holds it.
Runtime &current();
/// The current runtime, or null when none runs.
Runtime *currentIfRunning();
/// Generation of the current runtime, 0 when none runs.
uint64_t currentGeneration();
/// The runtime, when Generation is the running runtime's; null otherwise
/// (an object made before qd::reset()).
Runtime *runtimeOf(uint64_t Generation);
/// The device of ordinal Ordinal of that runtime (QDRT_CURRENT_DEVICE:
/// its current one); null when Generation is not the running runtime's or
/// it has not opened that device.
DeviceContext *contextOf(uint64_t Generation, int Ordinal);
/// current().currentDevice().
DeviceContext &currentDevice();

/// Starts a runtime on Arch (see qd::init).
void start(Arch A, InitOptions Options);
/// Starts a runtime on a given device (tests use the mock device).
void startWithDevice(std::unique_ptr<Device> D);
/// Starts a runtime on the device of ordinal Ordinal that Make opens, which
/// opens the others too (tests use mock devices).
void startWithDevices(DeviceFactory Make, int Ordinal = 0);
/// Ends the current runtime, if any: new calls no longer see it, and it is
/// destroyed once the calls in flight are done.
void shutdown();
/// For a wait on an object of a runtime that a reset took away (a call
/// that then fails): returns once that runtime is destroyed, so the work
/// it had queued has run (a CPU stream's copy into the caller's host
/// memory, say). Returns at once on a thread inside a runtime call (which
/// the reset waits for).
void waitUntilRetired(uint64_t Generation);

} // namespace qd::rt

#endif // QDRT_RUNTIME_H
