//===- MockRuntimeTest.cpp - libqdrt against the recording mock device
//-----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Exact driver call sequences for fork/join, the stream pool's
// promise to create nothing after warm-up, RAII semantics, and error paths
// under injected driver failures.
//
//===----------------------------------------------------------------------===//

#include "MockDevice.h"
#include "Runtime.h"
#include "TestModule.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <thread>

using namespace qd;
using namespace qd::rt;
using namespace qd::rt::test;
using Calls = std::vector<std::string>;

namespace {

class MockRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    State = std::make_shared<MockState>();
    startWithDevice(std::make_unique<MockDevice>(State));
  }
  void TearDown() override { qd::reset(); }

  /// Everything called since the last look.
  Calls calls() { return State->takeCalls(); }

  static bool isCreation(const std::string &C) {
    return C.rfind("createStream", 0) == 0 || C.rfind("createEvent", 0) == 0;
  }

  std::shared_ptr<MockState> State;
};

std::vector<TestTask> groups(std::initializer_list<unsigned> Gs) {
  std::vector<TestTask> Out;
  for (unsigned G : Gs)
    Out.push_back({G});
  return Out;
}

TEST_F(MockRuntimeTest, PlainKernelRunsInOrderOnTheLaunchStream) {
  TestModule TM("plain");
  uint32_t K = TM.addKernel("k", groups({0, 0, 0}));
  qdrt_module *M = TM.registered();
  launch(M, K, {10, 20, 30});
  EXPECT_EQ(calls(),
            (Calls{"loadModule plain", "getFunction k_t0", "getFunction k_t1",
                   "getFunction k_t2", "launch k_t0 n=10 s0",
                   "launch k_t1 n=20 s0", "launch k_t2 n=30 s0"}));
}

TEST_F(MockRuntimeTest, ALaunchTooSmallToFillTheDeviceRunsTheLatencyVersion) {
  TestModule TM("lat");
  TestTask WithVersion{};
  WithVersion.Latency = "k_t0_lat";
  uint32_t K = TM.addKernel("k", {WithVersion, TestTask{}});
  State->LatencyBound = 100;
  qdrt_module *M = TM.registered();
  launch(M, K, {100, 50});
  launch(M, K, {101, 50});
  // Both functions are looked up once; the version runs up to the bound,
  // and only for the task that has one.
  EXPECT_EQ(calls(), (Calls{"loadModule lat", "getFunction k_t0",
                            "getFunction k_t0_lat", "getFunction k_t1",
                            "launch k_t0_lat n=100 s0", "launch k_t1 n=50 s0",
                            "launch k_t0 n=101 s0", "launch k_t1 n=50 s0"}));
}

/// A narrow_grid that allows the narrow entry while NarrowAllowed is set,
/// on a 3x4x5 grid.
bool NarrowAllowed = true;
int testNarrowGrid(const void *, uint32_t Grid[3]) {
  if (!NarrowAllowed)
    return 0;
  Grid[0] = 3;
  Grid[1] = 4;
  Grid[2] = 5;
  return 1;
}

TEST_F(MockRuntimeTest, ATiledTaskRunsItsNarrowEntryWhereTheArgumentsAllow) {
  TestModule TM("nar");
  // Narrow for small launches only (no latency version).
  TestTask Small{};
  Small.Narrow = "k_t0_nar";
  Small.NarrowGrid = &testNarrowGrid;
  Small.Flags = QDRT_TASK_TILED;
  // Narrow at any size; a latency version, which small launches run.
  TestTask Always{};
  Always.Latency = "k_t1_lat";
  Always.Narrow = "k_t1_nar";
  Always.NarrowGrid = &testNarrowGrid;
  Always.Flags = QDRT_TASK_TILED | QDRT_TASK_NARROW_ALWAYS;
  TestTask NoGrid{};
  NoGrid.Narrow = "k_t2_nar"; // without a grid function: never run
  NoGrid.Flags = QDRT_TASK_TILED | QDRT_TASK_NARROW_ALWAYS;
  uint32_t K = TM.addKernel("k", {Small, Always, NoGrid});
  State->LatencyBound = 100;
  qdrt_module *M = TM.registered();
  NarrowAllowed = true;
  launch(M, K, {1000, 1000, 1000});
  launch(M, K, {100, 100, 100});
  NarrowAllowed = false;
  launch(M, K, {100, 1000, 1000});
  NarrowAllowed = true;
  // A large launch whose tiles (3 x 4 x 5) are no more than the blocks its
  // own entry would get: each block would run one tile at most.
  State->TiledGridBlocks = 60;
  launch(M, K, {1000, 0, 0});
  State->TiledGridBlocks = 59;
  launch(M, K, {1000, 0, 0});
  EXPECT_EQ(
      calls(),
      (Calls{"loadModule nar", "getFunction k_t0", "getFunction k_t0_nar",
             "getFunction k_t1", "getFunction k_t1_lat", "getFunction k_t1_nar",
             "getFunction k_t2", "launch k_t0 n=1000 s0",
             "launch k_t1_nar n=1000 s0 grid=3x4x5", "launch k_t2 n=1000 s0",
             "launch k_t0_nar n=100 s0 grid=3x4x5", "launch k_t1_lat n=100 s0",
             "launch k_t2 n=100 s0", "launch k_t0 n=100 s0",
             "launch k_t1 n=1000 s0", "launch k_t2 n=1000 s0",
             "launch k_t0_nar n=1000 s0 grid=3x4x5", "launch k_t0 n=1000 s0"}));
}

TEST_F(MockRuntimeTest, EntriesThatWaitForGridsOverlapTheKernelAhead) {
  // Flagged, with a latency version and a narrow entry: all three overlap.
  TestTask Waits{};
  Waits.Latency = "k_t0_lat";
  Waits.Narrow = "k_t0_nar";
  Waits.NarrowGrid = &testNarrowGrid;
  Waits.Flags = QDRT_TASK_TILED | QDRT_TASK_GRID_WAIT;
  TestTask Plain{}; // not flagged: compiled without the wait
  State->LatencyBound = 100;
  State->TiledGridBlocks = 60;
  State->WaitsForGrids = true;
  NarrowAllowed = true;
  TestModule TM("ov");
  uint32_t K = TM.addKernel("k", {Waits, Plain});
  launch(TM.registered(), K, {1000, 1000});
  launch(TM.registered(), K, {50, 50});
  State->TiledGridBlocks = 0;
  launch(TM.registered(), K, {1000, 1000});
  // Code the device says has no wait (sm_80 PTX on a newer GPU), and
  // QD_GRID_OVERLAP=0, read when a module is loaded: plain launches.
  State->WaitsForGrids = false;
  TestModule Old("old");
  uint32_t KOld = Old.addKernel("k", {Waits});
  launch(Old.registered(), KOld, {1000});
  State->WaitsForGrids = true;
  ASSERT_EQ(setenv("QD_GRID_OVERLAP", "0", 1), 0);
  TestModule Off("off");
  uint32_t KOff = Off.addKernel("k", {Waits});
  launch(Off.registered(), KOff, {1000});
  unsetenv("QD_GRID_OVERLAP");
  Calls Launches;
  for (const std::string &C : calls())
    if (C.rfind("launch", 0) == 0)
      Launches.push_back(C);
  EXPECT_EQ(Launches,
            (Calls{"launch k_t0_nar n=1000 s0 grid=3x4x5 overlap",
                   "launch k_t1 n=1000 s0", "launch k_t0_lat n=50 s0 overlap",
                   "launch k_t1 n=50 s0", "launch k_t0 n=1000 s0 overlap",
                   "launch k_t1 n=1000 s0", "launch k_t0 n=1000 s0",
                   "launch k_t0 n=1000 s0"}));
}

