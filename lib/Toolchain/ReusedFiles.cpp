//===- ReusedFiles.cpp - Whether files read before still hold -------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "qdc/Toolchain/ReusedFiles.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

std::string qdc::getFileStamp(llvm::StringRef Path) {
  llvm::sys::fs::file_status St;
  if (Path.empty() || llvm::sys::fs::status(Path, St))
    return "";
  return std::to_string(St.getSize()) + " " +
         std::to_string(
             St.getLastModificationTime().time_since_epoch().count()) +
         " " + Path.str();
}

bool qdc::mayShadowIncludes(llvm::ArrayRef<std::string> Dirs,
                            llvm::ArrayRef<std::string> Files) {
  namespace fs = llvm::sys::fs;
  for (const std::string &File : Files) {
    llvm::SmallVector<llvm::StringRef, 8> Parts;
    llvm::StringRef(File).split(Parts, '/', -1, /*KeepEmpty=*/false);
    std::string Tail;
    for (size_t N = 1; N <= 4 && N <= Parts.size(); ++N) {
      Tail = Parts[Parts.size() - N].str() + (Tail.empty() ? "" : "/" + Tail);
      for (const std::string &Dir : Dirs) {
        std::string Candidate = Dir + "/" + Tail;
        bool Same = false;
        if (fs::exists(Candidate) &&
            (fs::equivalent(Candidate, File, Same) || !Same))
          return true;
      }
    }
  }
  return false;
}
