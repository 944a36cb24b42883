//===- CheckKernelSignature.cpp - Kernel return and parameter types -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The launcher copies every argument into a flat argument block
// and copies a return value back from device memory, so a kernel returns
// void or a trivially copyable value (ending with `return <value>;`) and
// takes scalars, pointers and ndarrays only (DESIGN sections 1 and 1.1).
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkKernelSignature(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels) {
    if (!K.ReturnStorable)
      Diags.report(DiagID::err_kernel_return_type, K.Loc)
          << K.Name << K.ReturnType;
    else if (!K.ReturnsVoid && !K.ReturnStmt)
      Diags.report(DiagID::err_kernel_missing_return, K.Loc)
          << K.Name << K.ReturnType;
    for (const Param &P : K.Params)
      if (P.Kind == ParamKind::Unsupported)
        Diags.report(DiagID::err_kernel_param_type, P.Loc)
            << P.Name << K.Name << P.Spelling
            << getScalarTypeSpellingList(/*OrLast=*/false);
  }
}
