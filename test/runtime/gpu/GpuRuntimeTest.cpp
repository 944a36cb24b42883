//===- GpuRuntimeTest.cpp - libqdrt on a real CUDA GPU
//----------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs on a machine with an NVIDIA GPU
// (utils/gpu-check-runtime.sh) and skips elsewhere. The kernels are PTX
// compiled from kernels.cu by clang-19 at build time. Checks streams, events,
// fork/join results, the pool's no-creation-after-warm-up promise on the real
// driver, errors from the driver, and that stream-parallel groups really
// overlap.
//
//===----------------------------------------------------------------------===//

#include "../CpuKernels.h"
#include "../TestModule.h"
#include "Runtime.h"
#include "kernels.ptx.h"

#include "gtest/gtest.h"

#include <cstdio>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <thread>
#include <vector>

using namespace qd;
using namespace qd::rt;
using namespace qd::rt::test;

namespace {

struct CombineArgs {
  const float *A;
  const float *B;
  float *C;
};
struct SpinArgs {
  int *Flags;
  float Ms;
};

/// The module every test uses, built once.
struct Kernels {
  TestModule TM{"gpu-tests"};
  uint32_t AB, Combine, SpinParallel, SpinSerial, Spin0, Bump;
  uint32_t Counter;
  qdrt_module *M = nullptr;

  Kernels() {
    TM.addImage(QDRT_IMAGE_PTX, 80, "sm_80", KernelsPtx, sizeof(KernelsPtx));
    AB = TM.addKernel("ab",
                      {{1, nullptr, 0, "setA"},
                       {2, nullptr, 256, "setB"},
                       {2, nullptr, 0, "incB"}},
                      sizeof(TwoGroupArgs));
    Combine = TM.addKernel("combine", {{0, nullptr, 0, "combine"}},
                           sizeof(CombineArgs));
    SpinParallel =
        TM.addKernel("spin_parallel",
                     {{1, nullptr, 128, "spin0"}, {2, nullptr, 128, "spin1"}},
                     sizeof(SpinArgs));
    SpinSerial = TM.addKernel(
        "spin_serial", {{0, nullptr, 128, "spin0"}, {0, nullptr, 128, "spin1"}},
        sizeof(SpinArgs));
    Spin0 =
        TM.addKernel("spin0", {{0, nullptr, 128, "spin0"}}, sizeof(SpinArgs));
    Bump = TM.addKernel("bump", {{0, nullptr, 0, "bump"}}, 0);
    Counter = TM.addField("counter", nullptr, sizeof(int));
    M = TM.registered();
  }
};

class GpuRuntimeTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    qd::reset();
    try {
      qd::init(Arch::cuda);
    } catch (const qd::Error &E) {
      Unavailable = E.what();
    }
  }
  static void TearDownTestSuite() { qd::reset(); }
  void SetUp() override {
    if (!Unavailable.empty())
      GTEST_SKIP() << "no CUDA GPU: " << Unavailable;
  }

  static Kernels &kernels() {
    static Kernels K;
    return K;
  }
  static inline std::string Unavailable;
};

TEST_F(GpuRuntimeTest, RunsOnCuda) {
  EXPECT_EQ(current_arch(), Arch::cuda);
  std::printf("device: %s\n", currentDevice().device().describe().c_str());
}

TEST_F(GpuRuntimeTest, ForkJoinResultsElementByElement) {
  constexpr int N = 1 << 20;
  Kernels &K = kernels();
  Ndarray<float, 1> A({N}), B({N}), C({N});
  qd::Stream S = create_stream();
  for (int Round = 0; Round < 3; ++Round) {
    TwoGroupArgs AB{static_cast<float *>(A.data()),
                    static_cast<float *>(B.data()), 2.0f + Round, 10.0f};
    launch(K.M, K.AB, {N, N, N}, &AB, &S);
    // Ordered after both groups by the join, on the same stream.
    CombineArgs CA{static_cast<float *>(A.data()),
                   static_cast<float *>(B.data()),
                   static_cast<float *>(C.data())};
    launch(K.M, K.Combine, {N}, &CA, &S);
    S.synchronize();
    std::vector<float> Out = C.to_vector();
    for (int I = 0; I < N; ++I)
      ASSERT_EQ(Out[I], 2.0f + Round + 11.0f)
          << "round " << Round << " at " << I;
  }
}

