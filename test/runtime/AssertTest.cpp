//===- AssertTest.cpp - Assertion failures belong to their stream ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A failed QD_ASSERT is the error of the stream whose work failed, raised
// at that stream's next synchronization, never by another thread's call:
// on the CPU backend each launch has its own record; on GPUs (the mock
// device) the module's record is attributed to the streams that launched
// the module since its last check.
//
//===----------------------------------------------------------------------===//

#include "AssertKernels.h"
#include "ErrorText.h"
#include "MockDevice.h"
#include "Runtime.h"
#include "TestModule.h"

#include "gtest/gtest.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

using namespace qd;
using namespace qd::rt;
using namespace qd::rt::test;

namespace {

/// Two threads meet here, so that their launches and synchronizations
/// interleave in every round.
class Barrier {
public:
  void arriveAndWait() {
    std::unique_lock<std::mutex> Lock(Mutex);
    uint64_t Round = Rounds;
    if (++Arrived == 2) {
      Arrived = 0;
      ++Rounds;
      Met.notify_all();
      return;
    }
    Met.wait(Lock, [&] { return Rounds != Round; });
  }

private:
  std::mutex Mutex;
  std::condition_variable Met;
  unsigned Arrived = 0;
  uint64_t Rounds = 0;
};

TEST(AssertTest, EachCpuThreadSeesItsOwnFailureOnly) {
  qd::reset();
  qd::init(Arch::cpu);
  TestModule TM("asserts");
  uint32_t Passes = TM.addKernel("passes", {{0, qdrt_test_below}},
                                 sizeof(qdrt_test_below_args));
  uint32_t Fails = TM.addKernel("fails", {{0, qdrt_test_below}},
                                sizeof(qdrt_test_below_args));
  TM.setAssertRecord(qdrt_test_module_record());
  qdrt_module *M = TM.registered();

  constexpr int Rounds = 500;
  constexpr int64_t N = 4096;
  std::atomic<int> PassingSawAnError{0}, FailingSawNone{0}, WrongMessage{0};
  std::string AMessage;
  Barrier Meet;
  std::thread Passing([&] {
    try {
      qd::Stream S = qd::create_stream();
      std::vector<int32_t> Out(N);
      for (int R = 0; R < Rounds; ++R) {
        qdrt_test_below_args Args{Out.data(), N};
        Meet.arriveAndWait();
        launch(M, Passes, {uint64_t(N)}, &Args, &S);
        Meet.arriveAndWait(); // both launched
        if (!errorOf([&] { S.synchronize(); }).empty())
          ++PassingSawAnError;
      }
    } catch (const qd::Error &) {
      ++PassingSawAnError;
    }
  });
  std::thread Failing([&] {
    try {
      qd::Stream S = qd::create_stream();
      std::vector<int32_t> Out(N);
      for (int R = 0; R < Rounds; ++R) {
        qdrt_test_below_args Args{Out.data(), N / 2};
        Meet.arriveAndWait();
        launch(M, Fails, {uint64_t(N)}, &Args, &S);
        Meet.arriveAndWait();
        std::string E = errorOf([&] { S.synchronize(); });
        if (E.empty())
          ++FailingSawNone;
        else if (!contains(E,
                           "qd::Stream::synchronize: QD_ASSERT failed in '") ||
                 !contains(E, "AssertKernels.cpp:") ||
                 !contains(E, ": i < A.limit: i is below the limit"))
          ++WrongMessage, AMessage = E;
      }
    } catch (const qd::Error &) {
      ++FailingSawNone;
    }
  });
  Passing.join();
  Failing.join();
  EXPECT_EQ(PassingSawAnError.load(), 0);
  EXPECT_EQ(FailingSawNone.load(), 0);
  EXPECT_EQ(WrongMessage.load(), 0) << AMessage;
  // Nothing was launched on the default stream, and nothing is left over.
  EXPECT_EQ(errorOf([] { qd::sync(); }), "");
  EXPECT_EQ(qdrt_test_module_record()->failed, 0u);
  qd::reset();
}

TEST(AssertTest, ACpuFailureWaitsForItsStreamAndIsRaisedOnce) {
  qd::reset();
  qd::init(Arch::cpu);
  TestModule TM("asserts_once");
  uint32_t K =
      TM.addKernel("k", {{0, qdrt_test_below}}, sizeof(qdrt_test_below_args));
  TM.setAssertRecord(qdrt_test_module_record());
  qdrt_module *M = TM.registered();
  std::vector<int32_t> Out(64);
  qdrt_test_below_args Bad{Out.data(), 10}, Good{Out.data(), 64};
  qd::Stream A = qd::create_stream(), B = qd::create_stream();
  launch(M, K, {64}, &Bad, &A); // the launch itself does not throw
  EXPECT_EQ(errorOf([&] { B.synchronize(); }), "");
  EXPECT_EQ(errorOf([] { qd::sync(); }), "");
  launch(M, K, {64}, &Good, &A);
  EXPECT_TRUE(contains(errorOf([&] { A.synchronize(); }),
                       "qd::Stream::synchronize: QD_ASSERT failed in"));
  EXPECT_EQ(errorOf([&] { A.synchronize(); }), "");
  // The default stream's own failure is qd::sync's.
  launch(M, K, {64}, &Bad);
  EXPECT_EQ(errorOf([&] { A.synchronize(); }), "");
  EXPECT_TRUE(
      contains(errorOf([] { qd::sync(); }), "qd::sync: QD_ASSERT failed"));
  // Destroying a stream reports its failure, and forgets it.
  launch(M, K, {64}, &Bad, &B);
  EXPECT_TRUE(contains(errorOf([&] { B.destroy(); }),
                       "qd::Stream::destroy: QD_ASSERT failed"));
  qd::reset();
}

/// The mock device is a GPU: one record per module, shared by its launches.
class MockAssertTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    State = std::make_shared<MockState>();
    startWithDevice(std::make_unique<MockDevice>(State));
    TM.setAssertRecord(&Record);
    K = TM.addKernel("k", {{0}});
    M = TM.registered();
  }
  void TearDown() override { qd::reset(); }

  /// What a failing GPU thread writes.
  void fail() {
    Record = qdrt_assert_record{};
    Record.failed = 1;
    Record.line = 7;
    std::strcpy(Record.function, "k_t0");
    std::strcpy(Record.file, "m.qd");
    std::strcpy(Record.text, "x > 0");
  }
  /// The message names the kernel whose task (k_t0) failed.
  static std::string message(const char *What) {
    return std::string(What) + ": QD_ASSERT failed in 'k' at m.qd:7: x > 0";
  }

  std::shared_ptr<MockState> State;
  qdrt_assert_record Record{};
  TestModule TM{"gpu_asserts"};
  uint32_t K = 0;
  qdrt_module *M = nullptr;
};

