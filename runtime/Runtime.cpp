//===- Runtime.cpp - The running runtime: one device and its pool ---------===//
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

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace qd::rt;

Device::~Device() = default;

Runtime::Runtime(std::unique_ptr<Device> Dev, int Ordinal, uint64_t Generation)
    : D(std::move(Dev)), Pool(*D), Graphs(std::make_unique<GraphKernels>(*D)),
      Ordinal(Ordinal), Generation(Generation) {}

Runtime::~Runtime() {
  try {
    D->synchronizeStream(nullptr);
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
}

void *Runtime::allocate(size_t Bytes) {
  // No buffer is larger than pointer differences can span; backends round
  // sizes up, which must not wrap.
  if (Bytes > static_cast<size_t>(PTRDIFF_MAX))
    throw qd::Error("allocate: " + std::to_string(Bytes) +
                    " bytes is too large: more than " +
                    std::to_string(PTRDIFF_MAX));
  // Whole 32-bit words: an 8- or 16-bit atomic on a GPU is a
  // compare-and-swap of the enclosing word, which must lie inside.
  void *P = D->allocate((Bytes + 3) / 4 * 4);
  try {
    std::lock_guard<std::mutex> Lock(BuffersMutex);
    Buffers.insert(P);
  } catch (...) {
    D->deallocate(P);
    throw;
  }
  return P;
}

void Runtime::deallocate(void *P) {
  {
    std::lock_guard<std::mutex> Lock(BuffersMutex);
    if (!Buffers.erase(P))
      return;
  }
  D->deallocate(P);
}

LoadedModule &Runtime::load(qdrt_module &M) {
  std::lock_guard<std::mutex> Lock(ModulesMutex);
  auto Found = Modules.find(&M);
  if (Found != Modules.end())
    return *Found->second;
  const qdrt_module_desc &Desc = *M.Desc;
  auto LM = std::make_unique<LoadedModule>();
  LM->Native = D->loadModule(Desc);
  try {
    for (uint32_t T = 0; T < Desc.num_tasks; ++T)
      LM->Functions.push_back(D->getFunction(LM->Native, Desc.tasks[T]));
    for (uint32_t F = 0; F < Desc.num_fields; ++F)
      LM->Fields.push_back(D->getGlobal(LM->Native, Desc.fields[F]));
    if (Desc.assert_record)
      LM->AssertRecord = D->getGlobal(LM->Native, *Desc.assert_record);
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

void Runtime::checkAsserts(const char *What) {
  std::lock_guard<std::mutex> Lock(ModulesMutex);
  for (auto &[M, LM] : Modules) {
    if (!LM->AssertRecord)
      continue;
    // One word per module with assertions, after the work it waited for.
    uint32_t Failed = 0;
    D->copyToHost(&Failed, LM->AssertRecord, sizeof(Failed), nullptr);
    if (!Failed)
      continue;
    qdrt_assert_record R;
    D->copyToHost(&R, LM->AssertRecord, sizeof(R), nullptr);
    qdrt_assert_record Clear{};
    D->copyToDevice(LM->AssertRecord, &Clear, sizeof(Clear), nullptr);
    D->synchronizeStream(nullptr);
    R.function[sizeof(R.function) - 1] = 0;
    R.file[sizeof(R.file) - 1] = 0;
    R.text[sizeof(R.text) - 1] = 0;
    throw qd::Error(std::string(What) + ": " +
                    (R.kind == 1   ? "index check"
                     : R.kind == 2 ? "assert"
                     : R.kind == 3 ? "block sync check"
                                   : "QD_ASSERT") +
                    " failed in '" + R.function + "' at " + R.file + ":" +
                    std::to_string(R.line) + ": " + R.text);
  }
}

namespace {
std::mutex StartMutex;
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

void install(std::unique_ptr<Device> D, int Ordinal) {
  Owner.R = std::make_unique<Runtime>(std::move(D), Ordinal, ++LastGeneration);
  Current.store(Owner.R.get(), std::memory_order_release);
}
} // namespace

Device *qd::rt::deviceOf(uint64_t Generation) {
  Runtime *R = currentIfRunning();
  return R && R->generation() == Generation ? &R->device() : nullptr;
}

Runtime *qd::rt::currentIfRunning() {
  return Current.load(std::memory_order_acquire);
}

uint64_t qd::rt::currentGeneration() {
  Runtime *R = currentIfRunning();
  return R ? R->generation() : 0;
}

Runtime &qd::rt::current() {
  if (Runtime *R = currentIfRunning())
    return *R;
  start(qd::Arch::best, {});
  return *currentIfRunning();
}

void qd::rt::start(qd::Arch A, InitOptions Options) {
  if (!isArch(A))
    throw qd::Error("qd::init: " + std::to_string(static_cast<int>(A)) +
                    " is not a qd::Arch (best, cuda, amdgpu or cpu)");
  std::lock_guard<std::mutex> Lock(StartMutex);
  qd::Arch Wanted = A == qd::Arch::best ? archFromEnvironment() : A;
  if (Owner) {
    bool Same =
        (Wanted == qd::Arch::best || Wanted == Owner->device().arch()) &&
        Options.device == Owner->ordinal();
    if (Same)
      return;
    throw qd::Error(std::string("qd::init: the runtime already runs on ") +
                    qd::arch_name(Owner->device().arch()) + " device " +
                    std::to_string(Owner->ordinal()) +
                    "; call qd::reset() first");
  }
  if (Options.device < 0)
    throw qd::Error("qd::init: device ordinal " +
                    std::to_string(Options.device) + " is negative");
  install(createDevice(Wanted, Options.device), Options.device);
}

void qd::rt::startWithDevice(std::unique_ptr<Device> D) {
  std::lock_guard<std::mutex> Lock(StartMutex);
  if (Owner)
    throw qd::Error("qd::init: the runtime is already running; call "
                    "qd::reset() first");
  install(std::move(D), 0);
}

void qd::rt::shutdown() {
  std::lock_guard<std::mutex> Lock(StartMutex);
  Current.store(nullptr, std::memory_order_release);
  Owner.R.reset();
}
