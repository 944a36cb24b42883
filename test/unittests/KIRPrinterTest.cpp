//===- KIRPrinterTest.cpp - Textual forms of the kernel IR ----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "KIRBuilders.h"

#include "qdc/KIR/Printer.h"
#include "qdc/Transforms/Passes.h"

#include "gtest/gtest.h"

using namespace qdc;
using namespace qdc::kir;
using qdc::test::KernelBuilder;

namespace {

Module twoGroupModule() {
  Module M;
  M.SourceFile = "t.qd";
  Field F;
  F.Name = "a";
  F.Elem = ScalarType::F32;
  F.Shape = {64, 32};
  F.Loc = {"t.qd", 2, 24};
  M.Fields.push_back(F);
  KernelBuilder KB("k");
  Stmt B1 = KB.block(4);
  B1.Body.push_back(KB.loop(5, "i", "N"));
  Stmt B2 = KB.block(7);
  B2.Body.push_back(KB.config(8, 128));
  B2.Body.push_back(KB.loop(9, "j", "N"));
  Kernel K = KB.take({B1, B2});
  Param P;
  P.Name = "x";
  P.Kind = ParamKind::Ndarray;
  P.Elem = ScalarType::F64;
  P.Dims = 2;
  K.Params.push_back(P);
  M.Kernels.push_back(K);
  CollectingDiagSink Sink;
  DiagEngine Diags(Sink);
  runPipeline(M, Diags);
  return M;
}

std::string print(void (*Fn)(const Module &, llvm::raw_ostream &),
                  const Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  Fn(M, OS);
  return OS.str();
}

TEST(KIRPrinterTest, ScalarTypeNames) {
  EXPECT_EQ(getScalarTypeName(ScalarType::Bool), "bool");
  EXPECT_EQ(getScalarTypeName(ScalarType::U64), "u64");
  EXPECT_EQ(getScalarTypeName(ScalarType::F32), "f32");
  EXPECT_EQ(getTaskKindName(TaskKind::NdRange), "ndrange");
}

TEST(KIRPrinterTest, ModuleDump) {
  std::string Out = print(printModule, twoGroupModule());
  EXPECT_EQ(Out, "module 't.qd'\n"
                 "field a: f32[64][32]  ; 2:24\n"
                 "kernel k(x: ndarray<f64, 2>) groups=2 tasks=2  ; 1:16\n"
                 "  stmt 0: stream-parallel group=1  ; 4:3\n"
                 "    stmt 1: range-loop i in [0, N)  ; 5:3\n"
                 "  stmt 2: stream-parallel group=2  ; 7:3\n"
                 "    stmt 3: loop-config block_dim=128  ; 8:3\n"
                 "    stmt 4: range-loop j in [0, N)  ; 9:3\n"
                 "  task k_t0: range i in [0, N) block_dim=default group=1 "
                 "stmts=1  ; 5:3\n"
                 "  task k_t1: range j in [0, N) block_dim=128 group=2 "
                 "stmts=4  ; 9:3\n");
}

TEST(KIRPrinterTest, DumpIsDeterministic) {
  EXPECT_EQ(print(printModule, twoGroupModule()),
            print(printModule, twoGroupModule()));
  EXPECT_EQ(print(printStreamPlanDot, twoGroupModule()),
            print(printStreamPlanDot, twoGroupModule()));
}

TEST(KIRPrinterTest, BoundShowsConstantValueWhenTextDiffers) {
  Extent E{{"0", 0}, {"N", 1024}};
  std::string S;
  llvm::raw_string_ostream OS(S);
  printExtent(E, OS);
  EXPECT_EQ(OS.str(), "[0, N=1024)");
}

TEST(KIRPrinterTest, StreamPlanShowsForkGroupsJoin) {
  std::string Out = print(printStreamPlan, twoGroupModule());
  EXPECT_EQ(Out, "kernel k: 2 groups run concurrently, 2 tasks\n"
                 "  fork: record an event on the launch stream; the stream "
                 "of each group waits on it\n"
                 "  group 1 on stream 1:\n"
                 "    k_t0: range i in [0, N) (line 5)\n"
                 "  group 2 on stream 2:\n"
                 "    k_t1: range j in [0, N) block_dim=128 (line 9)\n"
                 "  join: the launch stream waits on 2 events, one per "
                 "group\n");
}

TEST(KIRPrinterTest, StreamPlanDotHasClusterPerGroupAndEdges) {
  std::string Out = print(printStreamPlanDot, twoGroupModule());
  EXPECT_NE(Out.find("subgraph \"cluster_k_g1\""), std::string::npos);
  EXPECT_NE(Out.find("subgraph \"cluster_k_g2\""), std::string::npos);
  EXPECT_NE(Out.find("\"k.launch\" -> \"k.k_t0\";"), std::string::npos);
  EXPECT_NE(Out.find("\"k.k_t1\" -> \"k.done\";"), std::string::npos);
  EXPECT_EQ(Out.substr(0, 20), "digraph stream_plan ");
}

} // namespace
