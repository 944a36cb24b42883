//===- OffloadTargetTest.cpp - The --offload-arch registry ----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "qdc/Target/OffloadTarget.h"
#include "qdc/KIR/Kernel.h"

#include "qd/abi.h"

#include "gtest/gtest.h"

using namespace qdc;

namespace {

OffloadTarget parseOK(llvm::StringRef Name) {
  llvm::Expected<OffloadTarget> T = OffloadTarget::parse(Name);
  EXPECT_TRUE(bool(T)) << Name.str();
  if (!T) {
    llvm::consumeError(T.takeError());
    return OffloadTarget::getNvidia(8, 0);
  }
  return *T;
}

std::string parseError(llvm::StringRef Name) {
  llvm::Expected<OffloadTarget> T = OffloadTarget::parse(Name);
  if (T)
    return "parsed";
  return llvm::toString(T.takeError());
}

TEST(OffloadTargetTest, NvidiaNamesAndNumbers) {
  OffloadTarget T = parseOK("sm_90a");
  EXPECT_TRUE(T.isNvidia());
  EXPECT_EQ(T.getName(), "sm_90a");
  EXPECT_EQ(T.getSmVersion(), 90u);
  EXPECT_EQ(T.getFeatures(), "a");
  EXPECT_EQ(T.getImageKind(), ImageKind::PTX);
  EXPECT_EQ(T.getVendorName(), "NVIDIA");
  EXPECT_EQ(parseOK("sm_120").getSmVersion(), 120u);
  // nvcc's compute_XX is sm_XX.
  EXPECT_EQ(parseOK("compute_80"), parseOK("sm_80"));
  EXPECT_EQ(OffloadTarget::getNvidia(8, 6).getName(), "sm_86");
}

TEST(OffloadTargetTest, AmdNames) {
  OffloadTarget T = parseOK("gfx90a");
  EXPECT_TRUE(T.isAmd());
  EXPECT_EQ(T.getImageKind(), ImageKind::HSACO);
  EXPECT_EQ(T.getIsaVersion(), "90a");
  EXPECT_TRUE(T.hasWave64());
  EXPECT_TRUE(parseOK("gfx803").hasWave64());
  EXPECT_FALSE(parseOK("gfx1100").hasWave64());
  EXPECT_EQ(T.getPtxTarget(), T);
}

TEST(OffloadTargetTest, RefusedNames) {
  const char *Expected = ": not a GPU architecture (sm_50 or newer for "
                         "NVIDIA, gfxNNN for AMD)";
  for (const char *Bad : {"sm_35", "sm_", "sm_9x", "gfx", "gfx9-a", "native",
                          "none", "SM_80", "80"})
    EXPECT_EQ(parseError(Bad), std::string("--offload-arch=") + Bad + Expected);
  // compute_XX is named as the sm_XX it stands for, as before parsing.
  EXPECT_EQ(parseError("compute_3"),
            std::string("--offload-arch=sm_3") + Expected);
}

TEST(OffloadTargetTest, PtxThroughTheNewestLLVMKnows) {
  EXPECT_EQ(parseOK("sm_80").getPtxTarget().getName(), "sm_80");
  EXPECT_EQ(parseOK("sm_90a").getPtxTarget().getName(), "sm_90a");
  EXPECT_EQ(parseOK("sm_100").getPtxTarget().getName(), "sm_90");
  EXPECT_EQ(parseOK("sm_120a").getPtxTarget().getName(), "sm_90");
}

TEST(OffloadTargetTest, ImageKindsAreTheABIs) {
  EXPECT_EQ(static_cast<int>(ImageKind::PTX), QDRT_IMAGE_PTX);
  EXPECT_EQ(static_cast<int>(ImageKind::Cubin), QDRT_IMAGE_CUBIN);
  EXPECT_EQ(static_cast<int>(ImageKind::HSACO), QDRT_IMAGE_HSACO);
  EXPECT_EQ(static_cast<int>(ImageKind::Fatbin), QDRT_IMAGE_FATBIN);
  EXPECT_EQ(getImageKindExtension(ImageKind::Fatbin), "fatbin");
  EXPECT_EQ(static_cast<int>(ImageKind::OffloadBundle),
            QDRT_IMAGE_OFFLOAD_BUNDLE);
  EXPECT_TRUE(isPackageImage(ImageKind::OffloadBundle));
  EXPECT_EQ(getImageKindSection(ImageKind::Fatbin), ".nv_fatbin");
  EXPECT_EQ(getImageKindAlignment(ImageKind::OffloadBundle), 4096u);
  EXPECT_FALSE(isPackageImage(ImageKind::HSACO));
  EXPECT_EQ(getImageKindConstant(ImageKind::Cubin), "QDRT_IMAGE_CUBIN");
  EXPECT_EQ(getImageKindExtension(ImageKind::HSACO), "hsaco");
  EXPECT_TRUE(isTextImage(ImageKind::PTX));
  EXPECT_FALSE(isTextImage(ImageKind::Cubin));
  EXPECT_TRUE(hasVendor({parseOK("sm_80"), parseOK("gfx90a")}, Vendor::AMD));
  EXPECT_FALSE(hasVendor({parseOK("sm_80")}, Vendor::AMD));
}

TEST(OffloadTargetTest, SpellingsOfAVendor) {
  EXPECT_TRUE(OffloadTarget::isSpelledAs(Vendor::NVIDIA, "sm_100f"));
  EXPECT_FALSE(OffloadTarget::isSpelledAs(Vendor::NVIDIA, "compute_100"));
  EXPECT_FALSE(OffloadTarget::isSpelledAs(Vendor::NVIDIA, "gfx90a"));
  EXPECT_TRUE(OffloadTarget::isSpelledAs(Vendor::AMD, "gfx90a"));
  EXPECT_EQ(OffloadTarget::getSpelledNumber(Vendor::NVIDIA, "sm_100f"), 100u);
  EXPECT_EQ(OffloadTarget::getSpelledNumber(Vendor::NVIDIA, "sm_90a"), 90u);
  EXPECT_EQ(OffloadTarget::getSpelledNumber(Vendor::NVIDIA, "sm_"), 0u);
  EXPECT_EQ(OffloadTarget::getSpelledNumber(Vendor::NVIDIA, "gfx90a"), 0u);
}

// The number the runtime picks images by (qdrt_image::arch_number).
TEST(OffloadTargetTest, ArchNumbersForTheImageTable) {
  EXPECT_EQ(parseOK("sm_90a").getArchNumber(), 90u);
  EXPECT_EQ(parseOK("sm_120").getArchNumber(), 120u);
  EXPECT_EQ(parseOK("compute_75").getArchNumber(), 75u);
  EXPECT_EQ(parseOK("gfx90a").getArchNumber(), 0x90au);
  EXPECT_EQ(parseOK("gfx1100").getArchNumber(), 0x1100u);
}

TEST(OffloadTargetTest, LoopDepthIsTheRuntimes) {
  EXPECT_EQ(kir::MaxGraphLoopDepth, unsigned(QDRT_MAX_LOOP_DEPTH));
}

} // namespace
