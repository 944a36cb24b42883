// The spin chain (spin.qd) timed from the host: milliseconds per call,
// each call followed by qd::sync(), so that the chain's device time (about
// 2 ms at 2^20 steps) dominates. Prints `spin_ms[_fast] median min max` and
// the first lane's result, which both builds must agree on to a few ulps.
#include "spin.qd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#ifndef SPIN_KEY
#define SPIN_KEY "spin_ms"
#endif

int main() {
  qd::init();
  constexpr int Steps = 1 << 20, Runs = 20;
  for (int W = 0; W < 3; ++W)
    spin::spin(Steps);
  qd::sync();
  std::vector<double> Ms;
  for (int R = 0; R < Runs; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    spin::spin(Steps);
    qd::sync();
    auto T1 = std::chrono::steady_clock::now();
    Ms.push_back(std::chrono::duration<double, std::milli>(T1 - T0).count());
  }
  std::sort(Ms.begin(), Ms.end());
  std::printf("%s %.4f %.4f %.4f\n", SPIN_KEY, Ms[Ms.size() / 2], Ms.front(),
              Ms.back());
  std::printf("# lane 1 after %d steps: %.6f\n", Steps,
              spin::sink.to_vector()[1]);
  return 0;
}
