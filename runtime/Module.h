//===- Module.h - Registered modules and kernel launches --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_MODULE_H
#define QDRT_MODULE_H

#include "Runtime.h"

#include "qd/abi.h"

#include <atomic>

/// A registered module: its descriptor, checked once, and the module as
/// loaded by the running runtime (so a launch finds it without a lock).
struct qdrt_module {
  explicit qdrt_module(const qdrt_module_desc *Desc) : Desc(Desc) {}
  const qdrt_module_desc *Desc;
  std::atomic<qd::rt::LoadedModule *> Loaded{nullptr};
  std::atomic<uint64_t> LoadedGeneration{0};
};

namespace qd::rt {

/// The module as loaded on RT, loading it on first use.
inline LoadedModule &loaded(Runtime &RT, qdrt_module &M) {
  LoadedModule *LM = M.Loaded.load(std::memory_order_acquire);
  if (LM &&
      M.LoadedGeneration.load(std::memory_order_acquire) == RT.generation())
    return *LM;
  LM = &RT.load(M);
  M.Loaded.store(LM, std::memory_order_release);
  M.LoadedGeneration.store(RT.generation(), std::memory_order_release);
  return *LM;
}

/// Checks a descriptor's version and tables; throws qd::Error naming the
/// module and the problem.
void validateModule(const qdrt_module_desc &Desc);

/// Enqueues a kernel's tasks on LaunchStream: in order when it has no
/// groups; otherwise forked onto pooled worker streams and joined back,
/// without blocking the host. A kernel with scalars gets their device
/// memory for the call; Result, when not null, receives its return value
/// once LaunchStream has run it (the only case that waits).
void launchKernel(Runtime &RT, const qdrt_module_desc &Desc,
                  const LoadedModule &LM, uint32_t Kernel, const void *Args,
                  const uint64_t *Iterations, Handle LaunchStream,
                  void *Result = nullptr);

} // namespace qd::rt

#endif // QDRT_MODULE_H
