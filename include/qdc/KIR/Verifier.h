//===- Verifier.h - Invariants of a lowered module --------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Checks what every pass after form-tasks may rely on. A
// failure is a bug in qdc, not in the user's code.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_KIR_VERIFIER_H
#define QDC_KIR_VERIFIER_H

#include "llvm/Support/Error.h"

namespace qdc::kir {

struct Module;

/// Returns an error describing the first broken invariant, if any: tasks
/// have the shape their kind needs, group ids lie in [0, NumGroups] and do
/// not decrease, every statement a task names exists, names are unique.
llvm::Error verifyModule(const Module &M);

} // namespace qdc::kir

#endif // QDC_KIR_VERIFIER_H