TEST_F(GpuRuntimeTest, DefaultStreamLaunchAndSync) {
  constexpr int N = 4096;
  Kernels &K = kernels();
  Ndarray<float, 1> A({N}), B({N});
  TwoGroupArgs AB{static_cast<float *>(A.data()),
                  static_cast<float *>(B.data()), 1.0f, 1.0f};
  launch(K.M, K.AB, {N, N, N}, &AB);
  qd::sync();
  EXPECT_EQ(B.to_vector(), std::vector<float>(N, 2.0f));
}

TEST_F(GpuRuntimeTest, NoStreamOrEventCreatedAfterWarmUp) {
  constexpr int N = 1024;
  Kernels &K = kernels();
  Ndarray<float, 1> A({N}), B({N});
  qd::Stream S = create_stream();
  TwoGroupArgs AB{static_cast<float *>(A.data()),
                  static_cast<float *>(B.data()), 1.0f, 1.0f};
  launch(K.M, K.AB, {N, N, N}, &AB, &S);
  PoolStats Before = currentDevice().pool().stats();
  for (int I = 0; I < 1000; ++I)
    launch(K.M, K.AB, {N, N, N}, &AB, I % 2 ? &S : nullptr);
  S.synchronize();
  qd::sync();
  PoolStats After = currentDevice().pool().stats();
  EXPECT_EQ(After.StreamsCreated, Before.StreamsCreated);
  EXPECT_EQ(After.EventsCreated, Before.EventsCreated);
  EXPECT_EQ(After.Leases, Before.Leases + 1000);
  std::printf("pool: %llu streams, %llu events created for %llu launches\n",
              (unsigned long long)After.StreamsCreated,
              (unsigned long long)After.EventsCreated,
              (unsigned long long)After.Leases);
}

TEST_F(GpuRuntimeTest, EventsOrderStreamsAndTime) {
  Kernels &K = kernels();
  Ndarray<int, 1> Flags({2});
  Flags.fill(0);
  qd::Stream S1 = create_stream(), S2 = create_stream();
  qd::Event Start = create_event({.timing = true});
  qd::Event End = create_event({.timing = true});
  qd::Event Done = create_event();
  SpinArgs SA{static_cast<int *>(Flags.data()), 20.0f};
  Start.record(S1);
  launch(K.M, K.Spin0, {1}, &SA, &S1);
  End.record(S1);
  Done.record(S1);
  EXPECT_FALSE(Done.query()); // 20 ms of spinning is still going on
  Done.wait(S2);              // S2 waits on the GPU, not the host
  std::vector<int> Seen(2, -1);
  Flags.copy_to_async(Seen.data(), Seen.size(), S2);
  S2.synchronize();
  EXPECT_EQ(Seen[0], 1); // the copy ran after the spin
  Done.synchronize();
  EXPECT_TRUE(Done.query());
  float Ms = elapsed_ms(Start, End);
  EXPECT_GT(Ms, 15.0f);
  std::printf("timed spin: %.2f ms (asked for 20)\n", Ms);
}

TEST_F(GpuRuntimeTest, StreamParallelGroupsOverlap) {
  Kernels &K = kernels();
  Ndarray<int, 1> Flags({2});
  qd::Stream S = create_stream();
  qd::Event A = create_event({.timing = true}),
            B = create_event({.timing = true});
  SpinArgs SA{static_cast<int *>(Flags.data()), 10.0f};
  auto Time = [&](uint32_t Kernel) {
    A.record(S);
    launch(K.M, Kernel, {1, 1}, &SA, &S);
    B.record(S);
    B.synchronize();
    return elapsed_ms(A, B);
  };
  Time(K.SpinParallel); // warm-up: module load, JIT
  Time(K.SpinSerial);
  float Parallel = Time(K.SpinParallel), Serial = Time(K.SpinSerial);
  std::printf("two 10 ms single-block spins: stream_parallel %.2f ms, serial "
              "%.2f ms, ratio %.3f\n",
              Parallel, Serial, Parallel / Serial);
  // A behavioural check, not a benchmark: serialized groups would take
  // twice as long.
  EXPECT_LT(Parallel, 0.75f * Serial);
}