TEST_F(MockRuntimeTest, ModuleLoadReservesTheLargestGroupCount) {
  TestModule TM("sp");
  TM.addKernel("two", groups({1, 2}));
  uint32_t K = TM.addKernel("three", groups({1, 2, 3}));
  qdrt_module *M = TM.registered();
  launch(M, K, {1, 1, 1});
  Calls C = calls();
  // 3 streams and 4 events (a fork and three joins), before any launch.
  EXPECT_EQ(std::count_if(C.begin(), C.end(),
                          [](const std::string &S) {
                            return S.rfind("createStream", 0) == 0;
                          }),
            3);
  EXPECT_EQ(std::count_if(C.begin(), C.end(),
                          [](const std::string &S) {
                            return S.rfind("createEvent", 0) == 0;
                          }),
            4);
  auto FirstLaunch = std::find_if(C.begin(), C.end(), [](const std::string &S) {
    return S.rfind("launch", 0) == 0 || S.rfind("record", 0) == 0;
  });
  EXPECT_TRUE(std::none_of(FirstLaunch, C.end(), isCreation));
}

TEST_F(MockRuntimeTest, ForkJoinOneGroupOnTheDefaultStream) {
  TestModule TM("one");
  uint32_t K = TM.addKernel("k", groups({1, 1}));
  qdrt_module *M = TM.registered();
  launch(M, K, {5, 6});
  Calls C = calls();
  Calls Launch(C.end() - 6, C.end());
  EXPECT_EQ(Launch,
            (Calls{"record e1 s0", "wait s1 e1", "launch k_t0 n=5 s1",
                   "launch k_t1 n=6 s1", "record e2 s1", "wait s0 e2"}));
}

// Kernel scalars set before the fork and a return value read after the
// join: group-0 tasks on the launch stream around the groups.
TEST_F(MockRuntimeTest, ForkJoinRunsGroupZeroBeforeTheForkAndAfterTheJoin) {
  TestModule TM("around");
  uint32_t K = TM.addKernel("k", groups({0, 1, 2, 0}));
  qdrt_module *M = TM.registered();
  launch(M, K, {1, 10, 20, 1});
  Calls C = calls();
  Calls Launch(C.end() - 11, C.end());
  EXPECT_EQ(Launch,
            (Calls{"launch k_t0 n=1 s0", "record e1 s0", "wait s1 e1",
                   "wait s2 e1", "launch k_t1 n=10 s1", "launch k_t2 n=20 s2",
                   "record e2 s1", "wait s0 e2", "record e3 s2", "wait s0 e3",
                   "launch k_t3 n=1 s0"}));
}

TEST_F(MockRuntimeTest, ForkJoinTwoGroupsOnAnExplicitStream) {
  TestModule TM("two");
  uint32_t K = TM.addKernel("k", groups({1, 2, 2}));
  qdrt_module *M = TM.registered();
  qd::Stream S = qd::create_stream(); // s1; the pool makes s2, s3 on load
  calls();
  launch(M, K, {100, 200, 300}, nullptr, &S);
  Calls C = calls();
  Calls Launch(C.end() - 10, C.end());
  std::string L = "s1";
  EXPECT_EQ(Launch,
            (Calls{"record e1 " + L, "wait s2 e1", "wait s3 e1",
                   "launch k_t0 n=100 s2", "launch k_t1 n=200 s3",
                   "launch k_t2 n=300 s3", "record e2 s2", "wait " + L + " e2",
                   "record e3 s3", "wait " + L + " e3"}));
}

TEST_F(MockRuntimeTest, CaptureRecordsTheForkAndJoinAndReplaysThemInOneCall) {
  TestModule TM("graph");
  uint32_t K = TM.addKernel("k", groups({1, 2}));
  qdrt_module *M = TM.registered();
  qd::Stream S = qd::create_stream(); // s1; the pool's are s2, s3
  launch(M, K, {1, 1}, nullptr, &S);  // loads the module
  calls();
  qd::Graph G = qd::capture(S, [&] { launch(M, K, {10, 20}, nullptr, &S); });
  Calls C = calls();
  ASSERT_GE(C.size(), 2u);
  EXPECT_EQ(C.front(), "beginCapture s1");
  EXPECT_EQ(C.back(), "endCapture s1");
  EXPECT_EQ(std::count(C.begin(), C.end(), "launch k_t0 n=10 s2"), 1);
  G.launch(S);
  G.launch();
  EXPECT_EQ(calls(), (Calls{"launchGraph s1", "launchGraph s0"}));
  G.destroy();
  EXPECT_EQ(calls(), (Calls{"destroyGraph"}));
  EXPECT_THROW(G.launch(S), qd::Error);
}

TEST_F(MockRuntimeTest, GraphKernelsRecordOnceAndReplayWithNewArguments) {
  TestModule TM("gk");
  uint32_t K =
      TM.addKernel("g", groups({1, 2}), /*ArgSize=*/4, QDRT_KERNEL_GRAPH);
  qdrt_module *M = TM.registered();
  int Args = 0;
  launch(M, K, {10, 20}, &Args); // loads, records, replays
  Calls C = calls();
  auto Begin = std::find(C.begin(), C.end(), "createStream -> s3");
  ASSERT_NE(Begin, C.end()) << "a stream of its own to capture on";
  EXPECT_EQ(C.back(), "launchGraph s0");
  EXPECT_EQ(std::count(C.begin(), C.end(), "endCaptureForUpdate s3"), 1);
  launch(M, K, {10, 20}, &Args); // the same geometry: new arguments only
  EXPECT_EQ(calls(), (Calls{"setKernelArgs g_t0 n=10",
                            "setKernelArgs g_t1 n=20", "launchGraph s0"}));
  launch(M, K, {10, 30}, &Args); // another geometry: recorded again
  C = calls();
  EXPECT_EQ(C.front(), "destroyGraph");
  EXPECT_EQ(C[1], "destroyRecordedGraph");
  EXPECT_EQ(C[2], "beginCapture s3");
  EXPECT_EQ(C.back(), "launchGraph s0");
}

