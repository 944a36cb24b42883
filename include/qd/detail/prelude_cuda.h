//===- qd/detail/prelude_cuda.h - Generated code for NVIDIA GPUs -*- C++ -*-//
//
// Part of qdc. Starts the device translation unit qdc compiles to PTX, in
// Clang's CUDA dialect without the CUDA headers (what both GPUs share is in
// qd/detail/prelude_gpu.h). Transcendental math comes from libdevice
// (QD_HAVE_LIBDEVICE, set when qdc found a CUDA toolkit); without it, using
// such a function is an error at the user's call. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CUDA_H
#define QD_DETAIL_PRELUDE_CUDA_H

#define QD_GPU_MATH_F32_(name) __nv_##name##f
#define QD_GPU_MATH_F64_(name) __nv_##name
#ifndef QD_HAVE_LIBDEVICE
#define QD_GPU_MATH_MISSING_                                                   \
  " needs libdevice on CUDA, and no "                                          \
  "CUDA toolkit was found (set CUDA_PATH or "                                  \
  "install one in /usr/local/cuda)"
#endif
#include "qd/detail/prelude_gpu.h"

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
/// Whether p is in this thread's local memory (a kernel's local variable):
/// atomics there are undefined in PTX, and need none.
__device__ inline bool is_thread_private(const void *p) {
  return __nvvm_isspacep_local(p);
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CUDA_H
