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
      Shown = shouldPrint(Level, Info);
    if (!Shown)
      return;
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Printer.HandleDiagnostic(Level, Info);
  }

private:
  bool shouldPrint(clang::DiagnosticsEngine::Level Level,
                   const clang::Diagnostic &Info) {
    // An error always shows: the compile stops on it, and the user must see
    // why (a warning made an error by -Werror included).
    bool IsWarning = Level == clang::DiagnosticsEngine::Warning ||
                     Level == clang::DiagnosticsEngine::Remark;
    if (!IsWarning)
      return true;
    clang::PresumedLoc Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      Where = Info.getSourceManager().getPresumedLoc(Info.getLocation());
    if (Where.isInvalid())
      return Filter == WarningFilter::None;
    llvm::StringRef File = Where.getFilename();
    if (Filter == WarningFilter::UserCodeOnce &&
        (File == GeneratedFile || File.starts_with("<")))
      return false;
    bool New = Log.insert(Compile, File, Where.getLine(), Where.getColumn(),
                          Info.getID());
    return New || Filter == WarningFilter::None;
  }

  clang::TextDiagnosticPrinter Printer;
  WarningLog &Log;
  WarningFilter Filter;
  std::string GeneratedFile;
  unsigned Compile;
  bool Shown = false;
};

} // namespace

std::unique_ptr<clang::DiagnosticConsumer>
qdc::createWarningLogPrinter(clang::DiagnosticOptions &Opts, WarningLog &Log,
                             WarningFilter Filter,
                             llvm::StringRef GeneratedFile) {
  return std::make_unique<WarningLogPrinter>(Opts, Log, Filter, GeneratedFile);
}
