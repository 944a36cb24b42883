//===- AssertKernels.cpp - CPU tasks with QD_ASSERT for runtime tests -----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What qdc generates for the CPU code of a module with a QD_ASSERT: the
// module's record, and a task whose loop stops once an assertion failed.
// Compiled by clang (the kernel headers are clang's dialect), as qdc
// compiles the CPU code; see CMakeLists.txt.
//
//===----------------------------------------------------------------------===//

#include "qd/detail/prelude_cpu.h"

#include "AssertKernels.h"

qdrt_assert_record qd_assert_record_;

extern "C" void qdrt_test_below(const void *qd_args_, uint64_t qd_begin_,
                                uint64_t qd_end_) {
  const auto &A = *static_cast<const qdrt_test_below_args *>(qd_args_);
  jmp_buf qd_jump_;
  if (setjmp(qd_jump_)) {
    qd::detail::cpu_assert_jump_ = nullptr;
    return;
  }
  qd::detail::cpu_assert_jump_ = &qd_jump_;
  try {
    for (uint64_t qd_k_ = qd_begin_; qd_k_ < qd_end_; ++qd_k_) {
      qd::detail::cpu_iteration_ = qd_k_;
      if (QD_ASSERT_STOPPED_())
        break;
      int64_t i = int64_t(qd_k_);
      QD_ASSERT(i < A.limit, "i is below the limit");
      A.out[i] = 1;
    }
  } catch (const qd::detail::assert_stop_ &) {
  }
  qd::detail::cpu_assert_jump_ = nullptr;
}

extern "C" qdrt_assert_record *qdrt_test_module_record(void) {
  return &qd_assert_record_;
}
