//===- bench_py_cxx.cpp - The C++ side of bench_python.py -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host microseconds per call of bench_py.qd's kernels through their C++
// launchers, on one stream, measured as bench_python.py measures the
// Python calls: batches of calls, the stream synchronized after each.
//
//===----------------------------------------------------------------------===//

#include "bench_py.qd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

template <typename Fn> static double usPerCall(Fn &&Call, qd::Stream &S) {
  constexpr int Batch = 2000, Batches = 9;
  for (int I = 0; I < Batch; ++I) // warm-up
    Call();
  S.synchronize();
  std::vector<double> Us;
  for (int R = 0; R < Batches; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < Batch; ++I)
      Call();
    auto T1 = std::chrono::steady_clock::now();
    S.synchronize();
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Batch);
  }
  std::sort(Us.begin(), Us.end());
  return Us[Us.size() / 2];
}

int main() {
  qd::init();
  qd::Stream S = qd::create_stream();
  qd::Launch On = qd::on(S);
  qd::Ndarray<float, 1> A({1024}), B({1024}), C({1024}), D({1024});
  std::printf("cxx_args0_us %.3f\n",
              usPerCall([&] { bench_py::args0(1, On); }, S));
  std::printf("cxx_args1_us %.3f\n",
              usPerCall([&] { bench_py::args1(1, A, On); }, S));
  std::printf("cxx_args4_us %.3f\n",
              usPerCall([&] { bench_py::args4(1, A, B, C, D, On); }, S));
}
