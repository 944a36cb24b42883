//===- Error.h - An error with a message ------------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef QDC_SUPPORT_ERROR_H
#define QDC_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace qdc {

/// An llvm::Error whose message is Msg, as the driver prints it after
/// "qdc: error: ".
inline llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace qdc

#endif // QDC_SUPPORT_ERROR_H
