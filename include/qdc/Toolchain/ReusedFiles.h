//===- ReusedFiles.h - Whether files read before still hold -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What qdc reuses from an earlier compile (the compile cache's outputs, a
// precompiled header) holds only while every #include finds the file it
// found then, unchanged: a changed file is seen by its hash or its stamp
// (getFileStamp), a new file that an earlier search folder now holds by
// mayShadowIncludes.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TOOLCHAIN_REUSEDFILES_H
#define QDC_TOOLCHAIN_REUSEDFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace qdc {

/// A file as installed: "<size> <modification time> <Path>", or empty when
/// it cannot be found.
std::string getFileStamp(llvm::StringRef Path);

/// Whether one of Dirs holds a file that an #include of one of Files could
/// find there instead: a file whose path ends as one of Files does (its last
/// one to four parts, the ways an #include can spell it: `<Dir>/vector`
/// beside `/usr/include/c++/12/vector`) and is not that file.
bool mayShadowIncludes(llvm::ArrayRef<std::string> Dirs,
                       llvm::ArrayRef<std::string> Files);

} // namespace qdc

#endif // QDC_TOOLCHAIN_REUSEDFILES_H
