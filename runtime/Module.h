//===- Module.h - Registered modules and kernel launches --------*- C++ -*-===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_MODULE_H
#define QDRT_MODULE_H

#include "Runtime.h"

#include "qd/abi.h"

/// A registered module: its descriptor, checked once.
struct qdrt_module {
  const qdrt_module_desc *Desc = nullptr;
};

namespace qd::rt {

/// Checks a descriptor's version and tables; throws qd::Error naming the
/// module and the problem.
void validateModule(const qdrt_module_desc &Desc);

/// Enqueues a kernel's tasks on LaunchStream: in order when it has no
/// groups; otherwise forked onto pooled worker streams and joined back,
/// without blocking the host.
void launchKernel(Runtime &RT, const qdrt_module_desc &Desc,
                  const LoadedModule &LM, uint32_t Kernel, const void *Args,
                  const uint64_t *Iterations, Handle LaunchStream);

} // namespace qd::rt

#endif // QDRT_MODULE_H
