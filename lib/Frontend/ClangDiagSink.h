//===- ClangDiagSink.h - qdc diagnostics through Clang's engine -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Maps a qdc Diagnostic (file/line/column) back to a Clang
// SourceLocation and reports it through the DiagnosticsEngine with a custom
// ID, so it is printed like any Clang diagnostic: location, message, source
// line, caret, colour on a terminal.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_FRONTEND_CLANGDIAGSINK_H
#define QDC_LIB_FRONTEND_CLANGDIAGSINK_H

#include "qdc/Support/Diagnostic.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace qdc {

class ClangDiagSink : public DiagSink {
public:
  explicit ClangDiagSink(clang::DiagnosticsEngine &Engine) : Engine(Engine) {}

  /// Set once the source manager exists; locations are invalid before that.
  void setSourceManager(clang::SourceManager *SM) { this->SM = SM; }

  void handle(const Diagnostic &D) override;

private:
  clang::SourceLocation translate(const SourceLoc &Loc);
  unsigned getCustomID(const Diagnostic &D);

  clang::DiagnosticsEngine &Engine;
  clang::SourceManager *SM = nullptr;
  llvm::StringMap<clang::OptionalFileEntryRef> Files;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> CustomIDs;
};

} // namespace qdc

#endif // QDC_LIB_FRONTEND_CLANGDIAGSINK_H