TEST_F(MockAssertTest, AFailureIsRaisedOnTheStreamsThatLaunchedTheModule) {
  qd::Stream S1 = create_stream(), S2 = create_stream(), S3 = create_stream();
  auto Sync = [](qd::Stream &S) { return errorOf([&] { S.synchronize(); }); };
  const std::string OnS = message("qd::Stream::synchronize");

  // Found by another stream's synchronization: kept for S1, raised there.
  launch(M, K, {8}, nullptr, &S1);
  fail();
  EXPECT_EQ(Sync(S2), "");
  EXPECT_EQ(Record.failed, 0u) << "read and cleared";
  EXPECT_EQ(Sync(S1), OnS);
  EXPECT_EQ(Sync(S1), "") << "raised once";

  // Found by the launching stream: raised there only.
  launch(M, K, {8}, nullptr, &S1);
  fail();
  EXPECT_EQ(Sync(S1), OnS);
  EXPECT_EQ(Sync(S2), "");

  // Two streams launched the module: each raises it once; a third never.
  launch(M, K, {8}, nullptr, &S1);
  launch(M, K, {8}, nullptr, &S2);
  fail();
  EXPECT_EQ(Sync(S3), "");
  EXPECT_EQ(Sync(S1), OnS);
  EXPECT_EQ(Sync(S2), OnS);
  EXPECT_EQ(Sync(S1), "");
  EXPECT_EQ(Sync(S2), "");

  // A stream whose work was synchronized without a failure is no longer
  // one of the launchers.
  launch(M, K, {8}, nullptr, &S1);
  EXPECT_EQ(Sync(S1), "");
  launch(M, K, {8}, nullptr, &S2);
  fail();
  EXPECT_EQ(Sync(S1), "");
  EXPECT_EQ(Sync(S2), OnS);

  // The default stream's failure is qd::sync's.
  launch(M, K, {8});
  fail();
  EXPECT_EQ(Sync(S1), "");
  EXPECT_EQ(errorOf([] { qd::sync(); }), message("qd::sync"));
  EXPECT_EQ(errorOf([] { qd::sync(); }), "");

  // A destroyed stream reports its failure, and nothing stays for it.
  launch(M, K, {8}, nullptr, &S3);
  fail();
  EXPECT_EQ(Sync(S1), "");
  EXPECT_EQ(errorOf([&] { S3.destroy(); }), message("qd::Stream::destroy"));
}

