//===- Output.h - Location-less errors, files a run writes ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every file a run writes goes through one OutputSet: the
// outputs are checked against the input and each other before any work,
// then written to temporaries beside their targets and renamed into place
// together, only when every one is ready. A failure or a signal leaves each
// existing output as it was and no temporary behind. Outputs that are not
// regular files (/dev/null, a FIFO) are written directly, as clang does.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_OUTPUT_H
#define QDC_LIB_DRIVER_OUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace qdc {

/// Prints `qdc: error: <Msg>` and returns the exit code for it, 1.
int reportError(const llvm::Twine &Msg);

/// An error when an output names the input or another output ("-", the
/// standard output, may appear once). Outputs are (option, path) pairs; the
/// option names the output in the message ("-o", "-H", "-MF").
llvm::Error
checkOutputPaths(llvm::StringRef Input,
                 llvm::ArrayRef<std::pair<std::string, std::string>> Outputs);

/// Whether two outputs A and B would be one file: "-" only as "-", a
/// device (/dev/null) never (it takes any number of writers).
bool namesSameFile(llvm::StringRef A, llvm::StringRef B);

/// Whether Path exists and is not a regular file or folder (a device, a
/// FIFO): written in place, never replaced.
bool isSpecialFile(llvm::StringRef Path);

class OutputSet {
public:
  /// Path gets Contents at commit(); "-" is the standard output.
  void add(std::string Path, std::string Contents) {
    Files.push_back({std::move(Path), std::move(Contents)});
  }

  /// Writes every file; returns 0, or 1 after reporting why not (and then
  /// no existing regular output has changed).
  int commit();

private:
  std::vector<std::pair<std::string, std::string>> Files;
};

} // namespace qdc

#endif // QDC_LIB_DRIVER_OUTPUT_H
