//===- Stat.h - Medians and the benchmarks' output lines --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by qdc's benchmark programs and the CUDA baselines (which nvcc
// compiles on the GPU machine): every row is "<key> <median> <min> <max>".
//
//===----------------------------------------------------------------------===//

#ifndef QDC_BENCH_STAT_H
#define QDC_BENCH_STAT_H

#include <algorithm>
#include <cstdio>
#include <vector>

namespace bench_stat {

struct Stat {
  double Median, Min, Max;
};

inline Stat stat(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return {V[V.size() / 2], V.front(), V.back()};
}

inline void print(const char *Key, Stat S) {
  std::printf("%s %.4f %.4f %.4f\n", Key, S.Median, S.Min, S.Max);
}

} // namespace bench_stat

#endif // QDC_BENCH_STAT_H
