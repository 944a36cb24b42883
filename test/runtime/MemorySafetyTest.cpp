//===- MemorySafetyTest.cpp - Misuse of memory is an error, never a crash -===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shapes whose size overflows, negative extents, dimensions
// out of range, unknown backends, arrays and streams used after
// qd::reset(), null host pointers and empty arrays passed to kernels: each
// is a qd::Error naming the operation, never a crash, a wrapped size or an
// access to freed memory.
//
//===----------------------------------------------------------------------===//

#include "MockDevice.h"
#include "Runtime.h"
#include "TestModule.h"

#include "qd/runtime.h"

// Generated code, which includes <qd/detail/launcher.h>, is compiled by
// Clang; <qd/detail/kernel.h> uses Clang's __is_floating_point.
#ifndef __clang__
#include <type_traits>
#define __is_floating_point(T) std::is_floating_point_v<T>
#endif
#include "qd/detail/launcher.h"

#include "gtest/gtest.h"

#include <climits>
#include <cstdlib>
#include <exception>
#include <string>

using namespace qd;
using namespace qd::rt;
using namespace qd::rt::test;

namespace {

/// The message of the qd::Error that F throws, or a description of what
/// happened instead.
template <typename Fn> std::string errorOf(Fn &&F) {
  try {
    F();
  } catch (const qd::Error &E) {
    return E.what();
  } catch (const std::exception &E) {
    return std::string("<not a qd::Error: ") + E.what() + ">";
  }
  return "<no exception>";
}

bool startsWith(const std::string &S, const std::string &Prefix) {
  return S.compare(0, Prefix.size(), Prefix) == 0;
}

class MemorySafetyTest : public ::testing::Test {
protected:
  void SetUp() override {
    qd::reset();
    unsetenv("QD_ARCH");
    qd::init(Arch::cpu);
  }
  void TearDown() override { qd::reset(); }
};

//===----------------------------------------------------------------------===//
// Shapes and sizes
//===----------------------------------------------------------------------===//

TEST_F(MemorySafetyTest, ShapesWhoseSizeOverflowsAreErrors) {
  std::string E = errorOf([] { Ndarray<float, 1> X({1LL << 62}); });
  EXPECT_TRUE(startsWith(E, "qd::Ndarray: shape [4611686018427387904] is "
                            "too large"))
      << E;
  E = errorOf([] { Ndarray<float, 1> X({INT64_MAX}); });
  EXPECT_TRUE(startsWith(E, "qd::Ndarray: shape [9223372036854775807] is "
                            "too large"))
      << E;
  // The element count itself wraps to 0 here.
  E = errorOf([] { Ndarray<float, 2> X({1LL << 32, 1LL << 32}); });
  EXPECT_TRUE(startsWith(E, "qd::Ndarray: shape [4294967296, 4294967296] is "
                            "too large"))
      << E;
  E = errorOf([] { Ndarray<char, 3> X({1LL << 31, 1LL << 31, 1LL << 31}); });
  EXPECT_TRUE(startsWith(E, "qd::Ndarray: shape [2147483648, 2147483648, "
                            "2147483648] is too large"))
      << E;
  // The same shapes through the std::array constructor.
  E = errorOf([] { Ndarray<double, 1> X(std::array<int64_t, 1>{1LL << 61}); });
  EXPECT_TRUE(startsWith(E, "qd::Ndarray: shape [2305843009213693952] is "
                            "too large"))
      << E;

  // A zero extent makes any shape empty, however large the others.
  Ndarray<float, 2> Empty({0, INT64_MAX});
  EXPECT_EQ(Empty.size(), 0u);
  EXPECT_EQ(Empty.data(), nullptr);
  EXPECT_TRUE(Empty.to_vector().empty());
  // Ordinary shapes are unaffected.
  Ndarray<float, 3> X({2, 3, 4});
  EXPECT_EQ(X.size(), 24u);
  EXPECT_EQ(X.bytes(), 96u);
}

TEST_F(MemorySafetyTest, AllocationSizesNeverWrap) {
  // The CPU backend rounds sizes up to 64 bytes: that must not wrap to 0.
  std::unique_ptr<rt::Device> Cpu = createCpuDevice();
  for (size_t Bytes : {SIZE_MAX, SIZE_MAX - 10, SIZE_MAX - 63}) {
    std::string E = errorOf([&] {
      void *P = Cpu->allocate(Bytes);
      Cpu->deallocate(P);
    });
    EXPECT_TRUE(startsWith(E, "allocate: " + std::to_string(Bytes) +
                                  " bytes is too large"))
        << E;
  }
  void *P = Cpu->allocate(0);
  EXPECT_NE(P, nullptr);
  Cpu->deallocate(P);
  P = Cpu->allocate(65);
  EXPECT_NE(P, nullptr);
  Cpu->deallocate(P);

  // And through the runtime.
  std::string E = errorOf([] { qd::detail::allocate(SIZE_MAX - 1); });
  EXPECT_NE(E.find("is too large"), std::string::npos) << E;
}

TEST_F(MemorySafetyTest, TheArrayConstructorRejectsNegativeExtents) {
  using Shape1 = std::array<int64_t, 1>;
  using Shape2 = std::array<int64_t, 2>;
  EXPECT_EQ(errorOf([] { Ndarray<int, 1> X(Shape1{-1}); }),
            "qd::Ndarray: negative extent -1");
  // Two negative extents make a positive product: still an error.
  EXPECT_EQ(errorOf([] {
              Ndarray<int, 2> X(Shape2{-2, -3});
            }),
            "qd::Ndarray: negative extent -2");
  EXPECT_EQ(errorOf([] {
              Ndarray<int, 2> X(Shape2{4, -3});
            }),
            "qd::Ndarray: negative extent -3");
  // As the initializer-list constructor does.
  EXPECT_EQ(errorOf([] { Ndarray<int, 1> X({-2}); }),
            "qd::Ndarray: negative extent -2");
  Ndarray<int, 2> X(Shape2{2, 3});
  EXPECT_EQ(X.size(), 6u);
}

TEST_F(MemorySafetyTest, ShapeOfAMissingDimensionIsAQdError) {
  Ndarray<float, 1> X({4});
  EXPECT_EQ(X.shape(0), 4);
  EXPECT_EQ(errorOf([&] { X.shape(5); }),
            "qd::Ndarray::shape: no dimension 5 in a 1-dimensional array");
  EXPECT_EQ(errorOf([&] { X.shape(-1); }),
            "qd::Ndarray::shape: no dimension -1 in a 1-dimensional array");
  Ndarray<float, 2> Y({2, 3});
  EXPECT_EQ(Y.shape(1), 3);
  EXPECT_EQ(errorOf([&] { Y.shape(2); }),
            "qd::Ndarray::shape: no dimension 2 in a 2-dimensional array");
}

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

TEST_F(MemorySafetyTest, InitRejectsAnUnknownArch) {
  qd::reset();
  EXPECT_EQ(errorOf([] { qd::init(Arch(42)); }),
            "qd::init: 42 is not a qd::Arch (best, cuda, amdgpu or cpu)");
  EXPECT_EQ(currentIfRunning(), nullptr) << "no backend may start";
  EXPECT_EQ(errorOf([] { qd::init(Arch(-1)); }),
            "qd::init: -1 is not a qd::Arch (best, cuda, amdgpu or cpu)");
  EXPECT_EQ(currentIfRunning(), nullptr);
  // Also while a runtime runs.
  qd::init(Arch::cpu);
  EXPECT_EQ(errorOf([] { qd::init(Arch(42)); }),
            "qd::init: 42 is not a qd::Arch (best, cuda, amdgpu or cpu)");
  EXPECT_EQ(current_arch(), Arch::cpu);
}

//===----------------------------------------------------------------------===//
// Arrays and streams from before qd::reset()
//===----------------------------------------------------------------------===//

std::string staleMessage(const std::string &Op) {
  return Op + ": the array was created before qd::reset(); its memory was "
              "freed";
}

TEST_F(MemorySafetyTest, ArraysFromBeforeResetAreErrorsNotFreedMemory) {
  Ndarray<float, 1> X({256});
  X.fill(1.0f);
  Ndarray<float, 1> Zero({0});
  qd::reset();

  // With no runtime running: an error, and no runtime is started for it.
  EXPECT_EQ(errorOf([&] { X.to_vector(); }),
            staleMessage("qd::Ndarray::to_vector"));
  EXPECT_EQ(currentIfRunning(), nullptr);

  // After a new init, whose allocations may reuse X's addresses.
  qd::init(Arch::cpu);
  Ndarray<float, 1> Y({256});
  Y.fill(2.0f);
  std::vector<float> Host(256, 3.0f);
  qd::Stream S = create_stream();
  EXPECT_EQ(errorOf([&] { X.to_vector(); }),
            staleMessage("qd::Ndarray::to_vector"));
  EXPECT_EQ(errorOf([&] { X.copy_from(Host); }),
            staleMessage("qd::Ndarray::copy_from"));
  EXPECT_EQ(errorOf([&] { X.fill(4.0f); }), staleMessage("qd::Ndarray::fill"));
  EXPECT_EQ(errorOf([&] { X.copy_from_async(Host.data(), Host.size(), S); }),
            staleMessage("qd::Ndarray::copy_from_async"));
  EXPECT_EQ(errorOf([&] { X.copy_to_async(Host.data(), Host.size(), S); }),
            staleMessage("qd::Ndarray::copy_to_async"));
  EXPECT_EQ(errorOf([&] { qd::detail::to_kernel(X); }),
            staleMessage("qd::detail::to_kernel"));
  // Even an empty one: it belongs to the old runtime too.
  EXPECT_EQ(errorOf([&] { Zero.to_vector(); }),
            staleMessage("qd::Ndarray::to_vector"));
  EXPECT_EQ(errorOf([&] { qd::detail::to_kernel(Zero); }),
            staleMessage("qd::detail::to_kernel"));
  S.synchronize();

  // Nothing was written through X: Y and the host buffer are intact.
  EXPECT_EQ(Y.to_vector(), std::vector<float>(256, 2.0f));
  EXPECT_EQ(Host, std::vector<float>(256, 3.0f));

  // Destroying or overwriting a stale array frees nothing of the new
  // runtime.
  X = Ndarray<float, 1>({8});
  X.fill(5.0f);
  EXPECT_EQ(X.to_vector(), std::vector<float>(8, 5.0f));
  auto Gone = std::make_unique<Ndarray<float, 1>>(std::move(Zero));
  Gone.reset();
  EXPECT_EQ(Y.to_vector(), std::vector<float>(256, 2.0f));

  // Default-constructed and moved-from arrays belong to no runtime: they
  // stay usable as empty arrays.
  Ndarray<float, 1> Default;
  EXPECT_TRUE(Default.to_vector().empty());
  EXPECT_NO_THROW(Default.copy_from({}));
  Ndarray<float, 1> Taken = std::move(Y);
  EXPECT_TRUE(Y.to_vector().empty());
  EXPECT_EQ(qd::detail::to_kernel(Y).ptr, nullptr);
}

TEST_F(MemorySafetyTest, StaleArraysNeverReachTheDevice) {
  qd::reset();
  auto First = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(First));
  auto X = std::make_unique<Ndarray<float, 1>>(std::array<int64_t, 1>{16});
  qd::reset();
  EXPECT_EQ(First->liveObjects(), 0) << "reset frees the buffer";

