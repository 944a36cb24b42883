//===- qd/detail/prelude_cuda.h - Generated code for NVIDIA GPUs -*- C++
//-*-===//
//
// Part of qdc. Starts the device translation unit qdc compiles to PTX, in
// Clang's CUDA dialect without the CUDA headers. Transcendental math comes
// from libdevice (QD_HAVE_LIBDEVICE, set when qdc found a CUDA toolkit);
// without it, using such a function is an error at the user's call.
// Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CUDA_H
#define QD_DETAIL_PRELUDE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

#define QD_DEVICE_FN __device__

#ifdef QD_HAVE_LIBDEVICE
extern "C" {
__device__ float __nv_sinf(float);
__device__ double __nv_sin(double);
__device__ float __nv_cosf(float);
__device__ double __nv_cos(double);
__device__ float __nv_expf(float);
__device__ double __nv_exp(double);
__device__ float __nv_logf(float);
__device__ double __nv_log(double);
__device__ float __nv_powf(float, float);
__device__ double __nv_pow(double, double);
}
#define QD_MATH_ATTR_(name)
#define QD_MATH_F32_(name) __nv_##name##f
#define QD_MATH_F64_(name) __nv_##name
#else
#define QD_MATH_ATTR_(name)                                                    \
  __attribute__((diagnose_if(true,                                             \
                             "qd::" #name " needs libdevice on CUDA, and no "  \
                             "CUDA toolkit was found (set CUDA_PATH or "       \
                             "install one in /usr/local/cuda)",                \
                             "error")))
#define QD_MATH_F32_(name) __builtin_##name##f
#define QD_MATH_F64_(name) __builtin_##name
#endif

namespace qd::detail {
__device__ inline uint64_t first_index() {
  return uint64_t(__nvvm_read_ptx_sreg_ctaid_x()) *
             uint64_t(__nvvm_read_ptx_sreg_ntid_x()) +
         uint64_t(__nvvm_read_ptx_sreg_tid_x());
}
__device__ inline float atomic_fadd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}
__device__ inline double atomic_fadd(double *p, double v) {
  return __nvvm_atom_add_gen_d(p, v);
}
__device__ inline uint64_t index_stride() {
  return uint64_t(__nvvm_read_ptx_sreg_nctaid_x()) *
         uint64_t(__nvvm_read_ptx_sreg_ntid_x());
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CUDA_H
