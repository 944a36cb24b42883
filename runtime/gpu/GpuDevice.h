//===- GpuDevice.h - One GPU backend over a driver table --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The CUDA and HIP backends share an API shape, so they share
// one implementation: GpuDevice<Traits, ContextT>, a class template over a
// traits struct that holds the vendor's driver entry points and the few
// facts of its API they cannot say, and over the vendor's context (as
// Halide's GPUCompilationCache<ContextT, ModuleStateT> serves every GPU
// runtime). What stays in runtime/cuda/ and runtime/hip/ is the vendor's
// X-macro table and what is truly its own: how a device is made current on
// a thread, how a module image is chosen and loaded, how a device is
// described.
//
// Traits, the vendor's driver (CudaDriver, HipRuntime), has one DriverFn
// member per line of its .def table, from which GpuTypes reads the driver's
// types; a static GpuVendor Vendor; and errorStrings(R), the driver's name
// and description of status R. ContextT is built from
// (const GpuDriver<Traits> &, const GpuInfo<Traits> &) and has place() (what
// SetCurrent makes current), describe() and load(const qdrt_module_desc &).
//
// Every driver table lists its functions as
// QDRT_GPU_FN(ROLE, NAME, SYMBOL, RET, PARAMS): ROLE is the member this file
// calls, NAME the function as errors name it, SYMBOL the name resolved in the
// library, RET and PARAMS its type. The entries both vendors have come first,
// in the same order in both tables.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_GPU_GPUDEVICE_H
#define QDRT_GPU_GPUDEVICE_H

#include "../Device.h"
#include "../DynamicLibrary.h"
#include "../TaskPool.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qd::rt::gpu {

/// One function of a driver table: its address and the name errors use.
template <typename Fn> struct DriverFn;
template <typename R, typename... Ps> struct DriverFn<R(Ps...)> {
  using Pointer = R (*)(Ps...);
  using Result = R;
  template <size_t I> using Param = std::tuple_element_t<I, std::tuple<Ps...>>;

  /// Resolves Symbol in Library; throws qd::Error when it is missing.
  DriverFn(const DynamicLibrary &Library, const char *Name, const char *Symbol)
      : Address(reinterpret_cast<Pointer>(Library.symbol(Symbol))), Name(Name) {
  }
  /// A function of this program (the tests' fake drivers).
  DriverFn(Pointer Address, const char *Name) : Address(Address), Name(Name) {}

  R operator()(Ps... Args) const { return Address(Args...); }

  Pointer Address;
  const char *Name; ///< e.g. "cuStreamDestroy" (whose symbol ends in _v2)
};

/// The driver's types, as the entries of its table take them: the shared
/// code learns them from the table, not from a second list in the traits.
template <typename Traits> struct GpuTypes {
  template <typename Fn, size_t I>
  using ParamOf = typename Fn::template Param<I>;

  using Result = typename decltype(Traits::Init)::Result;
  using DeviceId = ParamOf<decltype(Traits::DeviceGetName), 2>;
  using Place = ParamOf<decltype(Traits::SetCurrent), 0>;
  using Stream = ParamOf<decltype(Traits::StreamDestroy), 0>;
  using Event = ParamOf<decltype(Traits::EventDestroy), 0>;
  using Module = ParamOf<decltype(Traits::ModuleUnload), 0>;
  using Function = ParamOf<decltype(Traits::LaunchKernel), 0>;
  using Graph = ParamOf<decltype(Traits::GraphDestroy), 0>;
  using GraphExec = ParamOf<decltype(Traits::GraphLaunch), 0>;
  /// An integer on CUDA, a pointer on HIP.
  using DevicePtr = ParamOf<decltype(Traits::MemFree), 0>;
};

/// A module as loaded: the modules of its image, one unless the image is in
/// parts (QDRT_IMAGE_FATBIN_PARTS, a module each), and then the parts that
/// define each task and field (one; the assert record: each part).
template <typename ModuleT> struct LoadedImage {
  std::vector<ModuleT> Modules;
  std::unordered_multimap<std::string_view, size_t> PartOf;

  /// Where Parts' names are (each part's list, in the descriptor's static
  /// storage).
  void index(const qdrt_image_parts &Parts) {
    for (uint32_t P = 0; P < Parts.num_parts; ++P)
      for (const char *Name = Parts.parts[P].symbols; Name && *Name;
           Name += std::strlen(Name) + 1)
        PartOf.emplace(Name, P);
  }
  /// The module that defines Name (the first when no part names it: the
  /// driver's lookup says it is missing).
  ModuleT find(const char *Name) const {
    auto Found = PartOf.find(Name);
    return Modules[Found == PartOf.end() ? 0 : Found->second];
  }
  /// Every module that defines Name, in part order (the first alone when
  /// no part names it).
  std::vector<ModuleT> findAll(const char *Name) const {
    std::vector<size_t> Parts;
    auto [Begin, End] = PartOf.equal_range(Name);
    for (auto It = Begin; It != End; ++It)
      Parts.push_back(It->second);
    std::sort(Parts.begin(), Parts.end());
    if (Parts.empty())
      Parts.push_back(0);
    std::vector<ModuleT> Found;
    for (size_t P : Parts)
      Found.push_back(Modules[P]);
    return Found;
  }
};

