//===- Frontend.h - Parse a .qd file into the kernel IR ---------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A FrontendSession parses one .qd file with Clang (the prelude
// <qd/qd.h> included implicitly) and builds its KIR module. The session stays
// alive while later stages run, so that their diagnostics are printed the
// way Clang prints its own: at the source line, with a caret.
//
// This header includes no Clang header.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_FRONTEND_FRONTEND_H
#define QDC_FRONTEND_FRONTEND_H

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"
#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qdc {

struct FrontendOptions {
  std::string InputFile;
  /// The input's contents, read once by the caller (the file may be a FIFO).
  std::string InputText;
  /// Whether the rules of device code apply (no exceptions, no host calls,
  /// no heap...): not when only CPU code is generated.
  bool CheckDeviceCode = true;
  /// Where the prelude is and the Clang arguments to parse with.
  const Toolchain *Tools = nullptr;
};

class FrontendSession {
public:
  explicit FrontendSession(FrontendOptions Opts);
  ~FrontendSession();
  FrontendSession(const FrontendSession &) = delete;
  FrontendSession &operator=(const FrontendSession &) = delete;

  /// Parses the input and builds the module. Returns nothing when the C++ did
  /// not compile or the file could not be read; the reasons have been
  /// printed. Problems the frontend finds in kernel shapes are reported and
  /// the module is still returned, so the passes can report theirs too.
  std::optional<kir::Module> parse();

  /// Diagnostics for later stages, printed as Clang prints its own.
  DiagEngine &getDiags();

  /// The warnings printed so far: the later compiles of the same input
  /// print only new ones (WarningLog.h).
  WarningLog &getWarningLog();

  /// A declaration at global scope that a generated namespace would
  /// collide with.
  struct GlobalDeclaration {
    SourceLoc Loc;
    /// In a system header (the C or C++ library), not the user's code.
    bool InSystemHeader = false;
  };
  /// Where the parse saw a declaration at global scope named Name: anything
  /// but a kernel (the generated code replaces those) or a namespace. None
  /// when there is none, or before a successful parse.
  std::optional<GlobalDeclaration>
  findGlobalDeclaration(llvm::StringRef Name) const;

  /// Errors so far: Clang's and qdc's.
  unsigned getNumErrors() const;
  /// "2 warnings and 1 error generated." as clang ends, or nothing.
  std::string getSummary() const;
  unsigned getNumWarnings() const;

  /// The clang arguments the session parses with (for -v).
  const std::vector<std::string> &getClangArgs() const;

  /// Every file the parse read, the input first, then each included file
  /// (system headers too) in the order first seen.
  std::vector<std::string> getDependencies(bool IncludeSystem = true) const;

private:
  std::optional<kir::Module> parseSource();
  /// With a compile cache folder: the prelude from its precompiled header
  /// instead of its -include.
  void usePreludePch();
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace qdc

#endif // QDC_FRONTEND_FRONTEND_H