TEST_F(MockRuntimeTest, AFailedCaptureEndsItAndTheStreamGoesOn) {
  qd::Stream S = qd::create_stream();
  calls();
  EXPECT_THROW(qd::capture(S, [] { throw qd::Error("inside"); }), qd::Error);
  EXPECT_EQ(calls(),
            (Calls{"beginCapture s1", "endCapture s1", "destroyGraph"}));
  try {
    qd::capture(qd::Stream(), [] {});
    ADD_FAILURE() << "the default stream was captured";
  } catch (const qd::Error &E) {
    EXPECT_STREQ(E.what(), "qd::capture: the default stream cannot be "
                           "captured; capture on a stream from "
                           "qd::create_stream()");
  }
}

TEST_F(MockRuntimeTest, ForkJoinEightGroups) {
  TestModule TM("eight");
  std::vector<TestTask> Tasks = groups({1, 2, 3, 4, 5, 6, 7, 8, 8});
  uint32_t K = TM.addKernel("k", Tasks);
  qdrt_module *M = TM.registered();
  launch(M, K, std::vector<uint64_t>(9, 64));
  Calls C = calls();
  // Fork: one record on s0, then every group's stream waits on it.
  auto Fork = std::find(C.begin(), C.end(), "record e1 s0");
  ASSERT_NE(Fork, C.end());
  for (int G = 1; G <= 8; ++G)
    EXPECT_EQ(*(Fork + G), "wait s" + std::to_string(G) + " e1");
  // Tasks in order, each on its group's stream.
  for (int T = 0; T < 9; ++T)
    EXPECT_EQ(*(Fork + 9 + T), "launch k_t" + std::to_string(T) + " n=64 s" +
                                   std::to_string(T < 8 ? T + 1 : 8));
  // Join: one event per group, the launch stream waits on each.
  for (int G = 1; G <= 8; ++G) {
    EXPECT_EQ(*(Fork + 18 + 2 * (G - 1)),
              "record e" + std::to_string(G + 1) + " s" + std::to_string(G));
    EXPECT_EQ(*(Fork + 19 + 2 * (G - 1)), "wait s0 e" + std::to_string(G + 1));
  }
  EXPECT_EQ(Fork + 34, C.end());
}

TEST_F(MockRuntimeTest, NothingIsCreatedAfterWarmUp) {
  TestModule TM("warm");
  uint32_t K2 = TM.addKernel("a", groups({1, 2}));
  uint32_t K4 = TM.addKernel("b", groups({1, 2, 3, 4}));
  qdrt_module *M = TM.registered();
  launch(M, K4, {1, 1, 1, 1});
  calls();
  qd::Stream S = qd::create_stream();
  calls();
  for (int I = 0; I < 100; ++I) {
    launch(M, K2, {8, 8});
    launch(M, K4, {8, 8, 8, 8}, nullptr, &S);
  }
  Calls C = calls();
  EXPECT_EQ(C.size(), 100u * (2 + 3 + 2 * 2) + 100u * (4 + 5 + 2 * 4));
  EXPECT_TRUE(std::none_of(C.begin(), C.end(), isCreation));
  PoolStats Stats = currentDevice().pool().stats();
  EXPECT_EQ(Stats.StreamsCreated, 4u);
  EXPECT_EQ(Stats.EventsCreated, 5u);
  EXPECT_EQ(Stats.Leases, 201u);
}

TEST_F(MockRuntimeTest, StreamDestroyWaitsThenDestroysOnce) {
  qd::Stream S = qd::create_stream();
  EXPECT_NE(S.handle(), nullptr);
  calls();
  S.destroy();
  EXPECT_EQ(S.handle(), nullptr);
  EXPECT_EQ(calls(), (Calls{"synchronize s1", "destroyStream s1"}));
  S.destroy();
  EXPECT_TRUE(calls().empty());
}

TEST_F(MockRuntimeTest, StreamDestructorAndMoveDestroyOnce) {
  {
    qd::Stream A = qd::create_stream();
    qd::Stream B = std::move(A);
    EXPECT_EQ(A.handle(), nullptr);
    qd::Stream C = qd::create_stream();
    calls();
    C = std::move(B); // C's own stream goes first
    EXPECT_EQ(calls(), (Calls{"synchronize s2", "destroyStream s2"}));
  }
  EXPECT_EQ(calls(), (Calls{"synchronize s1", "destroyStream s1"}));
  EXPECT_EQ(State->LiveStreams, 0);
}

TEST_F(MockRuntimeTest, WrappedStreamIsNeverDestroyed) {
  int Native = 0;
  {
    qd::Stream W = qd::Stream::wrap(&Native);
    EXPECT_EQ(W.handle(), &Native);
    EXPECT_FALSE(W.owned());
    W.destroy();
    EXPECT_EQ(W.handle(), nullptr);
  }
  EXPECT_TRUE(calls().empty());
}

TEST_F(MockRuntimeTest, EventCalls) {
  qd::Stream S = qd::create_stream();
  qd::Event A = qd::create_event({.timing = true});
  qd::Event B = qd::create_event();
  calls();
  A.record(S);
  A.wait();
  B.record();
  B.wait(S);
  EXPECT_TRUE(A.query());
  A.synchronize();
  EXPECT_EQ(calls(), (Calls{"record e1 s1", "wait s0 e1", "record e2 s0",
                            "wait s1 e2", "query e1", "synchronizeEvent e1"}));
  EXPECT_THROW(qd::elapsed_ms(A, B), qd::Error); // B has no timing
  A.destroy();
  A.destroy();
  EXPECT_EQ(calls(), (Calls{"destroyEvent e1"}));
  EXPECT_THROW(A.record(S), qd::Error);
}

TEST_F(MockRuntimeTest, LaunchStreamWaitsWithoutBlockingTheHost) {
  TestModule TM("nb");
  uint32_t K = TM.addKernel("k", groups({1, 2}));
  qdrt_module *M = TM.registered();
  launch(M, K, {1, 1});
  for (const std::string &C : calls())
    EXPECT_TRUE(C.rfind("synchronize", 0) != 0) << C;
}

TEST_F(MockRuntimeTest, AbiVersionMismatchIsAClearError) {
  TestModule TM("old");
  TM.addKernel("k", groups({0}));
  qdrt_module *M = nullptr;
  EXPECT_EQ(qdrt_register_module(&TM.desc(QDRT_ABI_VERSION + 1), &M),
            QDRT_ERROR);
  EXPECT_EQ(M, nullptr);
  std::string Msg = qdrt_last_error();
  EXPECT_NE(Msg.find("module 'old' was built for runtime ABI version " +
                     std::to_string(QDRT_ABI_VERSION + 1)),
            std::string::npos)
      << Msg;
  EXPECT_EQ(qdrt_abi_version(), QDRT_ABI_VERSION);
}

