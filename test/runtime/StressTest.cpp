//===- StressTest.cpp - Concurrent launches from many host threads
//---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Eight host threads, each launching stream-parallel kernels on
// its own streams, on the CPU backend (checking results) and on the mock
// (checking that no thread ever waits on an event another thread recorded:
// the pool's leases are exclusive). Run under ThreadSanitizer by
// utils/check.sh.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "MockDevice.h"
#include "Runtime.h"
#include "TestModule.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

using namespace qd;
using namespace qd::rt;
using namespace qd::rt::test;

namespace {

constexpr int Threads = 8;
constexpr int Rounds = 100;

TEST(StressTest, EightThreadsOnTheCpuBackend) {
  qd::reset();
  qd::init(Arch::cpu);
  constexpr int N = 2048;
  TestModule TM("stress");
  uint32_t K = TM.addKernel("ab", {{1, setA}, {2, setB}, {2, incB}},
                            sizeof(TwoGroupArgs));
  qdrt_module *M = TM.registered();
  std::atomic<int> Failures{0};
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      try {
        qd::Stream S1 = qd::create_stream(), S2 = qd::create_stream();
        qd::Event E = qd::create_event();
        Ndarray<float, 1> A({N}), B({N});
        for (int R = 0; R < Rounds; ++R) {
          TwoGroupArgs Args{static_cast<float *>(A.data()),
                            static_cast<float *>(B.data()), float(T), float(R)};
          launch(M, K, {N, N, N}, &Args, R % 2 ? &S1 : &S2);
          E.record(R % 2 ? S1 : S2);
          E.wait(R % 2 ? S2 : S1);
        }
        S1.synchronize();
        S2.synchronize();
        std::vector<float> As = A.to_vector(), Bs = B.to_vector();
        for (int I = 0; I < N; ++I)
          if (As[I] != float(T) || Bs[I] != float(Rounds - 1) + 1.0f)
            ++Failures;
      } catch (const qd::Error &) {
        ++Failures;
      }
    });
  for (std::thread &T : Pool)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
  qd::reset();
}

TEST(StressTest, EightThreadsNeverShareAnEventOnTheMock) {
  qd::reset();
  auto State = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(State));
  TestModule TM("mockstress");
  uint32_t K = TM.addKernel("k", {{1}, {2}, {3}, {3}});
  qdrt_module *M = TM.registered();
  std::vector<std::thread> Pool;
  std::atomic<int> Errors{0};
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      ThreadTag = "t" + std::to_string(T);
      try {
        qd::Stream S = qd::create_stream();
        for (int R = 0; R < Rounds; ++R)
          launch(M, K, {1, 1, 1, 1}, nullptr, &S);
        S.destroy();
      } catch (const qd::Error &) {
        ++Errors;
      }
      ThreadTag.clear();
    });
  for (std::thread &T : Pool)
    T.join();
  ASSERT_EQ(Errors.load(), 0);

  // Replay the log: every wait must be on an event last recorded by the
  // same thread, and every launch of a thread must land on a stream that
  // thread's fork made wait.
  std::map<std::string, std::string> LastRecorder;
  unsigned Waits = 0;
  for (const std::string &Line : State->takeCalls()) {
    std::istringstream In(Line);
    std::string Tag, Op, A, B;
    In >> Tag >> Op >> A >> B;
    if (Tag.empty() || Tag[0] != 't')
      continue;
    if (Op == "record")
      LastRecorder[A] = Tag;
    else if (Op == "wait") {
      ++Waits;
      EXPECT_EQ(LastRecorder[B], Tag) << Line;
    }
  }
  EXPECT_EQ(Waits, unsigned(Threads * Rounds * (3 + 3)));
  PoolStats Stats = currentDevice().pool().stats();
  EXPECT_LE(Stats.StreamsCreated, unsigned(Threads * 3));
  EXPECT_EQ(Stats.Leases, uint64_t(Threads * Rounds));
  qd::reset();
}

/// qd::reset() on one thread while others allocate, fill, launch and copy:
/// every call finishes or is a qd::Error, and nothing touches freed memory
/// (run under AddressSanitizer and ThreadSanitizer by utils/check.sh).
TEST(StressTest, ResetWhileOtherThreadsUseTheRuntime) {
  qd::reset();
  setenv("QD_ARCH", "cpu", 1); // what a call after a reset starts
  qd::init(Arch::cpu);
  constexpr int64_t N = 1024;
  TestModule TM("resetstress");
  uint32_t K = TM.addKernel("saxpy", {{0, saxpyTask}}, sizeof(SaxpyArgs));
  qdrt_module *M = TM.registered();
  std::atomic<bool> Stop{false};
  std::atomic<int> Completed{0}, Errors{0}, Wrong{0};
  std::vector<std::thread> Pool;
  for (int T = 0; T < 4; ++T)
    Pool.emplace_back([&] {
      while (!Stop.load()) {
        try {
          qd::Stream S = qd::create_stream();
          Ndarray<float, 1> X({N}), Y({N});
          X.fill(1.0f);
          Y.fill_async(2.0f, S);
          // What a generated launcher does: check its arrays, then launch.
          X.view().check("to_kernel", "qd::detail");
          Y.view().check("to_kernel", "qd::detail");
          SaxpyArgs Args{static_cast<const float *>(X.data()),
                         static_cast<float *>(Y.data()), 2.0f};
          launch(M, K, {uint64_t(N)}, &Args, &S);
          S.synchronize();
          std::vector<float> Out(N);
          Y.copy_to_async(Out.data(), Out.size(), S);
          S.synchronize();
          qd::Event E = qd::create_event();
          E.record(S);
          E.synchronize();
          qd::sync();
          if (Out != std::vector<float>(N, 4.0f))
            ++Wrong;
          ++Completed;
        } catch (const qd::Error &) {
          ++Errors; // an object of a runtime that was reset
        }
      }
    });
  for (int R = 0; R < 200; ++R) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    qd::reset();
    qd::init(Arch::cpu);
  }
  Stop = true;
  for (std::thread &T : Pool)
    T.join();
  EXPECT_EQ(Wrong.load(), 0);
  EXPECT_GT(Completed.load() + Errors.load(), 0);
  unsetenv("QD_ARCH");
  qd::reset();
}

} // namespace
