//===- Passes.h - The KIR passes and their registry -------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A pass takes the module and the diagnostic engine; checks
// report at the offending location and leave the module usable, so the
// pipeline can go on and report every problem at once.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TRANSFORMS_PASSES_H
#define QDC_TRANSFORMS_PASSES_H

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace qdc {

#define QDC_PASS(NAME, FUNCTION, DESCRIPTION)                                  \
  void FUNCTION(kir::Module &M, DiagEngine &Diags);
#include "qdc/Transforms/Passes.def"

using PassFunction = void (*)(kir::Module &, DiagEngine &);

struct PassInfo {
  llvm::StringRef Name;
  PassFunction Run;
  llvm::StringRef Description;
  bool ForCodeGen; ///< a QDC_CODEGEN_PASS
};

/// Every pass, in pipeline order.
llvm::ArrayRef<PassInfo> getPasses();

/// The pass called Name, or null.
const PassInfo *findPass(llvm::StringRef Name);

/// Runs the pipeline, through StopAfter when it names a pass.
/// Runs every pass in order up to StopAfter (all when empty); the passes
/// code generation needs only when ForCodeGen is set.
void runPipeline(kir::Module &M, DiagEngine &Diags,
                 llvm::StringRef StopAfter = {}, bool ForCodeGen = false);

} // namespace qdc

#endif // QDC_TRANSFORMS_PASSES_H
