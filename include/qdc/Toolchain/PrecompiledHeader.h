//===- PrecompiledHeader.h - Headers parsed once ----------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The headers every compile of a kind starts with (qd/qd.h for the parse,
// the launcher's runtime headers for the host code) are parsed once per
// command line into a precompiled header in the compile cache folder
// (--cache-dir), and later compiles load it instead.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TOOLCHAIN_PRECOMPILEDHEADER_H
#define QDC_TOOLCHAIN_PRECOMPILEDHEADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace qdc {

/// Builds the header HeaderPath into OutPath with the command line Args
/// (clang's driver first, then -x Language, no input); fills Read with every
/// file the build read. Returns whether it succeeded.
using PchBuilder = llvm::function_ref<bool(
    const std::vector<std::string> &Args, const std::string &HeaderPath,
    const std::string &OutPath, std::vector<std::string> &Read)>;

/// The precompiled header of HeaderText for the command line Args (without
/// its input) in Dir, built by Build when there is none yet: one per
/// command line without its -I folders (Name tells the kinds apart) and per
/// Clang (whose format is its own). Empty when none can be used: it could
/// not be built, or an -I folder holds a file that an #include of one of
/// its files could find instead. A header whose files changed since it was
/// built is built again. Files, when given, receives the files it was built
/// from (for dependency lists and the compile cache). Language is the
/// header's -x ("cuda" for a GPU's device compile).
std::string getPrecompiledHeader(llvm::StringRef Dir, llvm::StringRef Name,
                                 llvm::ArrayRef<std::string> Args,
                                 llvm::StringRef HeaderText, PchBuilder Build,
                                 std::vector<std::string> *Files = nullptr,
                                 llvm::StringRef Language = "c++-header");

/// Forgets the precompiled header at Path (a compile with it failed where
/// the same compile without it did not): the next compile builds it again.
void discardPrecompiledHeader(llvm::StringRef Path);

} // namespace qdc

#endif // QDC_TOOLCHAIN_PRECOMPILEDHEADER_H
