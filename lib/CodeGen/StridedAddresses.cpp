//===- StridedAddresses.cpp - Pointer steps for strided loads -------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A function pass over innermost loops with a preheader and one latch. A
// load's or store's address is taken when its index is computed inside the
// loop by a multiply of a counter stepping by one (forwards or backwards)
// and a loop-invariant value that is not a constant, and scalar evolution
// finds the address an affine recurrence of that loop with a
// loop-invariant step: {start, +, step}. The address becomes a pointer phi
// in the loop's header: it starts at the first iteration's address (the
// address's instructions copied to the preheader, the header's phis taken
// at their entry values; none that may trap) and adds `step` (expanded
// once, in the preheader, by SCEVExpander) at the latch. The address is the
// same in every iteration, as wrapping 64-bit arithmetic gives it; the
// multiply goes when nothing else uses it.
//===----------------------------------------------------------------------===//

#include "StridedAddresses.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace qdc::codegen;

namespace {

/// True when V, an address's index inside L, is computed there by a
/// multiply of a loop-invariant value, not a constant, and a counter of L
/// that steps by one (`k * n`), looking through casts and additions
/// (`k * n + j`, its sign extension).
bool multipliesCounter(llvm::Value *V, const llvm::Loop &L,
                       llvm::ScalarEvolution &SE, unsigned Depth) {
  auto *I = llvm::dyn_cast<llvm::Instruction>(V);
  if (!I || !L.contains(I) || Depth > 4)
    return false;
  if (I->getOpcode() == llvm::Instruction::Mul) {
    auto CountsByOne = [&](llvm::Value *X) {
      auto *AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(SE.getSCEV(X));
      if (!AR || AR->getLoop() != &L || !AR->isAffine())
        return false;
      auto *Step =
          llvm::dyn_cast<llvm::SCEVConstant>(AR->getStepRecurrence(SE));
      return Step && (Step->getAPInt().isOne() || Step->getAPInt().isAllOnes());
    };
    auto Invariant = [&](llvm::Value *X) {
      return !llvm::isa<llvm::Constant>(X) && L.isLoopInvariant(X);
    };
    llvm::Value *X = I->getOperand(0), *Y = I->getOperand(1);
    return (CountsByOne(X) && Invariant(Y)) || (CountsByOne(Y) && Invariant(X));
  }
  if (llvm::isa<llvm::CastInst>(I))
    return multipliesCounter(I->getOperand(0), L, SE, Depth + 1);
  if (I->getOpcode() == llvm::Instruction::Add ||
      I->getOpcode() == llvm::Instruction::Sub ||
      I->getOpcode() == llvm::Instruction::Or)
    return multipliesCounter(I->getOperand(0), L, SE, Depth + 1) ||
           multipliesCounter(I->getOperand(1), L, SE, Depth + 1);
  return false;
}

/// The address of a load or store in L that the pass rewrites, as its
/// recurrence; null for any other.
const llvm::SCEVAddRecExpr *stridedAddress(llvm::Instruction &I,
                                           const llvm::Loop &L,
                                           llvm::ScalarEvolution &SE) {
  auto *GEP = llvm::dyn_cast_or_null<llvm::GetElementPtrInst>(
      llvm::getLoadStorePointerOperand(&I));
  if (!GEP || !L.contains(GEP))
    return nullptr;
  bool Multiplies = false;
  for (llvm::Value *Index : GEP->indices())
    Multiplies = Multiplies || multipliesCounter(Index, L, SE, 0);
  if (!Multiplies)
    return nullptr;
  auto *AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(SE.getSCEV(GEP));
  if (!AR || AR->getLoop() != &L || !AR->isAffine())
    return nullptr;
  const llvm::SCEV *Step = AR->getStepRecurrence(SE);
  if (llvm::isa<llvm::SCEVConstant>(Step) || !SE.isLoopInvariant(Step, &L))
    return nullptr;
  return AR;
}

/// Values of L's first iteration, computed before L (valueOnEntry).
struct EntryValues {
  /// Each instruction of L copied so far, and its copy, in the order made.
  llvm::DenseMap<llvm::Value *, llvm::Value *> Copied;
  llvm::SmallVector<std::pair<llvm::Value *, llvm::Instruction *>, 8> Copies;

  /// Erases the copies made since Mark, the latest first (a start that
  /// could not be computed leaves nothing behind).
  void rollBack(size_t Mark) {
    while (Copies.size() > Mark) {
      auto [Original, Copy] = Copies.pop_back_val();
      Copied.erase(Original);
      Copy->eraseFromParent();
    }
  }
};

/// V's value in L's first iteration, computed before L: V's instructions
/// in L copied to the preheader with the header's phis taken at their
/// values from it. Null when V depends on anything else in L (another phi,
/// a load, a call, a division).
llvm::Value *valueOnEntry(llvm::Value *V, const llvm::Loop &L,
                          EntryValues &Entry, unsigned Depth) {
  auto *I = llvm::dyn_cast<llvm::Instruction>(V);
  if (!I || !L.contains(I))
    return V;
  if (llvm::Value *Known = Entry.Copied.lookup(I))
    return Known;
  llvm::BasicBlock *Preheader = L.getLoopPreheader();
  if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(I))
    return Phi->getParent() == L.getHeader()
               ? Phi->getIncomingValueForBlock(Preheader)
               : nullptr;
  if (Depth == 8 ||
      !(llvm::isa<llvm::BinaryOperator>(I) || llvm::isa<llvm::CastInst>(I) ||
        llvm::isa<llvm::GetElementPtrInst>(I)))
    return nullptr;
  switch (I->getOpcode()) {
  case llvm::Instruction::UDiv:
  case llvm::Instruction::SDiv:
  case llvm::Instruction::URem:
  case llvm::Instruction::SRem:
    return nullptr; // may trap where the loop would not have run it
  default:
    break;
  }
  llvm::SmallVector<llvm::Value *, 4> Operands;
  for (llvm::Value *Operand : I->operands()) {
    Operands.push_back(valueOnEntry(Operand, L, Entry, Depth + 1));
    if (!Operands.back())
      return nullptr;
  }
  llvm::Instruction *Copy = I->clone();
  for (unsigned N = 0; N < Operands.size(); ++N)
    Copy->setOperand(N, Operands[N]);
  // Evaluated before the loop, also where it runs no iteration.
  Copy->dropPoisonGeneratingFlags();
  Copy->dropPoisonGeneratingMetadata();
  Copy->setName(I->getName() + ".qd.entry");
  Copy->insertBefore(Preheader->getTerminator());
  Entry.Copied[I] = Copy;
  Entry.Copies.push_back({I, Copy});
  return Copy;
}