/// What the shared device needs to know of a vendor's API besides its table.
/// The status codes and flags default to CUDA's numbers, which HIP keeps.
struct GpuVendor {
  qd::Arch Arch;
  const char *Backend;               ///< "cuda": how errors opening it begin
  const char *Name;                  ///< "CUDA", as in "CUDA error 7"
  const char *NoDevice;              ///< what to say when there is no device
  int MultiprocessorCount;           ///< DeviceGetAttribute's attribute
  int Success = 0;                   ///< CUDA_SUCCESS, hipSuccess
  int NotReady = 600;                ///< CUDA_ERROR_NOT_READY, hipErrorNotReady
  unsigned StreamNonBlocking = 0x1;  ///< CU_STREAM_NON_BLOCKING
  unsigned EventDisableTiming = 0x2; ///< CU_EVENT_DISABLE_TIMING
};

/// Pinned host blocks for staged copies, reused once the stream that used
/// one has run past it (sizes rounded up to powers of two from 1 MiB).
class StagingPool {
public:
  struct Block {
    void *Host = nullptr;
    size_t Bytes = 0;
  };
  /// A staged copy's end, run by the driver when the stream reaches it:
  /// Bytes from From into Deliver (a copy to the host), then B back to
  /// Pool (when B.Host is not null).
  struct Done {
    StagingPool *Pool;
    Block B;
    void *Deliver;
    const void *From;
    size_t Bytes;
    TaskPool *Copier;
  };
  std::optional<Block> take(size_t Bytes) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto Best = Free.end();
    for (auto It = Free.begin(); It != Free.end(); ++It)
      if (It->Bytes >= Bytes && (Best == Free.end() || It->Bytes < Best->Bytes))
        Best = It;
    if (Best == Free.end())
      return std::nullopt;
    Block B = *Best;
    Free.erase(Best);
    return B;
  }
  void give(Block B) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Free.push_back(B);
  }
  void add(Block B) {
    std::lock_guard<std::mutex> Lock(Mutex);
    All.push_back(B);
  }
  std::vector<Block> all() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return All;
  }

private:
  std::mutex Mutex;
  std::vector<Block> Free, All;
};

/// Whether a driver table has the entries that update a graph's kernel
/// nodes in place (CUDA's does; graph kernels elsewhere launch plainly).
template <typename T, typename = void>
struct HasKernelNodes : std::false_type {};
template <typename T>
struct HasKernelNodes<T, std::void_t<typename T::KernelNode>> : std::true_type {
};

/// Whether a vendor's context records qd::graph::do_while loops as
/// device-side while nodes (CUDA's does; elsewhere the host loops).
template <typename T, typename = void>
struct HasGraphLoops : std::false_type {};
template <typename T>
struct HasGraphLoops<T, std::void_t<decltype(&T::hasGraphLoops)>>
    : std::true_type {};

/// Whether a vendor's context launches kernels that overlap the grid ahead
/// of them (CUDA's does, on GPUs of compute capability 9.0 and later).
template <typename T, typename = void>
struct HasGridOverlap : std::false_type {};
template <typename T>
struct HasGridOverlap<T, std::void_t<decltype(&T::launchOverlapping)>>
    : std::true_type {};

