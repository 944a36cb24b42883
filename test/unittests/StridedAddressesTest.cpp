//===- StridedAddressesTest.cpp - Pointer steps for strided loads ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// lib/CodeGen/StridedAddresses on hand-written IR: a counter stepping by one
// times a run-time extent becomes a pointer phi; other steps, constant
// strides, starts that need a division and a fifth array are left as they
// are.
//
//===----------------------------------------------------------------------===//

#include "StridedAddresses.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

#include "gtest/gtest.h"

#include <string>

using namespace qdc::codegen;

namespace {

/// A module of one function @f: a loop over k in [0, %n) stepping by
/// Step (from %n - 1 down when Step is negative), summing loads at the
/// addresses Body computes (it defines %v).
std::string loopModule(int Step, const std::string &Body) {
  bool Down = Step < 0;
  return R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define float @f(ptr %a, ptr %b, ptr %c, ptr %d, ptr %e, i64 %n, i64 %j,
                i64 %q) {
entry:
  %top = add nsw i64 %n, -1
  %some = icmp sgt i64 %n, 0
  br i1 %some, label %pre, label %exit
pre:
  br label %loop
loop:
  %k = phi i64 [ )" +
         std::string(Down ? "%top" : "0") + R"(, %pre ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %pre ], [ %acc.next, %loop ]
)" + Body +
         R"(
  %acc.next = fadd float %acc, %v
  %k.next = add nsw i64 %k, )" +
         std::to_string(Step) + R"(
  %done = icmp )" +
         std::string(Down ? "slt i64 %k.next, 0" : "sge i64 %k.next, %n") + R"(
  br i1 %done, label %last, label %loop
last:
  br label %exit
exit:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %last ]
  ret float %r
}
)";
}

/// The body of @f's loop that reads b(k, j) of rows of Row elements.
std::string walk(const std::string &Row) {
  return "  %row = mul nsw i64 %k, " + Row + R"(
  %idx = add nsw i64 %row, %j
  %p = getelementptr float, ptr %b, i64 %idx
  %v = load float, ptr %p
)";
}

struct Rewrite {
  llvm::LLVMContext C;
  std::unique_ptr<llvm::Module> M;
  bool Changed = false;

  explicit Rewrite(const std::string &IR) {
    llvm::SMDiagnostic Error;
    M = llvm::parseAssemblyString(IR, Error, C);
    EXPECT_TRUE(M) << Error.getMessage().str();
    if (!M)
      return;
    llvm::Function &F = *M->getFunction("f");
    llvm::TargetLibraryInfoImpl TLII{llvm::Triple(M->getTargetTriple())};
    llvm::TargetLibraryInfo TLI(TLII);
    llvm::AssumptionCache AC(F);
    llvm::DominatorTree DT(F);
    llvm::LoopInfo LI(DT);
    llvm::ScalarEvolution SE(F, TLI, AC, DT, LI);
    Changed = rewriteStridedAddresses(F, LI, SE);
    EXPECT_FALSE(llvm::verifyModule(*M, &llvm::errs()));
  }

  llvm::BasicBlock &block(llvm::StringRef Name) {
    for (llvm::BasicBlock &BB : *M->getFunction("f"))
      if (BB.getName() == Name)
        return BB;
    ADD_FAILURE() << "no block " << Name.str();
    return M->getFunction("f")->front();
  }
  /// The loop's loads whose address is a phi of the loop.
  unsigned steppedLoads() {
    unsigned N = 0;
    for (llvm::Instruction &I : block("loop"))
      if (auto *Load = llvm::dyn_cast<llvm::LoadInst>(&I))
        if (auto *Phi =
                llvm::dyn_cast<llvm::PHINode>(Load->getPointerOperand()))
          N += Phi->getParent() == &block("loop");
    return N;
  }
  unsigned multipliesInLoop() {
    unsigned N = 0;
    for (llvm::Instruction &I : block("loop"))
      N += I.getOpcode() == llvm::Instruction::Mul;
    return N;
  }
};

TEST(StridedAddressesTest, AColumnWalkStepsAPointer) {
  Rewrite R(loopModule(1, walk("%n")));
  EXPECT_TRUE(R.Changed);
  EXPECT_EQ(R.steppedLoads(), 1u);
  EXPECT_EQ(R.multipliesInLoop(), 0u);
  // The start is the first iteration's address, computed in the preheader.
  unsigned InPreheader = 0;
  for (llvm::Instruction &I : R.block("pre"))
    InPreheader += llvm::isa<llvm::GetElementPtrInst>(I);
  EXPECT_EQ(InPreheader, 1u);
}

TEST(StridedAddressesTest, ABackwardWalkStepsAPointerToo) {
  Rewrite R(loopModule(-1, walk("%n")));
  EXPECT_TRUE(R.Changed);
  EXPECT_EQ(R.steppedLoads(), 1u);
  EXPECT_EQ(R.multipliesInLoop(), 0u);
}

TEST(StridedAddressesTest, ACounterSteppingByATileIsLeftAlone) {
  // qdc's tile loops step by the tile's height: a few iterations a thread.
  Rewrite R(loopModule(8, walk("%n")));
  EXPECT_FALSE(R.Changed);
  EXPECT_EQ(R.multipliesInLoop(), 1u);
}

TEST(StridedAddressesTest, AConstantStrideIsLeftToLLVM) {
  Rewrite R(loopModule(1, walk("16")));
  EXPECT_FALSE(R.Changed);
  EXPECT_EQ(R.steppedLoads(), 0u);
}

TEST(StridedAddressesTest, AStartThatDividesLeavesNothingBehind) {
  // The column j / q is loop-invariant but computed in the loop: copying
  // the division before the loop could trap where the loop never runs.
  Rewrite R(loopModule(1, R"(
  %col = udiv i64 %j, %q
  %row = mul nsw i64 %k, %n
  %idx = add nsw i64 %row, %col
  %p = getelementptr float, ptr %b, i64 %idx
  %v = load float, ptr %p
)"));
  EXPECT_FALSE(R.Changed);
  EXPECT_EQ(R.multipliesInLoop(), 1u);
  EXPECT_EQ(R.block("pre").size(), 1u); // its branch alone
}

TEST(StridedAddressesTest, AtMostFourPointersALoop) {
  std::string Body;
  const char *Arrays[] = {"a", "b", "c", "d", "e"};
  for (int I = 0; I < 5; ++I) {
    std::string N = std::to_string(I);
    Body += "  %row" + N + " = mul nsw i64 %k, %n\n";
    Body += "  %idx" + N + " = add nsw i64 %row" + N + ", " + N + "\n";
    Body += "  %p" + N + " = getelementptr float, ptr %" + Arrays[I] +
            ", i64 %idx" + N + "\n";
    Body += "  %v" + N + " = load float, ptr %p" + N + "\n";
  }
  Body += "  %s1 = fadd float %v0, %v1\n  %s2 = fadd float %s1, %v2\n"
          "  %s3 = fadd float %s2, %v3\n  %v = fadd float %s3, %v4\n";
  Rewrite R(loopModule(1, Body));
  EXPECT_TRUE(R.Changed);
  EXPECT_EQ(R.steppedLoads(), MaxStridedPointersPerLoop);
}

} // namespace
