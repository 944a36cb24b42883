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
/// One value of a 32- or 64-bit T from the lane `offset` above.
template <typename T> __device__ inline T shfl_down_(T v, unsigned offset) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- or 64-bit values");
  unsigned words[sizeof(T) / 4];
  __builtin_memcpy(words, &v, sizeof(T));
  for (unsigned i = 0; i < sizeof(T) / 4; ++i)
    words[i] = unsigned(__nvvm_shfl_sync_down_i32(0xffffffffu, int(words[i]),
                                                  int(offset), 0x1f));
  __builtin_memcpy(&v, words, sizeof(T));
  return v;
}
/// Combines the accumulators of a block (every thread calls it, after its
/// loop): shuffles within each warp, then the warps' results through shared
/// memory. True in the one thread that holds the block's result in v. A
/// block whose size is not a multiple of 32 has a partial warp, which
/// cannot shuffle: there every thread is its own leader.
template <typename Op, typename T> __device__ inline bool block_combine(T &v) {
  unsigned ntid = __nvvm_read_ptx_sreg_ntid_x();
  if (ntid % 32 != 0)
    return true;
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  unsigned lane = tid % 32, warp = tid / 32;
  for (unsigned o = 16; o > 0; o /= 2)
    v = Op::combine(v, shfl_down_(v, o));
  __shared__ T partial[32];
  if (lane == 0)
    partial[warp] = v;
  __nvvm_bar_sync(0);
  if (warp == 0) {
    v = lane < ntid / 32 ? partial[lane] : Op::template identity<T>();
    for (unsigned o = 16; o > 0; o /= 2)
      v = Op::combine(v, shfl_down_(v, o));
  }
  // partial may be used again by the next reduction of this thread.
  __nvvm_bar_sync(0);
  return tid == 0;
}
// GPU-level operations (qd::simt) on 32-bit words.
__device__ inline uint64_t global_thread_idx_() { return first_index(); }
__device__ inline uint32_t block_thread_idx_() {
  return __nvvm_read_ptx_sreg_tid_x();
}
__device__ inline uint32_t lane_id_() { return __nvvm_read_ptx_sreg_laneid(); }
__device__ inline uint32_t warp_size_() { return 32; }
__device__ inline uint64_t ballot_(bool pred) {
  return __nvvm_vote_ballot_sync(0xffffffffu, pred);
}
__device__ inline bool all_(uint32_t mask, bool pred) {
  return __nvvm_vote_all_sync(mask, pred);
}
__device__ inline bool any_(uint32_t mask, bool pred) {
  return __nvvm_vote_any_sync(mask, pred);
}
__device__ inline int32_t shfl_idx_(uint32_t mask, int32_t v, int32_t src) {
  return __nvvm_shfl_sync_idx_i32(mask, v, src, 0x1f);
}
__device__ inline int32_t shfl_up_(uint32_t mask, int32_t v, uint32_t d) {
  return __nvvm_shfl_sync_up_i32(mask, v, int(d), 0);
}
__device__ inline int32_t shfl_down_word_(uint32_t mask, int32_t v,
                                          uint32_t d) {
  return __nvvm_shfl_sync_down_i32(mask, v, int(d), 0x1f);
}
__device__ inline int32_t shfl_xor_(uint32_t mask, int32_t v, uint32_t d) {
  return __nvvm_shfl_sync_bfly_i32(mask, v, int(d), 0x1f);
}
/// Whether p is in this thread's local memory (a kernel's local variable):
/// atomics there are undefined in PTX, and need none.
__device__ inline bool is_thread_private(const void *p) {
  return __nvvm_isspacep_local(p);
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CUDA_H
