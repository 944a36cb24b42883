//===- KernelMarksTest.cpp - NVPTX kernels marked by calling convention ---===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// lib/CodeGen/KernelMarks on hand-written IR: each `!"kernel", i32 1` mark
// becomes the PTX_Kernel calling convention, the other keys of an entry
// stay, and an emptied list goes.
//
//===----------------------------------------------------------------------===//

#include "KernelMarks.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace qdc::codegen;

namespace {

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &C, const char *IR) {
  llvm::SMDiagnostic Error;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Error, C);
  EXPECT_TRUE(M) << Error.getMessage().str();
  return M;
}

TEST(KernelMarksTest, KernelMarksBecomeTheCallingConvention) {
  llvm::LLVMContext C;
  auto M = parse(C, R"(
define void @k() { ret void }
define void @bounded() { ret void }
define void @helper() { ret void }
define void @not_kernel() { ret void }
!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @bounded, !"kernel", i32 1, !"maxntidx", i32 256}
!2 = !{ptr @helper, !"align", i32 8}
!3 = !{ptr @not_kernel, !"kernel", i32 0}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(markKernelsByCallingConvention(*M));
  EXPECT_FALSE(llvm::verifyModule(*M, &llvm::errs()));
  EXPECT_EQ(M->getFunction("k")->getCallingConv(),
            llvm::CallingConv::PTX_Kernel);
  EXPECT_EQ(M->getFunction("bounded")->getCallingConv(),
            llvm::CallingConv::PTX_Kernel);
  EXPECT_EQ(M->getFunction("helper")->getCallingConv(), llvm::CallingConv::C);
  EXPECT_EQ(M->getFunction("not_kernel")->getCallingConv(),
            llvm::CallingConv::C);
  // What is not a kernel mark stays: @bounded's bound (without its mark),
  // @helper's alignment, @not_kernel's explicit 0.
  llvm::NamedMDNode *Left = M->getNamedMetadata("nvvm.annotations");
  ASSERT_TRUE(Left);
  ASSERT_EQ(Left->getNumOperands(), 3u);
  llvm::MDNode *Bounded = Left->getOperand(0);
  ASSERT_EQ(Bounded->getNumOperands(), 3u);
  EXPECT_EQ(llvm::cast<llvm::MDString>(Bounded->getOperand(1))->getString(),
            "maxntidx");
  EXPECT_EQ(llvm::cast<llvm::MDString>(Left->getOperand(1)->getOperand(1))
                ->getString(),
            "align");
  EXPECT_EQ(llvm::cast<llvm::MDString>(Left->getOperand(2)->getOperand(1))
                ->getString(),
            "kernel");
}

TEST(KernelMarksTest, AListOfKernelMarksOnlyGoes) {
  llvm::LLVMContext C;
  auto M = parse(C, R"(
define void @a() { ret void }
define void @b() { ret void }
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @a, !"kernel", i32 1}
!1 = !{ptr @b, !"kernel", i32 1}
)");
  ASSERT_TRUE(M);
  EXPECT_TRUE(markKernelsByCallingConvention(*M));
  EXPECT_FALSE(M->getNamedMetadata("nvvm.annotations"));
  EXPECT_EQ(M->getFunction("a")->getCallingConv(),
            llvm::CallingConv::PTX_Kernel);
  EXPECT_EQ(M->getFunction("b")->getCallingConv(),
            llvm::CallingConv::PTX_Kernel);
  // Nothing left to do: the module is left as it is.
  EXPECT_FALSE(markKernelsByCallingConvention(*M));
}

TEST(KernelMarksTest, ModulesWithoutMarksAreLeftAlone) {
  llvm::LLVMContext C;
  auto M = parse(C, R"(
define amdgpu_kernel void @k() { ret void }
)");
  ASSERT_TRUE(M);
  EXPECT_FALSE(markKernelsByCallingConvention(*M));
  EXPECT_EQ(M->getFunction("k")->getCallingConv(),
            llvm::CallingConv::AMDGPU_KERNEL);
}

} // namespace
