//===- Emitter.cpp - Helpers for writing generated C++ --------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include <algorithm>
#include <cstdio>

using namespace qdc;
using namespace qdc::codegen;

/// Path as a string literal for a #line directive: a backslash, a quote
/// and a control character (a folder's name may hold a newline) escaped.
static std::string quoteForLine(llvm::StringRef Path) {
  return "\"" + codegen::escapeForLiteral(Path) + "\"";
}

std::string codegen::escapeForLiteral(llvm::StringRef Text) {
  std::string Out;
  for (char C : Text) {
    unsigned char U = static_cast<unsigned char>(C);
    if (C == '\\' || C == '"') {
      Out += '\\';
      Out += C;
    } else if (U < 0x20 || U == 0x7f) {
      char Octal[5];
      std::snprintf(Octal, sizeof(Octal), "\\%03o", U);
      Out += Octal;
    } else {
      Out += C;
    }
  }
  return Out;
}

SourceText::SourceText(llvm::StringRef Text, llvm::StringRef Path)
    : Text(Text), QuotedPath(quoteForLine(Path)) {
  LineStarts.push_back(0);
  for (unsigned I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

unsigned SourceText::getLine(unsigned Offset) const {
  return std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset) -
         LineStarts.begin();
}

unsigned SourceText::getColumn(unsigned Offset) const {
  return Offset - LineStarts[getLine(Offset) - 1] + 1;
}

std::string SourceText::fileStart() const {
  return "#line 1 " + QuotedPath + "\n";
}

std::string SourceText::lineDirective(unsigned Offset) const {
  return "\n#line " + std::to_string(getLine(Offset)) + " " + QuotedPath +
         "\n" + std::string(getColumn(Offset) - 1, ' ');
}

/// Text without the spaces and comments at its start.
static llvm::StringRef skipSpaceAndComments(llvm::StringRef Text) {
  while (true) {
    Text = Text.ltrim();
    if (Text.starts_with("//"))
      Text = Text.drop_until([](char C) { return C == '\n'; });
    else if (size_t End = Text.find("*/", 2); Text.starts_with("/*"))
      Text = End == llvm::StringRef::npos ? "" : Text.drop_front(End + 2);
    else
      return Text;
  }
}

llvm::StringRef SourceText::terminator(kir::TextRange R) const {
  llvm::StringRef Stmt = slice(R).rtrim();
  if (Stmt.ends_with(";"))
    return "";
  // A block (`{...}`, a loop or `if` ending in one) needs none, and one more
  // would be an empty statement at the user's line; `x = T{1}` needs the
  // `;` that follows it in the .qd.
  if (Stmt.ends_with("}") &&
      !skipSpaceAndComments(Text.substr(R.End)).starts_with(";"))
    return "";
  return ";";
}

std::string SourceText::snippet(kir::TextRange R) const {
  return lineDirective(R.Begin) + slice(R).str() + terminator(R).str() + "\n";
}

std::string codegen::getStringLiteral(llvm::StringRef Data) {
  std::string Out = "\"";
  unsigned Column = 0;
  for (unsigned char C : Data) {
    if (C == '\n') {
      Out += "\\n\"\n\"";
      Column = 0;
      continue;
    }
    if (C == '\\' || C == '"') {
      Out += '\\';
      Out += char(C);
    } else if (C >= 0x20 && C < 0x7f && C != '?') {
      Out += char(C);
    } else {
      char Buf[8];
      snprintf(Buf, sizeof(Buf), "\\%03o", C);
      Out += Buf;
    }
    if (++Column > 120) {
      Out += "\"\n\"";
      Column = 0;
    }
  }
  return Out + "\"";
}

std::string codegen::getTripCount(const kir::Task &Tk) {
  std::string Out;
  for (size_t D = 0; D < Tk.Extents.size(); ++D)
    Out += (D ? " * " : "") + ("qd::detail::trip(" + Tk.Extents[D].Begin.Text +
                               ", " + Tk.Extents[D].End.Text + ")");
  return Out;
}
