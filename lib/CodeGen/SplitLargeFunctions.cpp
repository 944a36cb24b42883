//===- SplitLargeFunctions.cpp - Device functions in bounded pieces -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A block's subtree in the dominator tree is a single-entry region: every
// path into it passes its root. Walking the tree in post-order, the first
// subtree of MaxPieceBlocks blocks or more is the next piece (its children
// are smaller, so a chain of `else` blocks gives pieces of exactly that
// size); it is extracted, the tree computed again, and so on until the
// function is small. Each round is linear in the function and takes
// MaxPieceBlocks blocks out of it, so the whole is linear in practice. A
// region CodeExtractor refuses is left in place, and its blocks count
// towards the next larger one.
//
//===----------------------------------------------------------------------===//

#include "SplitLargeFunctions.h"
#include "Names.h"
#include "OptimizationLimit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

using namespace qdc::codegen;

namespace {

/// Regions refused by CodeExtractor before a function is left as it is.
constexpr unsigned MaxRefusals = 64;

/// The root of the next piece of F, or null when there is none.
llvm::BasicBlock *
findPiece(llvm::DominatorTree &DT,
          const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &Refused) {
  llvm::DenseMap<llvm::DomTreeNode *, unsigned> Size;
  for (llvm::DomTreeNode *N : llvm::post_order(DT.getRootNode())) {
    unsigned S = 1;
    for (llvm::DomTreeNode *Child : N->children())
      S += Size[Child];
    Size[N] = S;
    if (S >= MaxPieceBlocks && N != DT.getRootNode() &&
        !Refused.contains(N->getBlock()))
      return N->getBlock();
  }
  return nullptr;
}

/// Moves the piece rooted at Root into a function of its own; false when
/// CodeExtractor cannot.
bool extractPiece(llvm::Function &F, llvm::DominatorTree &DT,
                  llvm::BasicBlock *Root, unsigned Number) {
  llvm::SmallVector<llvm::BasicBlock *, 0> Blocks;
  for (llvm::DomTreeNode *N : llvm::depth_first(DT.getNode(Root)))
    Blocks.push_back(N->getBlock());
  llvm::CodeExtractor CE(Blocks, &DT, /*AggregateArgs=*/false,
                         /*BFI=*/nullptr, /*BPI=*/nullptr, /*AC=*/nullptr,
                         /*AllowVarArgs=*/false, /*AllowAlloca=*/true,
                         /*AllocationBlock=*/nullptr);
  if (!CE.isEligible())
    return false;
  llvm::CodeExtractorAnalysisCache CEAC(F);
  llvm::Function *Piece = CE.extractCodeRegion(CEAC);
  if (!Piece)
    return false;
  // An ordinary device function (never a kernel entry), compiled as the
  // function it came from is: without optimization, never inlined back.
  // Its name tells the assembler step that the module has pieces.
  Piece->setName(F.getName() + names::Piece + llvm::Twine(Number));
  Piece->setCallingConv(llvm::CallingConv::C);
  for (llvm::User *U : Piece->users())
    if (auto *Call = llvm::dyn_cast<llvm::CallInst>(U))
      Call->setCallingConv(llvm::CallingConv::C);
  Piece->removeFnAttr(llvm::Attribute::AlwaysInline);
  Piece->removeFnAttr(llvm::Attribute::InlineHint);
  Piece->addFnAttr(llvm::Attribute::NoInline);
  Piece->addFnAttr(llvm::Attribute::OptimizeNone);
  return true;
}

void splitFunction(llvm::Function &F) {
  llvm::SmallPtrSet<llvm::BasicBlock *, 8> Refused;
  unsigned Pieces = 0;
  while (F.size() > MaxPieceBlocks && Refused.size() < MaxRefusals) {
    llvm::DominatorTree DT(F);
    llvm::BasicBlock *Root = findPiece(DT, Refused);
    if (!Root)
      return;
    if (extractPiece(F, DT, Root, Pieces))
      ++Pieces;
    else
      Refused.insert(Root);
  }
}

class SplitLargeFunctionsPass
    : public llvm::PassInfoMixin<SplitLargeFunctionsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    llvm::SmallVector<llvm::Function *, 4> Large;
    for (llvm::Function &F : M)
      if (!F.isDeclaration() && F.size() > MaxOptimizedBlocks)
        Large.push_back(&F);
    for (llvm::Function *F : Large)
      splitFunction(*F);
    return Large.empty() ? llvm::PreservedAnalyses::all()
                         : llvm::PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

} // namespace

void qdc::codegen::addLargeFunctionSplitting(llvm::ModulePassManager &MPM) {
  MPM.addPass(SplitLargeFunctionsPass());
}
