//===- DeviceLinkage.cpp - Device functions local to their module ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DeviceLinkage.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace qdc::codegen;

/// The NVPTX kernels LLVM 19 marks in `!nvvm.annotations` rather than by
/// calling convention: `!{ptr @k, !"kernel", i32 1}`, the key/value pairs
/// after the function possibly several.
static llvm::SmallPtrSet<const llvm::GlobalValue *, 16>
getAnnotatedKernels(const llvm::Module &M) {
  llvm::SmallPtrSet<const llvm::GlobalValue *, 16> Out;
  const llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (!Annotations)
    return Out;
  for (const llvm::MDNode *Node : Annotations->operands()) {
    if (Node->getNumOperands() < 3)
      continue;
    auto *F =
        llvm::mdconst::dyn_extract_or_null<llvm::Function>(Node->getOperand(0));
    for (unsigned I = 1; F && I + 1 < Node->getNumOperands(); I += 2) {
      auto *What = llvm::dyn_cast_or_null<llvm::MDString>(Node->getOperand(I));
      auto *Value = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(
          Node->getOperand(I + 1));
      if (What && What->getString() == "kernel" && Value && !Value->isZero())
        Out.insert(F);
    }
  }
  return Out;
}

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
    llvm::SmallPtrSet<const llvm::GlobalValue *, 16> Kernels =
        getAnnotatedKernels(M);
    llvm::InternalizePass Internalize([&](const llvm::GlobalValue &GV) {
      const auto *F = llvm::dyn_cast<llvm::Function>(&GV);
      return !F || isKernel(*F) || Kernels.contains(F);
    });
    return Internalize.run(M, MAM);
  }
  static bool isRequired() { return true; }
};

} // namespace

void qdc::codegen::addDeviceInternalization(llvm::ModulePassManager &MPM) {
  MPM.addPass(InternalizeDeviceFunctionsPass());
}
