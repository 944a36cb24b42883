//===- DeepStack.cpp - Compiling on deep stacks ---------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each deep-stack thread gets an alternate signal stack; one SIGSEGV
// handler tells stack exhaustion (the fault, or the stack pointer, at the
// bottom of the faulting thread's stack) from any other fault.
//
//===----------------------------------------------------------------------===//

#include "qdc/Support/DeepStack.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/thread.h"

#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

using namespace qdc;

namespace {
/// The lowest address of this thread's stack, when it is a deep-stack
/// thread. Read by the handler: set before the handler can run on it.
[[gnu::tls_model("initial-exec")]] thread_local char *StackLow = nullptr;
struct sigaction PreviousSegv;
constexpr unsigned StackSize = 1u << 30;

/// Input nested beyond even a deep stack (Clang's parser recurses over
/// nested unary operators without a limit) faults just below the stack:
/// that is reported as an error, temporaries are removed, and qdc exits 1.
/// Any other fault goes to the handler before this one (LLVM's stack trace).
void onSegv(int, siginfo_t *Info, void *Context) {
  // The fault is the stack's when the faulting address or the stack pointer
  // is at (or past) the bottom of the faulting thread's stack: a large frame
  // can jump well past the guard page.
  auto *Addr = static_cast<char *>(Info->si_addr);
  char *SP = nullptr;
  auto *UC = static_cast<ucontext_t *>(Context);
#if defined(__x86_64__)
  SP = reinterpret_cast<char *>(UC->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  SP = reinterpret_cast<char *>(UC->uc_mcontext.sp);
#endif
  constexpr long Near = 1 << 20;
  auto AtBottom = [](char *P) {
    return StackLow && P && P < StackLow + Near && P >= StackLow - (1L << 30);
  };
  if (AtBottom(Addr) || AtBottom(SP)) {
    static const char Msg[] = "qdc: error: the input nests too deeply: the "
                              "compiler ran out of stack\n";
    (void)!write(STDERR_FILENO, Msg, sizeof(Msg) - 1);
    llvm::sys::RunInterruptHandlers();
    _exit(1);
  }
  sigaction(SIGSEGV, &PreviousSegv, nullptr); // the fault repeats there
}

/// Runs Fn on the calling (deep-stack) thread with an alternate stack for
/// onSegv, and onSegv installed; the alternate stack is the thread's own,
/// given up once Fn returns.
template <typename FnT> void runGuarded(FnT &&Fn) {
  pthread_attr_t Attr;
  void *Low = nullptr;
  size_t Size = 0;
  if (pthread_getattr_np(pthread_self(), &Attr) == 0) {
    pthread_attr_getstack(&Attr, &Low, &Size);
    pthread_attr_destroy(&Attr);
  }
  StackLow = static_cast<char *>(Low);
  // The handler runs on it while the thread's stack is exhausted.
  static constexpr size_t AltSize = 1 << 16;
  auto Alt = std::make_unique<char[]>(AltSize);
  stack_t SS = {};
  SS.ss_sp = Alt.get();
  SS.ss_size = AltSize;
  sigaltstack(&SS, nullptr);
  static std::once_flag Once;
  std::call_once(Once, [] {
    struct sigaction Action = {};
    Action.sa_sigaction = onSegv;
    Action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&Action.sa_mask);
    sigaction(SIGSEGV, &Action, &PreviousSegv);
  });
  Fn();
  StackLow = nullptr;
  stack_t Off = {};
  Off.ss_flags = SS_DISABLE;
  sigaltstack(&Off, nullptr);
}
} // namespace

int qdc::runOnDeepStack(llvm::function_ref<int()> Fn) {
  int RC = 1;
  llvm::thread Worker(std::optional<unsigned>(StackSize),
                      [&] { runGuarded([&] { RC = Fn(); }); });
  Worker.join();
  return RC;
}

DeepStackThread::DeepStackThread(std::function<void()> Fn)
    : Worker(std::optional<unsigned>(StackSize),
             [Fn = std::move(Fn)] { runGuarded(Fn); }) {}