// The runtime keeps its devices in a list; a launch, a field address and a
// task function name their device (QDRT_CURRENT_DEVICE, or an ordinal),
// and a stream knows the device it was made on. Naming a device the
// backend does not have is an error saying which it has.
TEST_F(MockRuntimeTest, CallsNameTheirDevice) {
  TestModule TM("dev");
  uint32_t K = TM.addKernel("k", groups({0}));
  int32_t Value = 0;
  uint32_t F = TM.addField("f", &Value, sizeof(Value));
  qdrt_module *M = TM.registered();

  qd::Stream S = qd::create_stream();
  EXPECT_EQ(S.device(), qd::current_device());
  EXPECT_EQ(qd::on(S).device, qd::current_device());
  EXPECT_EQ(qd::Launch{}.device, QDRT_CURRENT_DEVICE);
  EXPECT_EQ(qd::Stream().device(), QDRT_CURRENT_DEVICE);

  uint64_t One = 1;
  calls();
  ASSERT_EQ(
      qdrt_launch(M, K, nullptr, &One, qd::current_device(), qd::on(S).stream),
      QDRT_SUCCESS)
      << qdrt_last_error();
  ASSERT_EQ(qdrt_launch(M, K, nullptr, &One, QDRT_CURRENT_DEVICE, nullptr),
            QDRT_SUCCESS)
      << qdrt_last_error();
  Calls C = calls();
  EXPECT_EQ(std::count_if(C.begin(), C.end(),
                          [](const std::string &Call) {
                            return Call.rfind("launch", 0) == 0;
                          }),
            2);

  void *Current = nullptr, *Named = nullptr;
  ASSERT_EQ(qdrt_field_address(M, QDRT_CURRENT_DEVICE, F, &Current),
            QDRT_SUCCESS);
  ASSERT_EQ(qdrt_field_address(M, qd::current_device(), F, &Named),
            QDRT_SUCCESS);
  EXPECT_EQ(Current, Named);

  std::string Open = "no device 3: the cuda backend has 1 device (ordinal 0)";
  EXPECT_EQ(qdrt_launch(M, K, nullptr, &One, 3, nullptr), QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()), "qdrt_launch: " + Open);
  void *Address = nullptr;
  EXPECT_EQ(qdrt_field_address(M, 3, F, &Address), QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()), "qdrt_field_address: " + Open);
  EXPECT_EQ(Address, nullptr);
  void *Fn = nullptr;
  EXPECT_EQ(qdrt_task_function(M, 3, K, 0, &Fn), QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()), "qdrt_task_function: " + Open);
}

TEST_F(MockRuntimeTest, MalformedModulesAreRefused) {
  TestModule TM("bad");
  TM.addKernel("k", groups({2, 1}));
  qdrt_module *M = nullptr;
  EXPECT_EQ(qdrt_register_module(&TM.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("out of group order"),
            std::string::npos);
  EXPECT_EQ(
      qdrt_launch(nullptr, 0, nullptr, nullptr, QDRT_CURRENT_DEVICE, nullptr),
      QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()), "qdrt_launch: no such kernel");
}

// A serial task that only sets kernel scalars to constants is written into
// the call's scalar block (one memset per run of equal words at consecutive
// offsets), in its place among the launches; one with no iterations writes
// nothing. The returned bytes are the whole block, as the fills left it.
TEST_F(MockRuntimeTest, ConstantScalarsAreMemsetsInsteadOfLaunches) {
  TestModule TM("fills");
  struct Args {
    float In;
    void *Scalars;
  };
  uint32_t K = TM.addKernel("k", groups({0, 0}), sizeof(Args));
  TM.setScalars(K, 24, offsetof(Args, Scalars), 0, 24);
  TM.setFills(0, {{0, 4, 0x3f800000u},
                  {4, 4, 0x3f800000u},
                  {8, 8, 0x0000000100000002ull},
                  {16, 8, 0x3fd5555555555555ull}});
  qdrt_module *M = TM.registered();
  Args A{};
  uint32_t Got[6] = {};
  uint64_t Iterations[2] = {1, 7};
  calls();
  ASSERT_EQ(qdrt_launch_result(M, K, &A, Iterations, QDRT_CURRENT_DEVICE,
                               nullptr, Got),
            QDRT_SUCCESS)
      << qdrt_last_error();
  Calls C = calls();
  C.erase(std::remove_if(C.begin(), C.end(),
                         [](const std::string &S) {
                           return S.rfind("memset", 0) != 0 &&
                                  S.rfind("launch", 0) != 0;
                         }),
          C.end());
  EXPECT_EQ(C, (Calls{"memset32 2 s0", "memset32 1 s0", "memset32 1 s0",
                      "memset32 1 s0", "memset32 1 s0", "launch k_t1 n=7 s0"}));
  EXPECT_EQ(std::vector<uint32_t>(Got, Got + 6),
            (std::vector<uint32_t>{0x3f800000u, 0x3f800000u, 2, 1, 0x55555555u,
                                   0x3fd55555u}));

  Iterations[0] = 0;
  ASSERT_EQ(qdrt_launch_result(M, K, &A, Iterations, QDRT_CURRENT_DEVICE,
                               nullptr, Got),
            QDRT_SUCCESS);
  C = calls();
  EXPECT_EQ(std::count_if(
                C.begin(), C.end(),
                [](const std::string &S) { return S.rfind("memset", 0) == 0; }),
            0);
}

// A call that returns a value waits for its stream, so its scalar block
// serves the next such call: one allocation for many calls. A call that
// fails may leave work that uses its block: the block serves again once
// its stream has run that work, and never when the stream cannot tell;
// reset frees every block.
TEST_F(MockRuntimeTest, ReturningCallsReuseTheirScalarBlock) {
  TestModule TM("reuse");
  struct Args {
    void *Scalars;
  };
  uint32_t K = TM.addKernel("k", groups({0}), sizeof(Args));
  TM.setScalars(K, 8, offsetof(Args, Scalars), 0, 4);
  qdrt_module *M = TM.registered();
  Args A{};
  float Got = 0;
  uint64_t Iterations[1] = {3};
  auto Call = [&] {
    return qdrt_launch_result(M, K, &A, Iterations, QDRT_CURRENT_DEVICE,
                              nullptr, &Got);
  };
  auto Count = [](const Calls &C, const std::string &What) {
    return std::count(C.begin(), C.end(), What);
  };
  ASSERT_EQ(Call(), QDRT_SUCCESS) << qdrt_last_error();
  calls();
  for (int I = 0; I < 3; ++I)
    ASSERT_EQ(Call(), QDRT_SUCCESS) << qdrt_last_error();
  Calls C = calls();
  EXPECT_EQ(Count(C, "launch k_t0 n=3 s0"), 3);
  EXPECT_EQ(Count(C, "allocate 256"), 0);
  EXPECT_EQ(Count(C, "deallocate"), 0);

  // The launch of the next call fails; its stream is waited for, and the
  // block serves the call after.
  State->FailAt = State->CallCount + 1;
  EXPECT_EQ(Call(), QDRT_ERROR);
  EXPECT_EQ(State->FailedCall, "launch k_t0 n=3 s0");
  State->FailAt = 0;
  EXPECT_EQ(Count(calls(), "synchronize s0"), 1);
  ASSERT_EQ(Call(), QDRT_SUCCESS) << qdrt_last_error();
  EXPECT_EQ(Count(calls(), "allocate 256"), 0);

  // The launch fails and so does every call after (the wait too): the
  // block is not used again.
  State->FailAt = State->CallCount + 1;
  State->FailOn = true;
  EXPECT_EQ(Call(), QDRT_ERROR);
  State->FailAt = 0;
  State->FailOn = false;
  calls();
  ASSERT_EQ(Call(), QDRT_SUCCESS) << qdrt_last_error();
  EXPECT_EQ(Count(calls(), "allocate 256"), 1);

  qd::reset();
  EXPECT_EQ(State->liveObjects(), 0);
}

