//===- Emitter.h - Helpers for writing generated C++ ------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What every generator of C++ text shares: copying the .qd's
// own text so that it keeps its line and column (#line plus padding), scoped
// emitters for namespaces and blocks that close what they open (the model is
// LLVM TableGen's NamespaceEmitter), and C++ literals.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_EMITTER_H
#define QDC_LIB_CODEGEN_EMITTER_H

#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace qdc::codegen {

/// The .qd file's text, and the way to copy parts of it into generated code
/// so that a problem in them is reported at the user's line and column.
class SourceText {
public:
  SourceText(llvm::StringRef Text, llvm::StringRef Path);

  /// Bytes R of the .qd.
  llvm::StringRef slice(kir::TextRange R) const {
    return Text.slice(R.Begin, R.End);
  }
  llvm::StringRef getText() const { return Text; }
  /// `#line 1 "<path>"` and a newline: the start of a rewritten .qd.
  std::string fileStart() const;
  /// A newline, a #line directive for Offset, then padding to its column:
  /// the next text starts exactly where it stood in the .qd.
  std::string lineDirective(unsigned Offset) const;
  /// R's text at its own line and column, ended by terminator(R) and a
  /// newline.
  std::string snippet(kir::TextRange R) const;
  /// What ends statement R as the .qd ends it: `;` when its range stops
  /// before its semicolon (an expression statement's does), nothing when it
  /// holds it or ends with a block.
  llvm::StringRef terminator(kir::TextRange R) const;

private:
  unsigned getLine(unsigned Offset) const;
  unsigned getColumn(unsigned Offset) const;

  llvm::StringRef Text;
  std::string QuotedPath;
  std::vector<unsigned> LineStarts;
};

/// Writes Open now and Close when it goes out of scope.
class ScopeEmitter {
public:
  ScopeEmitter(llvm::raw_ostream &OS, std::string Open, std::string Close)
      : OS(OS), Close(std::move(Close)) {
    OS << Open;
  }
  ~ScopeEmitter() { OS << Close; }
  ScopeEmitter(const ScopeEmitter &) = delete;
  ScopeEmitter &operator=(const ScopeEmitter &) = delete;

private:
  llvm::raw_ostream &OS;
  std::string Close;
};

/// `namespace Name {` ... `} // namespace Name`; nothing for an empty Name
/// (the global namespace).
class NamespaceEmitter : public ScopeEmitter {
public:
  NamespaceEmitter(llvm::raw_ostream &OS, llvm::StringRef Name)
      : ScopeEmitter(OS, Name.empty() ? "" : "namespace " + Name.str() + " {\n",
                     Name.empty() ? ""
                                  : "} // namespace " + Name.str() + "\n") {}
};

/// Text for the inside of a C++ string literal (or a one-line comment): a
/// backslash and a quote escaped, a control character as \ooo.
std::string escapeForLiteral(llvm::StringRef Text);

/// A C++ string literal holding Data byte for byte, split into lines.
std::string getStringLiteral(llvm::StringRef Data);

/// The iteration count of Tk's range, from its extents' texts:
/// `qd::detail::trip(b0, e0) * qd::detail::trip(b1, e1) ...`; the one
/// formula of the launchers and the CPU's trip-count functions.
std::string getTripCount(const kir::Task &Tk);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_EMITTER_H
