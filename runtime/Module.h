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

/// A registered module: its descriptor, checked once.
struct qdrt_module {
  explicit qdrt_module(const qdrt_module_desc *Desc) : Desc(Desc) {}
  const qdrt_module_desc *Desc;
};

namespace qd::rt {

/// The module as loaded on DC, loading it on first use. Each thread keeps
/// the modules it used last, by device and runtime generation (never
/// reused), so a launch finds its module without a lock, and an entry of a
/// runtime that is gone is never used (the caller holds DC's runtime, so it
/// is not gone).
inline LoadedModule &loaded(DeviceContext &DC, qdrt_module &M) {
  struct Entry {
    const qdrt_module *Module;
    const DeviceContext *Context;
    uint64_t Generation;
    LoadedModule *Loaded;
  };
  constexpr unsigned Ways = 8;
  thread_local Entry Cache[Ways] = {};
  Entry &E = Cache[(reinterpret_cast<uintptr_t>(&M) / sizeof(qdrt_module)) %
                   Ways];
  if (E.Module == &M && E.Context == &DC && E.Generation == DC.generation())
    return *E.Loaded;
  LoadedModule &LM = DC.load(M);
  E = {&M, &DC, DC.generation(), &LM};
  return LM;
}

/// Checks a descriptor's version and tables; throws qd::Error naming the
/// module and the problem.
void validateModule(const qdrt_module_desc &Desc);

/// Enqueues a kernel's tasks on LaunchStream: in order when it has no
/// groups; otherwise forked onto pooled worker streams and joined back,
/// without blocking the host. A kernel with scalars gets their device
/// memory for the call; Result, when not null, receives its return value
/// once LaunchStream has run it (the only case that waits).
void launchKernel(DeviceContext &DC, const qdrt_module_desc &Desc,
                  const LoadedModule &LM, uint32_t Kernel, const void *Args,
                  const uint64_t *Iterations, Handle LaunchStream,
                  void *Result = nullptr);

} // namespace qd::rt

#endif // QDRT_MODULE_H