TEST_F(MockRuntimeTest, MalformedScalarFillsAreRefused) {
  for (qdrt_scalar_fill Bad : std::vector<qdrt_scalar_fill>{
           {0, 2, 0}, {2, 4, 0}, {8, 8, 0}, {12, 4, 0}}) {
    TestModule TM("badfills");
    uint32_t K = TM.addKernel("k", groups({0, 0}), 16);
    TM.setScalars(K, 12, 8);
    TM.setFills(0, {Bad});
    qdrt_module *M = nullptr;
    EXPECT_EQ(qdrt_register_module(&TM.desc(), &M), QDRT_ERROR);
    EXPECT_NE(std::string(qdrt_last_error()).find("scalar fill outside"),
              std::string::npos)
        << qdrt_last_error();
  }
  TestModule TM("noblock");
  TM.addKernel("k", groups({0}));
  TM.setFills(0, {{0, 4, 0}});
  qdrt_module *M = nullptr;
  EXPECT_EQ(qdrt_register_module(&TM.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("without a table or a scalar"),
            std::string::npos);
}

// A do_while loop on a device without device-side loops: the host runs
// the body, reads the flag on the launch stream and waits for it, until
// the flag is zero; the tasks around the loop run once.
int32_t LoopFlag = 0, LoopRuns = 0;
void loopBody(const void *, uint64_t, uint64_t) {
  ++LoopRuns;
  LoopFlag = LoopRuns < 3;
}

TEST_F(MockRuntimeTest, DoWhileLoopsOnTheHostWithoutDeviceLoops) {
  State->RunCpuTasks = true;
  TestModule TM("loop");
  uint32_t K =
      TM.addKernel("w", {{0}, {0, loopBody}, {0}}, 0, QDRT_KERNEL_GRAPH);
  uint32_t F = TM.addField("flag", &LoopFlag, sizeof(LoopFlag));
  TM.setLoops(K, {{1, 1, F, 0}});
  qdrt_module *M = TM.registered();
  LoopRuns = 0;
  launch(M, K, {1, 1, 1});
  EXPECT_EQ(LoopRuns, 3);
  Calls Got = calls();
  Calls Body = {"launch w_t1 n=1 s0", "copyToHost 4 s0", "synchronize s0"};
  Calls Want = {"launch w_t0 n=1 s0"};
  for (int I = 0; I < 3; ++I)
    Want.insert(Want.end(), Body.begin(), Body.end());
  Want.push_back("launch w_t2 n=1 s0");
  ASSERT_GE(Got.size(), Want.size());
  EXPECT_EQ(Calls(Got.end() - Want.size(), Got.end()), Want);
}

// Nested loops on the host: the inner loop runs to its end in each run of
// the outer body; the outer flag is read after the outer body's last task.
int32_t OuterFlag = 0, InnerFlag = 0, OuterRuns = 0, InnerRuns = 0,
        OuterStarts = 0;
void outerStart(const void *, uint64_t, uint64_t) { ++OuterStarts; }
void innerBody(const void *, uint64_t, uint64_t) {
  ++InnerRuns;
  InnerFlag = InnerRuns % 2; // two runs per run of the outer body
}
void outerEnd(const void *, uint64_t, uint64_t) {
  ++OuterRuns;
  OuterFlag = OuterRuns < 3;
}

TEST_F(MockRuntimeTest, NestedDoWhileLoopsOnTheHost) {
  State->RunCpuTasks = true;
  TestModule TM("nest");
  uint32_t K = TM.addKernel(
      "w", {{0}, {0, outerStart}, {0, innerBody}, {0, outerEnd}, {0}}, 0,
      QDRT_KERNEL_GRAPH);
  uint32_t Outer = TM.addField("outer", &OuterFlag, sizeof(OuterFlag));
  uint32_t Inner = TM.addField("inner", &InnerFlag, sizeof(InnerFlag));
  TM.setLoops(K, {{1, 3, Outer, 0}, {2, 1, Inner, 0}});
  qdrt_module *M = TM.registered();
  OuterRuns = InnerRuns = OuterStarts = 0;
  launch(M, K, {1, 1, 1, 1, 1});
  EXPECT_EQ(OuterStarts, 3);
  EXPECT_EQ(OuterRuns, 3);
  EXPECT_EQ(InnerRuns, 6);
  Calls Got = calls();
  Calls Inner2 = {"launch w_t2 n=1 s0", "copyToHost 4 s0", "synchronize s0"};
  Calls Want = {"launch w_t0 n=1 s0"};
  for (int I = 0; I < 3; ++I) {
    Want.push_back("launch w_t1 n=1 s0");
    for (int J = 0; J < 2; ++J)
      Want.insert(Want.end(), Inner2.begin(), Inner2.end());
    Want.insert(Want.end(),
                {"launch w_t3 n=1 s0", "copyToHost 4 s0", "synchronize s0"});
  }
  Want.push_back("launch w_t4 n=1 s0");
  ASSERT_GE(Got.size(), Want.size());
  EXPECT_EQ(Calls(Got.end() - Want.size(), Got.end()), Want);
}

TEST_F(MockRuntimeTest, MalformedLoopTablesAreRefused) {
  TestModule TM("badloop");
  uint32_t K = TM.addKernel("w", groups({0, 0}), 8);
  TM.setLoops(K, {{1, 2, QDRT_FLAG_IN_ARGS, 0}}); // past the kernel's tasks
  qdrt_module *M = nullptr;
  EXPECT_EQ(qdrt_register_module(&TM.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("beyond its tasks"),
            std::string::npos);
  TestModule Flag("badflag");
  K = Flag.addKernel("w", groups({0, 0}), 8);
  Flag.setLoops(K, {{0, 1, QDRT_FLAG_IN_ARGS, 4}}); // 4 + 8 > 8 bytes
  EXPECT_EQ(qdrt_register_module(&Flag.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("do_while flag outside"),
            std::string::npos);
  // A loop that starts inside another and ends after it does not nest.
  TestModule Cross("crossloop");
  K = Cross.addKernel("w", groups({0, 0, 0, 0}), 8);
  Cross.setLoops(K,
                 {{0, 2, QDRT_FLAG_IN_ARGS, 0}, {1, 2, QDRT_FLAG_IN_ARGS, 0}});
  EXPECT_EQ(qdrt_register_module(&Cross.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("out of order"),
            std::string::npos);
  // At most QDRT_MAX_LOOP_DEPTH loops nest.
  TestModule Deep("deeploop");
  K = Deep.addKernel("w", groups({0}), 8);
  Deep.setLoops(K, std::vector<qdrt_graph_loop>(QDRT_MAX_LOOP_DEPTH + 1,
                                                {0, 1, QDRT_FLAG_IN_ARGS, 0}));
  EXPECT_EQ(qdrt_register_module(&Deep.desc(), &M), QDRT_ERROR);
  EXPECT_NE(std::string(qdrt_last_error()).find("nested more than 16 deep"),
            std::string::npos);
  // Nested loops, and a loop nested with the same tasks, are accepted.
  TestModule Nest("nestloop");
  K = Nest.addKernel("w", groups({0, 0, 0, 0}), 8);
  Nest.setLoops(K, {{0, 3, QDRT_FLAG_IN_ARGS, 0},
                    {0, 3, QDRT_FLAG_IN_ARGS, 0},
                    {1, 1, QDRT_FLAG_IN_ARGS, 0},
                    {2, 1, QDRT_FLAG_IN_ARGS, 0},
                    {3, 1, QDRT_FLAG_IN_ARGS, 0}});
  EXPECT_EQ(qdrt_register_module(&Nest.desc(), &M), QDRT_SUCCESS)
      << qdrt_last_error();
}

TEST_F(MockRuntimeTest, PoolBoundIsEnforced) {
  StreamPool Pool(currentDevice().device(), /*MaxStreams=*/4);
  Lease L = Pool.acquire(4);
  EXPECT_EQ(L.Streams.size(), 4u);
  EXPECT_EQ(L.Joins.size(), 4u);
  EXPECT_THROW(Pool.acquire(5), qd::Error);
  Pool.release(std::move(L));
  Lease Again = Pool.acquire(2);
  PoolStats S = Pool.stats();
  EXPECT_EQ(S.StreamsCreated, 4u);
  EXPECT_EQ(S.StreamsReused, 2u);
  Pool.release(std::move(Again));
}

TEST_F(MockRuntimeTest, ResetReleasesEverything) {
  TestModule TM("rs");
  uint32_t K = TM.addKernel("k", groups({1, 2}));
  qdrt_module *M = TM.registered();
  qd::Stream S = qd::create_stream();
  launch(M, K, {1, 1}, nullptr, &S);
  qd::reset();
  EXPECT_EQ(State->liveObjects(), 1); // only the user's stream is left
  calls();
  S.destroy(); // belongs to the old runtime: forgotten, not destroyed
  EXPECT_TRUE(calls().empty());
}

TEST_F(MockRuntimeTest, AModuleThatFailedToLoadIsNotKept) {
  TestModule TM("unloadable");
  uint32_t K = TM.addKernel("k", groups({0}));
  qdrt_module *M = TM.registered();
  State->FailAt = State->CallCount + 1; // the loadModule call
  EXPECT_EQ(qdrt_launch(M, K, nullptr, std::vector<uint64_t>{1}.data(),
                        QDRT_CURRENT_DEVICE, nullptr),
            QDRT_ERROR);
  EXPECT_EQ(State->FailedCall, "loadModule unloadable");
  qd::reset(); // nothing to unload, nothing to crash on
  EXPECT_EQ(State->liveObjects(), 0);
}

/// One scenario touching every kind of driver call.
void scenario(qdrt_module *M, uint32_t K) {
  qd::Stream S = qd::create_stream();
  qd::Event E = qd::create_event();
  qd::Ndarray<float, 1> X({16});
  X.fill(1.0f);
  launch(M, K, {16, 16, 16}, nullptr, &S);
  E.record(S);
  E.wait();
  std::vector<float> Out = X.to_vector();
  S.synchronize();
  // Explicitly, so that failures surface (destructors cannot report).
  E.destroy();
  S.destroy();
}

TEST_F(MockRuntimeTest, EveryInjectedFailureIsAnErrorLeaksNothingAndRecovers) {
  TestModule TM("faulty");
  uint32_t K = TM.addKernel("k", groups({1, 2, 2}));
  // How many calls does a clean run take, from a fresh runtime?
  qdrt_module *M = TM.registered();
  scenario(M, K);
  unsigned CleanCalls = State->CallCount;
  qd::reset();
  ASSERT_GT(CleanCalls, 20u);

  for (unsigned N = 1; N <= CleanCalls; ++N) {
    auto Fresh = std::make_shared<MockState>();
    Fresh->FailAt = N;
    startWithDevice(std::make_unique<MockDevice>(Fresh));
    bool Threw = false;
    try {
      scenario(M, K);
    } catch (const qd::Error &E) {
      Threw = true;
      EXPECT_NE(std::string(E.what()).find("mock: injected failure"),
                std::string::npos)
          << E.what();
    }
    // Freeing memory happens in a destructor, which cannot report.
    bool InDestructor = Fresh->FailedCall.rfind("deallocate", 0) == 0;
    EXPECT_TRUE(Threw || InDestructor)
        << "call " << N << " (" << Fresh->FailedCall << ") failed silently";
    // The runtime keeps working: the same scenario now succeeds.
    EXPECT_NO_THROW(scenario(M, K)) << "after failing call " << N;
    qd::reset();
    // Only an object whose own destruction failed may remain.
    bool FailedToFree =
        InDestructor || Fresh->FailedCall.rfind("destroy", 0) == 0;
    EXPECT_EQ(Fresh->liveObjects(), FailedToFree ? 1 : 0)
        << "leak after failing call " << N << " (" << Fresh->FailedCall << ")";
  }
}

TEST_F(MockRuntimeTest, NewArraysAreZeroedByADeviceMemset) {
  calls();
  Ndarray<float, 1> X({10});
  // On a stream of the runtime's own, waited for: any stream may use the
  // array at once.
  EXPECT_EQ(calls(), (Calls{"allocate 40", "createStream -> s1",
                            "memset32 10 s1", "synchronize s1"}));
  Ndarray<uint8_t, 1> Y({5}); // whole words
  EXPECT_EQ(calls(), (Calls{"allocate 8", "memset32 2 s1", "synchronize s1"}));
  Ndarray<float, 1> Empty({0});
  EXPECT_EQ(calls(), Calls{});
  EXPECT_EQ(X.to_vector(), std::vector<float>(10, 0.0f));
}

// A HostArray is the program's memory, registered (pinned) with the device
// in whole pages and unregistered before it is freed; a copy from it is one
// device copy on the stream, with no staging.
TEST_F(MockRuntimeTest, HostArraysArePinnedPagesTheProgramOwns) {
  calls();
  HostArray<float> H(1000);
  EXPECT_EQ(calls(), (Calls{"registerHost 4096"}));
  EXPECT_EQ(H.size(), 1000u);
  EXPECT_EQ(H.bytes(), 4000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(H.data()) % 4096, 0u);
  EXPECT_TRUE(std::all_of(H.begin(), H.end(), [](float V) { return V == 0; }));
  for (size_t I = 0; I < H.size(); ++I)
    H[I] = float(I);
  Ndarray<float, 1> X({1000});
  Stream S = create_stream();
  calls();
  X.copy_from_async(H.data(), H.size(), S);
  EXPECT_EQ(calls(), (Calls{"copyToDevice 4000 s2"}));
  EXPECT_EQ(X.to_vector()[999], 999.0f);

  HostArray<float> Moved = std::move(H);
  EXPECT_EQ(H.data(), nullptr);
  EXPECT_EQ(H.size(), 0u);
  EXPECT_EQ(Moved[999], 999.0f);
  calls();
  { HostArray<float> Gone = std::move(Moved); }
  EXPECT_EQ(calls(), (Calls{"unregisterHost"}));
  HostArray<double> Empty(0);
  EXPECT_EQ(Empty.data(), nullptr);
  EXPECT_EQ(calls(), Calls{});
}

// After a reset the memory is still the program's: readable and writable,
// freed by the destructor with no call to a device of the old runtime.
TEST_F(MockRuntimeTest, AHostArrayOutlivesAReset) {
  HostArray<int32_t> H(3);
  H[2] = 7;
  qd::reset();
  State->takeCalls(); // the registration, the reset's own
  auto Fresh = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(Fresh));
  H[1] = 5;
  EXPECT_EQ(H[1] + H[2], 12);
  { HostArray<int32_t> Gone = std::move(H); }
  EXPECT_EQ(Fresh->takeCalls(), Calls{});
  EXPECT_EQ(State->takeCalls(), Calls{});
}

/// An element of 6 bytes: no whole 32-bit words.
struct Short3 {
  int16_t A, B, C;
  bool operator==(const Short3 &O) const {
    return A == O.A && B == O.B && C == O.C;
  }
};
/// An element of 68 bytes: more words than the fill kernel repeats.
struct Wide {
  float V[17];
  bool operator==(const Wide &O) const { return std::equal(V, V + 17, O.V); }
};

TEST_F(MockRuntimeTest, FillsAreMemsetsWordKernelsOrDoublingCopies) {
  Ndarray<float, 1> F({1 << 20});
  Ndarray<double, 1> D({1000});
  Ndarray<qd::vec2, 1> V({1000});
  Ndarray<qd::vec3, 1> V3({1001});
  calls();
  F.fill(1.5f);
  D.fill(0.0);
  V.fill(qd::vec2{2, 2});
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"memset32 1048576 s0", "synchronize s0",
                                      "memset8 8000 s0", "synchronize s0",
                                      "memset32 2000 s0", "synchronize s0"}));
  // No 1-, 2- or 4-byte pattern: the device's kernel repeating the words.
  D.fill(1.0); // 0x3ff0000000000000
  V3.fill(qd::vec3{1, -2, 0.5f});
  EXPECT_EQ(calls(), (std::vector<std::string>{
                         "fillWords 2000x2 s0", "synchronize s0",
                         "fillWords 3003x3 s0", "synchronize s0"}));
  EXPECT_EQ(D.to_vector(), std::vector<double>(1000, 1.0));
  EXPECT_EQ(V3.to_vector(), std::vector<qd::vec3>(1001, qd::vec3{1, -2, 0.5f}));
  // No whole words, or too many: one element in, then doubling copies.
  Ndarray<Short3, 1> S({1000});
  calls();
  S.fill({1, 2, 3});
  std::vector<std::string> Calls = calls();
  ASSERT_EQ(Calls.size(), 12u); // one element in, 10 doublings, the wait
  EXPECT_EQ(Calls.front(), "copyToDevice 6 s0");
  EXPECT_EQ(Calls[1], "copyOnDevice 6 s0");
  EXPECT_EQ(Calls[10], "copyOnDevice 2928 s0"); // 6000 - 3072 bytes
  EXPECT_EQ(S.to_vector(), std::vector<Short3>(1000, Short3{1, 2, 3}));
  Ndarray<Wide, 1> W({3});
  Wide Value{};
  for (int I = 0; I < 17; ++I)
    Value.V[I] = float(I) + 0.25f;
  calls();
  W.fill(Value);
  Calls = calls();
  EXPECT_EQ(Calls.front(), "copyToDevice 68 s0");
  EXPECT_EQ(W.to_vector(), std::vector<Wide>(3, Value));
}

} // namespace

