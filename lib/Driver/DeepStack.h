//===- DeepStack.h - Running the pipeline on a deep stack -------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_DEEPSTACK_H
#define QDC_LIB_DRIVER_DEEPSTACK_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace qdc {

/// Runs Fn on a thread with a 1 GiB stack and returns its result. Clang and
/// qdc recurse over the AST, so deeply nested input needs a deep stack, as
/// clang's own driver gives its compiler. Input that exhausts even this one
/// ends qdc with an error and exit code 1, its temporaries removed, not a
/// crash.
int runOnDeepStack(llvm::function_ref<int()> Fn);

} // namespace qdc

#endif // QDC_LIB_DRIVER_DEEPSTACK_H
