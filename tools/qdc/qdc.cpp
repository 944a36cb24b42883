//===- qdc.cpp - The qdc compiler driver ----------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `qdc [options] <file.qd>`; everything happens in lib/Driver.
//
//===----------------------------------------------------------------------===//

#include "qdc/Driver/Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  return qdc::runDriver(llvm::ArrayRef<const char *>(argv, argc));
}