  auto Second = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(Second));
  std::vector<float> Host(16);
  EXPECT_THROW(X->to_vector(), qd::Error);
  EXPECT_THROW(X->copy_from(Host), qd::Error);
  EXPECT_THROW(X->fill(1.0f), qd::Error);
  EXPECT_THROW(X->copy_to_async(Host.data(), Host.size(), qd::Stream()),
               qd::Error);
  X.reset(); // destroying it calls nothing either
  EXPECT_EQ(Second->takeCalls(), std::vector<std::string>{});
}

TEST_F(MemorySafetyTest, StreamsFromBeforeResetAreRefused) {
  qd::reset();
  auto First = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(First));
  qd::Stream S = create_stream();
  qd::reset();

  auto Second = std::make_shared<MockState>();
  startWithDevice(std::make_unique<MockDevice>(Second));
  Ndarray<float, 1> X({4});
  qd::Event E = create_event();
  Second->takeCalls();
  std::vector<float> Host(4);
  EXPECT_EQ(errorOf([&] { X.copy_from_async(Host.data(), 4, S); }),
            "qd::Ndarray::copy_from_async: the stream belongs to a runtime "
            "that was reset");
  EXPECT_EQ(errorOf([&] { X.copy_to_async(Host.data(), 4, S); }),
            "qd::Ndarray::copy_to_async: the stream belongs to a runtime "
            "that was reset");
  EXPECT_EQ(errorOf([&] { qd::on(S); }),
            "qd::on: the stream belongs to a runtime that was reset");
  EXPECT_EQ(errorOf([&] { E.record(S); }),
            "qd::Event::record: the stream belongs to a runtime that was "
            "reset");
  EXPECT_EQ(errorOf([&] { E.wait(S); }),
            "qd::Event::wait: the stream belongs to a runtime that was reset");
  EXPECT_EQ(Second->takeCalls(), std::vector<std::string>{})
      << "the stale handle never reaches the device";
  // The default stream and live streams still work.
  X.copy_from_async(Host.data(), 4, qd::Stream());
  qd::Stream Live = create_stream();
  X.copy_to_async(Host.data(), 4, Live);
  EXPECT_EQ(qd::on(Live).stream, Live.handle());
  E.record(Live);
  Live.synchronize();
}

