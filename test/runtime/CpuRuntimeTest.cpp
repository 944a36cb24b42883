//===- CpuRuntimeTest.cpp - The public API on the CPU backend
//---------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "TestModule.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

using namespace qd;
using namespace qd::rt::test;

namespace {

class CpuRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    unsetenv("QD_ARCH");
    qd::init(Arch::cpu);
  }
  void TearDown() override {
    unsetenv("QD_ARCH");
    qd::reset();
  }
};

TEST_F(CpuRuntimeTest, InitChoosesCpu) {
  EXPECT_EQ(current_arch(), Arch::cpu);
  EXPECT_STREQ(arch_name(current_arch()), "cpu");
  EXPECT_NO_THROW(init(Arch::cpu)); // same arch: nothing happens
  EXPECT_NO_THROW(init());          // best: whatever runs is fine
  try {
    init(Arch::cuda);
    FAIL() << "switching arch without reset must fail";
  } catch (const qd::Error &E) {
    EXPECT_NE(std::string(E.what()).find("already runs on cpu"),
              std::string::npos)
        << E.what();
  }
}

TEST_F(CpuRuntimeTest, QdArchOverridesTheDefault) {
  reset();
  setenv("QD_ARCH", "cpu", 1);
  init();
  EXPECT_EQ(current_arch(), Arch::cpu);
  reset();
  setenv("QD_ARCH", "tpu", 1);
  try {
    init();
    FAIL() << "a bad QD_ARCH must be an error";
  } catch (const qd::Error &E) {
    EXPECT_STREQ(E.what(),
                 "qd::init: QD_ARCH='tpu' is not one of cuda, amdgpu, cpu");
  }
}

TEST_F(CpuRuntimeTest, UnavailableGpuBackendsSayWhatIsMissing) {
  reset();
  try {
    init(Arch::cuda);
    GTEST_SKIP() << "this machine has a CUDA GPU";
  } catch (const qd::Error &E) {
    std::string Msg = E.what();
    EXPECT_TRUE(Msg.find("libcuda.so.1") != std::string::npos ||
                Msg.find("no CUDA device") != std::string::npos ||
                Msg.find("cuInit") != std::string::npos)
        << Msg;
  }
  try {
    init(Arch::amdgpu);
  } catch (const qd::Error &E) {
    std::string Msg = E.what();
    EXPECT_TRUE(Msg.find("libamdhip64.so") != std::string::npos ||
                Msg.find("no AMD GPU") != std::string::npos)
        << Msg;
  }
  reset();
  EXPECT_THROW(init(Arch::cpu, {.device = -1}), qd::Error);
}

TEST_F(CpuRuntimeTest, AProgramThatNeverCallsInitGetsTheDefault) {
  reset();
  setenv("QD_ARCH", "cpu", 1);
  qd::Stream S = qd::create_stream(); // first runtime call
  EXPECT_EQ(current_arch(), Arch::cpu);
}

TEST_F(CpuRuntimeTest, StreamsAndEventsWorkWithHandleZero) {
  qd::Stream S = create_stream();
  EXPECT_EQ(S.handle(), nullptr);
  S.synchronize();
  qd::Event A = create_event({.timing = true});
  qd::Event B = create_event({.timing = true});
  EXPECT_EQ(A.handle(), nullptr);
  A.record(S);
  A.wait();
  B.record();
  B.wait(S);
  A.synchronize();
  EXPECT_TRUE(A.query());
  B.synchronize();
  EXPECT_GE(elapsed_ms(A, B), 0.0f);
  S.destroy();
  S.destroy();
  qd::sync();
}

