//===- Module.cpp - The C ABI for generated code
//----------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every entry point catches qd::Error, keeps its message for
// qdrt_last_error() on the calling thread, and returns QDRT_ERROR: nothing
// unwinds through generated code, nothing aborts.
//
//===----------------------------------------------------------------------===//

#include "Module.h"

#include <deque>
#include <mutex>
#include <string>
#include <vector>

using namespace qd::rt;

namespace {
thread_local std::string LastError;

template <typename Fn> qdrt_status guarded(Fn &&F) {
  try {
    F();
    return QDRT_SUCCESS;
  } catch (const qd::Error &E) {
    LastError = E.what();
  } catch (const std::bad_alloc &) {
    LastError = "out of host memory";
  }
  return QDRT_ERROR;
}

/// Registered modules live as long as the process; registering the same
/// descriptor twice gives the same module.
std::mutex RegistryMutex;
std::deque<qdrt_module> Registry;

std::string moduleName(const qdrt_module_desc &D) {
  return std::string("module '") + (D.name ? D.name : "?") + "'";
}
} // namespace

void qd::rt::validateModule(const qdrt_module_desc &D) {
  if (D.abi_version != QDRT_ABI_VERSION)
    throw qd::Error(moduleName(D) + " was built for runtime ABI version " +
                    std::to_string(D.abi_version) + ", but libqdrt has ABI " +
                    std::to_string(QDRT_ABI_VERSION) +
                    "; rebuild it with the qdc that matches this libqdrt");
  auto Fail = [&](const std::string &Why) {
    throw qd::Error(moduleName(D) + " is malformed: " + Why);
  };
  if ((D.num_tasks && !D.tasks) || (D.num_kernels && !D.kernels) ||
      (D.num_fields && !D.fields) || (D.num_images && !D.images))
    Fail("a table is missing");
  for (uint32_t K = 0; K < D.num_kernels; ++K) {
    const qdrt_kernel_desc &KD = D.kernels[K];
    std::string Name =
        std::string("kernel '") + (KD.name ? KD.name : "?") + "'";
    if (uint64_t(KD.first_task) + KD.num_tasks > D.num_tasks)
      Fail(Name + " names tasks beyond the task table");
    if (KD.num_groups > D.max_groups)
      Fail(Name + " has more groups than the module's max_groups");
    // Groups in order; a kernel with groups may start and end with tasks
    // of group 0 (before the fork, after the join), none between.
    uint32_t Last = 0;
    bool Joined = false;
    for (uint32_t I = 0; I < KD.num_tasks; ++I) {
      uint32_t G = D.tasks[KD.first_task + I].group;
      if (G == 0 && Last != 0)
        Joined = true;
      else if (G > KD.num_groups || G < Last || (Joined && G != 0))
        Fail(Name + " has tasks out of group order");
      Last = G;
    }
    // Fills write into the scalar block, word by word.
    for (uint32_t I = 0; I < KD.num_tasks; ++I) {
      const qdrt_task_desc &T = D.tasks[KD.first_task + I];
      if (T.num_fills && (!T.fills || !KD.scalars_size))
        Fail(Name + " has scalar fills without a table or a scalar block");
      for (uint32_t F = 0; F < T.num_fills; ++F) {
        const qdrt_scalar_fill &SF = T.fills[F];
        if ((SF.bytes != 4 && SF.bytes != 8) || SF.offset % 4 != 0 ||
            uint64_t(SF.offset) + SF.bytes > KD.scalars_size)
          Fail(Name + " has a scalar fill outside its scalar block");
      }
    }
    if (KD.num_loops && (!KD.loops || KD.num_groups))
      Fail(Name + " has do_while loops without a table, or with groups");
    // Loops in preorder: each after the one before, within the loop it is
    // nested in, or after that loop's end.
    std::vector<uint32_t> Open; // the ends of the loops around this one
    uint32_t First = 0;
    for (uint32_t L = 0; L < KD.num_loops; ++L) {
      const qdrt_graph_loop &GL = KD.loops[L];
      uint64_t End = uint64_t(GL.first_task) + GL.num_tasks;
      while (!Open.empty() && Open.back() <= GL.first_task)
        Open.pop_back();
      if (GL.first_task < First || GL.num_tasks == 0 || End > KD.num_tasks ||
          (!Open.empty() && End > Open.back()))
        Fail(Name + " has do_while loops out of order or beyond its tasks");
      if (Open.size() >= QDRT_MAX_LOOP_DEPTH)
        Fail(Name + " has do_while loops nested more than " +
             std::to_string(QDRT_MAX_LOOP_DEPTH) + " deep");
      First = GL.first_task;
      Open.push_back(uint32_t(End));
      bool InArgs = GL.flag_field == QDRT_FLAG_IN_ARGS;
      if (InArgs ? uint64_t(GL.flag_offset) + sizeof(void *) > KD.arg_size
                 : GL.flag_field >= D.num_fields ||
                       D.fields[GL.flag_field].bytes < sizeof(int32_t))
        Fail(Name + " has a do_while flag outside its arguments or fields");
    }
  }
}

