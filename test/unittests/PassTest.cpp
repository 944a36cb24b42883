//===- PassTest.cpp - KIR passes on hand-built modules --------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each pass without Clang: build a small module, run the pass,
// look at the module and the diagnostics.
//
//===----------------------------------------------------------------------===//

#include "KIRBuilders.h"

#include "qdc/KIR/Verifier.h"
#include "qdc/Transforms/Passes.h"

#include "gtest/gtest.h"

using namespace qdc;
using namespace qdc::kir;
using qdc::test::KernelBuilder;

namespace {

struct PassTest : ::testing::Test {
  CollectingDiagSink Sink;
  DiagEngine Diags{Sink};
  Module M;

  std::vector<DiagID> ids() const {
    std::vector<DiagID> Out;
    for (const Diagnostic &D : Sink.Diags)
      Out.push_back(D.ID);
    return Out;
  }
};

/// Three groups: block 1 with one loop, block 2 with two, block 3 with one.
Kernel threeGroups() {
  KernelBuilder KB("k");
  Stmt B1 = KB.block(2);
  B1.Body.push_back(KB.loop(3, "i", "N"));
  Stmt B2 = KB.block(5);
  B2.Body.push_back(KB.loop(6, "j", "N"));
  B2.Body.push_back(KB.loop(7, "j", "N"));
  Stmt B3 = KB.block(9);
  B3.Body.push_back(KB.loop(10, "k", "N"));
  return KB.take({B1, B2, B3});
}

TEST_F(PassTest, RegistryMatchesPipelineOrder) {
  ASSERT_FALSE(getPasses().empty());
  // The analysis the rules and form-tasks read runs first.
  EXPECT_EQ(getPasses().front().Name, "analyze-locals");
  EXPECT_NE(findPass("assign-groups"), nullptr);
  EXPECT_EQ(findPass("no-such-pass"), nullptr);
  // form-tasks must run before the check that reads tasks.
  auto Index = [](llvm::StringRef Name) {
    auto Passes = getPasses();
    for (size_t I = 0; I < Passes.size(); ++I)
      if (Passes[I].Name == Name)
        return I;
    return Passes.size();
  };
  EXPECT_LT(Index("assign-groups"), Index("form-tasks"));
  EXPECT_LT(Index("form-tasks"), Index("assign-kernel-scalars"));
  EXPECT_LT(Index("analyze-locals"), Index("form-tasks"));
  // Code generation's own rules come last and are marked as such.
  EXPECT_TRUE(getPasses().back().ForCodeGen);
  EXPECT_FALSE(getPasses().front().ForCodeGen);
}

TEST_F(PassTest, AssignGroupsNumbersBlocksInSourceOrder) {
  M.Kernels.push_back(threeGroups());
  assignGroups(M, Diags);
  const Kernel &K = M.Kernels[0];
  EXPECT_EQ(K.NumGroups, 3u);
  EXPECT_EQ(K.Body[0].Group, 1u);
  EXPECT_EQ(K.Body[1].Group, 2u);
  EXPECT_EQ(K.Body[2].Group, 3u);
  EXPECT_TRUE(Sink.Diags.empty());
}

TEST_F(PassTest, FormTasksGivesOneTaskPerLoopInGroupOrder) {
  M.Kernels.push_back(threeGroups());
  runPipeline(M, Diags);
  const Kernel &K = M.Kernels[0];
  ASSERT_EQ(K.Tasks.size(), 4u);
  EXPECT_EQ(K.Tasks[0].Group, 1u);
  EXPECT_EQ(K.Tasks[1].Group, 2u);
  EXPECT_EQ(K.Tasks[2].Group, 2u);
  EXPECT_EQ(K.Tasks[3].Group, 3u);
  EXPECT_EQ(K.Tasks[2].Name, "k_t2");
  EXPECT_EQ(K.Tasks[2].Loc.Line, 7u);
  EXPECT_TRUE(Sink.Diags.empty());
  EXPECT_FALSE(static_cast<bool>(verifyModule(M)));
}

TEST_F(PassTest, FormTasksMergesConsecutiveSerialStatements) {
  KernelBuilder KB("k");
  M.Kernels.push_back(KB.take(
      {KB.serial(2), KB.serial(3), KB.loop(4, "i", "n"), KB.serial(5)}));
  formTasks(M, Diags);
  const Kernel &K = M.Kernels[0];
  ASSERT_EQ(K.Tasks.size(), 3u);
  EXPECT_EQ(K.Tasks[0].Kind, TaskKind::Serial);
  EXPECT_EQ(K.Tasks[0].StmtIds, (llvm::SmallVector<unsigned, 2>{0, 1}));
  EXPECT_EQ(K.Tasks[1].Kind, TaskKind::Range);
  EXPECT_EQ(K.Tasks[2].Kind, TaskKind::Serial);
  EXPECT_EQ(K.Tasks[2].StmtIds, (llvm::SmallVector<unsigned, 2>{3}));
}

TEST_F(PassTest, AnalyzeLocalsFollowsWritesAndDependencies) {
  KernelBuilder KB("k");
  // int a = n; (written later)   int b = a + 1;   const int c = n; (read)
  Stmt A = KB.local(2, "a", /*Shareable=*/true);
  A.Vars[0].Written = true;
  Stmt B = KB.local(3, "b", /*Shareable=*/true);
  B.Vars[0].Deps.push_back({A.Id, 0});
  Stmt C = KB.local(4, "c", /*Shareable=*/true);
  C.Vars[0].Const = true;
  C.Vars[0].Written = true;
  // One statement declaring a shareable and a non-recomputable variable.
  Stmt D = KB.local(5, "d, e", /*Shareable=*/true);
  D.Vars.push_back({});
  D.Vars[1].Name = "e";
  M.Kernels.push_back(KB.take({A, B, C, D}));
  ASSERT_NE(findPass("analyze-locals"), nullptr);
  findPass("analyze-locals")->Run(M, Diags);
  const std::vector<Stmt> &Body = M.Kernels[0].Body;
  EXPECT_FALSE(Body[0].Shareable) << "written and not const";
  EXPECT_FALSE(Body[1].Shareable) << "reads a local that is not shareable";
  EXPECT_TRUE(Body[2].Shareable) << "const: a write is a compile error";
  EXPECT_FALSE(Body[3].Shareable) << "one of its variables is not";
  EXPECT_TRUE(Sink.Diags.empty());
}

TEST_F(PassTest, ShareableLocalsAreRecomputedNotTasks) {
  KernelBuilder KB("k");
  Stmt L = KB.local(2, "m", /*Shareable=*/true);
  Stmt Loop = KB.loop(3, "i", "m");
  L.Uses.push_back({Loop.Id, {"t.qd", 3, 26}});
  M.Kernels.push_back(KB.take({L, Loop}));
  runPipeline(M, Diags);
  const Kernel &K = M.Kernels[0];
  ASSERT_EQ(K.Tasks.size(), 1u);
  EXPECT_EQ(K.RecomputedLocals, (llvm::SmallVector<unsigned, 2>{0}));
  EXPECT_TRUE(Sink.Diags.empty());
}

TEST_F(PassTest, LocalUsedByLaterTaskIsAKernelScalar) {
  KernelBuilder KB("k");
  Stmt L = KB.local(2, "t", /*Shareable=*/false);
  L.Vars[0].Type = "float";
  Stmt Loop = KB.loop(3, "i", "n");
  L.Uses.push_back({Loop.Id, {"t.qd", 3, 30}});
  M.Kernels.push_back(KB.take({L, Loop}));
  runPipeline(M, Diags);
  EXPECT_TRUE(Sink.Diags.empty());
  const Kernel &K = M.Kernels[0];
  ASSERT_EQ(K.Scalars.size(), 1u);
  EXPECT_EQ(K.Scalars[0], (std::pair<unsigned, unsigned>{0, 0}));
  EXPECT_TRUE(K.Body[0].Vars[0].Scalar);
}

TEST_F(PassTest, LocalThatCannotBeStoredIsAnError) {
  KernelBuilder KB("k");
  Stmt L = KB.local(2, "t", /*Shareable=*/false);
  L.Vars[0].NotStorable = "it is a reference";
  Stmt Loop = KB.loop(3, "i", "n");
  L.Uses.push_back({Loop.Id, {"t.qd", 3, 30}});
  M.Kernels.push_back(KB.take({L, Loop}));
  runPipeline(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::err_scalar_not_storable,
                                        DiagID::note_shared_local_use}));
  EXPECT_EQ(Sink.Diags[1].Loc.Column, 30u);
}