TEST_F(GpuRuntimeTest, TwoExplicitStreamsOverlap) {
  Kernels &K = kernels();
  Ndarray<int, 1> Flags({2});
  qd::Stream S1 = create_stream(), S2 = create_stream();
  SpinArgs SA{static_cast<int *>(Flags.data()), 10.0f};
  launch(K.M, K.Spin0, {1}, &SA, &S1); // warm-up
  S1.synchronize();
  auto Wall = [&](bool TwoStreams) {
    auto T0 = std::chrono::steady_clock::now();
    launch(K.M, K.Spin0, {1}, &SA, &S1);
    launch(K.M, K.Spin0, {1}, &SA, TwoStreams ? &S2 : &S1);
    S1.synchronize();
    S2.synchronize();
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - T0)
        .count();
  };
  double Same = Wall(false), Two = Wall(true);
  std::printf("two 10 ms spins: one stream %.2f ms, two streams %.2f ms\n",
              Same, Two);
  EXPECT_LT(Two, 0.75 * Same);
}

TEST_F(GpuRuntimeTest, DestroyingAStreamWaitsForItsWork) {
  Kernels &K = kernels();
  Ndarray<int, 1> Flags({2});
  Flags.fill(0);
  {
    qd::Stream S = create_stream();
    SpinArgs SA{static_cast<int *>(Flags.data()), 20.0f};
    launch(K.M, K.Spin0, {1}, &SA, &S);
    S.destroy(); // still spinning when called
    EXPECT_EQ(S.handle(), nullptr);
  }
  std::vector<int> Out(2);
  Flags.copy_to_async(Out.data(), Out.size(), qd::Stream());
  qd::sync();
  EXPECT_EQ(Out[0], 1);
}

TEST_F(GpuRuntimeTest, FieldsAndArgumentlessKernels) {
  Kernels &K = kernels();
  void *Counter = nullptr;
  qd::detail::check(
      qdrt_field_address(K.M, QDRT_CURRENT_DEVICE, K.Counter, &Counter));
  ASSERT_NE(Counter, nullptr);
  int Zero = 0;
  qd::detail::copy_to_device(Counter, &Zero, sizeof(int), nullptr, true);
  launch(K.M, K.Bump, {100000});
  int Value = 0;
  qd::detail::copy_to_host(&Value, Counter, sizeof(int), nullptr, true);
  EXPECT_EQ(Value, 100000);
}

// Asynchronous copies from and to pageable memory (staged through pinned
// blocks) and to memory the program pinned (copied directly). Telling the
// two apart makes no driver call fail: compute-sanitizer counts such a
// failure as an error (utils/gpu-check-runtime.sh runs this test under it).
TEST_F(GpuRuntimeTest, AsyncCopiesOfPageableAndPinnedMemory) {
  qd::Ndarray<int32_t, 1> X({4096});
  std::vector<int32_t> In(4096), Out(4096, -1);
  for (int I = 0; I < 4096; ++I)
    In[I] = I * 3 + 1;
  qd::Stream S = qd::create_stream();
  X.copy_from_async(In.data(), In.size(), S);
  X.copy_to_async(Out.data(), Out.size(), S);
  S.synchronize();
  EXPECT_EQ(Out, In);

  void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(Cuda, nullptr);
  using HostAlloc = int (*)(void **, size_t, unsigned);
  using FreeHost = int (*)(void *);
  auto Alloc = reinterpret_cast<HostAlloc>(dlsym(Cuda, "cuMemHostAlloc"));
  auto Free = reinterpret_cast<FreeHost>(dlsym(Cuda, "cuMemFreeHost"));
  ASSERT_TRUE(Alloc && Free);
  void *Pinned = nullptr;
  ASSERT_EQ(Alloc(&Pinned, 4096 * sizeof(int32_t), 0), 0);
  X.fill(7);
  X.copy_to_async(static_cast<int32_t *>(Pinned), 4096, S);
  S.synchronize();
  EXPECT_EQ(static_cast<int32_t *>(Pinned)[4095], 7);
  X.copy_from_async(In.data(), In.size(), S);
  X.copy_to_async(static_cast<int32_t *>(Pinned), 4096, S);
  S.synchronize();
  EXPECT_EQ(std::memcmp(Pinned, In.data(), In.size() * sizeof(int32_t)), 0);
  Free(Pinned);
  dlclose(Cuda);
}

