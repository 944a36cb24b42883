//===- qd/detail/prelude_hip.h - Generated code for AMD GPUs ----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Starts the device translation unit qdc compiles to HSACO, in
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
/// The most threads a block of the kernel has (a fused task's).
#define QD_MAX_BLOCK_(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
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
/// __syncthreads(): every thread of the block arrives, and what each
/// wrote to shared memory before is visible to all after.
__device__ inline void block_barrier_() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ inline uint32_t block_thread_idx_();
/// A barrier that also tells whether p holds on any thread of the block
/// (__syncthreads_or), through one shared word: the first barrier keeps a
/// reset from overtaking the reads of the call before.
__device__ inline bool block_any_(bool p) {
  __shared__ uint32_t any;
  block_barrier_();
  if (block_thread_idx_() == 0)
    any = 0;
  block_barrier_();
  if (p)
    __atomic_store_n(&any, 1u, __ATOMIC_RELAXED);
  block_barrier_();
  return __atomic_load_n(&any, __ATOMIC_RELAXED) != 0;
}
__device__ inline uint32_t block_size_() {
  return __builtin_amdgcn_workgroup_size_x();
}
// GPU-level operations (qd::simt) on 32-bit words. The mask arguments
// are CUDA's; a wavefront always runs its active lanes together.
__device__ inline uint64_t global_thread_idx_() { return first_index(); }
__device__ inline uint32_t block_thread_idx_() {
  return __builtin_amdgcn_workitem_id_x();
}
/// The block's index in the grid, and the grid's blocks.
__device__ inline uint32_t block_idx_() {
  return __builtin_amdgcn_workgroup_id_x();
}
/// v, as a value LLVM cannot see through (narrow_ndarray_, kernel.h): an
/// empty instruction on its vector register (not timed: no AMD GPU was at
/// hand).
__device__ inline int32_t narrow_extent_(int32_t v) {
  asm("" : "+v"(v));
  return v;
}
/// The block's place along the grid's second and third dimensions (a
/// tiled task's narrow entry).
__device__ inline uint32_t block_idx_y_() {
  return __builtin_amdgcn_workgroup_id_y();
}
__device__ inline uint32_t block_idx_z_() {
  return __builtin_amdgcn_workgroup_id_z();
}
__device__ inline uint32_t grid_blocks_() {
  return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x();
}
__device__ inline uint32_t warp_size_() {
  return uint32_t(__builtin_amdgcn_wavefrontsize());
}
__device__ inline uint32_t lane_id_() {
  return __builtin_amdgcn_workitem_id_x() % warp_size_();
}
/// The lanes running together (the exec mask); a wavefront needs no warp
/// barrier beyond keeping the compiler from moving memory operations across
/// it; fences at the workgroup, agent and system scopes.
__device__ inline uint64_t active_mask_() {
  return __builtin_amdgcn_read_exec();
}
__device__ inline void warp_sync_(uint32_t) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__device__ inline void fence_block_() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}
__device__ inline void fence_device_() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent");
}
__device__ inline void fence_system_() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "");
}
__device__ inline uint64_t ballot_(bool pred) {
  return __builtin_amdgcn_ballot_w64(pred);
}
__device__ inline bool all_(uint32_t, bool pred) {
  return __builtin_amdgcn_ballot_w64(!pred) == 0;
}
__device__ inline bool any_(uint32_t, bool pred) {
  return __builtin_amdgcn_ballot_w64(pred) != 0;
}
/// The word of lane `from` (the caller's own when `from` is outside the
/// wavefront).
__device__ inline int32_t from_lane_(int32_t v, int64_t from) {
  int64_t lane = lane_id_();
  if (from < 0 || from >= int64_t(warp_size_()))
    from = lane;
  return __builtin_amdgcn_ds_bpermute(int(from * 4), v);
}
__device__ inline int32_t shfl_idx_(uint32_t, int32_t v, int32_t src) {
  return from_lane_(v, src % int32_t(warp_size_()));
}
__device__ inline int32_t shfl_up_(uint32_t, int32_t v, uint32_t d) {
  return from_lane_(v, int64_t(lane_id_()) - d);
}
__device__ inline int32_t shfl_down_word_(uint32_t, int32_t v, uint32_t d) {
  return from_lane_(v, int64_t(lane_id_()) + d);
}
__device__ inline int32_t shfl_xor_(uint32_t, int32_t v, uint32_t d) {
  return from_lane_(v, int64_t(lane_id_() ^ d));
}
__device__ inline bool is_thread_private(const void *p) {
  return __builtin_amdgcn_is_private(p);
}
} // namespace qd::detail

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_HIP_H
