//===- PassRegistry.cpp - The KIR pass pipeline ---------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;

static const PassInfo PassTable[] = {
#define QDC_PASS(NAME, FUNCTION, DESCRIPTION)                                  \
  {NAME, FUNCTION, DESCRIPTION, false},
#define QDC_CODEGEN_PASS(NAME, FUNCTION, DESCRIPTION)                          \
  {NAME, FUNCTION, DESCRIPTION, true},
#include "qdc/Transforms/Passes.def"
};

llvm::ArrayRef<PassInfo> qdc::getPasses() { return PassTable; }

const PassInfo *qdc::findPass(llvm::StringRef Name) {
  for (const PassInfo &P : PassTable)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

void qdc::runPipeline(kir::Module &M, DiagEngine &Diags,
                      llvm::StringRef StopAfter, bool ForCodeGen) {
  for (const PassInfo &P : PassTable) {
    if (P.ForCodeGen && !ForCodeGen)
      continue;
    P.Run(M, Diags);
    if (P.Name == StopAfter)
      return;
  }
}
