//===- Names.cpp - The names generated code uses --------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace qdc;

/// C++20's keywords and alternative tokens: not namespace names.
static bool isKeyword(llvm::StringRef Word) {
  static const char *const Keywords[] = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return llvm::is_contained(Keywords, Word);
}

std::string codegen::names::getNamespace(llvm::StringRef InputFile,
                                         llvm::StringRef Override) {
  if (!Override.empty())
    return Override.str();
  std::string NS = llvm::sys::path::stem(InputFile).str();
  for (char &C : NS)
    if (!llvm::isAlnum(C))
      C = '_';
  // 2mm.qd: an identifier cannot start with a digit, and `_2mm` is
  // reserved at global scope; `qd_2mm` is neither.
  if (NS.empty() || llvm::isDigit(NS[0]))
    NS = "qd_" + NS;
  // class.qd; linux.qd and unix.qd, which GCC's and Clang's GNU dialects
  // (their default) predefine as macros (`namespace 1 {`).
  if (isKeyword(NS) || llvm::is_contained({"linux", "unix", "i386"}, NS))
    NS += "_";
  return NS;
}

llvm::Error codegen::names::checkNamespace(llvm::StringRef Name) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, "::");
  for (llvm::StringRef Part : Parts) {
    std::string Why;
    if (Part.empty())
      Why = "a component is empty";
    else if (!llvm::all_of(
                 Part, [](char C) { return llvm::isAlnum(C) || C == '_'; }) ||
             llvm::isDigit(Part[0]))
      Why = "'" + Part.str() + "' is not an identifier";
    else if (isKeyword(Part))
      Why = "'" + Part.str() + "' is a C++ keyword";
    if (!Why.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--namespace '" + Name + "' is not a C++ namespace name: " + Why);
  }
  return llvm::Error::success();
}

std::string codegen::names::getMangledPrefix(llvm::StringRef Namespace) {
  std::string Prefix = "_ZN";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Namespace.split(Parts, "::");
  for (llvm::StringRef Part : Parts)
    Prefix += std::to_string(Part.size()) + Part.str();
  return Prefix;
}