extern "C" {

qdrt_status qdrt_register_module(const qdrt_module_desc *Desc,
                                 qdrt_module **Out) {
  return guarded([&] {
    if (!Desc || !Out)
      throw qd::Error("qdrt_register_module: null argument");
    validateModule(*Desc);
    std::lock_guard<std::mutex> Lock(RegistryMutex);
    for (qdrt_module &M : Registry)
      if (M.Desc == Desc) {
        *Out = &M;
        return;
      }
    Registry.emplace_back(Desc);
    *Out = &Registry.back();
  });
}

static void launch(const char *What, qdrt_module *M, uint32_t Kernel,
                   const void *Args, const uint64_t *Iterations, int32_t Device,
                   void *Stream, void *Result) {
  if (!M || !M->Desc || Kernel >= M->Desc->num_kernels)
    throw qd::Error(std::string(What) + ": no such kernel");
  const qdrt_kernel_desc &K = M->Desc->kernels[Kernel];
  if ((K.arg_size && !Args) || (K.num_tasks && !Iterations) ||
      (Result && !K.result_size))
    throw qd::Error(std::string(What) + ": kernel '" + K.name +
                    "': missing arguments");
  if (K.scalars_size && (K.scalars_offset > K.arg_size ||
                         K.arg_size - K.scalars_offset < sizeof(void *) ||
                         K.result_offset > K.scalars_size ||
                         K.scalars_size - K.result_offset < K.result_size))
    throw qd::Error(std::string(What) + ": kernel '" + K.name +
                    "': its scalars do not fit its argument block");
  CallGuard Guard(CallGuard::Pins::consume);
  Runtime &RT = current();
  // Its arrays and stream were checked by earlier calls of this thread.
  CallGuard::checkPins(RT.generation(), What, K.name);
  DeviceContext &DC = RT.getDevice(Device, What);
  uint64_t Mark = DC.launchMark();
  launchKernel(DC, *M->Desc, loaded(DC, *M), Kernel, Args, Iterations, Stream,
               Result);
  // A kernel that returns a value waited for its stream: its own failure,
  // or one parked on that stream before, is raised now.
  if (Result)
    DC.checkAsserts(What, Stream, Mark);
}

qdrt_status qdrt_launch(qdrt_module *M, uint32_t Kernel, const void *Args,
                        const uint64_t *Iterations, int32_t Device,
                        void *Stream) {
  return guarded([&] {
    launch("qdrt_launch", M, Kernel, Args, Iterations, Device, Stream, nullptr);
  });
}

qdrt_status qdrt_launch_result(qdrt_module *M, uint32_t Kernel,
                               const void *Args, const uint64_t *Iterations,
                               int32_t Device, void *Stream, void *Result) {
  return guarded([&] {
    if (!Result)
      throw qd::Error("qdrt_launch_result: no place for the result");
    CaptureScope::checkNoWait("a kernel that returns a value");
    launch("qdrt_launch_result", M, Kernel, Args, Iterations, Device, Stream,
           Result);
  });
}

qdrt_status qdrt_field_address(qdrt_module *M, int32_t Device, uint32_t Field,
                               void **Address) {
  return guarded([&] {
    if (!M || !M->Desc || Field >= M->Desc->num_fields || !Address)
      throw qd::Error("qdrt_field_address: no such field");
    CallGuard Guard(CallGuard::Pins::keep);
    DeviceContext &DC = current().getDevice(Device, "qdrt_field_address");
    *Address = loaded(DC, *M).Fields[Field];
  });
}

qdrt_status qdrt_task_function(qdrt_module *M, int32_t Device, uint32_t Kernel,
                               uint32_t Task, void **Native) {
  return guarded([&] {
    if (!M || !M->Desc || Kernel >= M->Desc->num_kernels || !Native ||
        Task >= M->Desc->kernels[Kernel].num_tasks)
      throw qd::Error("qdrt_task_function: no such task");
    CallGuard Guard;
    DeviceContext &DC = current().getDevice(Device, "qdrt_task_function");
    *Native =
        loaded(DC, *M).Functions[M->Desc->kernels[Kernel].first_task + Task];
  });
}

const char *qdrt_last_error(void) { return LastError.c_str(); }

uint32_t qdrt_abi_version(void) { return QDRT_ABI_VERSION; }

} // extern "C"
