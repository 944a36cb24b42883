//===- qd/detail/prelude_cpu.h - Generated code for the CPU -----*- C++ -*-===//
//
// Part of qdc. Starts the host translation unit qdc generates: the CPU code
// of every task, the launchers and the module descriptor. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CPU_H
#define QD_DETAIL_PRELUDE_CPU_H

#include <cstddef>
#include <cstdint>

// Math through Clang's builtins: libm calls, without parsing <cmath>.
#define QD_DEVICE_FN
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
/// On the CPU each chunk of a task's iterations has one accumulator, which
/// updates the kernel scalar atomically by itself.
template <typename Op, typename T> inline bool block_combine(T &) {
  return true;
}
/// Atomics on the CPU are valid on any memory.
inline bool is_thread_private(const void *) { return false; }
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CPU_H