TEST_F(MockAssertTest, AFailureInALatencyVersionOrNarrowEntryNamesItsKernel) {
  // The entries a task may run besides its own (`<task>_lat`, `<task>_nar`)
  // are named by the kernel, as the task's own is.
  TestModule Versions{"gpu_versions"};
  qdrt_assert_record VersionRecord{};
  Versions.setAssertRecord(&VersionRecord);
  TestTask Task;
  Task.Latency = "w_t0_lat";
  Task.Narrow = "w_t0_nar";
  uint32_t W = Versions.addKernel("w", {Task});
  qdrt_module *VM = Versions.registered();
  for (const char *Entry :
       {"w_t0_lat", "w_t0_nar", "void w_t0_nar(w_qd_args, uint64_t)"}) {
    launch(VM, W, {8});
    VersionRecord = qdrt_assert_record{};
    VersionRecord.failed = 1;
    VersionRecord.line = 3;
    std::strcpy(VersionRecord.function, Entry);
    std::strcpy(VersionRecord.file, "w.qd");
    std::strcpy(VersionRecord.text, "y < 1");
    EXPECT_EQ(errorOf([] { qd::sync(); }),
              "qd::sync: QD_ASSERT failed in 'w' at w.qd:3: y < 1")
        << Entry;
  }
}

TEST_F(MockAssertTest, EachPartsRecordIsReadAndAllAreCleared) {
  // A module in parts: a record in each of three parts (Device::getGlobals).
  qdrt_assert_record Second{}, Third{};
  State->PartCopies["qd_assert_record_"] = {&Second, &Third};
  qd::Stream S = create_stream();
  auto Sync = [&] { return errorOf([&] { S.synchronize(); }); };
  launch(M, K, {8}, nullptr, &S);
  EXPECT_EQ(Sync(), "");
  // The third part's task failed: raised, and every record cleared.
  launch(M, K, {8}, nullptr, &S);
  fail();
  Third = Record;
  Record = qdrt_assert_record{};
  EXPECT_EQ(Sync(), message("qd::Stream::synchronize"));
  EXPECT_EQ(Third.failed, 0u);
  EXPECT_EQ(Sync(), "") << "raised once";
  // Two parts failed: the first record's failure is raised, once.
  launch(M, K, {8}, nullptr, &S);
  fail();
  Second = Record;
  std::strcpy(Second.text, "y > 0");
  EXPECT_EQ(Sync(), message("qd::Stream::synchronize"));
  EXPECT_EQ(Record.failed + Second.failed + Third.failed, 0u);
  EXPECT_EQ(Sync(), "");
}

TEST_F(MockAssertTest, AGraphReplayCountsAsALaunchOfItsModules) {
  qd::Stream S1 = create_stream(), S2 = create_stream();
  qd::Graph G = qd::capture(S1, [&] { launch(M, K, {8}, nullptr, &S1); });
  G.launch(S2);
  fail();
  EXPECT_EQ(errorOf([&] { S1.synchronize(); }), "");
  EXPECT_EQ(errorOf([&] { S2.synchronize(); }),
            message("qd::Stream::synchronize"));
}

} // namespace
