//===- Generate.h - From KIR to the requested outputs -----------*- C++ -*-===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_GENERATE_H
#define QDC_LIB_DRIVER_GENERATE_H

#include "qdc/Driver/Options.h"
#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"

#include <string>
#include <vector>

namespace qdc {

/// Produces what Opts.Emit asks for from a checked module (not the KIR and
/// stream-plan dumps). Dependencies lists every file the input read, for
/// the depfile. Returns the exit code.
int generateOutputs(const DriverOptions &Opts, const kir::Module &M,
                    DiagEngine &Diags, const std::string &PreludeDir,
                    const std::vector<std::string> &Dependencies);

} // namespace qdc

#endif // QDC_LIB_DRIVER_GENERATE_H
