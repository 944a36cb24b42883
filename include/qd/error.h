//===- qd/error.h - The runtime's error and its backends --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::Error and qd::Arch, which the runtime's backends share with the
// public API (<qd/runtime.h> includes this).
//
//===----------------------------------------------------------------------===//

#ifndef QD_ERROR_H
#define QD_ERROR_H

#include <stdexcept>

namespace qd {

/// A runtime failure. The message names the operation that failed.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Backends. `best` picks cuda, then amdgpu, then cpu; the environment
/// variable QD_ARCH (cuda, amdgpu, cpu) overrides it.
enum class Arch { best, cuda, amdgpu, cpu };

/// "cuda", "amdgpu", "cpu" or "best".
const char *arch_name(Arch arch);

} // namespace qd

#endif // QD_ERROR_H
