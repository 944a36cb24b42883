//===- qd/detail/launcher.h - Helpers for generated launchers ---*- C++ -*-===//
//
// Part of qdc. Used by the host translation unit qdc generates, after the
// CPU prelude and <qd/runtime.h>. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_LAUNCHER_H
#define QD_DETAIL_LAUNCHER_H

#include "qd/detail/prelude_cpu.h"
#include "qd/memory.h"

namespace qd::detail {

/// The number of iterations of [begin, end): 0 when end <= begin.
template <typename B, typename E> inline uint64_t trip(B begin, E end) {
  return end > begin ? uint64_t(end - begin) : 0;
}

/// The kernel-side view of a host Ndarray.
template <typename T, int Dims>
inline qd::ndarray<T, Dims> to_kernel(const qd::Ndarray<T, Dims> &a) {
  qd::ndarray<T, Dims> out{};
  out.ptr = static_cast<T *>(a.data());
  for (int d = 0; d < Dims; ++d)
    out.extent[d] = a.shape(d);
  return out;
}

/// Registers a module once, on first use.
inline qdrt_module *register_module(const qdrt_module_desc &desc) {
  qdrt_module *m = nullptr;
  check(qdrt_register_module(&desc, &m));
  return m;
}

} // namespace qd::detail

#endif // QD_DETAIL_LAUNCHER_H
