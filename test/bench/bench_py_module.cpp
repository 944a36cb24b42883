//===- bench_py_module.cpp - bench_py's module, with the C++ side ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Python module of bench_py.qd (its generated source compiled with
// QD_PYTHON_NO_MODULE), plus cxx_us_per_call(arrays): the same kernels
// timed through their C++ launchers in this process (bench_py_cxx.h), so
// that bench_python.py compares the two calls side by side.
//
//===----------------------------------------------------------------------===//

#include "bench_py_cxx.h"

#include <nanobind/nanobind.h>

void qd_python_bind_bench_py(nanobind::module_ &m);

NB_MODULE(bench_py, m) {
  qd_python_bind_bench_py(m);
  m.def("cxx_us_per_call", &bench_py_cxx::measure, nanobind::arg("arrays"),
        nanobind::arg("batch") = 2000, nanobind::arg("batches") = 9,
        "Microseconds per call of args0/args1/args4 through the C++ "
        "launcher on a new stream (0, 1 or 4 arrays): the median of "
        "`batches` batches of `batch` calls.");
}
