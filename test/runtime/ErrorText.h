//===- ErrorText.h - What a runtime call threw, for tests -------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TEST_RUNTIME_ERRORTEXT_H
#define QDC_TEST_RUNTIME_ERRORTEXT_H

#include <qd/runtime.h>

#include <functional>
#include <string>

namespace qd::rt::test {

/// The message of the qd::Error that Fn throws, or "" when it throws none.
inline std::string errorOf(const std::function<void()> &Fn) {
  try {
    Fn();
  } catch (const qd::Error &E) {
    return E.what();
  }
  return "";
}

/// Whether Text contains Part.
inline bool contains(const std::string &Text, const char *Part) {
  return Text.find(Part) != std::string::npos;
}

} // namespace qd::rt::test

#endif // QDC_TEST_RUNTIME_ERRORTEXT_H
