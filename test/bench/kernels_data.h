//===- kernels_data.h - Sizes, inputs and checksums of the kernel suite ---===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by qdc's side (kernels_qdc.cpp) and the CUDA baseline
// (kernels_baseline.cu): both start every timed run from the same inputs and
// print the same checksum of the result, which utils/bench-gpu.sh compares.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_BENCH_KERNELS_DATA_H
#define QDC_BENCH_KERNELS_DATA_H

#include <cstdint>
#include <cstdio>
#include <vector>

namespace kernels_data {

constexpr int64_t GemmN = 2048, Syr2kN = 2048, Conv2dN = 8192, Conv3dN = 384,
                  FdtdN = 4096, FdtdSteps = 10, JacobiN = 4096,
                  JacobiSteps = 10, MvtN = 8192, LuN = 1024;
/// Timed runs of each kernel, after one untimed.
constexpr int Runs = 7;

/// A rows x cols matrix of values in [0, 1); Salt makes inputs differ.
inline std::vector<float> matrix(int64_t Rows, int64_t Cols, int Salt) {
  std::vector<float> V(Rows * Cols);
  for (int64_t I = 0; I < Rows; ++I)
    for (int64_t J = 0; J < Cols; ++J)
      V[I * Cols + J] = float((I * (J + Salt) + Salt + 1) % 1021) / 1021.0f;
  return V;
}

/// A matrix LU factors without pivoting: the diagonal dominates.
inline std::vector<float> luMatrix(int64_t N) {
  std::vector<float> V = matrix(N, N, 3);
  for (int64_t I = 0; I < N; ++I)
    V[I * N + I] += float(N);
  return V;
}

inline double checksum(const std::vector<float> &V) {
  double Sum = 0;
  for (float X : V)
    Sum += X;
  return Sum;
}

inline void printSum(const char *Name, const std::vector<float> &V) {
  std::printf("kern_%s_sum %.9e\n", Name, checksum(V));
}

} // namespace kernels_data

#endif // QDC_BENCH_KERNELS_DATA_H
