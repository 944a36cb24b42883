//===- Runtime.cpp - The running runtime and its devices ------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Backend selection: qd::init(Arch::best) tries CUDA, then HIP,
// then the CPU; the QD_ARCH environment variable replaces that choice. An
// explicit arch that cannot start is an error saying why.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Module.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

using namespace qd::rt;

Device::~Device() = default;

namespace {
/// Calls in flight against qd::reset(): the calls share it, a reset that
/// destroys a runtime takes it alone. A waiting reset holds new calls back,
/// so a steady stream of calls cannot starve it.
class LifeLock {
public:
  void lockShared() {
    for (;;) {
      if (!(State.fetch_add(1, std::memory_order_acquire) & Writer))
        return;
      // A reset waits or runs: step back, and wait for its end.
      if (State.fetch_sub(1, std::memory_order_acq_rel) - 1 == Writer)
        wake();
      std::unique_lock<std::mutex> Lock(Mutex);
      Changed.wait(Lock, [&] {
        return !(State.load(std::memory_order_acquire) & Writer);
      });
    }
  }
  void unlockShared() {
    if (State.fetch_sub(1, std::memory_order_acq_rel) - 1 == Writer)
      wake();
  }
  void lock() {
    Writers.lock();
    State.fetch_or(Writer, std::memory_order_acq_rel);
    std::unique_lock<std::mutex> Lock(Mutex);
    Changed.wait(Lock,
                 [&] { return State.load(std::memory_order_acquire) == Writer; });
  }
  void unlock() {
    State.fetch_and(~Writer, std::memory_order_acq_rel);
    wake();
    Writers.unlock();
  }

private:
  void wake() {
    std::lock_guard<std::mutex> Lock(Mutex);
    Changed.notify_all();
  }
  static constexpr uint64_t Writer = uint64_t(1) << 63;
  std::atomic<uint64_t> State{0}; ///< calls in flight, and Writer
  std::mutex Mutex, Writers;
  std::condition_variable Changed;
};

/// Never destroyed: arrays and streams destroyed at exit, after libqdrt's
/// own globals, still take it.
LifeLock &lifeLock() {
  static LifeLock *L = new LifeLock;
  return *L;
}

/// This thread's runtime calls: how deep, and what its checks accepted for
/// the consuming call that follows. Every call reads it several times, so
/// it is one object in the static TLS block (a few bytes of what glibc
/// keeps for libraries loaded later, as a Python module loads libqdrt):
/// one %fs-relative access instead of a __tls_get_addr call per read.
struct ThreadCalls {
  unsigned Depth = 0;
  uint64_t Pinned = 0;
};
[[gnu::tls_model("initial-exec")]] thread_local ThreadCalls Calls;
constexpr uint64_t PinMismatch = UINT64_MAX;
} // namespace

CallGuard::CallGuard(Pins P) : Outermost(Calls.Depth == 0) {
  if (Outermost) {
    lifeLock().lockShared();
    if (P == Pins::clear)
      Calls.Pinned = 0;
  }
  ++Calls.Depth;
}

CallGuard::~CallGuard() {
  --Calls.Depth;
  if (Outermost)
    lifeLock().unlockShared();
}

bool CallGuard::active() { return Calls.Depth > 0; }

void CallGuard::pin(uint64_t Generation) {
  if (Calls.Depth != 1 || !Generation)
    return;
  Calls.Pinned =
      !Calls.Pinned || Calls.Pinned == Generation ? Generation : PinMismatch;
}

void CallGuard::checkPins(uint64_t Generation, const char *What,
                          const char *Kernel) {
  if (Calls.Depth != 1)
    return; // inside an outer call, which holds the runtime throughout
  uint64_t P = Calls.Pinned;
  Calls.Pinned = 0;
  if (P && P != Generation)
    throw qd::Error(std::string(What) +
                    (Kernel ? std::string(": kernel '") + Kernel + "'" : "") +
                    ": qd::reset() ran on another thread after the arrays or "
                    "the stream of this call were checked; their runtime is "
                    "gone");
}

void CallGuard::forgetPins() { Calls.Pinned = 0; }

