//===- CpuStreamsTest.cpp - The CPU backend's streams run asynchronously --===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DESIGN section 3.4: a CPU stream is an in-order queue; calls return at
// once; events, copies, fills and synchronizations order work as on a GPU;
// the groups of a stream-parallel kernel run at the same time. Order is
// checked by values: a task that waits at a gate the test opens holds its
// stream, so what must come after it cannot have run while the gate is
// closed. No test depends on how long anything takes (a gate or rendezvous
// gives up after 20 s, which only turns a hang into a failure).
//
//===----------------------------------------------------------------------===//

#include "AssertKernels.h"
#include "TestModule.h"

#include "qd/memory.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace qd;
using namespace qd::rt::test;

namespace {

constexpr auto GiveUp = std::chrono::seconds(20);

/// Closed until open(); a task waiting at it holds its stream.
struct Gate {
  std::mutex M;
  std::condition_variable Opened;
  bool IsOpen = false;
  std::atomic<int> Passed{0}, TimedOut{0};

  void open() {
    std::lock_guard<std::mutex> L(M);
    IsOpen = true;
    Opened.notify_all();
  }
  void pass() {
    std::unique_lock<std::mutex> L(M);
    if (Opened.wait_for(L, GiveUp, [&] { return IsOpen; }))
      ++Passed;
    else
      ++TimedOut;
  }
};

/// Two threads meet: each arrives and waits for the other.
struct Rendezvous {
  std::mutex M;
  std::condition_variable Arrived;
  int Count = 0;
  std::atomic<int> Met{0}, Missed{0};

  void arrive() {
    std::unique_lock<std::mutex> L(M);
    ++Count;
    Arrived.notify_all();
    if (Arrived.wait_for(L, GiveUp, [&] { return Count >= 2; }))
      ++Met;
    else
      ++Missed;
  }
};

struct GateArgs {
  Gate *G;
  int32_t *Out; ///< Out[i] = Value after the gate
  int32_t Value;
};
void waitThenWrite(const void *A, uint64_t Begin, uint64_t End) {
  const auto &Args = *static_cast<const GateArgs *>(A);
  if (Begin == 0)
    Args.G->pass();
  for (uint64_t I = Begin; I < End; ++I)
    Args.Out[I] = Args.Value;
}

struct MapArgs {
  const int32_t *In;
  int32_t *Out; ///< Out[i] = 2 * In[i] + 1
};
void doublePlusOne(const void *A, uint64_t Begin, uint64_t End) {
  const auto &Args = *static_cast<const MapArgs *>(A);
  for (uint64_t I = Begin; I < End; ++I)
    Args.Out[I] = 2 * Args.In[I] + 1;
}

Rendezvous *Meeting = nullptr;
void meet(const void *, uint64_t, uint64_t) { Meeting->arrive(); }

class CpuStreamsTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    unsetenv("QD_ARCH");
    // Two threads in the pool whatever the machine has.
    setenv("QD_CPU_THREADS", "2", 1);
    qd::init(Arch::cpu);
    unsetenv("QD_CPU_THREADS");
    GateKernel = TM.addKernel("gate", {{0, waitThenWrite}}, sizeof(GateArgs));
    MapKernel = TM.addKernel("map", {{0, doublePlusOne}}, sizeof(MapArgs));
    M = TM.registered();
  }
  void TearDown() override { qd::reset(); }

  void gate(Gate &G, Ndarray<int32_t, 1> &Out, int32_t Value,
            const qd::Stream &S) {
    GateArgs Args{&G, static_cast<int32_t *>(Out.data()), Value};
    launch(M, GateKernel, {uint64_t(Out.size())}, &Args, &S);
  }

  TestModule TM{"cpu_streams"};
  uint32_t GateKernel = 0, MapKernel = 0;
  qdrt_module *M = nullptr;
};

TEST_F(CpuStreamsTest, AKernelCallReturnsBeforeItsWorkRuns) {
  Gate G;
  Ndarray<int32_t, 1> X({1000});
  qd::Stream S = create_stream();
  gate(G, X, 7, S); // returns although the task waits for the gate
  EXPECT_EQ(G.Passed.load(), 0);
  G.open();
  S.synchronize();
  EXPECT_EQ(G.Passed.load(), 1);
  EXPECT_EQ(G.TimedOut.load(), 0);
  EXPECT_EQ(X.to_vector(), std::vector<int32_t>(1000, 7));
}

TEST_F(CpuStreamsTest, AnEventOrdersWorkOnTwoStreams) {
  constexpr int N = 4096;
  Gate G;
  Ndarray<int32_t, 1> X({N}), Y({N});
  qd::Stream A = create_stream(), B = create_stream();
  qd::Event E = create_event();
  gate(G, X, 5, A); // X = 5, once the gate opens
  E.record(A);
  E.wait(B);
  MapArgs Args{static_cast<int32_t *>(X.data()),
               static_cast<int32_t *>(Y.data())};
  launch(M, MapKernel, {N}, &Args, &B); // Y = 2 X + 1, after E
  EXPECT_FALSE(E.query());
  G.open();
  B.synchronize();
  EXPECT_TRUE(E.query());
  EXPECT_EQ(Y.to_vector(), std::vector<int32_t>(N, 11));
}

TEST_F(CpuStreamsTest, FillsAndCopiesTakeTheirPlaceInTheStream) {
  constexpr int N = 1024;
  Gate G;
  Ndarray<int32_t, 1> X({N}), Y({N});
  qd::Stream S = create_stream();
  gate(G, X, 5, S);        // X = 5
  X.fill_async(9, S);      // then X = 9
  qd::copy_async(Y, X, S); // then Y = X
  std::vector<int32_t> Host(N, 0);
  X.copy_to_async(Host.data(), Host.size(), S); // then Host = X
  EXPECT_EQ(Host, std::vector<int32_t>(N, 0));
  G.open();
  S.synchronize();
  EXPECT_EQ(Y.to_vector(), std::vector<int32_t>(N, 9));
  EXPECT_EQ(Host, std::vector<int32_t>(N, 9));
}

