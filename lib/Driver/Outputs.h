//===- Outputs.h - Writing what code generation produced --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_OUTPUTS_H
#define QDC_LIB_DRIVER_OUTPUTS_H

#include "Output.h"

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/Driver/Options.h"
#include "qdc/KIR/Kernel.h"
#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include <string>
#include <vector>

namespace qdc {

/// The files a run writes; an empty path is not written.
struct OutputPaths {
  std::string Main;    ///< the object or the --emit text ("-": stdout)
  std::string Header;  ///< with the object
  std::string Python;  ///< --emit-python, with the object
  std::string Depfile; ///< -MD
  /// (option, path) of each file, for checkOutputPaths.
  std::vector<std::pair<std::string, std::string>> list() const;
};

/// Where Opts sends each output; an error when it cannot say (an object to
/// standard output, a depfile with no name).
llvm::Expected<OutputPaths> getOutputPaths(const DriverOptions &Opts);

/// What a producer of OutputKinds.def makes its text from: A is null for
/// the kernel-IR dumps (isDump), which need no code generation; a producer
/// may move its text out of A.
struct OutputRequest {
  const DriverOptions &Opts;
  const kir::Module &M;
  Artifacts *A = nullptr;
};

/// Whether --emit=K prints the kernel IR before code generation.
bool isDump(EmitKind K);
/// The text of --emit=R.Opts.Emit (for the object, the object).
std::string produceOutput(const OutputRequest &R);

/// A Make rule for Target naming Deps (the input first); with Phony (-MP)
/// also an empty rule for each header.
std::string makeDepfile(const std::string &Target,
                        const std::vector<std::string> &Deps, bool Phony);

/// Adds the depfile, when asked for, to Set: a Make rule for the main
/// output (or -MT) naming every file in Dependencies.
void addDepfile(OutputSet &Set, const DriverOptions &Opts,
                const OutputPaths &Paths,
                const std::vector<std::string> &Dependencies);

/// The launcher's host compile of a -fsyntax-only check or an object,
/// begun before the parse (beginHostCompile), or null; InputBytes is the
/// .qd's size. The calls below take it.
std::unique_ptr<EarlyHostCompile>
beginEarlyHostCompile(const DriverOptions &Opts, const Toolchain &Tools,
                      WarningLog &Warnings, size_t InputBytes);

/// -fsyntax-only after the parse and the passes: the compiles of the
/// generated code, each as clang -fsyntax-only, so that it reports what the
/// whole compile would. Returns the exit code.
int checkGeneratedCode(const DriverOptions &Opts, const kir::Module &M,
                       const Toolchain &Tools, WarningLog &Warnings,
                       EarlyHostCompile *EarlyHost = nullptr);

/// Runs code generation as far as Opts.Emit needs and writes what it asks
/// for (not the KIR and stream-plan dumps) to Paths. Dependencies lists
/// every file the input read, for the depfile; Warnings, the warnings the
/// parse printed. Returns the exit code.
int writeOutputs(const DriverOptions &Opts, const OutputPaths &Paths,
                 const kir::Module &M, const Toolchain &Tools,
                 const std::vector<std::string> &Dependencies,
                 WarningLog &Warnings, EarlyHostCompile *EarlyHost = nullptr);

} // namespace qdc

#endif // QDC_LIB_DRIVER_OUTPUTS_H