/// Destroyed at exit, after the runtime (this file is linked before the
/// runtime, so its destructor is registered first and runs last).
Ndarray<float, 1> ExitArray;

[[noreturn]] void fillExitArrayAndExit() {
  ExitArray = Ndarray<float, 1>({64});
  ExitArray.fill(1.0f);
  std::exit(0);
}

TEST_F(MemorySafetyTest, ArraysDestroyedAfterTheRuntimeAtExitAreSafe) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fillExitArrayAndExit(), ::testing::ExitedWithCode(0), "");
}

//===----------------------------------------------------------------------===//
// Empty arrays passed to kernels
//===----------------------------------------------------------------------===//

TEST_F(MemorySafetyTest, EmptyArraysCannotBeLaunchedWithIterationsToRun) {
  using qd::detail::check_launch_array;
  using qd::detail::to_kernel;
  Ndarray<float, 1> Default, Zero({0}), Moved({4}), Full({4});
  Ndarray<float, 1> Taken = std::move(Moved);
  const std::string Want =
      "kernel 'saxpy': argument 'x' is an empty qd::Ndarray "
      "(default-constructed, moved-from or of size 0), but the kernel has "
      "iterations to run";
  const uint64_t Work[] = {0, 3}, None[] = {0, 0};
  for (const Ndarray<float, 1> *A : {&Default, &Zero, &Moved}) {
    const void *P = to_kernel(*A).ptr;
    EXPECT_EQ(P, nullptr);
    EXPECT_EQ(errorOf([&] { check_launch_array(P, "saxpy", "x", Work, 2); }),
              Want);
    EXPECT_NO_THROW(check_launch_array(P, "saxpy", "x", None, 2));
    EXPECT_NO_THROW(check_launch_array(P, "saxpy", "x", Work, 1));
    EXPECT_NO_THROW(check_launch_array(P, "saxpy", "x", nullptr, 0));
  }
  // An array with memory may be launched with any iteration counts.
  EXPECT_NO_THROW(
      check_launch_array(to_kernel(Full).ptr, "saxpy", "x", Work, 2));
  EXPECT_NO_THROW(
      check_launch_array(to_kernel(Taken).ptr, "saxpy", "x", Work, 2));
}