DeviceContext::DeviceContext(std::unique_ptr<Device> Dev, int Ordinal,
                             uint64_t Generation)
    : D(std::move(Dev)), Pool(*D), Graphs(std::make_unique<GraphKernels>(*D)),
      Ordinal(Ordinal), Generation(Generation) {}

DeviceContext::~DeviceContext() {
  try {
    D->waitIdle();
  } catch (const qd::Error &) {
  }
  if (ZeroStream)
    try {
      D->synchronizeStream(ZeroStream);
      D->destroyStream(ZeroStream);
    } catch (const qd::Error &) {
    }
  Graphs.reset(); // before the modules whose functions they launch
  for (auto &[M, LM] : Modules)
    try {
      D->unloadModule(LM->Native);
    } catch (const qd::Error &) {
    }
  for (void *P : Buffers)
    try {
      D->deallocate(P);
    } catch (const qd::Error &) {
    }
  for (auto *List : {&IdleScalarBlocks, &RetiredScalarBlocks})
    for (void *P : *List)
      try {
        D->deallocate(P);
      } catch (const qd::Error &) {
      }
}

void *DeviceContext::takeScalarBlock() {
  {
    std::lock_guard<std::mutex> Lock(ScalarBlocksMutex);
    if (!IdleScalarBlocks.empty()) {
      void *P = IdleScalarBlocks.back();
      IdleScalarBlocks.pop_back();
      return P;
    }
  }
  return D->allocate(ScalarBlockBytes);
}

void DeviceContext::keepScalarBlock(void *Block) {
  std::lock_guard<std::mutex> Lock(ScalarBlocksMutex);
  IdleScalarBlocks.push_back(Block);
}

void DeviceContext::retireScalarBlock(void *Block) {
  std::lock_guard<std::mutex> Lock(ScalarBlocksMutex);
  RetiredScalarBlocks.push_back(Block);
}

Runtime::Runtime(std::unique_ptr<Device> First, int Ordinal, DeviceFactory Make,
                 uint64_t Generation)
    : Generation(Generation),
      Count(std::max(First->properties().Count, Ordinal + 1)), Default(Ordinal),
      Make(std::move(Make)), Owned(size_t(Count)),
      Opened(new std::atomic<DeviceContext *>[size_t(Count)]) {
  for (int I = 0; I < Count; ++I)
    Opened[size_t(I)].store(nullptr, std::memory_order_relaxed);
  Owned[size_t(Ordinal)] =
      std::make_unique<DeviceContext>(std::move(First), Ordinal, Generation);
  Opened[size_t(Ordinal)].store(Owned[size_t(Ordinal)].get(),
                                std::memory_order_release);
}

Runtime::~Runtime() {
  // Each waits for its device before it lets it go.
  for (size_t I = Owned.size(); I-- > 0;)
    Owned[I].reset();
}

namespace {
/// The calling thread's current device, for the runtime of Generation (in
/// the static TLS block, as Calls).
[[gnu::tls_model("initial-exec")]] thread_local struct {
  uint64_t Generation = 0;
  int Ordinal = 0;
} ThreadDevice;
} // namespace

DeviceContext &Runtime::currentDevice() {
  int Ordinal =
      ThreadDevice.Generation == Generation ? ThreadDevice.Ordinal : Default;
  // Opened by setCurrent (or at the start) before it was made current.
  return *Opened[size_t(Ordinal)].load(std::memory_order_acquire);
}

void Runtime::setCurrent(int Ordinal, const char *What) {
  getDevice(Ordinal, What);
  ThreadDevice = {Generation, Ordinal};
}

DeviceContext *Runtime::findDevice(int Ordinal) {
  if (Ordinal == QDRT_CURRENT_DEVICE)
    return &currentDevice();
  if (Ordinal < 0 || Ordinal >= Count)
    return nullptr;
  if (DeviceContext *DC =
          Opened[size_t(Ordinal)].load(std::memory_order_acquire))
    return DC;
  std::lock_guard<std::mutex> Lock(OpenMutex);
  if (!Owned[size_t(Ordinal)]) {
    if (!Make)
      return nullptr;
    Owned[size_t(Ordinal)] =
        std::make_unique<DeviceContext>(Make(Ordinal), Ordinal, Generation);
    Opened[size_t(Ordinal)].store(Owned[size_t(Ordinal)].get(),
                                  std::memory_order_release);
  }
  return Owned[size_t(Ordinal)].get();
}

