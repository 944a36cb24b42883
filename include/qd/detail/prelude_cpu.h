//===- qd/detail/prelude_cpu.h - Generated code for the CPU -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Starts the host translation unit qdc generates: the CPU code
// of every task, the launchers and the module descriptor. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CPU_H
#define QD_DETAIL_PRELUDE_CPU_H

#include <csetjmp>
#include <cstddef>
#include <cstdint>

// Math through Clang's builtins: libm calls, without parsing <cmath>.
#define QD_DEVICE_FN
#define QD_GLOBAL_
#define QD_SHARED_ static
/// A failed QD_ASSERT ends the failing thread's chunk of the task.
#define QD_ASSERT_STOP_                                                        \
  throw ::qd::detail::assert_stop_ {}
#define QD_MATH_ATTR_(name)
#define QD_MATH_F32_(name) __builtin_##name##f
#define QD_MATH_F64_(name) __builtin_##name

namespace qd::detail {
template <typename T> inline T atomic_fadd(T *p, T v) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  T next = old + v;
  while (!__atomic_compare_exchange(p, &old, &next, /*weak=*/true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    next = old + v;
  return old;
}
/// Atomics on the CPU are valid on any memory.
inline bool is_thread_private(const void *) { return false; }
/// A GPU narrow entry's extent (narrow_ndarray_, kernel.h); the CPU has
/// no narrow entries.
inline int32_t narrow_extent_(int32_t v) { return v; }

// GPU-level operations (qd::simt): a block is one thread, a warp one lane,
// and the global thread index is the iteration's, which the task's loop
// keeps here.
inline thread_local uint64_t cpu_iteration_ = 0;
/// qd::random's state of this thread (kernel.h).
struct rng_slot_ {
  uint64_t key, iteration;
  uint32_t task, calls;
};
inline rng_slot_ &rng_slot_for_thread_() {
  static thread_local rng_slot_ slot;
  return slot;
}
inline uint64_t global_thread_idx_() { return cpu_iteration_; }
inline uint32_t block_thread_idx_() { return 0; }
/// A block is one thread: each chunk of a task's iterations has one
/// accumulator, which updates the kernel scalar atomically by itself.
inline uint32_t block_size_() { return 1; }
inline void block_barrier_() {}
inline bool block_any_(bool p) { return p; }
inline uint32_t lane_id_() { return 0; }
inline uint32_t warp_size_() { return 1; }
inline uint64_t ballot_(bool pred) { return pred ? 1 : 0; }
inline bool all_(uint32_t, bool pred) { return pred; }
inline bool any_(uint32_t, bool pred) { return pred; }
inline uint64_t active_mask_() { return 1; }
inline void warp_sync_(uint32_t) {}
inline void fence_block_() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fence_device_() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fence_system_() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline int32_t shfl_idx_(uint32_t, int32_t v, int32_t) { return v; }
inline int32_t shfl_up_(uint32_t, int32_t v, uint32_t) { return v; }
inline int32_t shfl_down_word_(uint32_t, int32_t v, uint32_t) { return v; }
inline int32_t shfl_xor_(uint32_t, int32_t v, uint32_t) { return v; }
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CPU_H