/// A vendor's driver (Traits), with its failures turned into qd::Error.
template <typename Traits> class GpuDriver : public Traits {
public:
  using Result = typename GpuTypes<Traits>::Result;

  /// "<What>: <error name> (<description>)", the text of a failed call.
  std::string message(Result R, const std::string &What) const {
    auto [Name, Text] = this->errorStrings(R);
    return What + ": " +
           (Name ? std::string(Name)
                 : std::string(Traits::Vendor.Name) + " error " +
                       std::to_string(R)) +
           " (" + (Text ? Text : "no description") + ")";
  }

  /// Throws qd::Error naming What (and "('Subject')" after it, when given)
  /// unless R is success.
  void check(Result R, const char *What, const char *Subject = nullptr) const {
    if (R == Traits::Vendor.Success)
      return;
    std::string Call = What;
    if (Subject)
      Call += std::string("('") + Subject + "')";
    throw qd::Error(message(R, Call));
  }

  /// Calls F and checks its result, naming F in the error.
  template <typename Fn, typename... As>
  void call(const DriverFn<Fn> &F, As &&...Args) const {
    check(F(std::forward<As>(Args)...), F.Name);
  }
};

/// What every GPU backend learns about its device when it opens it.
template <typename Traits> struct GpuInfo {
  int Ordinal = 0;
  typename GpuTypes<Traits>::DeviceId Id{};
  std::string Name;
  int Multiprocessors = 1;
  int Count = 1;     ///< devices of the backend on this machine
  size_t Memory = 0; ///< bytes of device memory
};

/// The default block size of a task that does not set its own.
constexpr unsigned DefaultBlock = 128;
/// At most this many blocks per multiprocessor: the most a multiprocessor
/// of these GPUs keeps resident at once; more would wait for a later wave.
constexpr uint64_t BlocksPerMultiprocessor = 32;
/// A tiled task's (QDRT_TASK_TILED) ceiling instead: its blocks run
/// contiguous spans of tiles, not a fine interleaving, so the blocks of the
/// last wave finish apart by up to a whole span; twice as many blocks halve
/// the spans. 2026-11-27, NVIDIA H100, the kernel suite (three rounds taking
/// turns, performance.md "Tiles"): GEMM 2.744 -> 2.612 ms, SYR2K 70.85 ->
/// 69.74, FDTD-2D 2.98 -> 2.94, Jacobi-2D 1.35 -> 1.33, the 2-D convolution
/// 0.31 -> 0.30, the 3-D one unchanged; 4x (128) helped GEMM, SYR2K and the
/// convolution in 2-D more but slowed Jacobi-2D and the 3-D convolution.
constexpr uint64_t TiledBlocksPerMultiprocessor = 64;
/// At most this many blocks in all: a grid every GPU accepts.
constexpr uint64_t MaxGridBlocks = 65535;

/// The grid of a launch of Iterations over blocks of Block threads.
///
/// One rule for CUDA and HIP alike: enough blocks for the iterations, but
/// no more than fill the device (BlocksPerMultiprocessor per multiprocessor)
/// and no more than MaxGridBlocks. Sizing from the device, not from a fixed
/// bound alone, is the careful choice: the generated tasks are grid-stride
/// loops, so blocks beyond what the device keeps resident would only queue
/// behind the first wave, and a small GPU is not handed tens of thousands of
/// blocks. The fixed bound stays as a ceiling, so a driver reporting an
/// absurd processor count still gets a launch every GPU accepts. The count
/// is rounded up without overflowing, and a launch of no iterations still
/// runs one block (whose loop does nothing).
inline unsigned gridBlocks(uint64_t Iterations, unsigned Block,
                           int Multiprocessors,
                           uint64_t PerMultiprocessor = BlocksPerMultiprocessor) {
  uint64_t Needed = Iterations / Block + (Iterations % Block != 0);
  uint64_t Filling = uint64_t(std::max(Multiprocessors, 1)) * PerMultiprocessor;
  return static_cast<unsigned>(
      std::clamp<uint64_t>(std::min(Needed, Filling), 1, MaxGridBlocks));
}

/// The device layer of a GPU, over the driver of Traits. Every call
/// first makes the device's context current on the calling thread.
template <typename Traits, typename ContextT>
class GpuDevice final : public Device {
  using Driver = GpuDriver<Traits>;
  using Info = GpuInfo<Traits>;
  using Types = GpuTypes<Traits>;
  using Result = typename Types::Result;
  using Place = typename Types::Place;
  using StreamT = typename Types::Stream;
  using EventT = typename Types::Event;
  using ModuleT = typename Types::Module;
  using FunctionT = typename Types::Function;
  using GraphT = typename Types::Graph;
  using GraphExecT = typename Types::GraphExec;
  using DevicePtr = typename Types::DevicePtr;
  static constexpr const GpuVendor &Vendor = Traits::Vendor;

public:
  /// Opens the driver and device Ordinal; throws qd::Error saying what is
  /// missing (the library, any device, that device).
  explicit GpuDevice(int Ordinal)
      : Gpu(open(Api, Ordinal)), Context(Api, Gpu) {}