TEST_F(PassTest, LocalUsedInItsOwnSerialTaskIsFine) {
  KernelBuilder KB("k");
  Stmt L = KB.local(2, "t", /*Shareable=*/false);
  Stmt Use = KB.serial(3);
  L.Uses.push_back({Use.Id, {"t.qd", 3, 10}});
  M.Kernels.push_back(KB.take({L, Use}));
  runPipeline(M, Diags);
  EXPECT_TRUE(Sink.Diags.empty());
  ASSERT_EQ(M.Kernels[0].Tasks.size(), 1u);
}

TEST_F(PassTest, ExclusivityNamesFirstOffendingStatement) {
  KernelBuilder KB("k");
  Stmt B = KB.block(3);
  B.Body.push_back(KB.loop(4, "i", "n"));
  M.Kernels.push_back(KB.take({B, KB.serial(6), KB.loop(7, "i", "n")}));
  checkExclusivity(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::err_sp_exclusive,
                                        DiagID::note_sp_first_block}));
  EXPECT_EQ(Sink.Diags[0].Loc.Line, 6u);
  EXPECT_EQ(Sink.Diags[1].Loc.Line, 3u);
}

TEST_F(PassTest, NestingReportsInnerBlockAndEnclosingOne) {
  KernelBuilder KB("k");
  Stmt Outer = KB.block(2);
  Stmt Inner = KB.block(3);
  Inner.Body.push_back(KB.loop(4, "i", "n"));
  Outer.Body.push_back(Inner);
  M.Kernels.push_back(KB.take({Outer}));
  checkNesting(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::err_sp_nested,
                                        DiagID::note_sp_enclosing_block}));
  EXPECT_EQ(Sink.Diags[0].Loc.Line, 3u);
  EXPECT_EQ(Sink.Diags[1].Loc.Line, 2u);
}

