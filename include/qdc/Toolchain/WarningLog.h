//===- WarningLog.h - Each warning about the user's code once ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One .qd is compiled several times: parsed as C++, then its generated
// sources compiled for each device architecture and for the host, every
// time with the user's warning options. The later compiles see the user's
// code again (kernel statements once per task) beside qdc's generated code,
// and find what only they can: code under `#ifdef __CUDA_ARCH__`, back-end
// warnings such as the optimization limit's. The log holds what was printed
// about the user's files; a later compile prints a warning only when it is
// at a line of one of them and was not printed yet. Clang types are only
// declared here.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TOOLCHAIN_WARNINGLOG_H
#define QDC_TOOLCHAIN_WARNINGLOG_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clang {
class DiagnosticConsumer;
class DiagnosticOptions;
} // namespace clang

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace qdc {

class WarningLog {
public:
  /// A new compile (the parse is the first): its warnings are told apart
  /// from those of the compiles before it.
  unsigned beginCompile() { return NumCompiles++; }

  /// Records warning ID printed by compile Compile at File:Line:Column;
  /// false when an earlier compile printed it anywhere on that line, or
  /// this one at that column. Across compiles neither the message nor the
  /// column is compared: a type may be spelled differently in the
  /// generated code (`int64_t` for `std::tuple_element<...>::type`), and a
  /// warning at a generated declaration (the optimization limit's) is at
  /// the column of its name, which differs between the device and host
  /// code of one kernel. Within one compile, two warnings on one line
  /// (`int a = 2.5, b = 3.5;`) are both printed.
  bool insert(unsigned Compile, llvm::StringRef File, unsigned Line,
              unsigned Column, unsigned ID);

private:
  struct Entry {
    unsigned Compile;
    std::set<unsigned> Columns;
  };
  std::map<std::tuple<std::string, unsigned, unsigned>, Entry> Printed;
  unsigned NumCompiles = 0;
};

/// Which diagnostics a WarningLog printer prints.
enum class WarningFilter {
  /// Everything (the parse of the .qd), each warning recorded.
  None,
  /// Errors; a warning or remark (with its notes) only at a line of a file
  /// of the user's (not GeneratedFile, nor a `<...>` name qdc gives its
  /// generated regions) that the log does not hold yet.
  UserCodeOnce,
};

/// A consumer that prints as clang's TextDiagnosticPrinter does, with Opts,
/// what Filter lets through, and records the warnings it prints in Log.
/// Its counts (getNumWarnings, getNumErrors) are of what it printed.
std::unique_ptr<clang::DiagnosticConsumer>
createWarningLogPrinter(clang::DiagnosticOptions &Opts, WarningLog &Log,
                        WarningFilter Filter,
                        llvm::StringRef GeneratedFile = "");

/// The diagnostics of a compile that runs beside others (on another
/// thread): its printer records them, formatted, and replay() prints them
/// later through a WarningLog, as a printer of createWarningLogPrinter
/// would have at that point. What is printed then does not depend on which
/// compile finished first, and the log is only used by one thread.
class DeferredWarnings {
public:
  DeferredWarnings();
  DeferredWarnings(const DeferredWarnings &) = delete;
  DeferredWarnings &operator=(const DeferredWarnings &) = delete;
  ~DeferredWarnings();

  /// A consumer that records into this what a printer of
  /// createWarningLogPrinter(Opts, Log, Filter, GeneratedFile) would
  /// consider printing. It must not outlive this.
  std::unique_ptr<clang::DiagnosticConsumer>
  createRecorder(clang::DiagnosticOptions &Opts, WarningFilter Filter,
                 llvm::StringRef GeneratedFile = "");

  /// Prints to OS, as one compile of Log, what Filter lets through, and
  /// returns how many warnings and errors it printed. Once.
  std::pair<unsigned, unsigned> replay(WarningLog &Log, llvm::raw_ostream &OS);

  /// A diagnostic (with its notes), as the filter sees it.
  struct Entry {
    /// An error (always printed); a warning or remark with no location,
    /// in generated code, or at a line of the user's.
    enum Kind { Error, Unlocated, Generated, UserCode } Where = Error;
    /// What clang counts it as.
    bool IsWarning = false, IsError = false;
    std::string File;
    unsigned Line = 0, Column = 0, ID = 0;
    std::string Text; ///< as printed, notes included
  };

private:
  std::vector<Entry> Entries;
  WarningFilter Filter = WarningFilter::None;
};

} // namespace qdc

#endif // QDC_TOOLCHAIN_WARNINGLOG_H
