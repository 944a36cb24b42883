//===- LatencyVersions.cpp - Launches too small to fill a GPU -------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The entries are the module's external functions whose names end in the
// latency suffix (after DeviceLinkage only kernels are external); their
// loops are found as the front end left them, before any pass reshapes
// them, and keep the mark through inlining and rotation. Only loops that
// touch memory (or call a function, which may) are marked: a loop that
// computes in registers alone (a dependent arithmetic chain) is the same
// in both versions.
//
//===----------------------------------------------------------------------===//

#include "LatencyVersions.h"
#include "Names.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace qdc::codegen;

namespace {

/// Whether L reads or writes memory beyond the function's locals, or may
/// (a call): loops that only compute in registers (a dependent arithmetic
/// chain) gain nothing from more loads in flight, and keep LLVM's
/// unrolling, which -ffast-math can fold into fewer operations.
bool touchesMemory(const llvm::Loop &L) {
  for (const llvm::BasicBlock *BB : L.blocks())
    for (const llvm::Instruction &I : *BB) {
      if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&I)) {
        if (!llvm::isa<llvm::IntrinsicInst>(Call) ||
            Call->mayReadOrWriteMemory())
          return true;
        continue;
      }
      const llvm::Value *Pointer = llvm::getLoadStorePointerOperand(&I);
      if (!Pointer) {
        if (I.mayReadOrWriteMemory())
          return true;
        continue;
      }
      if (!llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(Pointer)))
        return true;
    }
  return false;
}

class LatencyVersionsPass : public llvm::PassInfoMixin<LatencyVersionsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM) {
    llvm::FunctionAnalysisManager &FAM =
        MAM.getResult<llvm::FunctionAnalysisManagerModuleProxy>(M).getManager();
    bool Changed = false;
    for (llvm::Function &F : M) {
      if (F.isDeclaration() || F.hasLocalLinkage() ||
          !F.getName().ends_with(names::LatencySuffix))
        continue;
      llvm::LLVMContext &C = F.getContext();
      llvm::MDNode *Disable = llvm::MDNode::get(
          C, llvm::MDString::get(C, "llvm.loop.unroll.runtime.disable"));
      for (llvm::Loop *L :
           FAM.getResult<llvm::LoopAnalysis>(F).getLoopsInPreorder()) {
        if (!touchesMemory(*L))
          continue;
        L->setLoopID(llvm::makePostTransformationMetadata(C, L->getLoopID(), {},
                                                          {Disable}));
        Changed = true;
      }
    }
    // Metadata only: the control flow and every analysis of it stand.
    return Changed ? llvm::PreservedAnalyses::allInSet<llvm::CFGAnalyses>()
                   : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

void qdc::codegen::addLatencyVersions(llvm::ModulePassManager &MPM) {
  MPM.addPass(LatencyVersionsPass());
}
