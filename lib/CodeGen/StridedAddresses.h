//===- StridedAddresses.h - Pointer steps for strided loads -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A loop that walks down a column, `acc += a(i, k) * b(k, j)`, computes
// b's address as `b + k * extent` in every iteration. LLVM 19's loop
// strength reduction leaves that multiply in NVIDIA GPU code (it keeps the
// index as the only induction variable; after LLVM's 4x unrolling one
// 64-bit multiply per unrolled step remains, three instructions on the
// GPU), where nvcc steps a pointer by the row's length. This pass does what
// nvcc does: before the loop unroller, an address inside an innermost loop
// that multiplies the loop's counter by a value known only at run time
// becomes a pointer of its own, started before the loop and advanced by the
// stride at each iteration. Addresses whose step is a constant are left to
// LLVM (they fold into the load's immediate offset). Private to
// lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_STRIDEDADDRESSES_H
#define QDC_LIB_CODEGEN_STRIDEDADDRESSES_H

namespace llvm {
class Function;
class LoopInfo;
class PassBuilder;
class ScalarEvolution;
} // namespace llvm

namespace qdc::codegen {

/// At most this many strided pointers are added to one loop: each holds a
/// register for the whole loop.
constexpr unsigned MaxStridedPointersPerLoop = 4;

/// Rewrites F's strided addresses (the pass's work on one function, for any
/// target). True when F changed.
bool rewriteStridedAddresses(llvm::Function &F, llvm::LoopInfo &LI,
                             llvm::ScalarEvolution &SE);

/// Has PB's pipeline run the pass on NVIDIA GPU code, before the loop
/// unroller and the vectorizer (LLVM's "vectorizer start" point).
void addStridedAddresses(llvm::PassBuilder &PB);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_STRIDEDADDRESSES_H