// Two mock devices: each opened when first named, with its own streams,
// module images and fields; a launch runs on its stream's device; each
// host thread has its own current device.
class TwoDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    State = std::make_shared<MockState>();
    auto S = State;
    startWithDevices([S](int Ordinal) -> std::unique_ptr<rt::Device> {
      if (Ordinal > 1)
        throw qd::Error("mock: no device " + std::to_string(Ordinal));
      S->Calls.push_back("open " + std::to_string(Ordinal));
      return std::make_unique<MockDevice>(S, Ordinal, 2);
    });
  }
  void TearDown() override { qd::reset(); }
  Calls calls() { return State->takeCalls(); }
  std::shared_ptr<MockState> State;
};

// A HostArray is pinned for every device: before it is freed, every open
// device's queued work is waited for, not only the registering one's.
TEST_F(TwoDeviceTest, AHostArrayWaitsForEveryOpenDevice) {
  qd::Device D1 = qd::device(1);
  calls();
  {
    HostArray<float> H(16);
    EXPECT_EQ(calls(), (Calls{"registerHost 4096"}));
  }
  EXPECT_EQ(calls(), (Calls{"d1: synchronize s0", "unregisterHost"}));
}

TEST_F(TwoDeviceTest, DevicesOpenWhenNamedAndKeepTheirOwnWork) {
  EXPECT_EQ(qd::device_count(), 2);
  EXPECT_EQ(qd::current_device(), 0);
  EXPECT_EQ(calls(), (Calls{"open 0"}));
  qd::Device D1 = qd::device(1);
  EXPECT_EQ(D1.ordinal, 1);
  EXPECT_EQ(D1.name, "mock device 1");
  EXPECT_EQ(D1.compute_capability, 81);
  EXPECT_EQ(D1.memory, size_t(1) << 30);
  EXPECT_EQ(calls(), (Calls{"open 1"}));

  TestModule TM("two");
  uint32_t K = TM.addKernel("k", groups({0}));
  int32_t Value = 0;
  uint32_t F = TM.addField("f", &Value, sizeof(Value));
  qdrt_module *M = TM.registered();

  qd::Stream S1 = qd::create_stream(D1);
  EXPECT_EQ(S1.device(), 1);
  EXPECT_EQ(S1.native(), S1.handle());
  launch(M, K, {5}, nullptr, &S1);
  launch(M, K, {6});
  Calls C = calls();
  // Device 1 loaded the module for its launch, device 0 for its own.
  EXPECT_NE(std::find(C.begin(), C.end(), "d1: loadModule two"), C.end());
  EXPECT_NE(std::find(C.begin(), C.end(), "loadModule two"), C.end());
  EXPECT_NE(std::find_if(C.begin(), C.end(),
                         [](const std::string &Call) {
                           return Call.rfind("d1: launch k_t0 n=5", 0) == 0;
                         }),
            C.end());
  EXPECT_NE(std::find_if(C.begin(), C.end(),
                         [](const std::string &Call) {
                           return Call.rfind("launch k_t0 n=6", 0) == 0;
                         }),
            C.end());

  // Each device has its own copy of the module's fields.
  void *On0 = nullptr, *On1 = nullptr;
  ASSERT_EQ(qdrt_field_address(M, 0, F, &On0), QDRT_SUCCESS);
  ASSERT_EQ(qdrt_field_address(M, 1, F, &On1), QDRT_SUCCESS);
  EXPECT_NE(On0, nullptr);
  EXPECT_NE(On1, nullptr);

  // No device 2: the error names the backend's count.
  uint64_t One = 1;
  EXPECT_EQ(qdrt_launch(M, K, nullptr, &One, 2, nullptr), QDRT_ERROR);
  EXPECT_EQ(std::string(qdrt_last_error()),
            "qdrt_launch: no device 2: the cuda backend has 2 devices "
            "(ordinals 0 to 1)");
  EXPECT_THROW(qd::set_device(2), qd::Error);
  try {
    qd::device(-1);
    FAIL() << "device -1 was taken for the current one";
  } catch (const qd::Error &E) {
    EXPECT_EQ(std::string(E.what()),
              "qd::device: no device -1: ordinals are 0 to 1");
  }
}

