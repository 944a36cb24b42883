//===- OptimizationLimit.cpp - Functions too large to optimize ------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A module pass at the start of the optimization pipeline that
// counts each function's basic blocks; one over the limit gets its locals
// promoted to registers (SROA, linear) and is marked `optnone noinline`:
// the pass managers then skip every other optional pass on it (ptxas still
// optimizes the device code it gets). The warning is a
// backend "optimization failure", which Clang reports at the function's
// declaration, a location in the user's source through the #line markers
// of the generated code.
//
//===----------------------------------------------------------------------===//

#include "OptimizationLimit.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/Scalar/SROA.h"

using namespace qdc::codegen;

namespace {

class OptimizationLimitPass
    : public llvm::PassInfoMixin<OptimizationLimitPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM) {
    llvm::FunctionAnalysisManager &FAM =
        MAM.getResult<llvm::FunctionAnalysisManagerModuleProxy>(M).getManager();
    bool Changed = false;
    for (llvm::Function &F : M) {
      if (F.isDeclaration() || F.hasOptNone() || F.size() <= MaxOptimizedBlocks)
        continue;
      // Locals in registers: without it every access is a local-memory
      // load or store, and ptxas's time grows quadratically instead.
      llvm::SROAPass(llvm::SROAOptions::ModifyCFG).run(F, FAM);
      FAM.invalidate(F, llvm::PreservedAnalyses::none());
      F.removeFnAttr(llvm::Attribute::AlwaysInline);
      F.removeFnAttr(llvm::Attribute::InlineHint);
      F.addFnAttr(llvm::Attribute::NoInline);
      F.addFnAttr(llvm::Attribute::OptimizeNone);
      M.getContext().diagnose(llvm::DiagnosticInfoOptimizationFailure(
          F, llvm::DiagnosticLocation(),
          "this function is too large to optimize (" + llvm::Twine(F.size()) +
              " basic blocks; the limit is " + llvm::Twine(MaxOptimizedBlocks) +
              "): it is compiled without optimization"));
      Changed = true;
    }
    return Changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

void qdc::codegen::addOptimizationLimit(llvm::ModulePassManager &MPM) {
  MPM.addPass(OptimizationLimitPass());
}
