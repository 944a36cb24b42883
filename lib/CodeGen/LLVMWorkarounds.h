//===- LLVMWorkarounds.h - Known LLVM miscompiles kept away ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The LLVM qdc links (19) has wrong-code bugs, fixed upstream later, that
// qdc's generated code reaches. Each is turned off here, in one place,
// through the option LLVM itself offers for it; the list says why.
// Private to lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_LLVMWORKAROUNDS_H
#define QDC_LIB_CODEGEN_LLVMWORKAROUNDS_H

namespace qdc::codegen {

/// Sets LLVM's options that avoid its known miscompiles; call once, before
/// the first compile.
void applyLLVMWorkarounds();

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_LLVMWORKAROUNDS_H