TEST_F(CpuRuntimeTest, EventTimesAreTheCpuDevicesOwn) {
  // The CPU device keeps its events' times (no field of qd::Event does):
  // an event never recorded has none, and a moved event keeps its own.
  qd::Event A = create_event({.timing = true});
  qd::Event B = create_event({.timing = true});
  EXPECT_THROW(
      {
        try {
          elapsed_ms(A, B);
        } catch (const qd::Error &E) {
          EXPECT_STREQ(E.what(), "qd::elapsed_ms: an event was never recorded");
          throw;
        }
      },
      qd::Error);
  A.record();
  // A's time is taken when its record runs on the stream's worker: wait
  // for it, so that the sleep lies between the two times whatever the
  // worker's delay (a loaded machine ran both records after the sleep).
  // sleep_for waits at least this long: a lower bound only, no timing.
  A.synchronize();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  B.record();
  qd::Event Moved = std::move(B);
  EXPECT_EQ(Moved.handle(), nullptr);
  Moved.synchronize();
  float Ms = elapsed_ms(A, Moved);
  EXPECT_GE(Ms, 15.0f);
  EXPECT_LT(Ms, 10000.0f);
  qd::Event C = create_event({.timing = true});
  C.record();
  // As on a GPU, a time is there once the event's work has run.
  C.synchronize();
  EXPECT_GE(elapsed_ms(Moved, C), 0.0f);
  EXPECT_LE(elapsed_ms(C, Moved), 0.0f);
}

TEST_F(CpuRuntimeTest, NdarrayCopiesAndShape) {
  Ndarray<float, 2> X({3, 4});
  EXPECT_EQ(X.shape(0), 3);
  EXPECT_EQ(X.shape(1), 4);
  EXPECT_EQ(X.size(), 12u);
  std::vector<float> In(12);
  for (int I = 0; I < 12; ++I)
    In[I] = float(I) * 0.5f;
  X.copy_from(In);
  EXPECT_EQ(X.to_vector(), In);
  X.fill(7.0f);
  EXPECT_EQ(X.to_vector(), std::vector<float>(12, 7.0f));
  EXPECT_THROW(X.copy_from(std::vector<float>(11)), qd::Error);
  EXPECT_THROW((Ndarray<int, 1>({-1})), qd::Error);
  EXPECT_THROW((Ndarray<int, 2>({4})), qd::Error);

  qd::Stream S = create_stream();
  std::vector<float> Out(12);
  X.copy_from_async(In.data(), In.size(), S);
  X.copy_to_async(Out.data(), Out.size(), S);
  S.synchronize();
  EXPECT_EQ(Out, In);

  Ndarray<float, 2> Moved = std::move(X);
  EXPECT_EQ(Moved.to_vector(), In);
  Ndarray<double, 1> Empty({0});
  EXPECT_TRUE(Empty.to_vector().empty());
}

// std::vector<bool> packs bits; the copies go one byte an element.
TEST_F(CpuRuntimeTest, BoolNdarrayCopiesElementwise) {
  Ndarray<bool, 1> B({5});
  EXPECT_EQ(B.to_vector(), std::vector<bool>(5, false));
  std::vector<bool> In{true, false, true, true, false};
  B.copy_from(In);
  EXPECT_EQ(B.to_vector(), In);
  const uint8_t *Bytes = static_cast<const uint8_t *>(B.data());
  EXPECT_EQ(Bytes[0], 1);
  EXPECT_EQ(Bytes[1], 0);
  EXPECT_EQ(Bytes[3], 1);
  EXPECT_THROW(B.copy_from(std::vector<bool>(4)), qd::Error);
}

// Rank 0: one value; without memory (default, moved-from) no value.
TEST_F(CpuRuntimeTest, RankZeroNdarrayHoldsOneValue) {
  Ndarray<int, 0> T({});
  EXPECT_EQ(T.size(), 1u);
  T.copy_from({42});
  EXPECT_EQ(T.to_vector(), std::vector<int>{42});
  Ndarray<int, 0> Moved = std::move(T);
  EXPECT_EQ(Moved.to_vector(), std::vector<int>{42});
  EXPECT_EQ(T.size(), 0u);
  EXPECT_TRUE(T.to_vector().empty());
  Ndarray<int, 0> None;
  EXPECT_EQ(None.size(), 0u);
  EXPECT_THROW(None.copy_from({1}), qd::Error);
}

