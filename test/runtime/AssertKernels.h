//===- AssertKernels.h - CPU tasks with QD_ASSERT for tests -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The interface of AssertKernels.cpp, which is compiled by clang as qdc
// compiles a module's CPU code (<qd/detail/prelude_cpu.h>, QD_ASSERT).
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_TEST_ASSERTKERNELS_H
#define QDRT_TEST_ASSERTKERNELS_H

#include "qd/abi.h"

#include <cstdint>

extern "C" {
/// The arguments of the task: Out[i] = 1 for each iteration i, after
/// QD_ASSERT(i < limit, "i is below the limit").
struct qdrt_test_below_args {
  int32_t *out;
  int64_t limit;
};
/// The task, as generated for the CPU (its chunk stops at a failure).
void qdrt_test_below(const void *args, uint64_t begin, uint64_t end);
/// The module's own record (qd_assert_record_).
qdrt_assert_record *qdrt_test_module_record(void);
}

#endif // QDRT_TEST_ASSERTKERNELS_H