TEST_F(PassTest, EmptyBlockIsAWarningAndStillAGroup) {
  KernelBuilder KB("k");
  Stmt B1 = KB.block(2);
  Stmt B2 = KB.block(3);
  B2.Body.push_back(KB.loop(4, "i", "n"));
  M.Kernels.push_back(KB.take({B1, B2}));
  runPipeline(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::warn_sp_empty}));
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_EQ(M.Kernels[0].NumGroups, 2u);
  ASSERT_EQ(M.Kernels[0].Tasks.size(), 1u);
  EXPECT_EQ(M.Kernels[0].Tasks[0].Group, 2u);
}

TEST_F(PassTest, LoopConfigSetsNextLoopOrIsAnError) {
  KernelBuilder KB("k");
  M.Kernels.push_back(KB.take({KB.config(2, 128), KB.loop(3, "i", "n"),
                               KB.config(4, 64), KB.serial(5)}));
  attachLoopConfig(M, Diags);
  EXPECT_EQ(M.Kernels[0].Body[1].BlockDim, 128u);
  ASSERT_EQ(ids(),
            (std::vector<DiagID>{DiagID::err_loop_config_not_before_loop}));
  EXPECT_EQ(Sink.Diags[0].Loc.Line, 4u);
}

TEST_F(PassTest, KernelSignatureChecks) {
  KernelBuilder KB("k");
  Kernel K = KB.take({});
  K.ReturnsVoid = false;
  K.ReturnType = "int";
  // A scalar return type needs the kernel to end with `return <value>;`.
  Param P;
  P.Name = "p";
  P.Kind = ParamKind::Unsupported;
  P.Spelling = "float *";
  P.Loc = {"t.qd", 1, 24};
  K.Params.push_back(P);
  M.Kernels.push_back(K);
  checkKernelSignature(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::err_kernel_missing_return,
                                        DiagID::err_kernel_param_type}));
  EXPECT_EQ(Sink.Diags[1].getMessage().find("parameter 'p' of kernel 'k' has "
                                            "unsupported type 'float *'"),
            0u);
}

TEST_F(PassTest, BlocksOutsideKernelsAndBelowTopLevel) {
  Function F;
  F.Name = "helper";
  F.StreamParallelBlocks.push_back({"t.qd", 4, 3});
  M.Functions.push_back(F);
  F.Name = "host";
  F.IsDevice = false;
  M.Functions.push_back(F);
  KernelBuilder KB("k");
  Kernel K = KB.take({});
  StrayBlock Stray;
  Stray.Loc = {"t.qd", 9, 5};
  Stray.Context = "a loop";
  K.StrayBlocks.push_back(Stray);
  M.Kernels.push_back(K);
  checkFuncBlocks(M, Diags);
  checkBlockPlacement(M, Diags);
  ASSERT_EQ(ids(), (std::vector<DiagID>{DiagID::err_sp_in_func,
                                        DiagID::err_sp_outside_kernel,
                                        DiagID::err_sp_not_top_level}));
  EXPECT_EQ(Sink.Diags[2].getMessage(),
            "QD_STREAM_PARALLEL block must be a top-level statement of kernel "
            "'k', not inside a loop");
}

TEST_F(PassTest, StopAfterStopsThePipeline) {
  M.Kernels.push_back(threeGroups());
  runPipeline(M, Diags, "assign-groups");
  EXPECT_EQ(M.Kernels[0].NumGroups, 3u);
  EXPECT_TRUE(M.Kernels[0].Tasks.empty());
}

} // namespace
