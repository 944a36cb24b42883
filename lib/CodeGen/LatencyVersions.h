//===- LatencyVersions.h - Launches too small to fill a GPU -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A loop task whose body has a loop of its own gets a second entry on GPUs,
// its latency version (names::latencyEntry: `<task>_lat`), which the
// runtime launches when the iterations are too few to fill the device
// (qdrt_task_desc::latency_name). The two differ in unrolling only: LLVM
// unrolls a loop with a run-time count four times, which keeps registers
// few and a full GPU occupied; with few threads, each needs many loads in
// flight, which ptxas gives when it unrolls the loop itself (a transposed
// matrix-vector product, 32 blocks: 3.43 -> 2.13 ms on an H200, where
// nvcc's takes 1.79; the same without the version on a GEMM of 16,384
// blocks: 2.73 -> 4.91 ms). Only loops that touch memory differ: a loop
// that computes in registers alone is the same in both (the spin chain of
// test/bench/spin.qd, one block, ran its latency version one multiply-add
// per step, 7.8x slower with -ffast-math, until 2026-11-27). Private to
// lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_LATENCYVERSIONS_H
#define QDC_LIB_CODEGEN_LATENCYVERSIONS_H

#include "llvm/IR/PassManager.h"

namespace qdc::codegen {

/// Adds to MPM a pass that marks every loop of a latency version's entry
/// that touches memory `llvm.loop.unroll.runtime.disable`; it belongs at
/// the start of the pipeline, after the device's internalization.
void addLatencyVersions(llvm::ModulePassManager &MPM);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_LATENCYVERSIONS_H
