//===- KIRBuilder.h - Clang AST to kernel IR --------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_FRONTEND_KIRBUILDER_H
#define QDC_LIB_FRONTEND_KIRBUILDER_H

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"

namespace clang {
class ASTContext;
} // namespace clang

namespace qdc {

/// Builds the KIR module of a translation unit that compiled without errors.
/// Reports the kernel-shape problems only the AST can show (loops that are
/// not in a parallel form, jumps at the top level, misplaced kernels, bad
/// loop_config values); the rules that read the KIR are left to the passes.
kir::Module buildModule(clang::ASTContext &Ctx, DiagEngine &Diags,
                        bool CheckDeviceCode = true);

} // namespace qdc

#endif // QDC_LIB_FRONTEND_KIRBUILDER_H
