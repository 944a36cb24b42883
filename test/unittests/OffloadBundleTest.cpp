//===- OffloadBundleTest.cpp - qdc's bundles, read by Clang's bundler -----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The offload bundles an object embeds for AMD GPUs are read back by
// Clang's own OffloadBundler (what clang-offload-bundler runs): it finds
// every entry and gives back each code object's bytes.
//
//===----------------------------------------------------------------------===//

#include "qdc/Target/OffloadBundle.h"

#include "clang/Driver/OffloadBundler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace qdc;

namespace {

/// A file removed when the test ends.
struct ScratchFile {
  llvm::SmallString<128> Path;
  explicit ScratchFile(const char *Ext) {
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("qdc-bundle", Ext, Path));
  }
  ~ScratchFile() { llvm::sys::fs::remove(Path); }
  std::string read() const {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    return Buffer ? (*Buffer)->getBuffer().str() : "<unreadable>";
  }
};

TEST(OffloadBundleTest, ClangsBundlerUnbundlesEachCodeObject) {
  // Code objects of odd sizes, with NULs, so that padding and lengths show.
  std::string A(5000, '\0'), B = "\x7f"
                                 "ELF second";
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = static_cast<char>(I * 7 + 1);
  std::vector<std::string> Ids = {getHostBundleEntryId(),
                                  getHipBundleEntryId("gfx90a"),
                                  getHipBundleEntryId("gfx942")};
  std::string Bundle =
      makeOffloadBundle({{Ids[0], ""}, {Ids[1], A}, {Ids[2], B}});
  ScratchFile In("hipfb");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In.Path, EC);
    ASSERT_FALSE(EC);
    OS << Bundle;
  }
  ScratchFile Host("o"), OutA("hsaco"), OutB("hsaco");
  clang::OffloadBundlerConfig Config;
  Config.FilesType = "o";
  Config.TargetNames = Ids;
  Config.InputFileNames = {std::string(In.Path)};
  Config.OutputFileNames = {std::string(Host.Path), std::string(OutA.Path),
                            std::string(OutB.Path)};
  Config.HostInputIndex = 0;
  llvm::Error E = clang::OffloadBundler(Config).UnbundleFiles();
  ASSERT_FALSE(E) << llvm::toString(std::move(E));
  EXPECT_EQ(OutA.read(), A);
  EXPECT_EQ(OutB.read(), B);
  EXPECT_EQ(Host.read(), "");
}

TEST(OffloadBundleTest, CodeObjectsStartOnPages) {
  std::string Bundle = makeOffloadBundle(
      {{getHostBundleEntryId(), ""}, {getHipBundleEntryId("gfx90a"), "abc"}});
  EXPECT_EQ(Bundle.rfind("__CLANG_OFFLOAD_BUNDLE__", 0), 0u);
  ASSERT_EQ(Bundle.size(), 4096u + 3);
  EXPECT_EQ(Bundle.substr(4096), "abc");
}

TEST(OffloadBundleTest, EntryIdsAreClangs) {
  EXPECT_EQ(getHipBundleEntryId("gfx90a"), "hipv4-amdgcn-amd-amdhsa--gfx90a");
  // <kind>-<arch>-<vendor>-<os>-<environment>-<target ID>, parsed as
  // Clang parses it.
  clang::OffloadBundlerConfig Config;
  std::string Id = getHipBundleEntryId("gfx942");
  clang::OffloadTargetInfo Info(Id, Config);
  EXPECT_EQ(Info.OffloadKind, "hipv4");
  EXPECT_TRUE(Info.Triple.isAMDGCN());
  EXPECT_TRUE(Info.isOffloadKindValid() && Info.isTripleValid());
  EXPECT_EQ(Info.TargetID, "gfx942");
  EXPECT_EQ(getHostBundleEntryId().rfind("host-", 0), 0u);
}

} // namespace
