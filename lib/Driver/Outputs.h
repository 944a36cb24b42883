//===- Outputs.h - Writing what code generation produced --------*- C++ -*-===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_OUTPUTS_H
#define QDC_LIB_DRIVER_OUTPUTS_H

#include "qdc/Driver/Options.h"
#include "qdc/KIR/Kernel.h"
#include "qdc/Toolchain/Toolchain.h"

#include <string>
#include <vector>

namespace qdc {

/// Runs code generation as far as Opts.Emit needs and writes what it asks
/// for (not the KIR and stream-plan dumps). Dependencies lists every file
/// the input read, for the depfile. Returns the exit code.
int writeOutputs(const DriverOptions &Opts, const kir::Module &M,
                 const Toolchain &Tools,
                 const std::vector<std::string> &Dependencies);

} // namespace qdc

#endif // QDC_LIB_DRIVER_OUTPUTS_H