TEST_F(TwoDeviceTest, TheCurrentDeviceIsPerHostThread) {
  qd::set_device(1);
  EXPECT_EQ(qd::current_device(), 1);
  qd::Stream S = qd::create_stream();
  EXPECT_EQ(S.device(), 1);
  int Other = -1;
  std::thread T([&] { Other = qd::current_device(); });
  T.join();
  EXPECT_EQ(Other, 0);
  // A wrapped stream belongs to the device named, or the current one.
  EXPECT_EQ(qd::Stream::wrap(S.native()).device(), 1);
  EXPECT_EQ(qd::Stream::wrap(S.native(), 0).device(), 0);
  qd::set_device(0);
  EXPECT_EQ(qd::current_device(), 0);
}

TEST_F(TwoDeviceTest, EventsAcrossDevices) {
  qd::Stream S0 = qd::create_stream(qd::device(0));
  qd::Stream S1 = qd::create_stream(qd::device(1));
  qd::Event E = qd::create_event(); // on device 0, the current one
  E.record(S0);
  calls();
  E.wait(S1); // device 1's stream waits, issued by device 1
  Calls C = calls();
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0].rfind("d1: wait", 0), 0u) << C[0];
  try {
    E.record(S1);
    FAIL() << "recorded on another device's stream";
  } catch (const qd::Error &Err) {
    EXPECT_EQ(std::string(Err.what()),
              "qd::Event::record: the stream is on device 1, the event on "
              "device 0; record it on a stream of its device (any device's "
              "stream may wait for it)");
  }
}

