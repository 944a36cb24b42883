// The streams example: stream_parallel, explicit streams, events between
// streams and RAII cleanup, with results checked and stream_parallel timed
// against the same loops run serially.
#include "streams.qd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

float iterate(float x, int steps) {
  for (int s = 0; s < steps; ++s)
    x = x * 0.9999f + 0.5f;
  return x;
}

bool near(float got, float want) {
  return std::fabs(got - want) <= 1e-4f * std::max(1.0f, std::fabs(want));
}

/// Median milliseconds of Runs calls of Launch, timed with events on S.
template <typename F> float timeIt(F Launch, qd::Stream &S, int Runs = 15) {
  qd::Event Start = qd::create_event({.timing = true});
  qd::Event End = qd::create_event({.timing = true});
  Launch(); // warm-up: module load, JIT
  S.synchronize();
  std::vector<float> Ms;
  for (int r = 0; r < Runs; ++r) {
    Start.record(S);
    Launch();
    End.record(S);
    End.synchronize();
    Ms.push_back(qd::elapsed_ms(Start, End));
  }
  std::sort(Ms.begin(), Ms.end());
  return Ms[Ms.size() / 2];
}

} // namespace

int main() {
  qd::init(); // the best backend: CUDA, then AMD, then the CPU; QD_ARCH
              // overrides
  std::printf("backend: %s\n", qd::arch_name(qd::current_arch()));
  int Failures = 0;
  auto Expect = [&](const char *What, bool OK) {
    std::printf("  %-52s %s\n", What, OK ? "ok" : "FAILED");
    Failures += !OK;
  };

  // Work per element: enough for each group to keep part of a GPU busy for
  // a while; less on the CPU, where the groups run one after another.
  const int Steps = qd::current_arch() == qd::Arch::cpu ? 2000 : 100000;

  // 1. stream_parallel: the two groups run concurrently; combine runs after
  //    both, on the default stream, without the host waiting in between.
  streams::compute_ab(1.0f, 2.0f, Steps);
  streams::combine();
  std::vector<float> C = streams::c.to_vector();
  float Want = iterate(1.0f, Steps) + iterate(2.0f, Steps) + 1.0f;
  Expect(
      "compute_ab then combine",
      std::all_of(C.begin(), C.end(), [&](float v) { return near(v, Want); }));

  // 2. Explicit streams: the same kernel on two streams, arguments copied at
  //    launch so each call keeps its own.
  qd::Stream S1 = qd::create_stream(), S2 = qd::create_stream();
  qd::Ndarray<float, 1> X({1 << 20}), Y({1 << 20});
  X.fill(1.0f);
  Y.fill(1.0f);
  streams::scale(X, 3.0f, qd::on(S1));
  streams::scale(Y, 5.0f, qd::on(S2));

  // 3. Events between streams: S2 waits for S1 on the device, not the host.
  qd::Event XReady = qd::create_event();
  XReady.record(S1);
  XReady.wait(S2);
  streams::scale(X, 2.0f, qd::on(S2)); // runs after S1's scale of X
  S2.synchronize();
  std::vector<float> Xs = X.to_vector(), Ys = Y.to_vector();
  Expect("same kernel on two streams",
         std::all_of(Ys.begin(), Ys.end(), [](float v) { return v == 5.0f; }));
  Expect("event orders S2 after S1",
         std::all_of(Xs.begin(), Xs.end(), [](float v) { return v == 6.0f; }));

  // 4. RAII: a stream destroyed with work in flight waits for it first.
  {
    qd::Stream T = qd::create_stream();
    streams::scale(X, 0.5f, qd::on(T));
  } // ~Stream: synchronize, then destroy
  Xs = X.to_vector();
  Expect("stream destroyed after its work",
         std::all_of(Xs.begin(), Xs.end(), [](float v) { return v == 3.0f; }));

  // 5. stream_parallel against the same loops run serially.
  qd::Stream S = qd::create_stream();
  float Parallel =
      timeIt([&] { streams::compute_ab(1.0f, 2.0f, Steps, qd::on(S)); }, S);
  float Serial = timeIt(
      [&] { streams::compute_ab_serial(1.0f, 2.0f, Steps, qd::on(S)); }, S);
  std::printf("stream_parallel %.3f ms, serial %.3f ms: speedup %.2fx on %s\n",
              Parallel, Serial, Serial / Parallel,
              qd::arch_name(qd::current_arch()));
  std::printf("%s\n", Failures ? "FAILED" : "all results correct");
  return Failures ? 1 : 0;
}
