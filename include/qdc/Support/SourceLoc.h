//===- SourceLoc.h - A file/line/column position ----------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernel IR keeps positions as plain file/line/column so it
// needs no Clang types; the frontend maps them back to Clang locations when it
// prints a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_SUPPORT_SOURCELOC_H
#define QDC_SUPPORT_SOURCELOC_H

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace qdc {

/// A position in a source file. Line and column are 1-based; a default
/// constructed location is invalid.
struct SourceLoc {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;

  bool isValid() const { return Line != 0; }
  bool operator==(const SourceLoc &O) const {
    return Line == O.Line && Column == O.Column && File == O.File;
  }
  bool operator!=(const SourceLoc &O) const { return !(*this == O); }
};

/// Prints `file:line:col` (`<unknown>` for an invalid location).
llvm::raw_ostream &operator<<(llvm::raw_ostream &OS, const SourceLoc &Loc);

} // namespace qdc

#endif // QDC_SUPPORT_SOURCELOC_H
