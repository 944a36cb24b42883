// qdc's side of the reduction benchmark (utils/bench-gpu.sh runs it beside
// reduce_baseline.cu): each call returns its result to the host, as the
// kernels of reduce.qd do. Prints `key median min max` lines, milliseconds
// per call of 2^26 floats, and checks every result.
#include "reduce.qd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
constexpr int64_t N = int64_t(1) << 26;

template <typename F> void measure(const char *Key, F Call, float Want) {
  for (int W = 0; W < 3; ++W)
    Call();
  std::vector<double> Ms;
  for (int R = 0; R < 30; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    float Got = Call();
    auto T1 = std::chrono::steady_clock::now();
    if (Got != Want) {
      std::fprintf(stderr, "%s: %g, expected %g\n", Key, Got, Want);
      std::exit(1);
    }
    Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
  }
  std::sort(Ms.begin(), Ms.end());
  std::printf("%s %.4f %.4f %.4f\n", Key, Ms[Ms.size() / 2], Ms.front(),
              Ms.back());
}
} // namespace

int main() {
  qd::init();
  // Small integers: every order of float additions gives the same sum.
  std::vector<float> H(N);
  for (int64_t I = 0; I < N; ++I)
    H[I] = float(I % 7) - 3.0f + (I == N / 3 ? 100.0f : 0.0f) -
           (I == N / 5 ? 100.0f : 0.0f);
  double Sum = 0;
  float Min = H[0], Max = H[0];
  for (float V : H) {
    Sum += V;
    Min = std::min(Min, V);
    Max = std::max(Max, V);
  }
  qd::Ndarray<float, 1> X({N});
  X.copy_from(H);
  std::printf("elements %lld\n", (long long)N);
  measure("reduce_sum_ms", [&] { return reduce::sum(X); }, float(Sum));
  measure("reduce_min_ms", [&] { return reduce::minimum(X); }, Min);
  measure("reduce_max_ms", [&] { return reduce::maximum(X); }, Max);
}