TEST_F(CpuStreamsTest, AStreamsSynchronizeWaitsForItsOwnWorkOnly) {
  Gate G;
  Ndarray<int32_t, 1> X({64}), Y({64});
  qd::Stream A = create_stream(), B = create_stream();
  gate(G, X, 3, A);
  Y.fill_async(4, B);
  B.synchronize(); // A still waits at the gate
  EXPECT_EQ(G.Passed.load(), 0);
  EXPECT_EQ(Y.to_vector(), std::vector<int32_t>(64, 4));
  G.open();
  A.synchronize();
  EXPECT_EQ(X.to_vector(), std::vector<int32_t>(64, 3));
}

TEST_F(CpuStreamsTest, StreamParallelGroupsRunAtTheSameTime) {
  // Each group's task waits for the other's: they meet only if both run
  // at once.
  Rendezvous R;
  Meeting = &R;
  uint32_t K = TM.addKernel("groups", {{1, meet}, {2, meet}});
  qdrt_module *M2 = TM.registered();
  qd::Stream S = create_stream();
  launch(M2, K, {1, 1}, nullptr, &S);
  S.synchronize();
  EXPECT_EQ(R.Met.load(), 2);
  EXPECT_EQ(R.Missed.load(), 0);
  Meeting = nullptr;
}

TEST_F(CpuStreamsTest, AFreeWaitsForTheWorkThatUsesTheMemory) {
  Gate G;
  qd::Stream S = create_stream();
  std::thread Opener;
  {
    Ndarray<int32_t, 1> X({1 << 16});
    gate(G, X, 1, S);
    Opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      G.open();
    });
    // X is freed here, once the task that writes it is done (AddressSanitizer
    // checks that nothing writes freed memory).
  }
  EXPECT_EQ(G.Passed.load(), 1);
  Opener.join();
}

// A HostArray queued as a copy's destination behind a gated task is freed
// only once the copy has written it.
TEST_F(CpuStreamsTest, AHostArrayWaitsForTheCopiesThatUseIt) {
  Gate G;
  qd::Stream S = create_stream();
  Ndarray<int32_t, 1> X({1 << 16});
  std::thread Opener;
  {
    HostArray<int32_t> H(X.size());
    gate(G, X, 3, S);
    X.copy_to_async(H.data(), H.size(), S);
    Opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      G.open();
    });
    // H is freed here, once the copy into it is done (AddressSanitizer
    // checks that nothing writes freed memory).
  }
  EXPECT_EQ(G.Passed.load(), 1);
  Opener.join();
  HostArray<int32_t> Back(X.size());
  X.copy_to_async(Back.data(), Back.size(), S);
  S.synchronize();
  EXPECT_TRUE(
      std::all_of(Back.begin(), Back.end(), [](int32_t V) { return V == 3; }));
}

TEST_F(CpuStreamsTest, AFailedAssertionIsItsStreamsErrorAtItsSynchronize) {
  TestModule Module("asserts");
  qdrt_assert_record Record{};
  Module.setAssertRecord(&Record);
  uint32_t K = Module.addKernel("below", {{0, qdrt_test_below}},
                                sizeof(qdrt_test_below_args));
  qdrt_module *MA = Module.registered();
  Gate G;
  Ndarray<int32_t, 1> X({8}), Out({100});
  qd::Stream A = create_stream(), B = create_stream();
  gate(G, X, 1, A); // A's work waits at the gate
  qdrt_test_below_args Args{static_cast<int32_t *>(Out.data()), 10};
  launch(MA, K, {100}, &Args, &A); // fails (i < 10), once it runs
  launch(MA, K, {5}, &Args, &B);   // does not fail
  G.open();
  EXPECT_NO_THROW(B.synchronize());
  try {
    A.synchronize();
    ADD_FAILURE() << "the failure was not raised";
  } catch (const qd::Error &E) {
    EXPECT_NE(std::string(E.what()).find("qd::Stream::synchronize: "
                                         "QD_ASSERT failed in "
                                         "'qdrt_test_below'"),
              std::string::npos)
        << E.what();
  }
  EXPECT_NO_THROW(A.synchronize()); // raised once
}

TEST_F(CpuStreamsTest, DestroyingAStreamWaitsForItsWork) {
  Gate G;
  Ndarray<int32_t, 1> X({256});
  qd::Stream S = create_stream();
  gate(G, X, 6, S);
  std::thread Opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    G.open();
  });
  S.destroy();
  EXPECT_EQ(G.Passed.load(), 1);
  Opener.join();
  EXPECT_EQ(X.to_vector(), std::vector<int32_t>(256, 6));
}

TEST_F(CpuStreamsTest, ResetWaitsForQueuedWork) {
  Gate G;
  qd::Stream S = create_stream();
  Ndarray<int32_t, 1> X({256});
  gate(G, X, 6, S);
  std::thread Opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    G.open();
  });
  qd::reset(); // the task still runs, on memory that is still there
  EXPECT_EQ(G.Passed.load(), 1);
  Opener.join();
}

TEST_F(CpuStreamsTest, StreamHandlesStayZero) {
  qd::Stream S = create_stream();
  qd::Event E = create_event();
  EXPECT_EQ(S.handle(), nullptr);
  EXPECT_EQ(E.handle(), nullptr);
}

} // namespace