// What a generated launcher calls (<qd/detail/launcher.h>, which only
// Clang compiles).
namespace qd::detail {
int launch_device(const qd::Launch &launch);
void check_peer_device(int array, int call, const char *kernel,
                       const char *param);
} // namespace qd::detail

TEST_F(TwoDeviceTest, ArraysKnowTheirDeviceAndCallsTheirs) {
  qd::Ndarray<float, 1> Here({8});
  qd::Ndarray<float, 1> There({8}, qd::device(1));
  EXPECT_EQ(Here.device(), 0);
  EXPECT_EQ(There.device(), 1);
  EXPECT_EQ((qd::NdarrayView<float, 1>(There).device()), 1);
  EXPECT_EQ((qd::Ndarray<float, 1>().device()), QDRT_CURRENT_DEVICE);

  qd::Stream S1 = qd::create_stream(qd::device(1));
  EXPECT_EQ(qd::detail::launch_device(qd::Launch{}), 0);
  EXPECT_EQ(qd::detail::launch_device(qd::on(S1)), 1);
  qd::set_device(1);
  EXPECT_EQ(qd::detail::launch_device(qd::Launch{}), 1);
  qd::set_device(0);
  try {
    qd::detail::check_peer_device(1, 0, "k", "x");
    FAIL() << "device 0 reached device 1's array without peer access";
  } catch (const qd::Error &E) {
    EXPECT_EQ(std::string(E.what()), "kernel 'k': argument 'x' is on device 1, "
                                     "but the call runs on device 0");
  }
  // Peer access: the mock device has none to give, an error saying so.
  try {
    qd::enable_peer_access(qd::device(0), qd::device(1));
    FAIL() << "the mock device enabled peer access";
  } catch (const qd::Error &E) {
    EXPECT_EQ(std::string(E.what()),
              "qd::enable_peer_access: the cuda backend has one device");
  }
}

// A copy between devices is issued by its stream's device, else by the
// destination's.
TEST_F(TwoDeviceTest, CopiesBetweenDevices) {
  qd::Ndarray<float, 1> A({4}, qd::device(0)), B({4}, qd::device(1));
  qd::Stream S0 = qd::create_stream(qd::device(0));
  calls();
  qd::copy_async(B, A, S0);
  Calls C = calls();
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0].rfind("copyOnDevice", 0), 0u) << C[0];
  qd::copy(B, A);
  C = calls();
  ASSERT_FALSE(C.empty());
  EXPECT_EQ(C[0].rfind("d1: copyOnDevice", 0), 0u) << C[0];
}

TEST_F(TwoDeviceTest, ArraysAreFreedByTheirDevice) {
  qd::set_device(1);
  {
    qd::Ndarray<float, 1> A({16});
    EXPECT_EQ(State->LiveBuffers, 1);
  }
  EXPECT_EQ(State->LiveBuffers, 0);
  qd::set_device(0);
}
