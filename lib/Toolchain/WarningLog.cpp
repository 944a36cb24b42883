//===- WarningLog.cpp - Each warning about the user's code once -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "qdc/Toolchain/WarningLog.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

#include "llvm/Support/raw_ostream.h"

using namespace qdc;

bool WarningLog::insert(unsigned Compile, llvm::StringRef File, unsigned Line,
                        unsigned Column, unsigned ID) {
  auto [It, New] =
      Printed.try_emplace({File.str(), Line, ID}, Entry{Compile, {Column}});
  if (New)
    return true;
  return It->second.Compile == Compile &&
         It->second.Columns.insert(Column).second;
}

namespace {

using Entry = DeferredWarnings::Entry;

/// What the filter needs to know of a diagnostic (not a note).
Entry classify(clang::DiagnosticsEngine::Level Level,
               const clang::Diagnostic &Info, WarningFilter Filter,
               llvm::StringRef GeneratedFile) {
  Entry E;
  E.IsWarning = Level == clang::DiagnosticsEngine::Warning;
  E.IsError = Level >= clang::DiagnosticsEngine::Error;
  // An error always shows: the compile stops on it, and the user must see
  // why (a warning made an error by -Werror included).
  if (Level != clang::DiagnosticsEngine::Warning &&
      Level != clang::DiagnosticsEngine::Remark)
    return E;
  clang::PresumedLoc Where;
  if (Info.hasSourceManager() && Info.getLocation().isValid())
    Where = Info.getSourceManager().getPresumedLoc(Info.getLocation());
  if (Where.isInvalid()) {
    E.Where = Entry::Unlocated;
    return E;
  }
  E.File = Where.getFilename();
  if (Filter == WarningFilter::UserCodeOnce &&
      (E.File == GeneratedFile || llvm::StringRef(E.File).starts_with("<"))) {
    E.Where = Entry::Generated;
    return E;
  }
  E.Where = Entry::UserCode;
  E.Line = Where.getLine();
  E.Column = Where.getColumn();
  E.ID = Info.getID();
  return E;
}

/// Whether E is printed as compile Compile of Log; recorded in Log if so.
bool decide(const Entry &E, WarningLog &Log, unsigned Compile,
            WarningFilter Filter) {
  switch (E.Where) {
  case Entry::Error:
    return true;
  case Entry::Unlocated:
    return Filter == WarningFilter::None;
  case Entry::Generated:
    return false;
  case Entry::UserCode:
    return Log.insert(Compile, E.File, E.Line, E.Column, E.ID) ||
           Filter == WarningFilter::None;
  }
  return true;
}

class WarningLogPrinter : public clang::DiagnosticConsumer {
public:
  WarningLogPrinter(clang::DiagnosticOptions &Opts, WarningLog &Log,
                    WarningFilter Filter, llvm::StringRef GeneratedFile)
      : Printer(llvm::errs(), &Opts), Log(Log), Filter(Filter),
        GeneratedFile(GeneratedFile), Compile(Log.beginCompile()) {}

  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override {
    Printer.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Printer.EndSourceFile(); }
  void finish() override { Printer.finish(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    if (Level == clang::DiagnosticsEngine::Ignored)
      return;
    // A note belongs to the diagnostic before it.
    if (Level != clang::DiagnosticsEngine::Note)
      Shown = decide(classify(Level, Info, Filter, GeneratedFile), Log, Compile,
                     Filter);
    if (!Shown)
      return;
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Printer.HandleDiagnostic(Level, Info);
  }

private:
  clang::TextDiagnosticPrinter Printer;
  WarningLog &Log;
  WarningFilter Filter;
  std::string GeneratedFile;
  unsigned Compile;
  bool Shown = false;
};

/// Formats every diagnostic into its entry; the filter runs at replay.
class DeferredRecorder : public clang::DiagnosticConsumer {
public:
  DeferredRecorder(clang::DiagnosticOptions &Opts, std::vector<Entry> &Entries,
                   WarningFilter Filter, llvm::StringRef GeneratedFile)
      : Stream(Text), Printer(Stream, &Opts), Entries(Entries), Filter(Filter),
        GeneratedFile(GeneratedFile) {}

  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override {
    Printer.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Printer.EndSourceFile(); }
  void finish() override {
    Printer.finish();
    flush();
  }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    if (Level == clang::DiagnosticsEngine::Ignored)
      return;
    if (Level != clang::DiagnosticsEngine::Note) {
      flush();
      Entries.push_back(classify(Level, Info, Filter, GeneratedFile));
    } else if (Entries.empty()) {
      return; // a note of nothing
    }
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Printer.HandleDiagnostic(Level, Info);
  }

private:
  /// What was printed since the last entry began belongs to it.
  void flush() {
    Stream.flush();
    if (!Entries.empty())
      Entries.back().Text += Text;
    Text.clear();
  }

  std::string Text;
  llvm::raw_string_ostream Stream;
  clang::TextDiagnosticPrinter Printer;
  std::vector<Entry> &Entries;
  WarningFilter Filter;
  std::string GeneratedFile;
};

} // namespace

std::unique_ptr<clang::DiagnosticConsumer>
qdc::createWarningLogPrinter(clang::DiagnosticOptions &Opts, WarningLog &Log,
                             WarningFilter Filter,
                             llvm::StringRef GeneratedFile) {
  return std::make_unique<WarningLogPrinter>(Opts, Log, Filter, GeneratedFile);
}

DeferredWarnings::DeferredWarnings() = default;
DeferredWarnings::~DeferredWarnings() = default;

std::unique_ptr<clang::DiagnosticConsumer>
DeferredWarnings::createRecorder(clang::DiagnosticOptions &Opts,
                                 WarningFilter Filter,
                                 llvm::StringRef GeneratedFile) {
  this->Filter = Filter;
  return std::make_unique<DeferredRecorder>(Opts, Entries, Filter,
                                            GeneratedFile);
}

std::pair<unsigned, unsigned> DeferredWarnings::replay(WarningLog &Log,
                                                       llvm::raw_ostream &OS) {
  unsigned Compile = Log.beginCompile();
  unsigned Warnings = 0, Errors = 0;
  for (const Entry &E : Entries) {
    if (!decide(E, Log, Compile, Filter))
      continue;
    OS << E.Text;
    Warnings += E.IsWarning;
    Errors += E.IsError;
  }
  OS.flush();
  Entries.clear();
  return {Warnings, Errors};
}