DeviceContext &Runtime::getDevice(int Ordinal, const char *What) {
  if (DeviceContext *DC = findDevice(Ordinal))
    return *DC;
  qd::Arch A = currentDevice().device().arch();
  throw qd::Error(
      std::string(What) + ": no device " + std::to_string(Ordinal) + ": the " +
      qd::arch_name(A) + " backend has " + std::to_string(Count) +
      (Count == 1
           ? " device (ordinal 0)"
           : " devices (ordinals 0 to " + std::to_string(Count - 1) + ")"));
}

void *DeviceContext::allocate(size_t Bytes) {
  // No buffer is larger than pointer differences can span; backends round
  // sizes up, which must not wrap.
  if (Bytes > static_cast<size_t>(PTRDIFF_MAX))
    throw qd::Error("allocate: " + std::to_string(Bytes) +
                    " bytes is too large: more than " +
                    std::to_string(PTRDIFF_MAX));
  // Whole 32-bit words: an 8- or 16-bit atomic on a GPU is a
  // compare-and-swap of the enclosing word, which must lie inside.
  size_t Words = (Bytes + 3) / 4;
  void *P = D->allocate(Words * 4);
  try {
    // A new array holds zeros, never an earlier one's bytes. The memset
    // runs on a stream of the runtime's own, waited for here: the array may
    // be used at once on any stream (non-blocking streams do not wait for
    // the default one).
    if (Words) {
      Handle Stream = nullptr;
      {
        std::lock_guard<std::mutex> Lock(BuffersMutex);
        if (!ZeroStream)
          ZeroStream = D->createStream();
        Stream = ZeroStream;
      }
      D->memset(P, 0, 4, Words, Stream);
      D->synchronizeStream(Stream);
    }
    std::lock_guard<std::mutex> Lock(BuffersMutex);
    Buffers.insert(P);
  } catch (...) {
    D->deallocate(P);
    throw;
  }
  return P;
}

bool DeviceContext::deallocate(void *P) {
  {
    std::lock_guard<std::mutex> Lock(BuffersMutex);
    if (!Buffers.erase(P))
      return false;
  }
  D->deallocate(P);
  return true;
}

void Runtime::enablePeerAccess(int A, int B, const char *What) {
  DeviceContext &DA = getDevice(A, What), &DB = getDevice(B, What);
  if (A == B)
    return;
  DA.device().enablePeerAccess(DB.device());
  DB.device().enablePeerAccess(DA.device());
  std::lock_guard<std::mutex> Lock(OpenMutex);
  for (std::pair<int, int> P : {std::pair<int, int>{A, B}, {B, A}})
    if (std::find(Peers.begin(), Peers.end(), P) == Peers.end())
      Peers.push_back(P);
}

bool Runtime::canAccess(int From, int To) {
  if (From == To)
    return true;
  std::lock_guard<std::mutex> Lock(OpenMutex);
  return std::find(Peers.begin(), Peers.end(), std::pair<int, int>{From, To}) !=
         Peers.end();
}

void Runtime::deallocate(void *P) {
  for (int I = 0; I < Count; ++I)
    if (DeviceContext *DC = Opened[size_t(I)].load(std::memory_order_acquire))
      if (DC->deallocate(P))
        return;
}

void Runtime::unregisterHost(void *P, int Ordinal) {
  // The registration is portable: any open device may still copy from or
  // to P. Those wait first; the registering device waits and unregisters.
  for (int I = 0; I < Count; ++I)
    if (I != Ordinal)
      if (DeviceContext *DC = Opened[size_t(I)].load(std::memory_order_acquire))
        DC->device().waitIdle();
  if (DeviceContext *DC = findDevice(Ordinal))
    DC->device().unregisterHost(P);
}

/// Whether the environment variable Name is unset or anything but "0".
/// QD_NARROW=0 runs every tiled task's own entry, never its narrow one;
/// QD_GRID_OVERLAP=0 launches every task plainly, never overlapping the
/// kernel ahead (runtime.md): checks, or comparisons of the two.
static bool allowedBy(const char *Name) {
  const char *Env = std::getenv(Name);
  return !Env || std::strcmp(Env, "0") != 0;
}

