//===- OffloadBundle.h - HIP's fat binary, a clang offload bundle -*- C++
//-*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The format clang-offload-bundler writes and the HIP runtime, roc-obj and
// Clang's OffloadBundler read (clang/docs/ClangOffloadBundler.rst): the
// magic string, the number of entries, for each its offset, size and ID,
// then the code objects. An object embeds one for its AMD GPU images.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TARGET_OFFLOADBUNDLE_H
#define QDC_TARGET_OFFLOADBUNDLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>

namespace qdc {

/// The bundle entry ID of HIP code for the AMD GPU Arch ("gfx90a"):
/// `hipv4-amdgcn-amd-amdhsa--gfx90a`.
std::string getHipBundleEntryId(llvm::StringRef Arch);

/// The ID of the empty host entry a bundle starts with:
/// `host-<this machine's triple>`.
std::string getHostBundleEntryId();

/// A bundle of Entries (ID, contents) in order, as clang's HIP toolchain
/// makes one: each entry at a multiple of Align bytes (clang's
/// -bundle-align=4096 for HIP), zeros between.
std::string makeOffloadBundle(
    llvm::ArrayRef<std::pair<std::string, llvm::StringRef>> Entries,
    uint64_t Align = 4096);

} // namespace qdc

#endif // QDC_TARGET_OFFLOADBUNDLE_H
