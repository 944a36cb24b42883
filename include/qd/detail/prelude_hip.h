//===- qd/detail/prelude_hip.h - Generated code for AMD GPUs ----*- C++ -*-===//
//
// Part of qdc. Starts the device translation unit qdc compiles to HSACO, in
// Clang's HIP dialect without the HIP headers (what both GPUs share is in
// qd/detail/prelude_gpu.h). Transcendental math comes from the ROCm device
// libraries (ocml, QD_HAVE_OCML, set when qdc found their bitcode for the
// target); without them, using such a function is an error at the user's
// call. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_HIP_H
#define QD_DETAIL_PRELUDE_HIP_H

#define QD_GPU_MATH_F32_(name) __ocml_##name##_f32
#define QD_GPU_MATH_F64_(name) __ocml_##name##_f64
#ifndef QD_HAVE_OCML
#define QD_GPU_MATH_MISSING_                                                   \
  " needs the ROCm device libraries "                                          \
  "(Debian: rocm-device-libs) for this GPU, and "                              \
  "they were not found"
#endif
#include "qd/detail/prelude_gpu.h"

namespace qd::detail {
__device__ inline uint64_t first_index() {
  return uint64_t(__builtin_amdgcn_workgroup_id_x()) *
             uint64_t(__builtin_amdgcn_workgroup_size_x()) +
         uint64_t(__builtin_amdgcn_workitem_id_x());
}
__device__ inline uint64_t index_stride() {
  return uint64_t(__builtin_amdgcn_grid_size_x());
}
__device__ inline float atomic_fadd(float *p, float v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
__device__ inline double atomic_fadd(double *p, double v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED,
                                __HIP_MEMORY_SCOPE_AGENT);
}
/// Every thread updates the kernel scalar with its own accumulator: the
/// wavefront and block combine of the CUDA prelude is not written for AMD
/// yet.
template <typename Op, typename T> __device__ inline bool block_combine(T &) {
  return true;
}
/// Whether p is in this thread's private memory (a kernel's local
/// variable): atomics there need none.
__device__ inline bool is_thread_private(const void *p) {
  return __builtin_amdgcn_is_private(p);
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_HIP_H