  /// Waits for the device's work, then lets the context go.
  ~GpuDevice() override {
    try {
      makeCurrent();
    } catch (const qd::Error &) {
      // A destructor cannot report; synchronize what is current.
    }
    Api.Synchronize(); // staged copies' host functions have run too
    for (EventT E : Signals)
      Api.EventDestroy(E);
    for (auto &[S, D] : Deliverers)
      Api.StreamDestroy(D);
    Copier.reset();
    current().reset();
    for (const StagingPool::Block &B : Staged.all())
      Api.MemFreeHost(B.Host);
  }

  qd::Arch arch() const override { return Vendor.Arch; }
  std::string describe() const override { return Context.describe(); }
  Properties properties() const override {
    return {Gpu.Name, Context.capability(), Gpu.Count, Gpu.Memory};
  }
  void enablePeerAccess(Device &Peer) override {
    auto *Other = dynamic_cast<GpuDevice *>(&Peer);
    if (!Other)
      throw qd::Error("qd::enable_peer_access: the devices are of different "
                      "backends");
    makeCurrent();
    Context.enablePeer(Other->Context);
  }

  Handle createStream() override {
    makeCurrent();
    StreamT S = nullptr;
    Api.call(Api.StreamCreate, &S, Vendor.StreamNonBlocking);
    return S;
  }
  void destroyStream(Handle S) override {
    makeCurrent();
    Api.call(Api.StreamDestroy, stream(S));
  }
  void synchronizeStream(Handle S) override {
    makeCurrent();
    Api.call(Api.StreamSynchronize, stream(S));
  }

  Handle createEvent(bool Timing) override {
    makeCurrent();
    EventT E = nullptr;
    Api.call(Api.EventCreate, &E, Timing ? 0u : Vendor.EventDisableTiming);
    return E;
  }
  void destroyEvent(Handle E) override {
    makeCurrent();
    Api.call(Api.EventDestroy, event(E));
  }
  void recordEvent(Handle E, Handle S) override {
    makeCurrent();
    Api.call(Api.EventRecord, event(E), stream(S));
  }
  void streamWaitEvent(Handle S, Handle E) override {
    makeCurrent();
    Api.call(Api.StreamWaitEvent, stream(S), event(E), 0u);
  }
  void synchronizeEvent(Handle E) override {
    makeCurrent();
    Api.call(Api.EventSynchronize, event(E));
  }
  bool queryEvent(Handle E) override {
    makeCurrent();
    Result R = Api.EventQuery(event(E));
    if (R == Vendor.NotReady)
      return false;
    Api.check(R, Api.EventQuery.Name);
    return true;
  }
  float elapsedMs(Handle A, Handle B) override {
    makeCurrent();
    float Ms = 0;
    Api.call(Api.EventElapsedTime, &Ms, event(A), event(B));
    return Ms;
  }

  /// A LoadedImage, which unloadModule deletes.
  Handle loadModule(const qdrt_module_desc &M) override {
    makeCurrent();
    auto Loaded = std::make_unique<LoadedImage<ModuleT>>();
    Context.load(M, *Loaded);
    return Loaded.release();
  }
  /// Unloads every module of M; the first failure is reported.
  void unloadModule(Handle M) override {
    std::unique_ptr<LoadedImage<ModuleT>> Loaded(&loaded(M));
    makeCurrent();
    Result First = Vendor.Success;
    for (ModuleT Mod : Loaded->Modules)
      if (Result R = Api.ModuleUnload(Mod);
          R != Vendor.Success && First == Vendor.Success)
        First = R;
    Api.check(First, Api.ModuleUnload.Name);
  }
  Handle getFunction(Handle M, const qdrt_task_desc &T) override {
    return function(M, T.name);
  }
  Handle getLatencyFunction(Handle M, const qdrt_task_desc &T) override {
    return function(M, T.latency_name);
  }
  Handle getNarrowFunction(Handle M, const qdrt_task_desc &T) override {
    return function(M, T.narrow_name);
  }
  /// Half of what the multiprocessors hold at once (2,048 threads each on
  /// NVIDIA GPUs since Volta): below it, threads are too few to hide
  /// memory latency, and registers to spare.
  uint64_t getLatencyBound() const override {
    return uint64_t(std::max(Gpu.Multiprocessors, 1)) * 1024;
  }
  /// gridBlocks' ceiling for a tiled task.
  uint64_t getTiledGridBlocks() const override {
    return std::min(uint64_t(std::max(Gpu.Multiprocessors, 1)) *
                        TiledBlocksPerMultiprocessor,
                    MaxGridBlocks);
  }
  /// The field's device address (global).
  void *getGlobal(Handle M, const qdrt_field_desc &F) override {
    return global(loaded(M).find(F.name), F);
  }
  std::vector<void *> getGlobals(Handle M, const qdrt_field_desc &F) override {
    std::vector<void *> All;
    for (ModuleT Mod : loaded(M).findAll(F.name))
      All.push_back(global(Mod, F));
    return All;
  }