TEST_F(CpuRuntimeTest, KernelResultsElementByElement) {
  constexpr int N = 1 << 20;
  TestModule TM("saxpy");
  uint32_t K = TM.addKernel("saxpy", {{0, saxpyTask}}, sizeof(SaxpyArgs));
  qdrt_module *M = TM.registered();
  Ndarray<float, 1> X({N}), Y({N});
  std::vector<float> Xs(N), Ys(N);
  for (int I = 0; I < N; ++I) {
    Xs[I] = float(I % 1000);
    Ys[I] = float(I % 7);
  }
  X.copy_from(Xs);
  Y.copy_from(Ys);
  SaxpyArgs Args{static_cast<float *>(X.data()), static_cast<float *>(Y.data()),
                 2.0f};
  launch(M, K, {N}, &Args);
  std::vector<float> Out = Y.to_vector();
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], 2.0f * Xs[I] + Ys[I]) << "at " << I;
}

// qd::capture's rules hold on the CPU as on GPUs (runtime.md, "Graphs"):
// the default stream cannot be captured, and the captured function must not
// wait on the host; the replay still runs what it may.
TEST_F(CpuRuntimeTest, CaptureRulesAsOnGpus) {
  try {
    qd::capture(qd::Stream(), [] {});
    ADD_FAILURE() << "the default stream was captured";
  } catch (const qd::Error &E) {
    EXPECT_STREQ(E.what(), "qd::capture: the default stream cannot be "
                           "captured; capture on a stream from "
                           "qd::create_stream()");
  }
  qd::Stream S = qd::create_stream();
  int Runs = 0;
  qd::Graph Good = qd::capture(S, [&] { ++Runs; });
  Good.launch(S);
  Good.launch(S);
  EXPECT_EQ(Runs, 2);
  qd::Graph Waits = qd::capture(S, [&] {
    ++Runs;
    S.synchronize();
  });
  try {
    Waits.launch(S);
    ADD_FAILURE() << "a captured function waited on the host";
  } catch (const qd::Error &E) {
    EXPECT_STREQ(E.what(), "qd::Stream::synchronize: waits on the host inside "
                           "a function given to qd::capture, which records "
                           "work without running it");
  }
  qd::Graph Syncs = qd::capture(S, [] { qd::sync(); });
  EXPECT_THROW(Syncs.launch(S), qd::Error);
  // Outside a replay, waiting works again.
  S.synchronize();
  qd::sync();
  EXPECT_EQ(Runs, 3);
}

// The CPU's graph is the captured function, kept by the runtime (no field
// of qd::Graph holds it): a moved graph replays it, a destroyed one is
// empty, and one from before qd::reset() is refused.
TEST_F(CpuRuntimeTest, CapturedFunctionsLiveInTheRuntime) {
  qd::Stream S = qd::create_stream();
  int Runs = 0;
  qd::Graph G = qd::capture(S, [&] { ++Runs; });
  EXPECT_EQ(Runs, 0);
  qd::Graph Moved = std::move(G);
  EXPECT_THROW(G.launch(S), qd::Error);
  Moved.launch(S);
  qd::Graph Other = qd::capture(S, [&] { Runs += 10; });
  Other.launch(S);
  Moved.launch(S);
  EXPECT_EQ(Runs, 12);
  Moved.destroy();
  EXPECT_THROW(Moved.launch(S), qd::Error);
  Other.launch(S);
  EXPECT_EQ(Runs, 22);
  qd::reset();
  try {
    Other.launch();
    ADD_FAILURE() << "a graph of a reset runtime replayed";
  } catch (const qd::Error &E) {
    EXPECT_STREQ(E.what(), "qd::Graph::launch: the graph belongs to a "
                           "runtime that was reset");
  }
  EXPECT_EQ(Runs, 22);
}

/// Records, per call, the calling thread and the chunk's size.
static std::mutex ChunkMutex;
static std::set<std::thread::id> ChunkThreads;
static std::vector<uint64_t> ChunkSizes;
static void recordChunk(const void *, uint64_t Begin, uint64_t End) {
  std::lock_guard<std::mutex> Lock(ChunkMutex);
  ChunkThreads.insert(std::this_thread::get_id());
  ChunkSizes.push_back(End - Begin);
}

// loop_config's parallelize: at most cpu_threads threads run a task, each
// iteration exactly once.
TEST_F(CpuRuntimeTest, CpuThreadsBoundsTheThreadsOfATask) {
  TestModule TM("threads");
  uint32_t K = TM.addKernel("k", {{0, recordChunk, 0, nullptr, 2}});
  qdrt_module *M = TM.registered();
  ChunkThreads.clear();
  ChunkSizes.clear();
  launch(M, K, {1000}, nullptr);
  qd::sync();
  EXPECT_LE(ChunkThreads.size(), 2u);
  EXPECT_EQ(ChunkSizes.size(), 2u);
  EXPECT_EQ(std::accumulate(ChunkSizes.begin(), ChunkSizes.end(), uint64_t(0)),
            1000u);
}