LoadedModule &DeviceContext::load(qdrt_module &M) {
  std::lock_guard<std::mutex> Lock(ModulesMutex);
  auto Found = Modules.find(&M);
  if (Found != Modules.end())
    return *Found->second;
  const qdrt_module_desc &Desc = *M.Desc;
  auto LM = std::make_unique<LoadedModule>();
  LM->Native = D->loadModule(Desc);
  try {
    const bool Narrow = allowedBy("QD_NARROW");
    const bool Overlap = allowedBy("QD_GRID_OVERLAP");
    for (uint32_t T = 0; T < Desc.num_tasks; ++T) {
      LM->Functions.push_back(D->getFunction(LM->Native, Desc.tasks[T]));
      LM->LatencyFunctions.push_back(
          Desc.tasks[T].latency_name
              ? D->getLatencyFunction(LM->Native, Desc.tasks[T])
              : nullptr);
      LM->NarrowFunctions.push_back(
          Desc.tasks[T].narrow_name && Desc.tasks[T].narrow_grid && Narrow
              ? D->getNarrowFunction(LM->Native, Desc.tasks[T])
              : nullptr);
      // The code the device chose for a module is of one architecture: all
      // of a task's entries wait for grids, or none.
      LM->Overlaps.push_back(Overlap &&
                             (Desc.tasks[T].flags & QDRT_TASK_GRID_WAIT) &&
                             D->waitsForGrids(LM->Functions.back()));
    }
    for (uint32_t F = 0; F < Desc.num_fields; ++F)
      LM->Fields.push_back(D->getGlobal(LM->Native, Desc.fields[F]));
    if (Desc.assert_record) {
      LM->AssertRecords = D->getGlobals(LM->Native, *Desc.assert_record);
      LM->AssertRecord = LM->AssertRecords.front();
    }
    Pool.reserve(Desc.max_groups);
  } catch (...) {
    try {
      D->unloadModule(LM->Native);
    } catch (const qd::Error &) {
    }
    throw;
  }
  // Only a module that loaded completely is remembered.
  return *Modules.emplace(&M, std::move(LM)).first->second;
}

