//===- bench_py_cxx.h - The C++ side of bench_python.py ---------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host microseconds per call of bench_py.qd's kernels through their C++
// launchers, on one stream, measured as bench_python.py measures the
// Python calls: batches of calls, the stream synchronized after each (not
// timed), the median batch. Used by the standalone bench-py-cxx and,
// inside the Python module, by bench_python.py itself (the same process
// and moment as the Python calls it is compared with).
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TEST_BENCH_BENCH_PY_CXX_H
#define QDC_TEST_BENCH_BENCH_PY_CXX_H

#include "bench_py.qd.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

namespace bench_py_cxx {

template <typename Fn>
double usPerCall(Fn &&Call, qd::Stream &S, int Batch, int Batches) {
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

/// Microseconds per call of args0, args1 or args4 (by Arrays) on a stream
/// of the running runtime, with arrays of 1024 floats: the median of
/// Batches batches of Batch calls, after Batch calls of warm-up.
inline double measure(int Arrays, int Batch = 2000, int Batches = 9) {
  if (Batch < 1 || Batches < 1)
    throw std::invalid_argument("bench_py_cxx::measure: empty batches");
  qd::Stream S = qd::create_stream();
  qd::Launch On = qd::on(S);
  qd::Ndarray<float, 1> A({1024}), B({1024}), C({1024}), D({1024});
  double Us;
  switch (Arrays) {
  case 0:
    Us = usPerCall([&] { bench_py::args0(1, On); }, S, Batch, Batches);
    break;
  case 1:
    Us = usPerCall([&] { bench_py::args1(1, A, On); }, S, Batch, Batches);
    break;
  case 4:
    Us = usPerCall([&] { bench_py::args4(1, A, B, C, D, On); }, S, Batch,
                   Batches);
    break;
  default:
    throw std::invalid_argument("bench_py_cxx::measure: 0, 1 or 4 arrays");
  }
  S.destroy();
  return Us;
}

} // namespace bench_py_cxx

#endif // QDC_TEST_BENCH_BENCH_PY_CXX_H