// Fills on the GPU, element by element: a memset where the element repeats
// 1, 2 or 4 bytes, the runtime's word kernel where it is whole 32-bit words
// (a double of 1/3, a vec3, 16 words, an odd count, a view 8 bytes in, on a
// stream), and doubling copies otherwise (6 bytes, 17 words).
struct Words16 {
  float V[16];
  bool operator==(const Words16 &O) const { return std::equal(V, V + 16, O.V); }
};
struct Words17 {
  float V[17];
  bool operator==(const Words17 &O) const { return std::equal(V, V + 17, O.V); }
};
struct Short3 {
  int16_t A, B, C;
  bool operator==(const Short3 &O) const {
    return A == O.A && B == O.B && C == O.C;
  }
};
Words16 countingWords16() {
  Words16 W{};
  for (int I = 0; I < 16; ++I)
    W.V[I] = float(I) - 0.5f;
  return W;
}

TEST_F(GpuRuntimeTest, FillsSetEveryElementOfEveryShape) {
  const int64_t N = (int64_t(1) << 20) + 3;
  Ndarray<double, 1> D({N});
  D.fill(1.0 / 3);
  EXPECT_EQ(D.to_vector(), std::vector<double>(N, 1.0 / 3));
  NdarrayView<double, 1> Inner(static_cast<double *>(D.data()) + 1, {N - 2});
  Inner.fill(-2.75);
  std::vector<double> Want(N, -2.75);
  Want.front() = Want.back() = 1.0 / 3;
  EXPECT_EQ(D.to_vector(), Want);
  Ndarray<qd::vec3, 1> V({1001});
  qd::Stream S = qd::create_stream();
  V.fill_async(qd::vec3{1, -2, 0.5f}, S);
  S.synchronize();
  EXPECT_EQ(V.to_vector(), std::vector<qd::vec3>(1001, qd::vec3{1, -2, 0.5f}));
  Ndarray<Words16, 1> W({777});
  W.fill(countingWords16());
  EXPECT_EQ(W.to_vector(), std::vector<Words16>(777, countingWords16()));
  Words17 Wide{};
  for (int I = 0; I < 17; ++I)
    Wide.V[I] = float(I) * 3;
  Ndarray<Words17, 1> X({513});
  X.fill(Wide);
  EXPECT_EQ(X.to_vector(), std::vector<Words17>(513, Wide));
  Ndarray<Short3, 1> H({1000});
  H.fill({1, 2, 3});
  EXPECT_EQ(H.to_vector(), std::vector<Short3>(1000, Short3{1, 2, 3}));
  // Words at an address 4 bytes past 8: one word at a time.
  Ndarray<float, 1> F({2001});
  F.fill(0.0f);
  NdarrayView<qd::vec3, 1> Odd(
      reinterpret_cast<qd::vec3 *>(static_cast<float *>(F.data()) + 1), {666});
  Odd.fill(qd::vec3{4, 5, 6});
  std::vector<float> Floats = F.to_vector();
  for (size_t I = 0; I < Floats.size(); ++I) {
    float Want = I == 0 || I > 1998 ? 0.0f : float(4 + (I - 1) % 3);
    ASSERT_EQ(Floats[I], Want) << "float " << I;
  }
}

// A qd::HostArray is page-locked for the driver (CU_MEMORYTYPE_HOST, as
// cuPointerGetAttribute answers for it), copies through it arrive whole, and
// after a reset it is ordinary memory that is still the program's.
TEST_F(GpuRuntimeTest, HostArraysArePinnedAndOutliveAReset) {
  void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(Cuda, nullptr);
  using GetAttribute = int (*)(void *, int, unsigned long long);
  auto Attribute =
      reinterpret_cast<GetAttribute>(dlsym(Cuda, "cuPointerGetAttribute"));
  ASSERT_TRUE(Attribute);
  constexpr int MemoryType = 2;      // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
  constexpr unsigned HostMemory = 1; // CU_MEMORYTYPE_HOST
  {
    qd::HostArray<int32_t> H(1 << 20);
    unsigned Type = 0;
    ASSERT_EQ(Attribute(&Type, MemoryType,
                        reinterpret_cast<unsigned long long>(H.data() + 5)),
              0);
    EXPECT_EQ(Type, HostMemory);
    for (size_t I = 0; I < H.size(); ++I)
      H[I] = int32_t(I * 7);
    qd::Ndarray<int32_t, 1> X({int64_t(H.size())});
    qd::HostArray<int32_t> Back(H.size());
    qd::Stream S = qd::create_stream();
    X.copy_from_async(H.data(), H.size(), S);
    X.copy_to_async(Back.data(), Back.size(), S);
    S.synchronize();
    EXPECT_TRUE(std::equal(H.begin(), H.end(), Back.begin()));
  }
  qd::HostArray<int32_t> Kept(100);
  Kept[99] = 3;
  qd::reset();
  qd::init(qd::Arch::cuda);
  Kept[98] = 4;
  EXPECT_EQ(Kept[98] + Kept[99], 7);
  dlclose(Cuda);
}