  bool waitsForGrids(Handle Fn) const override {
    if constexpr (HasGridOverlap<ContextT>::value)
      return Context.waitsForGrids(static_cast<FunctionT>(Fn));
    return false;
  }

  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t ArgSize, Handle S,
              const uint32_t *Given = nullptr, bool Overlap = false) override {
    makeCurrent();
    unsigned Block = T.block_dim ? T.block_dim : DefaultBlock;
    unsigned Grid[3] = {1, 1, 1};
    if (Given)
      std::copy(Given, Given + 3, Grid);
    else
      Grid[0] =
          gridBlocks(Iterations, Block, Gpu.Multiprocessors,
                     T.flags & QDRT_TASK_TILED ? TiledBlocksPerMultiprocessor
                                               : BlocksPerMultiprocessor);
    // The task's parameters: its argument struct, if any, then the count.
    void *Params[2] = {};
    unsigned N = 0;
    if (ArgSize)
      Params[N++] = const_cast<void *>(Args);
    Params[N++] = &Iterations;
    if constexpr (HasGridOverlap<ContextT>::value)
      if (Overlap) {
        Context.launchOverlapping(static_cast<FunctionT>(Fn), Grid, Block,
                                  stream(S), Params);
        return;
      }
    Api.call(Api.LaunchKernel, static_cast<FunctionT>(Fn), Grid[0], Grid[1],
             Grid[2], Block, 1u, 1u, 0u, stream(S), Params, nullptr);
  }

  void *allocate(size_t Bytes) override {
    makeCurrent();
    DevicePtr P{};
    Api.call(Api.MemAlloc, &P, std::max<size_t>(Bytes, 1));
    return address(P);
  }
  void deallocate(void *P) override {
    makeCurrent();
    Api.call(Api.MemFree, devicePtr(P));
  }
  void registerHost(void *P, size_t Bytes) override {
    makeCurrent();
    // CU_MEMHOSTREGISTER_PORTABLE, hipHostRegisterPortable: pinned for
    // every context.
    Api.call(Api.MemHostRegister, P, Bytes, 1u);
  }
  void unregisterHost(void *P) override {
    // Copies in flight from or to P finish first.
    waitIdle();
    Api.call(Api.MemHostUnregister, P);
  }
  void waitIdle() override {
    makeCurrent();
    Api.call(Api.Synchronize);
  }
  void *allocateAsync(size_t Bytes, Handle S) override {
    makeCurrent();
    DevicePtr P{};
    Api.call(Api.MemAllocAsync, &P, std::max<size_t>(Bytes, 1), stream(S));
    return address(P);
  }
  void deallocateAsync(void *P, Handle S) override {
    makeCurrent();
    Api.call(Api.MemFreeAsync, devicePtr(P), stream(S));
  }
  void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    makeCurrent();
    Api.call(Api.MemcpyHtoDAsync, devicePtr(Dst), Src, Bytes, stream(S));
  }
  void copyToDeviceAsync(void *Dst, const void *Src, size_t Bytes,
                         Handle S) override {
    if (isPinned(Src)) {
      copyToDevice(Dst, Src, Bytes, S);
      return;
    }
    // Into a pinned block, chunk by chunk (each by several threads), each
    // chunk's DMA starting while the next is copied in; the block goes back
    // to the pool when the stream has run the copies.
    StagingPool::Block B = stage(Bytes);
    for (size_t Done = 0; Done < Bytes; Done += StagedChunk) {
      size_t N = std::min(StagedChunk, Bytes - Done);
      char *Pinned = static_cast<char *>(B.Host) + Done;
      copier().copy(Pinned, static_cast<const char *>(Src) + Done, N,
                    CopyThreads);
      copyToDevice(static_cast<char *>(Dst) + Done, Pinned, N, S);
    }
    afterStream(
        S, new StagingPool::Done{&Staged, B, nullptr, nullptr, 0, nullptr});
  }
  void copyToHostAsync(void *Dst, const void *Src, size_t Bytes,
                       Handle S) override {
    if (isPinned(Dst)) {
      copyToHost(Dst, Src, Bytes, S);
      return;
    }
    StagingPool::Block B = stage(Bytes);
    if (Bytes <= StagedChunk) {
      // A DMA into a pinned block, then, when the stream gets there, a
      // host function that copies the block into Dst.
      copyToHost(B.Host, Src, Bytes, S);
      afterStream(
          S, new StagingPool::Done{&Staged, B, Dst, B.Host, Bytes, &copier()});
      return;
    }
    // DMAs into a pinned block on S, chunk by chunk; as each chunk lands,
    // a host function on S's delivery stream (which waits for it) copies it
    // into Dst with several threads while S brings in the next. S then
    // waits for the last one, and the block goes back to the pool.
    size_t Chunks = (Bytes + StagedChunk - 1) / StagedChunk;
    std::lock_guard<std::mutex> Lock(DeliverMutex);
    StreamT Deliverer = deliverStream(S);
    for (size_t I = 0; I < Chunks; ++I) {
      size_t Done = I * StagedChunk, N = std::min(StagedChunk, Bytes - Done);
      char *Pinned = static_cast<char *>(B.Host) + Done;
      copyToHost(Pinned, static_cast<const char *>(Src) + Done, N, S);
      signal(S, Deliverer);
      afterStream(Deliverer,
                  new StagingPool::Done{
                      &Staged, I + 1 == Chunks ? B : StagingPool::Block{},
                      static_cast<char *>(Dst) + Done, Pinned, N, &copier()});
    }
    signal(Deliverer, S);
  }
  bool hasGraphs() const override { return true; }
  void beginCapture(Handle S) override {
    makeCurrent();
    Context.prepareFill(); // a fill in the capture then only launches
    // Thread-local mode: other threads' unsafe calls do not break it.
    Api.call(Api.StreamBeginCapture, stream(S), 1);
  }
  Handle endCapture(Handle S) override {
    makeCurrent();
    GraphT G = nullptr;
    Api.call(Api.StreamEndCapture, stream(S), &G);
    GraphExecT E = nullptr;
    Result R = Api.GraphInstantiate(&E, G, 0ull);
    Api.GraphDestroy(G); // the executable graph keeps what it needs
    Api.check(R, Api.GraphInstantiate.Name);
    return E;
  }
  void launchGraph(Handle E, Handle S) override {
    makeCurrent();
    Api.call(Api.GraphLaunch, static_cast<GraphExecT>(E), stream(S));
  }
  void destroyGraph(Handle E) override {
    makeCurrent();
    Api.call(Api.GraphExecDestroy, static_cast<GraphExecT>(E));
  }
  bool canUpdateGraphs() const override {
    return HasKernelNodes<Traits>::value;
  }
  Handle endCaptureForUpdate(Handle S, Handle &Recorded,
                             std::vector<KernelNode> &Nodes) override {
    if constexpr (HasKernelNodes<Traits>::value) {
      makeCurrent();
      GraphT G = nullptr;
      Api.call(Api.StreamEndCapture, stream(S), &G);
      Recorded = G;
      size_t N = 0;
      Api.call(Api.GraphGetNodes, G, nullptr, &N);
      std::vector<typename Traits::KernelNode> All(N);
      Api.call(Api.GraphGetNodes, G, All.data(), &N);
      for (typename Traits::KernelNode Node : All) {
        int Type = -1;
        Api.call(Api.GraphNodeGetType, Node, &Type);
        if (Type != Traits::KernelNodeType)
          continue;
        typename Traits::KernelNodeParams P{};
        Api.call(Api.GraphKernelNodeGetParams, Node, &P);
        Nodes.push_back({P.func, Node, P.gridDimX, P.blockDimX});
      }
      GraphExecT E = nullptr;
      Api.call(Api.GraphInstantiate, &E, G, 0ull);
      return E;
    } else {
      return endCapture(S);
    }
  }
  void setKernelArgs(Handle E, const KernelNode &N, const void *Args,
                     uint64_t Iterations) override {
    if constexpr (HasKernelNodes<Traits>::value) {
      makeCurrent();
      // As launch passes them: the argument block, if any, then the count.
      void *Params[2] = {};
      unsigned K = 0;
      if (Args)
        Params[K++] = const_cast<void *>(Args);
      Params[K] = &Iterations;
      typename Traits::KernelNodeParams P{};
      P.func = static_cast<FunctionT>(N.Function);
      P.gridDimX = N.Grid;
      P.gridDimY = P.gridDimZ = 1;
      P.blockDimX = N.Block;
      P.blockDimY = P.blockDimZ = 1;
      P.kernelParams = Params;
      Api.call(Api.GraphExecKernelNodeSetParams, static_cast<GraphExecT>(E),
               static_cast<typename Traits::KernelNode>(N.Node), &P);
    }
  }
  void destroyRecordedGraph(Handle G) override {
    makeCurrent();
    Api.call(Api.GraphDestroy, static_cast<GraphT>(G));
  }
  bool hasGraphLoops() override {
    if constexpr (HasGraphLoops<ContextT>::value) {
      makeCurrent();
      return Context.hasGraphLoops();
    }
    return false;
  }
  Handle beginGraphLoop(Handle S, const void *Flag,
                        const void *AssertRecord) override {
    if constexpr (HasGraphLoops<ContextT>::value) {
      makeCurrent();
      return Context.beginGraphLoop(stream(S), Flag, AssertRecord);
    }
    return Device::beginGraphLoop(S, Flag, AssertRecord);
  }
  void endGraphLoop(Handle Body) override {
    if constexpr (HasGraphLoops<ContextT>::value) {
      makeCurrent();
      Context.endGraphLoop(stream(Body));
    }
  }
  void copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    makeCurrent();
    Api.call(Api.MemcpyDtoDAsync, devicePtr(Dst), devicePtr(Src), Bytes,
             stream(S));
  }
  void memset(void *Dst, uint32_t Word, unsigned WordBytes, size_t Count,
              Handle S) override {
    makeCurrent();
    if (WordBytes == 1)
      Api.call(Api.MemsetD8Async, devicePtr(Dst),
               static_cast<unsigned char>(Word), Count, stream(S));
    else if (WordBytes == 2)
      Api.call(Api.MemsetD16Async, devicePtr(Dst),
               static_cast<unsigned short>(Word), Count, stream(S));
    else
      Api.call(Api.MemsetD32Async, devicePtr(Dst), Word, Count, stream(S));
  }
  bool fillWords(void *Dst, const uint32_t *Pattern, unsigned Period,
                 size_t Count, Handle S) override {
    makeCurrent();
    return Context.fillWords(Dst, Pattern, Period, Count, Gpu.Multiprocessors,
                             stream(S));
  }
  std::string checkUsable(const void *P, size_t Bytes) override {
    makeCurrent();
    return Context.checkUsable(P, Bytes);
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes, Handle S) override {
    makeCurrent();
    Api.call(Api.MemcpyDtoHAsync, Dst, devicePtr(Src), Bytes, stream(S));
  }

