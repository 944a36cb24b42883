//===- qd/detail/prelude_hip.h - Generated code for AMD GPUs ----*- C++ -*-===//
//
// Part of qdc. Starts the device translation unit qdc compiles to HSACO, in
// Clang's HIP dialect without the HIP headers. Transcendental math comes
// from the ROCm device libraries (ocml, QD_HAVE_OCML, set when qdc found
// their bitcode for the target); without them, using such a function is an
// error at the user's call. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_HIP_H
#define QD_DETAIL_PRELUDE_HIP_H

#include <stddef.h>
#include <stdint.h>

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

#define QD_DEVICE_FN __device__

#ifdef QD_HAVE_OCML
extern "C" {
__device__ float __ocml_sin_f32(float);
__device__ double __ocml_sin_f64(double);
__device__ float __ocml_cos_f32(float);
__device__ double __ocml_cos_f64(double);
__device__ float __ocml_exp_f32(float);
__device__ double __ocml_exp_f64(double);
__device__ float __ocml_log_f32(float);
__device__ double __ocml_log_f64(double);
__device__ float __ocml_pow_f32(float, float);
__device__ double __ocml_pow_f64(double, double);
}
#define QD_MATH_ATTR_(name)
#define QD_MATH_F32_(name) __ocml_##name##_f32
#define QD_MATH_F64_(name) __ocml_##name##_f64
#else
#define QD_MATH_ATTR_(name)                                                    \
  __attribute__((diagnose_if(true,                                             \
                             "qd::" #name " needs the ROCm device libraries "  \
                             "(Debian: rocm-device-libs) for this GPU, and "   \
                             "they were not found",                            \
                             "error")))
#define QD_MATH_F32_(name) __builtin_##name##f
#define QD_MATH_F64_(name) __builtin_##name
#endif

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
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_HIP_H
