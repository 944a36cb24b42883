//===- bench_py_cxx.cpp - The C++ side of bench_python.py -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// bench_py_cxx.h's measurements in a process of their own.
//
//===----------------------------------------------------------------------===//

#include "bench_py_cxx.h"

#include <cstdio>

int main() {
  qd::init();
  for (int N : {0, 1, 4})
    std::printf("cxx_args%d_us %.3f\n", N, bench_py_cxx::measure(N));
}
