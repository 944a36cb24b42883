//===- KernelMarks.cpp - NVPTX kernels marked by calling convention -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelMarks.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"

#include <memory>

using namespace qdc::codegen;

bool qdc::codegen::markKernelsByCallingConvention(llvm::Module &M) {
  llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (!Annotations)
    return false;
  llvm::LLVMContext &C = M.getContext();
  llvm::SmallVector<llvm::MDNode *, 16> Kept;
  bool Changed = false;
  for (llvm::MDNode *Node : Annotations->operands()) {
    auto *F = Node->getNumOperands()
                  ? llvm::mdconst::dyn_extract_or_null<llvm::Function>(
                        Node->getOperand(0))
                  : nullptr;
    // `!{ptr @f, !"key", value, !"key", value, ...}`: the kernel mark out,
    // the other pairs kept.
    llvm::SmallVector<llvm::Metadata *, 8> Rest;
    bool Kernel = false;
    if (F && Node->getNumOperands() % 2 == 1) {
      Rest.push_back(Node->getOperand(0));
      for (unsigned I = 1; I + 1 < Node->getNumOperands(); I += 2) {
        auto *Key = llvm::dyn_cast_or_null<llvm::MDString>(Node->getOperand(I));
        auto *Value = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(
            Node->getOperand(I + 1));
        if (Key && Key->getString() == "kernel" && Value && Value->isOne()) {
          Kernel = true;
          continue;
        }
        Rest.append({Node->getOperand(I), Node->getOperand(I + 1)});
      }
    }
    if (!Kernel) {
      Kept.push_back(Node);
      continue;
    }
    F->setCallingConv(llvm::CallingConv::PTX_Kernel);
    Changed = true;
    if (Rest.size() > 1)
      Kept.push_back(llvm::MDNode::get(C, Rest));
  }
  if (!Changed)
    return false;
  Annotations->clearOperands();
  for (llvm::MDNode *Node : Kept)
    Annotations->addOperand(Node);
  if (Kept.empty())
    Annotations->eraseFromParent();
  return true;
}

void qdc::codegen::addKernelMarks(llvm::PassBuilder &PB) {
  llvm::PassInstrumentationCallbacks *PIC =
      PB.getPassInstrumentationCallbacks();
  if (!PIC)
    return; // the marks stay where Clang put them: slower, as correct
  // The pipeline's first pass runs on the module; nothing has asked the
  // back end about a function, or cached an analysis of one, before it.
  auto Done = std::make_shared<bool>(false);
  PIC->registerBeforeNonSkippedPassCallback([Done](llvm::StringRef,
                                                   llvm::Any IR) {
    if (*Done)
      return;
    const llvm::Module *const *M = llvm::any_cast<const llvm::Module *>(&IR);
    if (!M)
      return;
    *Done = true;
    markKernelsByCallingConvention(const_cast<llvm::Module &>(**M));
  });
}