// Pageable copies larger than one staging chunk (16 MiB) go chunk by chunk,
// delivered to the host by another stream's host functions: every byte
// arrives, in stream order with what comes before and after.
TEST_F(GpuRuntimeTest, LargeAsyncCopiesOfPageableMemoryArriveWhole) {
  constexpr size_t N = (size_t(40) << 20) / sizeof(int32_t) + 12345;
  qd::Ndarray<int32_t, 1> X({int64_t(N)}), Y({int64_t(N)});
  std::vector<int32_t> In(N), Out(N, -1), Again(N, -1);
  for (size_t I = 0; I < N; ++I)
    In[I] = int32_t(I * 2654435761u);
  qd::Stream S = qd::create_stream();
  for (int Round = 0; Round < 3; ++Round) {
    std::fill(Out.begin(), Out.end(), -1);
    X.copy_from_async(In.data(), In.size(), S);
    qd::copy_async(Y, X, S);
    Y.copy_to_async(Out.data(), Out.size(), S);
    Y.fill_async(5, S); // after the copy out: Out keeps In
    Y.copy_to_async(Again.data(), Again.size(), S);
    S.synchronize();
    ASSERT_EQ(Out, In) << "round " << Round;
    ASSERT_EQ(Again, std::vector<int32_t>(N, 5)) << "round " << Round;
  }
}

TEST_F(GpuRuntimeTest, BadPtxIsAnErrorWithTheJitLog) {
  static const char Bad[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry broken() { bogus; }\n";
  TestModule TM("broken");
  TM.addImage(QDRT_IMAGE_PTX, 80, "sm_80", Bad, sizeof(Bad));
  uint32_t Kernel = TM.addKernel("broken", {{0, nullptr, 0, "broken"}});
  qdrt_module *M = TM.registered();
  uint64_t One = 1;
  ASSERT_EQ(qdrt_launch(M, Kernel, nullptr, &One, QDRT_CURRENT_DEVICE, nullptr),
            QDRT_ERROR);
  std::string Msg = qdrt_last_error();
  EXPECT_NE(Msg.find("cuModuleLoadDataEx"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("module 'broken'"), std::string::npos) << Msg;
  std::printf("load error: %s\n", Msg.c_str());
  // The runtime keeps working.
  EXPECT_NO_THROW(launch(kernels().M, kernels().Bump, {1}));
}

TEST_F(GpuRuntimeTest, EightHostThreadsOnTheirOwnStreams) {
  constexpr int N = 1 << 16, Rounds = 50;
  Kernels &K = kernels();
  std::atomic<int> Failures{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 8; ++T)
    Threads.emplace_back([&, T] {
      try {
        qd::Stream S = create_stream();
        Ndarray<float, 1> A({N}), B({N}), C({N});
        for (int R = 0; R < Rounds; ++R) {
          TwoGroupArgs AB{static_cast<float *>(A.data()),
                          static_cast<float *>(B.data()), float(T), float(R)};
          launch(K.M, K.AB, {N, N, N}, &AB, &S);
          CombineArgs CA{static_cast<float *>(A.data()),
                         static_cast<float *>(B.data()),
                         static_cast<float *>(C.data())};
          launch(K.M, K.Combine, {N}, &CA, &S);
        }
        S.synchronize();
        std::vector<float> Out = C.to_vector();
        for (int I = 0; I < N; ++I)
          if (Out[I] != float(T) + float(Rounds - 1) + 1.0f) {
            ++Failures;
            break;
          }
      } catch (const qd::Error &E) {
        std::printf("thread %d: %s\n", T, E.what());
        ++Failures;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
}

} // namespace

/// Without a CUDA GPU every test would skip: say so, and exit with 77,
/// which ctest reports as a skipped test (SKIP_RETURN_CODE), not a pass.
int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  try {
    qd::init(Arch::cuda);
    qd::reset();
  } catch (const qd::Error &E) {
    std::printf("qdrt-gpu-tests: no CUDA GPU (%s); every test skipped\n",
                E.what());
    return 77;
  }
  return RUN_ALL_TESTS();
}
