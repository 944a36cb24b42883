//===- KernelMarks.h - NVPTX kernels by calling convention ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Clang 19 marks a CUDA kernel by an entry `!{ptr @k, !"kernel", i32 1}` of
// the module's `!nvvm.annotations`, and LLVM 19's NVPTX back end answers
// "is F a kernel" by walking that whole list the first time it is asked
// about F (NVPTXUtilities.cpp, cacheAnnotationFromMD): functions times
// kernels, 3 s of a 10,000-kernel module's optimization in
// NVVMIntrRangePass alone, more in instruction selection. Where a function
// has no entry, the back end takes the PTX_Kernel calling convention for the
// mark instead (LLVM 20 marks kernels that way only). Private to
// lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_KERNELMARKS_H
#define QDC_LIB_CODEGEN_KERNELMARKS_H

namespace llvm {
class Module;
class PassBuilder;
} // namespace llvm

namespace qdc::codegen {

/// Gives every function marked a kernel in M's `!nvvm.annotations` the
/// PTX_Kernel calling convention and drops the mark (the entry, when
/// nothing else is in it; the list, when empty). True when M changed.
bool markKernelsByCallingConvention(llvm::Module &M);

/// Has PB's pipeline do that to its module before its first pass (before the
/// NVPTX target's own passes at the pipeline's start, which already ask).
void addKernelMarks(llvm::PassBuilder &PB);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_KERNELMARKS_H
