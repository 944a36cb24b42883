//===- KIRVerifierTest.cpp - Invariants of a lowered module ---------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "KIRBuilders.h"

#include "qdc/KIR/Verifier.h"

#include "gtest/gtest.h"

using namespace qdc;
using namespace qdc::kir;
using qdc::test::KernelBuilder;

namespace {

Module oneLoop() {
  KernelBuilder KB("k");
  Kernel K = KB.take({KB.loop(2, "i", "n")});
  Task T;
  T.Name = "k_t0";
  T.Kind = TaskKind::Range;
  T.IndexVars = {"i"};
  T.Extents = K.Body[0].Extents;
  T.StmtIds = {0};
  K.Tasks.push_back(T);
  Module M;
  M.Kernels.push_back(K);
  return M;
}

std::string verify(const Module &M) {
  llvm::Error E = verifyModule(M);
  return E ? llvm::toString(std::move(E)) : std::string();
}

TEST(KIRVerifierTest, AcceptsWellFormedModule) {
  EXPECT_EQ(verify(oneLoop()), "");
}

TEST(KIRVerifierTest, RejectsUnknownStatement) {
  Module M = oneLoop();
  M.Kernels[0].Tasks[0].StmtIds = {7};
  EXPECT_NE(verify(M).find("unknown statement 7"), std::string::npos);
}

TEST(KIRVerifierTest, RejectsGroupBeyondCount) {
  Module M = oneLoop();
  M.Kernels[0].Tasks[0].Group = 2;
  M.Kernels[0].NumGroups = 1;
  EXPECT_NE(verify(M).find("group 2 of 1"), std::string::npos);
}

TEST(KIRVerifierTest, RejectsGroupsOutOfOrder) {
  Module M = oneLoop();
  Kernel &K = M.Kernels[0];
  K.NumGroups = 2;
  K.Tasks[0].Group = 2;
  Task Second = K.Tasks[0];
  Second.Name = "k_t1";
  Second.Group = 1;
  K.Tasks.push_back(Second);
  EXPECT_NE(verify(M).find("out of order"), std::string::npos);
}

/// A kernel of two groups with tasks of the given groups, in order.
static Module withGroups(std::initializer_list<unsigned> Groups) {
  Module M = oneLoop();
  Kernel &K = M.Kernels[0];
  K.NumGroups = 2;
  Task First = K.Tasks[0];
  K.Tasks.clear();
  for (unsigned G : Groups) {
    Task T = First;
    T.Name = "k_t" + std::to_string(K.Tasks.size());
    T.Group = G;
    K.Tasks.push_back(T);
  }
  return M;
}

TEST(KIRVerifierTest, AcceptsGroupZeroBeforeTheForkAndAfterTheJoin) {
  Module M = withGroups({0, 1, 2, 0});
  EXPECT_EQ(verify(M), "");
}

TEST(KIRVerifierTest, RejectsGroupZeroBetweenGroups) {
  Module M = withGroups({1, 0, 2});
  EXPECT_NE(verify(M).find("out of order"), std::string::npos);
}

TEST(KIRVerifierTest, RejectsAGroupAfterTheJoin) {
  Module M = withGroups({1, 2, 0, 2});
  EXPECT_NE(verify(M).find("out of order"), std::string::npos);
}

TEST(KIRVerifierTest, RejectsSerialTaskWithRange) {
  Module M = oneLoop();
  M.Kernels[0].Tasks[0].Kind = TaskKind::Serial;
  EXPECT_NE(verify(M).find("serial task 'k_t0' has a range"),
            std::string::npos);
}

TEST(KIRVerifierTest, RejectsDuplicateTaskNames) {
  Module M = oneLoop();
  M.Kernels[0].Tasks.push_back(M.Kernels[0].Tasks[0]);
  EXPECT_NE(verify(M).find("duplicate task name"), std::string::npos);
}

TEST(KIRVerifierTest, FindStmtLooksInsideBlocks) {
  KernelBuilder KB("k");
  Stmt B = KB.block(2);
  B.Body.push_back(KB.loop(3, "i", "n"));
  Kernel K = KB.take({B});
  ASSERT_NE(K.findStmt(1), nullptr);
  EXPECT_EQ(K.findStmt(1)->Loc.Line, 3u);
  EXPECT_EQ(K.findStmt(2), nullptr);
}

} // namespace