TEST_F(CpuRuntimeTest, StreamParallelGroupsJoinBeforeTheStreamGoesOn) {
  constexpr int N = 4096;
  TestModule TM("sp");
  uint32_t K = TM.addKernel("ab", {{1, setA}, {2, setB}, {2, incB}},
                            sizeof(TwoGroupArgs));
  qdrt_module *M = TM.registered();
  Ndarray<float, 1> A({N}), B({N});
  qd::Stream S = create_stream();
  TwoGroupArgs Args{static_cast<float *>(A.data()),
                    static_cast<float *>(B.data()), 3.0f, 5.0f};
  launch(M, K, {N, N, N}, &Args, &S);
  S.synchronize();
  EXPECT_EQ(A.to_vector(), std::vector<float>(N, 3.0f));
  EXPECT_EQ(B.to_vector(), std::vector<float>(N, 6.0f));
}

TEST_F(CpuRuntimeTest, FieldsLiveInTheModulesHostStorage) {
  static float Storage[64];
  TestModule TM("fields");
  TM.addKernel("k", {{0, saxpyTask}}, sizeof(SaxpyArgs));
  uint32_t F = TM.addField("a", Storage, sizeof(Storage));
  qdrt_module *M = TM.registered();
  void *Address = nullptr;
  qd::detail::check(qdrt_field_address(M, QDRT_CURRENT_DEVICE, F, &Address));
  EXPECT_EQ(Address, Storage);
  EXPECT_EQ(qdrt_field_address(M, QDRT_CURRENT_DEVICE, 7, &Address),
            QDRT_ERROR);
}

TEST_F(CpuRuntimeTest, TaskFunctionIsTheNativeEntry) {
  TestModule TM("native");
  uint32_t K = TM.addKernel("k", {{1, setA}, {2, setB}}, sizeof(TwoGroupArgs));
  qdrt_module *M = TM.registered();
  void *Fn = nullptr;
  qd::detail::check(qdrt_task_function(M, QDRT_CURRENT_DEVICE, K, 1, &Fn));
  EXPECT_EQ(Fn, reinterpret_cast<void *>(&setB));
  EXPECT_EQ(qdrt_task_function(M, QDRT_CURRENT_DEVICE, K, 2, &Fn), QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()), "qdrt_task_function: no such task");
}

TEST_F(CpuRuntimeTest, TaskWithoutCpuCodeIsAnError) {
  TestModule TM("nocpu");
  uint32_t K = TM.addKernel("k", {{0, nullptr}});
  qdrt_module *M = TM.registered();
  EXPECT_EQ(qdrt_launch(M, K, nullptr, std::vector<uint64_t>{1}.data(),
                        QDRT_CURRENT_DEVICE, nullptr),
            QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()),
            "task 'k_t0' has no CPU code in its module");
  // The runtime keeps working.
  EXPECT_NO_THROW(create_stream());
}

TEST_F(CpuRuntimeTest, ResetAndInitAgain) {
  Ndarray<int, 1> X({8});
  X.fill(3);
  reset();
  init(Arch::cpu);
  Ndarray<int, 1> Y({8});
  Y.fill(4);
  EXPECT_EQ(Y.to_vector(), std::vector<int>(8, 4));
  // X belonged to the first runtime; destroying it is harmless.
}

} // namespace

// The CPU backend is one device: the host, with its memory.
TEST_F(CpuRuntimeTest, TheHostIsTheOneDevice) {
  EXPECT_EQ(qd::device_count(), 1);
  qd::Device D = qd::device(0);
  EXPECT_EQ(D.ordinal, 0);
  EXPECT_EQ(D.compute_capability, 0);
  EXPECT_GT(D.memory, size_t(0));
  EXPECT_THROW(qd::device(1), qd::Error);
  EXPECT_NO_THROW(qd::enable_peer_access(D, D)); // its own memory
}
