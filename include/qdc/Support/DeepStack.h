//===- DeepStack.h - Compiling on deep stacks -------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Clang and qdc recurse over the AST, so deeply nested input needs a deep
// stack, as clang's own driver gives its compiler. Every thread that parses
// or compiles the user's code runs on one: the pipeline thread, and the
// threads code generation starts beside it. Input that exhausts even such
// a stack ends qdc with an error and exit code 1, its temporaries removed,
// not a crash.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_SUPPORT_DEEPSTACK_H
#define QDC_SUPPORT_DEEPSTACK_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/thread.h"

#include <functional>

namespace qdc {

/// Runs Fn on a thread with a deep stack (1 GiB) and returns its result.
int runOnDeepStack(llvm::function_ref<int()> Fn);

/// A thread with a deep stack, running Fn from its construction; joined by
/// join() or at its destruction.
class DeepStackThread {
public:
  explicit DeepStackThread(std::function<void()> Fn);
  DeepStackThread(const DeepStackThread &) = delete;
  DeepStackThread &operator=(const DeepStackThread &) = delete;
  ~DeepStackThread() { join(); }
  void join() {
    if (Worker.joinable())
      Worker.join();
  }

private:
  llvm::thread Worker;
};

} // namespace qdc

#endif // QDC_SUPPORT_DEEPSTACK_H
