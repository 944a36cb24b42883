//===- Check.h - Element-by-element checks for end-to-end tests -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TEST_E2E_CHECK_H
#define QDC_TEST_E2E_CHECK_H

#include <qd/runtime.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

/// The message of the qd::Error that Fn throws, or "" when it throws none.
template <typename F> std::string errorOf(F &&Fn) {
  try {
    Fn();
  } catch (const qd::Error &E) {
    return E.what();
  }
  return "";
}

/// Whether Text contains Part.
inline bool has(const std::string &Text, const char *Part) {
  return Text.find(Part) != std::string::npos;
}

class Check {
public:
  /// Got[i] must equal Want(i) for every i (within Tolerance).
  template <typename T, typename F>
  void all(const char *What, const std::vector<T> &Got, F Want,
           double Tolerance = 0) {
    for (size_t I = 0; I < Got.size(); ++I) {
      double G = double(Got[I]), W = double(Want(I));
      if (std::fabs(G - W) > Tolerance * std::fmax(1.0, std::fabs(W))) {
        std::printf("FAIL %s: [%zu] is %g, expected %g\n", What, I, G, W);
        ++Failed;
        return;
      }
    }
    ++Passed;
  }
  void that(const char *What, bool OK) {
    if (!OK)
      std::printf("FAIL %s\n", What);
    ++(OK ? Passed : Failed);
  }
  int finish() {
    std::printf("%s: %d passed, %d failed\n", qd::arch_name(qd::current_arch()),
                Passed, Failed);
    return Failed ? 1 : 0;
  }

private:
  int Passed = 0, Failed = 0;
};

#endif // QDC_TEST_E2E_CHECK_H
