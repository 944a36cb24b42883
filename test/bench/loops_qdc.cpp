// Times the do_while bodies of loops.qd: microseconds per run of the body,
// 1000 runs per call, printed as `do_while_<body>_us[_host] median min
// max` (the _host keys when QD_GRAPH_LOOPS=host makes the host loop). The
// build with fused tasks, where each body runs inside one block, prints
// the keys with LOOPS_KEY_SUFFIX ("_fused") instead.
#include "loops.qd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef LOOPS_KEY_SUFFIX
#define LOOPS_KEY_SUFFIX ""
#endif

namespace {
constexpr int Runs = 1000;
bool Host = false;

template <typename F> void report(const char *Body, F Kernel) {
  auto Once = [&] {
    loops::go.fill(1);
    Kernel(Runs);
    qd::sync();
  };
  for (int W = 0; W < 3; ++W)
    Once();
  std::vector<double> Us;
  for (int R = 0; R < 10; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    Once();
    auto T1 = std::chrono::steady_clock::now();
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Runs);
  }
  std::sort(Us.begin(), Us.end());
  std::printf("do_while_%s_us%s %.4f %.4f %.4f\n", Body,
              Host ? "_host" : LOOPS_KEY_SUFFIX, Us[Us.size() / 2], Us.front(),
              Us.back());
  if (loops::n.to_vector()[0] != Runs) {
    std::printf("FAIL: the %s body ran %d times, not %d\n", Body,
                loops::n.to_vector()[0], Runs);
    std::exit(1);
  }
}
} // namespace

int main() {
  qd::init();
  const char *Env = std::getenv("QD_GRAPH_LOOPS");
  Host = Env && std::strcmp(Env, "host") == 0;
  std::printf("# qd::graph::do_while loops run on the %s\n",
              qd::graph_loops_on_device() ? "device" : "host");
  report("serial", [](int N) { loops::serial_body(N); });
  report("one_loop", [](int N) { loops::one_loop_body(N); });
  report("three_loops", [](int N) { loops::three_loop_body(N); });
  return 0;
}