bool rewriteLoop(llvm::Loop &L, llvm::ScalarEvolution &SE,
                 const llvm::DataLayout &DL) {
  // The pointer starts in the preheader and steps at the one latch.
  llvm::BasicBlock *Preheader = L.getLoopPreheader();
  llvm::BasicBlock *Latch = L.getLoopLatch();
  if (!Preheader || !Latch)
    return false;
  llvm::SmallVector<
      std::pair<llvm::Instruction *, const llvm::SCEVAddRecExpr *>, 8>
      Accesses;
  for (llvm::BasicBlock *BB : L.blocks())
    for (llvm::Instruction &I : *BB)
      if (const llvm::SCEVAddRecExpr *AR = stridedAddress(I, L, SE))
        Accesses.push_back({&I, AR});
  if (Accesses.empty())
    return false;
  llvm::SCEVExpander Expander(SE, DL, "qd.stride");
  EntryValues Entry;
  // One pointer for each address, however many accesses use it.
  llvm::DenseMap<const llvm::SCEV *, llvm::PHINode *> Pointers;
  llvm::SmallVector<llvm::WeakTrackingVH, 8> Old;
  for (auto [Access, AR] : Accesses) {
    llvm::Value *Address = llvm::getLoadStorePointerOperand(Access);
    llvm::PHINode *&Pointer = Pointers[AR];
    if (!Pointer) {
      const llvm::SCEV *Step = AR->getStepRecurrence(SE);
      if (Pointers.size() > MaxStridedPointersPerLoop ||
          !Expander.isSafeToExpandAt(Step, Preheader->getTerminator())) {
        Pointers.erase(AR);
        continue;
      }
      size_t Mark = Entry.Copies.size();
      llvm::Value *Start = valueOnEntry(Address, L, Entry, 0);
      if (!Start) {
        Entry.rollBack(Mark);
        Pointers.erase(AR);
        continue;
      }
      llvm::Value *StepValue = Expander.expandCodeFor(
          Step, Step->getType(), Preheader->getTerminator());
      llvm::IRBuilder<> B(&*L.getHeader()->getFirstInsertionPt());
      Pointer =
          B.CreatePHI(Address->getType(), 2, Address->getName() + ".qd.stride");
      B.SetInsertPoint(Latch->getTerminator());
      llvm::Value *Next =
          B.CreatePtrAdd(Pointer, StepValue, Address->getName() + ".qd.next");
      for (llvm::BasicBlock *Pred : llvm::predecessors(L.getHeader()))
        Pointer->addIncoming(Pred == Latch ? Next : Start, Pred);
    }
    Access->replaceUsesOfWith(Address, Pointer);
    Old.push_back(Address);
  }
  llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(Old);
  return !Pointers.empty();
}

class StridedAddressesPass : public llvm::PassInfoMixin<StridedAddressesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM) {
    if (F.isDeclaration() ||
        !llvm::Triple(F.getParent()->getTargetTriple()).isNVPTX())
      return llvm::PreservedAnalyses::all();
    llvm::LoopInfo &LI = FAM.getResult<llvm::LoopAnalysis>(F);
    if (LI.empty())
      return llvm::PreservedAnalyses::all();
    bool Changed = rewriteStridedAddresses(
        F, LI, FAM.getResult<llvm::ScalarEvolutionAnalysis>(F));
    if (!Changed)
      return llvm::PreservedAnalyses::all();
    // New instructions and phis; no new blocks or edges.
    llvm::PreservedAnalyses PA;
    PA.preserveSet<llvm::CFGAnalyses>();
    PA.preserve<llvm::LoopAnalysis>();
    return PA;
  }
};

} // namespace

bool qdc::codegen::rewriteStridedAddresses(llvm::Function &F,
                                           llvm::LoopInfo &LI,
                                           llvm::ScalarEvolution &SE) {
  bool Changed = false;
  for (llvm::Loop *L : LI.getLoopsInPreorder())
    if (L->isInnermost())
      Changed |= rewriteLoop(*L, SE, F.getParent()->getDataLayout());
  return Changed;
}

void qdc::codegen::addStridedAddresses(llvm::PassBuilder &PB) {
  PB.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager &FPM, llvm::OptimizationLevel) {
        FPM.addPass(StridedAddressesPass());
      });
}
