//===- qd/detail/prelude_gpu.h - What the GPU preludes share ----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The common start of the device translation units for NVIDIA
// and AMD GPUs, in Clang's CUDA and HIP dialects without the vendors'
// headers: the execution-space keywords, QD_DEVICE_FN, and the QD_MATH_*
// hooks of qd/detail/kernel.h over the vendor's math library. The including
// prelude first names that library's functions, QD_GPU_MATH_F32_(name) and
// QD_GPU_MATH_F64_(name), and defines QD_GPU_MATH_MISSING_ (the end of the
// error a call then gives) when qdc did not find it; after this file it
// defines qd::detail::first_index, index_stride and atomic_fadd and includes
// qd/detail/kernel.h. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_GPU_H
#define QD_DETAIL_PRELUDE_GPU_H

#include <stddef.h>
#include <stdint.h>

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

#define QD_DEVICE_FN __device__
#define QD_GLOBAL_ __device__
#define QD_SHARED_ __shared__
/// A failed QD_ASSERT's thread goes on; the loops stop at their next
/// iteration (no trap: the context stays usable).
#define QD_ASSERT_STOP_ (void)0

/// The first statement of every entry. On NVIDIA GPUs of compute
/// capability 9.0 and later, a launch may start before the kernel ahead of
/// it on its stream has ended (the runtime asks for that only for entries
/// compiled with this wait, qdrt_task_desc::flags QDRT_TASK_GRID_WAIT): the
/// wait holds every thread until that kernel has ended and its writes are
/// visible, so the entry sees memory as after a plain launch; what overlaps
/// is the launch itself. No griddepcontrol.launch_dependents: the kernel
/// after this one is scheduled as this one's blocks end (runtime.md says
/// why). Elsewhere nothing.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define QD_GRID_WAIT_() asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define QD_GRID_WAIT_() (void)0
#endif

// Clang's wrapper of <new> (reached from <algorithm> and most of the C++
// library) defines device operators new and delete on these. Device code
// may not allocate (qdc reports `new` at the user's line), so they are
// declared only.
extern "C" {
__device__ void *malloc(size_t) __attribute__((nothrow));
__device__ void free(void *) __attribute__((nothrow));
// Clang lowers a device printf to the GPU's own (vprintf on CUDA).
__device__ int printf(const char *, ...);
}

namespace qd::detail {
/// qd::random's state of one thread (kernel.h), in shared memory: a block
/// has at most 1024 threads, each with its own slot.
struct rng_slot_ {
  uint64_t key, iteration;
  uint32_t task, calls;
};
__device__ inline uint32_t block_thread_idx_();
/// One dimension of a tiled loop (`.block_dim = {32, 8}`): of n
/// iterations in tiles of b, the span [first, end) of this thread, at
/// place t of its tile, in block `block` of `blocks`. The dimension gets a
/// block per tile, at most `blocks` of them, each a contiguous span of
/// tiles; block and blocks then say what is left for the next dimension
/// (block != 0 at the end: a block the tiles leave idle).
struct tile_span_ {
  uint64_t first, end;
};
__device__ inline tile_span_ get_tile_span_(uint64_t n, uint32_t b, uint32_t t,
                                            uint32_t &block, uint32_t &blocks) {
  uint64_t tiles = n / b + (n % b != 0);
  uint32_t g = tiles == 0 ? 1u : tiles < blocks ? uint32_t(tiles) : blocks;
  uint32_t c = block % g;
  block /= g;
  blocks /= g;
  uint64_t per = tiles / g + (tiles % g != 0);
  uint64_t first = c * per * b + t, end = (c + 1) * per * b;
  return {first, end < n ? end : n};
}
__device__ inline rng_slot_ &rng_slot_for_thread_() {
  __shared__ rng_slot_ slots[1024];
  return slots[block_thread_idx_()];
}
} // namespace qd::detail

#include "qd/detail/math_list.h"
#ifndef QD_GPU_MATH_MISSING_
#define QD_GPU_MATH_DECLARE_1_(name)                                           \
  __device__ float QD_GPU_MATH_F32_(name)(float);                              \
  __device__ double QD_GPU_MATH_F64_(name)(double);
#define QD_GPU_MATH_DECLARE_2_(name)                                           \
  __device__ float QD_GPU_MATH_F32_(name)(float, float);                       \
  __device__ double QD_GPU_MATH_F64_(name)(double, double);
extern "C" {
QD_MATH_LIBRARY_1_(QD_GPU_MATH_DECLARE_1_)
QD_MATH_LIBRARY_2_(QD_GPU_MATH_DECLARE_2_)
QD_GPU_MATH_DECLARE_1_(rsqrt)
}
#undef QD_GPU_MATH_DECLARE_1_
#undef QD_GPU_MATH_DECLARE_2_
#define QD_MATH_HAS_RSQRT_ 1
#define QD_MATH_ATTR_(name)
#define QD_MATH_F32_(name) QD_GPU_MATH_F32_(name)
#define QD_MATH_F64_(name) QD_GPU_MATH_F64_(name)
#else
// Without the library, using such a function is an error at the user's call.
#define QD_MATH_ATTR_(name)                                                    \
  __attribute__((diagnose_if(true, "qd::" #name QD_GPU_MATH_MISSING_, "error")))
#define QD_MATH_F32_(name) __builtin_##name##f
#define QD_MATH_F64_(name) __builtin_##name
#endif

#endif // QD_DETAIL_PRELUDE_GPU_H
