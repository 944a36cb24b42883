//===- LLVMWorkarounds.cpp - Known LLVM miscompiles kept away -------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LLVMWorkarounds.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"

using namespace qdc::codegen;

namespace {
/// An LLVM option set to a value, and the bug that needs it.
struct Workaround {
  const char *Option;
  const char *Value;
  const char *Why;
};

const Workaround Workarounds[] = {
    // llvm-project#156849: the loop vectorizer's interleave groups over a
    // masked induction variable load the wrong lanes
    // (`A[i] = A[i] * 3 + B[(i * 7) % 2048]` over 1024 iterations gives 7
    // wrong elements at -O2 and -O3). Fusing tasks makes such loops common.
    {"enable-interleaved-mem-accesses", "false", "llvm-project#156849"},
};
} // namespace

void qdc::codegen::applyLLVMWorkarounds() {
  llvm::StringMap<llvm::cl::Option *> &Options =
      llvm::cl::getRegisteredOptions();
  for (const Workaround &W : Workarounds) {
    auto It = Options.find(W.Option);
    // An option this LLVM does not have is a bug it does not have either.
    if (It == Options.end())
      continue;
    It->second->addOccurrence(0, W.Option, W.Value);
  }
}
