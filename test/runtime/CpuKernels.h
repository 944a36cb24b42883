//===- CpuKernels.h - CPU task functions for runtime tests ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What qdc would generate for the CPU backend of a few small
// kernels: each task covers [begin, end) of its index space.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_TEST_CPUKERNELS_H
#define QDRT_TEST_CPUKERNELS_H

#include <cstdint>

namespace qd::rt::test {

struct SaxpyArgs {
  const float *X;
  float *Y;
  float A;
};

inline void saxpyTask(const void *Args, uint64_t Begin, uint64_t End) {
  const auto *P = static_cast<const SaxpyArgs *>(Args);
  for (uint64_t I = Begin; I < End; ++I)
    P->Y[I] = P->A * P->X[I] + P->Y[I];
}

/// Two groups: group 1 sets A[i] = Va; group 2 sets B[i] = Vb, then adds 1.
struct TwoGroupArgs {
  float *A;
  float *B;
  float Va, Vb;
};

inline void setA(const void *Args, uint64_t Begin, uint64_t End) {
  const auto *P = static_cast<const TwoGroupArgs *>(Args);
  for (uint64_t I = Begin; I < End; ++I)
    P->A[I] = P->Va;
}
inline void setB(const void *Args, uint64_t Begin, uint64_t End) {
  const auto *P = static_cast<const TwoGroupArgs *>(Args);
  for (uint64_t I = Begin; I < End; ++I)
    P->B[I] = P->Vb;
}
inline void incB(const void *Args, uint64_t Begin, uint64_t End) {
  const auto *P = static_cast<const TwoGroupArgs *>(Args);
  for (uint64_t I = Begin; I < End; ++I)
    P->B[I] += 1.0f;
}

} // namespace qd::rt::test

#endif // QDRT_TEST_CPUKERNELS_H