private:
  /// Initializes the driver and finds device Ordinal.
  static Info open(const Driver &D, int Ordinal) {
    D.call(D.Init, 0u);
    int Count = 0;
    D.call(D.DeviceGetCount, &Count);
    std::string Backend = std::string(Vendor.Backend) + ": ";
    if (Count == 0)
      throw qd::Error(Backend + Vendor.NoDevice);
    if (Ordinal >= Count)
      throw qd::Error(Backend + "no device " + std::to_string(Ordinal) +
                      "; this machine has " + std::to_string(Count));
    Info I;
    I.Ordinal = Ordinal;
    I.Count = Count;
    D.call(D.DeviceGet, &I.Id, Ordinal);
    char Name[256] = {};
    D.call(D.DeviceGetName, Name, int(sizeof(Name) - 1), I.Id);
    I.Name = Name;
    D.call(D.DeviceGetAttribute, &I.Multiprocessors, Vendor.MultiprocessorCount,
           I.Id);
    D.call(D.DeviceTotalMem, &I.Memory, I.Id);
    return I;
  }

  StagingPool::Block stage(size_t Bytes) {
    if (std::optional<StagingPool::Block> B = Staged.take(Bytes))
      return *B;
    size_t Size = size_t(1) << 20;
    while (Size < Bytes)
      Size *= 2;
    makeCurrent();
    StagingPool::Block B{nullptr, Size};
    Api.call(Api.MemHostAlloc, &B.Host, Size, 0u);
    Staged.add(B);
    return B;
  }
  /// Runs D's end (deliver, then give the block back) when S gets there.
  void afterStream(Handle S, StagingPool::Done *D) {
    auto End = [](void *P) {
      auto *D = static_cast<StagingPool::Done *>(P);
      if (D->Deliver)
        D->Copier->copy(D->Deliver, D->From, D->Bytes, CopyThreads);
      if (D->B.Host)
        D->Pool->give(D->B);
      delete D;
    };
    typename GpuTypes<Traits>::Result R = Api.LaunchHostFunc(stream(S), End, D);
    if (R != Vendor.Success) {
      Api.StreamSynchronize(stream(S));
      End(D); // the copy is done: finish it here
      Api.check(R, Api.LaunchHostFunc.Name);
    }
  }
  bool isPinned(const void *P) { return Api.isPinnedHost(P); }

  /// Staged copies move StagedChunk bytes at a time, each chunk's host
  /// side copied by up to CopyThreads threads.
  static constexpr size_t StagedChunk = size_t(16) << 20;
  static constexpr unsigned CopyThreads = 8;
  /// The threads that copy staged chunks on the host, made on first use.
  TaskPool &copier() {
    std::call_once(CopierMade, [&] {
      Copier = std::make_unique<TaskPool>(
          std::max(CopyThreads, std::thread::hardware_concurrency()));
    });
    return *Copier;
  }
  /// The stream whose host functions deliver S's staged copies to the
  /// host (while S brings in the next chunk), made on first use: one per
  /// copying stream, so that a capture of S takes in only S's own. With
  /// DeliverMutex held.
  StreamT deliverStream(Handle S) {
    StreamT &D = Deliverers[S];
    if (!D) {
      makeCurrent();
      Api.call(Api.StreamCreate, &D, Vendor.StreamNonBlocking);
    }
    return D;
  }
  /// To waits for what From has been given so far, through one of a ring
  /// of events (reused: each record is waited for at once). With
  /// DeliverMutex held.
  void signal(Handle From, Handle To) {
    makeCurrent();
    if (Signals.size() < SignalRing) {
      EventT E = nullptr;
      Api.call(Api.EventCreate, &E, Vendor.EventDisableTiming);
      Signals.push_back(E);
    }
    EventT E = Signals[NextSignal++ % Signals.size()];
    Api.call(Api.EventRecord, E, stream(From));
    Api.call(Api.StreamWaitEvent, stream(To), E, 0u);
  }
  static constexpr size_t SignalRing = 16;

  /// What this thread last made current for this backend.
  static std::optional<Place> &current() {
    thread_local std::optional<Place> Current;
    return Current;
  }
  void makeCurrent() {
    Place P = Context.place();
    if (current() == P)
      return;
    Api.call(Api.SetCurrent, P);
    current() = P;
  }

  static StreamT stream(Handle S) { return static_cast<StreamT>(S); }
  static LoadedImage<ModuleT> &loaded(Handle M) {
    return *static_cast<LoadedImage<ModuleT> *>(M);
  }
  /// F in Mod, after checking that the device's global has the size the
  /// module's descriptor says.
  void *global(ModuleT Mod, const qdrt_field_desc &F) {
    makeCurrent();
    DevicePtr P{};
    size_t Bytes = 0;
    Api.check(Api.ModuleGetGlobal(&P, &Bytes, Mod, F.name),
              Api.ModuleGetGlobal.Name, F.name);
    if (Bytes != F.bytes)
      throw qd::Error(std::string("field '") + F.name + "' has " +
                      std::to_string(Bytes) + " bytes on the device, " +
                      std::to_string(F.bytes) + " in its module");
    return address(P);
  }
  /// Entry Name of module M.
  Handle function(Handle M, const char *Name) {
    makeCurrent();
    FunctionT F = nullptr;
    Api.check(Api.ModuleGetFunction(&F, loaded(M).find(Name), Name),
              Api.ModuleGetFunction.Name, Name);
    return F;
  }
  static EventT event(Handle E) { return static_cast<EventT>(E); }
  /// Device addresses travel through the Device interface as void *.
  static DevicePtr devicePtr(const void *P) {
    if constexpr (std::is_pointer_v<DevicePtr>)
      return const_cast<void *>(P);
    else
      return reinterpret_cast<DevicePtr>(P);
  }
  static void *address(DevicePtr P) {
    if constexpr (std::is_pointer_v<DevicePtr>)
      return P;
    else
      return reinterpret_cast<void *>(P);
  }

  Driver Api;
  Info Gpu;
  ContextT Context;
  StagingPool Staged;
  std::once_flag CopierMade;
  std::unique_ptr<TaskPool> Copier;
  std::mutex DeliverMutex;
  std::unordered_map<Handle, StreamT> Deliverers;
  std::vector<EventT> Signals;
  size_t NextSignal = 0;
};

} // namespace qd::rt::gpu

#endif // QDRT_GPU_GPUDEVICE_H
