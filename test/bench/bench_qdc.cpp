// qdc's side of the GPU benchmarks (utils/bench-gpu.sh runs it beside the
// hand-written CUDA baseline, baseline.cu). Prints `key value` lines:
// medians over repeated runs after warm-up, with min and max for spread.
#include "Stat.h"
#include "bench.qd.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace qd::detail {
/// What a launcher calls for each pair of ndarray parameters that groups
/// write (<qd/detail/launcher.h>, which only clang compiles, declares it).
void check_overlap_(const void *a, size_t a_bytes, const void *b,
                    size_t b_bytes, const char *kernel, const char *what);
} // namespace qd::detail

namespace {

using namespace bench_stat;

/// Device milliseconds of Launch, timed with events on S.
Stat deviceMs(const std::function<void()> &Launch, qd::Stream &S, int Runs) {
  qd::Event A = qd::create_event({.timing = true});
  qd::Event B = qd::create_event({.timing = true});
  for (int W = 0; W < 3; ++W)
    Launch();
  S.synchronize();
  std::vector<double> Ms;
  for (int R = 0; R < Runs; ++R) {
    A.record(S);
    Launch();
    B.record(S);
    B.synchronize();
    Ms.push_back(qd::elapsed_ms(A, B));
  }
  return stat(Ms);
}

/// Host microseconds per call of Launch, enqueueing Batch calls at a time.
Stat hostUsPerCall(const std::function<void()> &Launch, qd::Stream &S) {
  constexpr int Batch = 200, Batches = 25;
  for (int W = 0; W < Batch; ++W)
    Launch();
  S.synchronize();
  std::vector<double> Us;
  for (int R = 0; R < Batches; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < Batch; ++I)
      Launch();
    auto T1 = std::chrono::steady_clock::now();
    S.synchronize();
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Batch);
  }
  return stat(Us);
}

} // namespace

