//===- Diagnostic.h - Diagnostics with a source location --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Passes and the frontend report problems through a DiagEngine
// with an ID from Diagnostics.def. The engine applies -Werror/-w and counts
// errors; a DiagSink decides how a diagnostic is shown (the frontend's sink
// prints it the way Clang does, tests collect it).
//
//===----------------------------------------------------------------------===//

#ifndef QDC_SUPPORT_DIAGNOSTIC_H
#define QDC_SUPPORT_DIAGNOSTIC_H

#include "qdc/Support/SourceLoc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace qdc {

enum class DiagID : unsigned {
#define QDC_DIAG(ID, LEVEL, FORMAT) ID,
#include "qdc/Support/Diagnostics.def"
  NumDiags
};

enum class DiagLevel { Ignored, Note, Warning, Error };

/// The level a diagnostic has before -Werror / -w are applied.
DiagLevel getDefaultLevel(DiagID ID);
/// The diagnostic's format string, with %0, %1... placeholders.
llvm::StringRef getFormat(DiagID ID);
/// The diagnostic's name in the table, e.g. "err_sp_nested".
llvm::StringRef getName(DiagID ID);
/// "error", "warning" or "note".
llvm::StringRef getLevelName(DiagLevel Level);
/// Substitutes %0, %1... in Format with Args.
std::string formatMessage(llvm::StringRef Format,
                          llvm::ArrayRef<std::string> Args);

struct Diagnostic {
  DiagID ID;
  DiagLevel Level;
  SourceLoc Loc;
  llvm::SmallVector<std::string, 3> Args;

  std::string getMessage() const { return formatMessage(getFormat(ID), Args); }
};

/// Where diagnostics go once the engine has given them their final level.
class DiagSink {
public:
  virtual ~DiagSink();
  virtual void handle(const Diagnostic &D) = 0;
};

/// Keeps every diagnostic; used by tests and by anything that wants to
/// inspect diagnostics instead of printing them.
class CollectingDiagSink : public DiagSink {
public:
  void handle(const Diagnostic &D) override { Diags.push_back(D); }
  std::vector<Diagnostic> Diags;
};

class DiagEngine;

/// Collects a diagnostic's arguments; reports it when destroyed.
class DiagBuilder {
public:
  DiagBuilder(DiagEngine &Engine, DiagID ID, SourceLoc Loc);
  DiagBuilder(const DiagBuilder &) = delete;
  DiagBuilder &operator=(const DiagBuilder &) = delete;
  ~DiagBuilder();

  DiagBuilder &operator<<(llvm::StringRef Arg);
  DiagBuilder &operator<<(const char *Arg) {
    return *this << llvm::StringRef(Arg);
  }
  DiagBuilder &operator<<(const std::string &Arg) {
    return *this << llvm::StringRef(Arg);
  }
  DiagBuilder &operator<<(int64_t Arg);

private:
  DiagEngine &Engine;
  Diagnostic Diag;
};

class DiagEngine {
public:
  explicit DiagEngine(DiagSink &Sink) : Sink(Sink) {}

  /// -Werror: warnings become errors.
  void setWarningsAsErrors(bool V) { WarningsAsErrors = V; }
  /// -w: warnings (and their notes) are dropped.
  void setIgnoreWarnings(bool V) { IgnoreWarnings = V; }
  /// -Wno-<name>: that warning is dropped.
  void setWarningEnabled(DiagID ID, bool V) {
    if (V)
      llvm::erase(Disabled, ID);
    else
      Disabled.push_back(ID);
  }
  /// -Werror=<name> (true), -Wno-error=<name> (false): whether that
  /// warning is an error, whatever -Werror says.
  void setWarningAsError(DiagID ID, bool V) {
    ErrorOverrides.emplace_back(ID, V);
  }

  DiagBuilder report(DiagID ID, const SourceLoc &Loc) {
    return DiagBuilder(*this, ID, Loc);
  }

  /// Holds diagnostics back until flush(), which sorts them; otherwise
  /// each goes to the sink when reported.
  void setSourceOrder(bool V) { SourceOrder = V; }
  /// Sends what was reported since the last flush to the sink, in source
  /// order (files in the order they were first named, then line and
  /// column; a note stays after the diagnostic it belongs to), as clang
  /// prints: qdc's passes report rule by rule, not line by line.
  void flush();
  ~DiagEngine() { flush(); }

  unsigned getNumErrors() const { return NumErrors; }
  unsigned getNumWarnings() const { return NumWarnings; }
  bool hasErrors() const { return NumErrors != 0; }

private:
  friend class DiagBuilder;
  void emit(Diagnostic D);

  DiagSink &Sink;
  std::vector<Diagnostic> Pending;
  std::vector<DiagID> Disabled;
  /// In the order given: the last one for an ID counts.
  std::vector<std::pair<DiagID, bool>> ErrorOverrides;
  bool SourceOrder = false;
  bool WarningsAsErrors = false;
  bool IgnoreWarnings = false;
  bool LastWasIgnored = false;
  unsigned NumErrors = 0;
  unsigned NumWarnings = 0;
};

} // namespace qdc

#endif // QDC_SUPPORT_DIAGNOSTIC_H
