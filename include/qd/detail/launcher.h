//===- qd/detail/launcher.h - Helpers for generated launchers ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Used by the host translation unit qdc generates, after the
// CPU prelude and <qd/runtime.h>. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_LAUNCHER_H
#define QD_DETAIL_LAUNCHER_H

#include "qd/detail/narrow.h"
#include "qd/detail/prelude_cpu.h"
#include "qd/memory.h"

namespace qd::detail {

/// The kernel-side view of a host array (an Ndarray, a view, a field). An
/// array made before qd::reset(), or a view whose owner is gone, is a
/// qd::Error: its memory was freed.
/// `what` names the argument in errors ("kernel 'k', argument 'x'"; the
/// generated launchers pass it).
template <typename T, int Dims>
inline qd::ndarray<T, Dims> to_kernel(const qd::NdarrayView<T, Dims> &a,
                                      const char *what = nullptr) {
  if (what)
    a.check(nullptr, what);
  else
    a.check("to_kernel", "qd::detail");
  qd::ndarray<T, Dims> out{};
  out.ptr = a.data();
  for (int d = 0; d < Dims; ++d)
    out.extent[d] = a.shape()[static_cast<size_t>(d)];
  return out;
}
template <typename T, int Dims>
inline qd::ndarray<T, Dims> to_kernel(const qd::Ndarray<T, Dims> &a,
                                      const char *what = nullptr) {
  return to_kernel(a.view(), what);
}

/// Throws qd::Error "kernel '<kernel>': argument '<param>' is an empty
/// qd::Ndarray (default-constructed, moved-from or of size 0), but the
/// kernel has iterations to run" when `data` (an Ndarray argument's
/// to_kernel(...).ptr) is null and one of the kernel's `num_tasks` tasks
/// has `iterations[i] > 0`; otherwise does nothing. Launchers call it once
/// per Ndarray parameter, after computing the iteration counts.
void check_launch_array(const void *data, const char *kernel, const char *param,
                        const uint64_t *iterations, size_t num_tasks);

/// The ordinal of the device a call with `launch` runs on.
int launch_device(const qd::Launch &launch);
/// An array on device `array` passed to a call on device `call`: allowed
/// when the call's device has peer access to the array's
/// (qd::enable_peer_access), else a qd::Error "kernel '<kernel>': argument
/// '<param>' is on device <array>, but the call runs on device <call>"
/// (forgetting the pins of the call's checks).
void check_peer_device(int array, int call, const char *kernel,
                       const char *param);
/// Launchers call it once per ndarray parameter: an array of a known device
/// must be on the call's, or reachable from it.
inline void check_array_device(int array, int call, const char *kernel,
                               const char *param) {
  if (array != QDRT_CURRENT_DEVICE && array != call)
    check_peer_device(array, call, kernel, param);
}

/// Throws qd::Error "kernel '<kernel>': <what> share memory, and
/// stream-parallel groups would race on it" when the two arrays' bytes
/// overlap. Launchers call it for each pair of ndarray parameters that
/// different groups use, one of them writing (DESIGN section 2, rule 6).
void check_overlap_(const void *a, size_t a_bytes, const void *b,
                    size_t b_bytes, const char *kernel, const char *what);
/// Throws qd::Error "kernel '<kernel>' is QD_NOALIAS, but its parameters
/// '<a>' and '<b>' share memory" when the two arrays' bytes overlap.
void check_noalias_(const void *a, size_t a_bytes, const void *b,
                    size_t b_bytes, const char *kernel, const char *a_name,
                    const char *b_name);
/// The bytes an ndarray of Dims dimensions of Elem-byte elements spans.
template <typename X>
inline size_t array_bytes_(const X &x, int dims, size_t elem) {
  size_t n = x.ptr ? elem : 0;
  for (int d = 0; d < dims; ++d)
    n *= size_t(x.extent[d]);
  return n;
}
template <typename T, int A, typename U, int B>
inline void check_group_overlap(const qd::ndarray<T, A> &a,
                                const qd::ndarray<U, B> &b, const char *kernel,
                                const char *what) {
  check_overlap_(a.ptr, array_bytes_(a, A, sizeof(T)), b.ptr,
                 array_bytes_(b, B, sizeof(U)), kernel, what);
}
/// Launchers of QD_NOALIAS kernels call it for each pair of ndarrays.
template <typename T, int A, typename U, int B>
inline void check_noalias(const qd::ndarray<T, A> &a,
                          const qd::ndarray<U, B> &b, const char *kernel,
                          const char *a_name, const char *b_name) {
  check_noalias_(a.ptr, array_bytes_(a, A, sizeof(T)), b.ptr,
                 array_bytes_(b, B, sizeof(U)), kernel, a_name, b_name);
}

/// The elements of an ndarray argument (narrow_grid_'s, narrow.h).
template <typename T, int Dims>
inline int64_t ndarray_elements_(const qd::ndarray<T, Dims> &a) {
  return extent_elements_(a.extent, Dims);
}

/// The key of a kernel call's random numbers: a function of the seed
/// (qd::set_random_seed, InitOptions::random_seed) and of how many calls
/// took a key before, so that a seed and a sequence of calls give the same
/// numbers on every run.
uint64_t next_random_key();

/// Registers a module once, on first use.
inline qdrt_module *register_module(const qdrt_module_desc &desc) {
  qdrt_module *m = nullptr;
  check(qdrt_register_module(&desc, &m));
  return m;
}

/// What a launcher of an array parameter instantiates, instantiated here,
/// before any launcher: a compile that starts from the launcher's
/// precompiled header finds it made there (most of it, a view's
/// std::weak_ptr<const void>, shared by every element type and rank; float
/// and one dimension, the commonest, whole), and one without the header
/// makes it in the same order, so that both objects are the same byte for
/// byte. No string literal of its own, for the same reason. The host check
/// of a one-kernel file: Clang's front end 8.8 -> 4.7 ms (performance.md).
inline void launcher_instantiations_(const NdarrayView<float, 1> &a,
                                     const char *what) {
  NdarrayView<float, 1> copy = a;
  copy = a;
  (void)to_kernel(copy, what);
  (void)copy.shape(0);
  (void)copy.device();
}

} // namespace qd::detail

#endif // QD_DETAIL_LAUNCHER_H
