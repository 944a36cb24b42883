//===- Driver.h - The qdc pipeline ------------------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one entry point tools/qdc calls: options, frontend,
// passes, output. Returns the process exit code: 0 on success, 1 on any
// user error (with nothing written).
//
//===----------------------------------------------------------------------===//

#ifndef QDC_DRIVER_DRIVER_H
#define QDC_DRIVER_DRIVER_H

#include "llvm/ADT/ArrayRef.h"

namespace qdc {

int runDriver(llvm::ArrayRef<const char *> Args);

} // namespace qdc

#endif // QDC_DRIVER_DRIVER_H
