//===- DeviceLinkage.cpp - Device functions local to their module ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DeviceLinkage.h"
#include "KernelMarks.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace qdc::codegen;

static bool isKernel(const llvm::Function &F) {
  switch (F.getCallingConv()) {
  case llvm::CallingConv::AMDGPU_KERNEL:
  case llvm::CallingConv::PTX_Kernel:
    return true;
  default:
    return false;
  }
}

namespace {

class InternalizeDeviceFunctionsPass
    : public llvm::PassInfoMixin<InternalizeDeviceFunctionsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM) {
    // NVPTX kernels marked in `!nvvm.annotations` (where KernelMarks'
    // callback could not run first) are marked by calling convention too.
    bool Marked = markKernelsByCallingConvention(M);
    llvm::InternalizePass Internalize([&](const llvm::GlobalValue &GV) {
      const auto *F = llvm::dyn_cast<llvm::Function>(&GV);
      return !F || isKernel(*F);
    });
    llvm::PreservedAnalyses PA = Internalize.run(M, MAM);
    return Marked ? llvm::PreservedAnalyses::none() : PA;
  }
  static bool isRequired() { return true; }
};

} // namespace

void qdc::codegen::addDeviceInternalization(llvm::ModulePassManager &MPM) {
  MPM.addPass(InternalizeDeviceFunctionsPass());
}