/// Whether Id names task Task of a module: its entry, or for a fused task
/// `<k>_t<a>_to_<b>` one of its parts `<k>_t<n>`, a <= n <= b.
static bool isTaskName(std::string_view Id, const char *Task) {
  std::string_view T(Task);
  if (Id == T)
    return true;
  size_t To = T.rfind("_to_");
  size_t Tee = T.rfind("_t", To);
  if (To == std::string_view::npos || Tee == std::string_view::npos ||
      Id.substr(0, Tee + 2) != T.substr(0, Tee + 2))
    return false;
  auto Number = [](std::string_view S, unsigned long &N) {
    if (S.empty() || S.size() > 9 ||
        S.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    N = std::stoul(std::string(S));
    return true;
  };
  unsigned long A, B, N;
  return Number(T.substr(Tee + 2, To - Tee - 2), A) &&
         Number(T.substr(To + 4), B) && Number(Id.substr(Tee + 2), N) &&
         A <= N && N <= B;
}

void qd::rt::nameKernel(qdrt_assert_record &R, const qdrt_module_desc &Desc) {
  R.function[sizeof(R.function) - 1] = 0;
  // `void k_t0(const void *, uint64_t, uint64_t)` (assert's
  // __PRETTY_FUNCTION__) or `k_t0` (__func__): the identifier.
  std::string_view F(R.function);
  F = F.substr(0, F.find('('));
  if (size_t Space = F.rfind(' '); Space != std::string_view::npos)
    F = F.substr(Space + 1);
  for (uint32_t K = 0; K < Desc.num_kernels; ++K) {
    const qdrt_kernel_desc &KD = Desc.kernels[K];
    for (uint32_t T = KD.first_task; T < KD.first_task + KD.num_tasks; ++T)
      if (isTaskName(F, Desc.tasks[T].name) ||
          // A check failed in the task's latency version or narrow entry.
          (Desc.tasks[T].latency_name && F == Desc.tasks[T].latency_name) ||
          (Desc.tasks[T].narrow_name && F == Desc.tasks[T].narrow_name)) {
        std::snprintf(R.function, sizeof(R.function), "%s", KD.name);
        return;
      }
  }
}

std::string qd::rt::describeAssert(const char *What,
                                   const qdrt_assert_record &Record) {
  qdrt_assert_record R = Record;
  R.function[sizeof(R.function) - 1] = 0;
  R.file[sizeof(R.file) - 1] = 0;
  R.text[sizeof(R.text) - 1] = 0;
  return std::string(What) + ": " +
         (R.kind == 1   ? "index check"
          : R.kind == 2 ? "assert"
          : R.kind == 3 ? "block sync check"
                        : "QD_ASSERT") +
         " failed in '" + R.function + "' at " + R.file + ":" +
         std::to_string(R.line) + ": " + R.text;
}

uint64_t DeviceContext::launchMark() {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  return LaunchSeq;
}

void DeviceContext::noteLaunch(const LoadedModule &LM, Handle Stream) {
  if (!LM.AssertRecord)
    return;
  std::lock_guard<std::mutex> Lock(AssertMutex);
  auto Captured = Capturing.find(Stream);
  if (Captured != Capturing.end()) {
    // Recorded, not run: it runs where the graph is launched.
    std::vector<const LoadedModule *> &Mods = Captured->second;
    if (std::find(Mods.begin(), Mods.end(), &LM) == Mods.end())
      Mods.push_back(&LM);
    return;
  }
  Launchers[&LM][Stream] = ++LaunchSeq;
}

void DeviceContext::park(Handle Stream, const qdrt_assert_record &Record) {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  Pending.emplace(Stream, Record); // the first failure stays
}

void DeviceContext::checkAsserts(const char *What, Handle Stream, uint64_t Mark,
                                 bool Forget) {
  std::vector<std::pair<const qdrt_module *, const LoadedModule *>> Records;
  if (!D->hasLaunchRecords()) {
    // (The CPU's launches park their own failures.)
    std::lock_guard<std::mutex> Lock(ModulesMutex);
    for (auto &[M, LM] : Modules)
      if (LM->AssertRecord)
        Records.push_back({M, LM.get()});
  }
  std::unique_lock<std::mutex> Lock(AssertMutex);
  for (const auto &[Module, LM] : Records) {
    // One word per record (a module's, or each of its parts'), after the
    // work it waited for; the first that failed is reported.
    void *FailedRecord = nullptr;
    for (void *Record : LM->AssertRecords) {
      uint32_t Failed = 0;
      D->copyToHost(&Failed, Record, sizeof(Failed), nullptr);
      if (Failed && !FailedRecord)
        FailedRecord = Record;
    }
    std::unordered_map<Handle, uint64_t> &Streams = Launchers[LM];
    if (!FailedRecord) {
      // Stream's launches before the synchronization did not fail.
      auto It = Streams.find(Stream);
      if (It != Streams.end() && It->second <= Mark)
        Streams.erase(It);
      continue;
    }
    qdrt_assert_record R;
    D->copyToHost(&R, FailedRecord, sizeof(R), nullptr);
    qdrt_assert_record Clear{};
    for (void *Record : LM->AssertRecords)
      D->copyToDevice(Record, &Clear, sizeof(Clear), nullptr);
    D->synchronizeStream(nullptr);
    nameKernel(R, *Module->Desc);
    // The record does not say which launch failed: every stream that
    // launched the module since its last check gets the error (once).
    if (Streams.empty())
      Pending.emplace(Stream, R);
    for (auto &[S, Seq] : Streams)
      Pending.emplace(S, R);
    Streams.clear();
  }
  auto P = Pending.find(Stream);
  if (Forget)
    for (auto &[LM, Streams] : Launchers)
      Streams.erase(Stream);
  if (P == Pending.end())
    return;
  qdrt_assert_record R = P->second;
  Pending.erase(P);
  Lock.unlock();
  throw qd::Error(describeAssert(What, R));
}

void DeviceContext::captureBegin(Handle Stream) {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  Capturing[Stream].clear();
}

void DeviceContext::captureEnd(Handle Stream, Handle Graph) {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  auto It = Capturing.find(Stream);
  if (It == Capturing.end())
    return;
  if (Graph && !It->second.empty())
    GraphModules[Graph] = std::move(It->second);
  Capturing.erase(It);
}

void DeviceContext::noteGraphLaunch(Handle Graph, Handle Stream) {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  auto It = GraphModules.find(Graph);
  if (It == GraphModules.end())
    return;
  for (const LoadedModule *LM : It->second)
    Launchers[LM][Stream] = ++LaunchSeq;
}

void DeviceContext::forgetGraph(Handle Graph) {
  std::lock_guard<std::mutex> Lock(AssertMutex);
  GraphModules.erase(Graph);
}

Handle DeviceContext::keepReplay(std::function<void()> Fn) {
  auto Kept = std::make_unique<std::function<void()>>(std::move(Fn));
  Handle H = Kept.get();
  std::lock_guard<std::mutex> Lock(ReplaysMutex);
  Replays.emplace(H, std::move(Kept));
  return H;
}

const std::function<void()> *DeviceContext::findReplay(Handle Graph) {
  std::lock_guard<std::mutex> Lock(ReplaysMutex);
  auto It = Replays.find(Graph);
  return It == Replays.end() ? nullptr : It->second.get();
}

bool DeviceContext::dropReplay(Handle Graph) {
  std::lock_guard<std::mutex> Lock(ReplaysMutex);
  return Replays.erase(Graph) != 0;
}

namespace {
std::mutex StartMutex;
/// The newest generation whose runtime a reset has destroyed.
std::mutex RetiredMutex;
std::condition_variable RetiredChanged;
uint64_t Retired = 0;
std::atomic<Runtime *> Current{nullptr};
uint64_t LastGeneration = 0;

/// The running runtime. At exit, Current is cleared before the runtime is
/// destroyed, so that arrays and streams destroyed after it (globals
/// constructed before libqdrt's) see no runtime instead of a freed one.
struct RuntimeOwner {
  std::unique_ptr<Runtime> R;
  ~RuntimeOwner() { Current.store(nullptr, std::memory_order_release); }
  explicit operator bool() const { return R != nullptr; }
  Runtime *operator->() const { return R.get(); }
} Owner;

bool isArch(qd::Arch A) {
  switch (A) {
  case qd::Arch::best:
  case qd::Arch::cuda:
  case qd::Arch::amdgpu:
  case qd::Arch::cpu:
    return true;
  }
  return false;
}

qd::Arch archFromEnvironment() {
  const char *Env = std::getenv("QD_ARCH");
  if (!Env || !*Env)
    return qd::Arch::best;
  if (!std::strcmp(Env, "cuda"))
    return qd::Arch::cuda;
  if (!std::strcmp(Env, "amdgpu"))
    return qd::Arch::amdgpu;
  if (!std::strcmp(Env, "cpu"))
    return qd::Arch::cpu;
  throw qd::Error(std::string("qd::init: QD_ARCH='") + Env +
                  "' is not one of cuda, amdgpu, cpu");
}

std::unique_ptr<Device> createDevice(qd::Arch A, int Ordinal) {
  switch (A) {
  case qd::Arch::cuda:
    return createCudaDevice(Ordinal);
  case qd::Arch::amdgpu:
    return createHipDevice(Ordinal);
  case qd::Arch::cpu:
    return createCpuDevice();
  case qd::Arch::best:
    break;
  }
  if (!isArch(A))
    throw qd::Error("qd::init: " + std::to_string(static_cast<int>(A)) +
                    " is not a qd::Arch (best, cuda, amdgpu or cpu)");
  for (auto Try : {qd::Arch::cuda, qd::Arch::amdgpu})
    try {
      return createDevice(Try, Ordinal);
    } catch (const qd::Error &) {
      // Not available here; try the next backend.
    }
  return createCpuDevice();
}

void install(std::unique_ptr<Device> D, int Ordinal, DeviceFactory Make) {
  Owner.R = std::make_unique<Runtime>(std::move(D), Ordinal, std::move(Make),
                                      ++LastGeneration);
  Current.store(Owner.R.get(), std::memory_order_release);
}
} // namespace

Runtime *qd::rt::runtimeOf(uint64_t Generation) {
  Runtime *R = currentIfRunning();
  return R && R->generation() == Generation ? R : nullptr;
}

DeviceContext *qd::rt::contextOf(uint64_t Generation, int Ordinal) {
  Runtime *R = runtimeOf(Generation);
  return R ? R->findDevice(Ordinal) : nullptr;
}

DeviceContext &qd::rt::currentDevice() { return current().currentDevice(); }

Runtime *qd::rt::currentIfRunning() {
  return Current.load(std::memory_order_acquire);
}

uint64_t qd::rt::currentGeneration() {
  Runtime *R = currentIfRunning();
  return R ? R->generation() : 0;
}

/// Starts a runtime on A unless the same one runs; returns the running
/// one (which a caller holding a CallGuard may use: a reset that takes it
/// away waits for the caller).
static Runtime *startAndGet(qd::Arch A, qd::InitOptions Options);

Runtime &qd::rt::current() {
  if (Runtime *R = currentIfRunning())
    return *R;
  // Not currentIfRunning() again: a reset on another thread may have taken
  // what this call started away already.
  return *startAndGet(qd::Arch::best, {});
}

void qd::rt::start(qd::Arch A, InitOptions Options) {
  startAndGet(A, Options);
}

static Runtime *startAndGet(qd::Arch A, qd::InitOptions Options) {
  if (!isArch(A))
    throw qd::Error("qd::init: " + std::to_string(static_cast<int>(A)) +
                    " is not a qd::Arch (best, cuda, amdgpu or cpu)");
  std::lock_guard<std::mutex> Lock(StartMutex);
  qd::Arch Wanted = A == qd::Arch::best ? archFromEnvironment() : A;
  if (Owner) {
    DeviceContext &Running = Owner->currentDevice();
    bool Same =
        (Wanted == qd::Arch::best || Wanted == Running.device().arch()) &&
        Options.device == Owner->defaultOrdinal();
    if (Same)
      return Owner.R.get();
    throw qd::Error(std::string("qd::init: the runtime already runs on ") +
                    qd::arch_name(Running.device().arch()) + " device " +
                    std::to_string(Running.ordinal()) +
                    "; call qd::reset() first");
  }
  if (Options.device < 0)
    throw qd::Error("qd::init: device ordinal " +
                    std::to_string(Options.device) + " is negative");
  std::unique_ptr<Device> First = createDevice(Wanted, Options.device);
  qd::Arch Backend = First->arch();
  install(std::move(First), Options.device,
          [Backend](int Ordinal) { return createDevice(Backend, Ordinal); });
  return Owner.R.get();
}

void qd::rt::startWithDevice(std::unique_ptr<Device> D) {
  std::lock_guard<std::mutex> Lock(StartMutex);
  if (Owner)
    throw qd::Error("qd::init: the runtime is already running; call "
                    "qd::reset() first");
  install(std::move(D), 0, nullptr);
}

void qd::rt::startWithDevices(DeviceFactory Make, int Ordinal) {
  std::lock_guard<std::mutex> Lock(StartMutex);
  if (Owner)
    throw qd::Error("qd::init: the runtime is already running; call "
                    "qd::reset() first");
  install(Make(Ordinal), Ordinal, Make);
}

void qd::rt::shutdown() {
  if (CallGuard::active())
    throw qd::Error("qd::reset: called from inside a runtime call on the "
                    "same thread (a function given to qd::capture, or a "
                    "graph's replay), which uses the runtime");
  std::unique_ptr<Runtime> Old;
  {
    // New calls see no runtime from here on (or a new one, once started).
    std::lock_guard<std::mutex> Lock(StartMutex);
    Current.store(nullptr, std::memory_order_release);
    Old = std::move(Owner.R);
  }
  if (!Old)
    return;
  // The calls in flight still use it: wait for them, then destroy it.
  uint64_t Generation = Old->generation();
  LifeLock &Life = lifeLock();
  Life.lock();
  Old.reset();
  Life.unlock();
  std::lock_guard<std::mutex> Lock(RetiredMutex);
  Retired = std::max(Retired, Generation);
  RetiredChanged.notify_all();
}

void qd::rt::waitUntilRetired(uint64_t Generation) {
  // Inside a runtime call (a function given to qd::capture) a reset waits
  // for this thread: it cannot wait for the reset.
  if (CallGuard::active())
    return;
  std::unique_lock<std::mutex> Lock(RetiredMutex);
  RetiredChanged.wait(Lock, [&] { return Retired >= Generation; });
}
