//===- qd/detail/prelude_cuda.h - Generated code for NVIDIA GPUs -*- C++ -*-//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Starts the device translation unit qdc compiles to PTX, in
// Clang's CUDA dialect without the CUDA headers (what both GPUs share is in
// qd/detail/prelude_gpu.h). Transcendental math comes from libdevice
// (QD_HAVE_LIBDEVICE, set when qdc found a CUDA toolkit); without it, using
// such a function is an error at the user's call. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CUDA_H
#define QD_DETAIL_PRELUDE_CUDA_H

#define QD_GPU_MATH_F32_(name) __nv_##name##f
/// The most threads a block of the kernel has (a fused task's).
#define QD_MAX_BLOCK_(n) __attribute__((launch_bounds(n)))
#ifdef __FAST_MATH__
// qdc -ffast-math (nvcc's --use_fast_math): the single-precision functions
// with an approximate hardware form use it, as sinf becomes __sinf.
#define __nv_sinf __nv_fast_sinf
#define __nv_cosf __nv_fast_cosf
#define __nv_tanf __nv_fast_tanf
#define __nv_expf __nv_fast_expf
#define __nv_logf __nv_fast_logf
#define __nv_log2f __nv_fast_log2f
#define __nv_log10f __nv_fast_log10f
#define __nv_powf __nv_fast_powf
#endif
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
/// The threads of the block, and its barrier (__syncthreads).
__device__ inline uint32_t block_size_() {
  return __nvvm_read_ptx_sreg_ntid_x();
}
/// The lanes of this thread's warp that exist: all 32 but in the last warp
/// of a block whose size is not a multiple of 32.
__device__ inline uint32_t warp_lanes_() {
  uint32_t left =
      __nvvm_read_ptx_sreg_ntid_x() - (__nvvm_read_ptx_sreg_tid_x() & ~31u);
  return left >= 32 ? 0xffffffffu : (1u << left) - 1;
}
/// `barrier.sync`, not the `.aligned` form of __syncthreads: since Volta
/// a warp's threads need not have reconverged when they reach it (after a
/// grid-stride loop whose trip counts differ by lane, or a branch on the
/// lane), and the aligned form is undefined then (compute-sanitizer's
/// synccheck reports it). Nor does barrier.sync reconverge them: after a
/// part that one thread runs alone, a fused task would go on with its warp
/// split in two, and a 64-bit block reduction's shuffles that follow it
/// never returned when ptxas compiled at -O0
/// (test/e2e/trust.qd, serial_then_reduce). So the warp's lanes meet again
/// (__syncwarp) once the whole block has arrived.
__device__ inline void block_barrier_() {
  __nvvm_barrier_sync(0);
  __nvvm_bar_warp_sync(warp_lanes_());
}
/// A barrier that also tells whether p holds on any thread of the block.
__device__ inline bool block_any_(bool p) { return __nvvm_bar0_or(p); }
// GPU-level operations (qd::simt) on 32-bit words.
__device__ inline uint64_t global_thread_idx_() { return first_index(); }
__device__ inline uint32_t block_thread_idx_() {
  return __nvvm_read_ptx_sreg_tid_x();
}
/// The block's index in the grid, and the grid's blocks.
__device__ inline uint32_t block_idx_() {
  return __nvvm_read_ptx_sreg_ctaid_x();
}
/// v, as a value LLVM cannot see through (narrow_ndarray_, kernel.h): an
/// empty instruction on its register.
__device__ inline int32_t narrow_extent_(int32_t v) {
  asm("" : "+r"(v));
  return v;
}
/// The block's place along the grid's second and third dimensions (a
/// tiled task's narrow entry).
__device__ inline uint32_t block_idx_y_() {
  return __nvvm_read_ptx_sreg_ctaid_y();
}
__device__ inline uint32_t block_idx_z_() {
  return __nvvm_read_ptx_sreg_ctaid_z();
}
__device__ inline uint32_t grid_blocks_() {
  return __nvvm_read_ptx_sreg_nctaid_x();
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
/// The lanes running this instruction together (__activemask), a warp's
/// barrier (__syncwarp), the lanes whose value equals this lane's
/// (__match_any_sync), and the memory fences (__threadfence_block,
/// __threadfence, __threadfence_system).
__device__ inline uint64_t active_mask_() { return __nvvm_activemask(); }
__device__ inline void warp_sync_(uint32_t mask) { __nvvm_bar_warp_sync(mask); }
#define QD_HAS_MATCH_ 1
__device__ inline uint64_t match_any_word_(uint32_t mask, uint32_t v) {
  return __nvvm_match_any_sync_i32(mask, v);
}
__device__ inline uint64_t match_any_word_(uint32_t mask, uint64_t v) {
  return __nvvm_match_any_sync_i64(mask, (long long)v);
}
__device__ inline void fence_block_() { __nvvm_membar_cta(); }
__device__ inline void fence_device_() { __nvvm_membar_gl(); }
__device__ inline void fence_system_() { __nvvm_membar_sys(); }
/// Whether p is in this thread's local memory (a kernel's local variable):
/// atomics there are undefined in PTX, and need none.
__device__ inline bool is_thread_private(const void *p) {
  return __nvvm_isspacep_local(p);
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CUDA_H