//===----------------------------------------------------------------------===//
// Host pointers
//===----------------------------------------------------------------------===//

float FieldStorage[4];

qdrt_module *fieldModule() {
  static TestModule TM("memory_safety_fields");
  static qdrt_module *M = [] {
    TM.addField("f", FieldStorage, sizeof(FieldStorage));
    return TM.registered();
  }();
  return M;
}

TEST_F(MemorySafetyTest, NullHostPointersAreErrors) {
  qd::Stream S = create_stream();
  Ndarray<float, 1> X({4});
  EXPECT_EQ(errorOf([&] { X.copy_from_async(nullptr, 4, S); }),
            "qd::Ndarray::copy_from_async: the host pointer is null, with 16 "
            "bytes to copy");
  EXPECT_EQ(errorOf([&] { X.copy_to_async(nullptr, 4, S); }),
            "qd::Ndarray::copy_to_async: the host pointer is null, with 16 "
            "bytes to copy");
  // Nothing to copy: a null pointer is fine.
  Ndarray<float, 1> Empty({0});
  EXPECT_NO_THROW(Empty.copy_from_async(nullptr, 0, S));
  EXPECT_NO_THROW(Empty.copy_to_async(nullptr, 0, S));

  Field<float, 4> F(&fieldModule, 0);
  EXPECT_EQ(errorOf([&] { F.copy_from_async(nullptr, S); }),
            "qd::Field::copy_from_async: the host pointer is null, with 16 "
            "bytes to copy");
  EXPECT_EQ(errorOf([&] { F.copy_to_async(nullptr, S); }),
            "qd::Field::copy_to_async: the host pointer is null, with 16 "
            "bytes to copy");
  F.copy_from({1, 2, 3, 4});
  std::vector<float> Out(4);
  F.copy_to_async(Out.data(), S);
  S.synchronize();
  EXPECT_EQ(Out, (std::vector<float>{1, 2, 3, 4}));
}

} // namespace
