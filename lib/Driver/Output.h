//===- Output.h - Errors without a location, and atomic outputs -*- C++ -*-===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_OUTPUT_H
#define QDC_LIB_DRIVER_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace qdc {

/// Prints `qdc: error: <Msg>` and returns the exit code for it, 1.
int reportError(const llvm::Twine &Msg);

/// Writes Text to Path ("-": standard output), replacing the file
/// atomically; returns 0, or 1 after reporting why it could not.
int writeOutput(const std::string &Path, llvm::StringRef Text);

} // namespace qdc

#endif // QDC_LIB_DRIVER_OUTPUT_H