int main() {
  qd::init();
  std::printf("arch %s\n", qd::arch_name(qd::current_arch()));
  qd::Stream S = qd::create_stream();
  auto On = qd::on(S);

  // Steps for about 2 ms per group.
  int Steps = 20000;
  double OneGroup =
      deviceMs([&] { bench::spin_serial_1(Steps, On); }, S, 5).Median;
  Steps = std::max(1000, int(Steps * 2.0 / OneGroup));
  print("group_ms", deviceMs([&] { bench::spin_serial_1(Steps, On); }, S, 5));

  using Fn = void (*)(int, qd::Launch);
  struct Pair {
    int K;
    Fn Parallel, Serial;
  } Pairs[] = {{1, bench::spin_parallel_1, bench::spin_serial_1},
               {2, bench::spin_parallel_2, bench::spin_serial_2},
               {4, bench::spin_parallel_4, bench::spin_serial_4},
               {8, bench::spin_parallel_8, bench::spin_serial_8},
               {16, bench::spin_parallel_16, bench::spin_serial_16}};
  for (const Pair &P : Pairs) {
    Stat Par = deviceMs([&] { P.Parallel(Steps, On); }, S, 7);
    Stat Ser = deviceMs([&] { P.Serial(Steps, On); }, S, 7);
    char Key[64];
    std::snprintf(Key, sizeof(Key), "conc_parallel_ms_%d", P.K);
    print(Key, Par);
    std::snprintf(Key, sizeof(Key), "conc_serial_ms_%d", P.K);
    print(Key, Ser);
  }

  print("call_plain_us", hostUsPerCall([&] { bench::empty1(1, On); }, S));

  // The same task through raw cuLaunchKernel, in this process, on the same
  // stream, batches taking turns with the launcher's: the fairest floor.
  if (qd::current_arch() == qd::Arch::cuda) {
    using LaunchFn =
        int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                unsigned, unsigned, void *, void **, void **);
    void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    auto Raw = Cuda ? reinterpret_cast<LaunchFn>(dlsym(Cuda, "cuLaunchKernel"))
                    : nullptr;
    void *Fn = nullptr;
    qd::detail::check(qdrt_task_function(bench::qd_module_(),
                                         QDRT_CURRENT_DEVICE, 10, 0, &Fn));
    int N1 = 1;
    uint64_t Count = 1;
    void *Params[] = {&N1, &Count};
    std::vector<double> Launcher, Direct;
    for (int R = 0; R < 15 && Raw; ++R) {
      Launcher.push_back(
          hostUsPerCall([&] { bench::empty1(1, On); }, S).Median);
      Direct.push_back(hostUsPerCall(
                           [&] {
                             Raw(Fn, 1, 1, 1, 128, 1, 1, 0, S.handle(), Params,
                                 nullptr);
                           },
                           S)
                           .Median);
    }
    if (Raw) {
      print("call_plain_interleaved_us", stat(Launcher));
      print("call_raw_interleaved_us", stat(Direct));
    }

    // A hand-written fork/join of empty4's four tasks with raw driver calls
    // on pre-created streams and events, taking turns with the generated
    // launcher.
    using StreamCreateFn = int (*)(void **, unsigned);
    using EventCreateFn = int (*)(void **, unsigned);
    using RecordFn = int (*)(void *, void *);
    using WaitFn = int (*)(void *, void *, unsigned);
    auto StreamCreate =
        reinterpret_cast<StreamCreateFn>(dlsym(Cuda, "cuStreamCreate"));
    auto EventCreate =
        reinterpret_cast<EventCreateFn>(dlsym(Cuda, "cuEventCreate"));
    auto Record = reinterpret_cast<RecordFn>(dlsym(Cuda, "cuEventRecord"));
    auto Wait = reinterpret_cast<WaitFn>(dlsym(Cuda, "cuStreamWaitEvent"));
    if (Raw && StreamCreate && EventCreate && Record && Wait) {
      void *Fns[4], *Streams[4], *Joins[4], *Fork;
      for (int G = 0; G < 4; ++G) {
        qd::detail::check(qdrt_task_function(
            bench::qd_module_(), QDRT_CURRENT_DEVICE, 11, G, &Fns[G]));
        StreamCreate(&Streams[G], 1 /*non-blocking*/);
        EventCreate(&Joins[G], 2 /*no timing*/);
      }
      EventCreate(&Fork, 2);
      std::vector<double> Gen, Hand;
      for (int R = 0; R < 15; ++R) {
        Gen.push_back(hostUsPerCall([&] { bench::empty4(1, On); }, S).Median);
        Hand.push_back(hostUsPerCall(
                           [&] {
                             Record(Fork, S.handle());
                             for (int G = 0; G < 4; ++G) {
                               Wait(Streams[G], Fork, 0);
                               Raw(Fns[G], 1, 1, 1, 128, 1, 1, 0, Streams[G],
                                   Params, nullptr);
                               Record(Joins[G], Streams[G]);
                               Wait(S.handle(), Joins[G], 0);
                             }
                           },
                           S)
                           .Median);
      }
      print("call_fork4_interleaved_us", stat(Gen));
      print("call_fork4_hand_interleaved_us", stat(Hand));
    }
  }
  print("call_fork4_us", hostUsPerCall([&] { bench::empty4(1, On); }, S));
  // The launch-time overlap check: a 4-group call whose groups write four
  // ndarray parameters, and the launcher's 6 checks alone, timed on the
  // host (nanoseconds per call's worth of checks).
  {
    qd::Ndarray<float, 1> A({1}), B({1}), C({1}), D({1});
    print("call_fork4_arrays_us",
          hostUsPerCall([&] { bench::empty4_arrays(1, A, B, C, D, On); }, S));
    const void *P[] = {A.data(), B.data(), C.data(), D.data()};
    std::vector<double> Ns;
    constexpr int Calls = 100000;
    for (int R = 0; R < 25; ++R) {
      auto T0 = std::chrono::steady_clock::now();
      for (int I = 0; I < Calls; ++I)
        for (int X = 0; X < 4; ++X)
          for (int Y = X + 1; Y < 4; ++Y)
            qd::detail::check_overlap_(P[X], 4, P[Y], 4, "empty4_arrays",
                                       "parameters");
      auto T1 = std::chrono::steady_clock::now();
      Ns.push_back(std::chrono::duration<double, std::nano>(T1 - T0).count() /
                   Calls);
    }
    print("overlap_checks_ns", stat(Ns));
  }
  // The same 4-group call recorded once with qd::capture and replayed.
  qd::Graph Fork4 = qd::capture(S, [&] { bench::empty4(1, On); });
  print("call_fork4_graph_us", hostUsPerCall([&] { Fork4.launch(S); }, S));
  print("call_fork4_qdgraph_us",
        hostUsPerCall([&] { bench::empty4_graph(1, On); }, S));

  constexpr int64_t N = int64_t(1) << 26;
  qd::Ndarray<float, 1> X({N}), Y({N});
  X.fill(1.0f);
  Y.fill(2.0f);
  Stat Saxpy = deviceMs([&] { bench::saxpy(Y, X, 0.5f, On); }, S, 15);
  print("saxpy_gbs",
        {3.0 * N * 4 / Saxpy.Median / 1e6, 3.0 * N * 4 / Saxpy.Max / 1e6,
         3.0 * N * 4 / Saxpy.Min / 1e6});
  constexpr int64_t Side = 8192;
  qd::Ndarray<float, 2> In({Side, Side}), Out({Side, Side});
  In.fill(1.0f);
  Out.fill(0.0f);
  Stat Stencil = deviceMs([&] { bench::stencil(Out, In, On); }, S, 15);
  double Bytes = 2.0 * Side * Side * 4;
  print("stencil_gbs", {Bytes / Stencil.Median / 1e6, Bytes / Stencil.Max / 1e6,
                        Bytes / Stencil.Min / 1e6});
  // Device-side fills and copies of 2^26 floats (DESIGN section 3.1).
  print("fill_ms", deviceMs([&] { X.fill_async(1.5f, S); }, S, 15));
  print("fill_f64_ms", deviceMs(
                           [&] {
                             qd::NdarrayView<double, 1>(
                                 static_cast<double *>(X.data()), {N / 2})
                                 .fill_async(1.0 / 3, S);
                           },
                           S, 15));
  print("copy_ms", deviceMs([&] { qd::copy_async(Y, X, S); }, S, 15));

  // The running sum in the output array, without and with QD_NOALIAS.
  {
    constexpr int64_t Rows = 16384, Cols = 1024;
    qd::Ndarray<float, 1> MvOut({Rows}), MvX({Cols});
    qd::Ndarray<float, 2> MvA({Rows, Cols});
    MvA.fill(0.5f);
    MvX.fill(2.0f);
    print("matvec_ms",
          deviceMs([&] { bench::matvec(MvOut, MvA, MvX, On); }, S, 15));
    print("matvec_noalias_ms",
          deviceMs([&] { bench::matvec_noalias(MvOut, MvA, MvX, On); }, S, 15));
  }

  // Timeline: a kernel on one stream and an async copy of 256 MiB of
  // pageable host memory on another, alone and together (host wall time
  // from the first call to both streams done). Overlapping, together takes
  // about the longer of the two.
  qd::Stream C = qd::create_stream();
  std::vector<float> Host(size_t(N), 1.0f);
  auto wallMs = [&](bool Kernel, int Copy) {
    std::vector<double> Ms;
    for (int R = 0; R < 5; ++R) {
      S.synchronize();
      C.synchronize();
      auto T0 = std::chrono::steady_clock::now();
      if (Kernel)
        bench::spin_serial_1(Steps * 4, On);
      if (Copy == 1)
        X.copy_from_async(Host.data(), Host.size(), C);
      if (Copy == 2)
        X.copy_to_async(Host.data(), Host.size(), C);
      S.synchronize();
      C.synchronize();
      auto T1 = std::chrono::steady_clock::now();
      Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
    }
    return stat(Ms);
  };
  print("timeline_kernel_ms", wallMs(true, 0));
  print("timeline_h2d_ms", wallMs(false, 1));
  print("timeline_both_h2d_ms", wallMs(true, 1));
  print("timeline_d2h_ms", wallMs(false, 2));
  print("timeline_both_d2h_ms", wallMs(true, 2));
  // The same 256 MiB from and to a qd::HostArray (pinned): one DMA each.
  {
    qd::HostArray<float> Pinned(static_cast<size_t>(N));
    auto pinnedMs = [&](bool ToDevice) {
      std::vector<double> Ms;
      for (int R = 0; R < 5; ++R) {
        C.synchronize();
        auto T0 = std::chrono::steady_clock::now();
        if (ToDevice)
          X.copy_from_async(Pinned.data(), Pinned.size(), C);
        else
          X.copy_to_async(Pinned.data(), Pinned.size(), C);
        C.synchronize();
        auto T1 = std::chrono::steady_clock::now();
        Ms.push_back(
            std::chrono::duration<double, std::milli>(T1 - T0).count());
      }
      return stat(Ms);
    };
    print("pinned_h2d_ms", pinnedMs(true));
    print("pinned_d2h_ms", pinnedMs(false));
  }
  std::printf("steps %d\n", Steps);
  return 0;
}
