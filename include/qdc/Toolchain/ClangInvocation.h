//===- ClangInvocation.h - Clang invocations from command lines -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one place that turns a Clang command line (from
// Toolchain) into a compiler invocation, the way the clang driver does, and
// that sets up diagnostics printed to stderr as clang prints them. The
// frontend and code generation both use it. Clang types are only declared
// here.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TOOLCHAIN_CLANGINVOCATION_H
#define QDC_TOOLCHAIN_CLANGINVOCATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace clang {
class CompilerInvocation;
class DiagnosticsEngine;
} // namespace clang

namespace qdc {

/// A diagnostics engine that prints to stderr as clang does, in colour when
/// stderr is a terminal.
llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> createStderrDiagnostics();

/// Clang's count of what it printed, "1 warning and 2 errors generated"
/// (without the closing "." or " when compiling for ..."); empty when both
/// are 0.
std::string formatDiagnosticCounts(unsigned Warnings, unsigned Errors);

/// For -v: prints `qdc: <What> with: <Args...>` to stderr.
void echoCommand(llvm::StringRef What, llvm::ArrayRef<std::string> Args);

/// Prints Args to stderr each in double quotes on one line, as clang's
/// -### does.
void printQuotedCommand(llvm::ArrayRef<std::string> Args);

/// The compile job the clang driver makes of Args (argv[0] first), as an
/// invocation; null when the arguments are not one compile (the reasons are
/// printed through Diags).
std::shared_ptr<clang::CompilerInvocation>
createCompilerInvocation(llvm::ArrayRef<std::string> Args,
                         clang::DiagnosticsEngine &Diags);

} // namespace qdc

#endif // QDC_TOOLCHAIN_CLANGINVOCATION_H
