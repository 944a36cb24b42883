// The conjugate gradient of cg.qd: checks that both forms solve the
// system, then (without --check) times them per iteration at a fixed
// iteration count:
//   cg_graph_us_<f32|f64>  one solve() call, the loop a qd::graph::do_while
//   cg_host_us_<f32|f64>   step() called from the host, which waits for
//                          its result (go on or not) after each iteration
// each printed as `key median min max` (microseconds per iteration), the
// keys ending in CG_KEY_SUFFIX ("_unfused" for the -fno-fuse-tasks build,
// "_1024" for the 1024x1024 grid).
#include "cg.qd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
using real = decltype(cg::x)::value_type;
#ifndef CG_GRID
#define CG_GRID 32
#endif
constexpr int G = CG_GRID;
#ifndef CG_KEY_SUFFIX
#define CG_KEY_SUFFIX ""
#endif
const char *Suffix = sizeof(real) == 4 ? "f32" CG_KEY_SUFFIX : "f64" CG_KEY_SUFFIX;

/// max |A x - b| over the grid, on the host.
double residual() {
  std::vector<real> X = cg::x.to_vector(), B = cg::b.to_vector();
  auto At = [&](int i, int j) {
    return i < 0 || j < 0 || i >= G || j >= G ? 0.0 : double(X[i * G + j]);
  };
  double Max = 0;
  for (int i = 0; i < G; ++i)
    for (int j = 0; j < G; ++j) {
      double Ax = 20 * At(i, j) - At(i - 1, j) - At(i + 1, j) - At(i, j - 1) -
                  At(i, j + 1);
      Max = std::max(Max, std::fabs(Ax - double(B[i * G + j])));
    }
  return Max;
}

/// Runs the host-driven loop until step() says to stop; its iterations.
int32_t hostLoop(int32_t MaxIters, real Tol) {
  cg::start();
  while (cg::step(MaxIters, Tol)) {
  }
  return cg::iters_state.to_vector()[0];
}

template <typename F> void report(const char *Key, int Iters, F Run) {
  for (int W = 0; W < 3; ++W)
    Run();
  std::vector<double> Us;
  for (int R = 0; R < 20; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    Run();
    auto T1 = std::chrono::steady_clock::now();
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Iters);
  }
  std::sort(Us.begin(), Us.end());
  std::printf("%s_%s %.4f %.4f %.4f\n", Key, Suffix, Us[Us.size() / 2],
              Us.front(), Us.back());
}
} // namespace

int main(int argc, char **argv) {
  bool CheckOnly = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  qd::init();
  cg::init();
  const real Tol = sizeof(real) == 4 ? real(1e-5) : real(1e-12);
  const double Allowed = sizeof(real) == 4 ? 1e-4 : 1e-10;

  int32_t GraphIters = cg::solve(1000, Tol);
  double GraphRes = residual();
  int32_t HostIters = hostLoop(1000, Tol);
  double HostRes = residual();
  std::printf("# qd::graph::do_while loops run on the %s\n",
              qd::graph_loops_on_device() ? "device" : "host");
  std::printf("# %s: solve() took %d iterations, max |Ax - b| = %.3g; the "
              "host-driven loop %d, %.3g\n",
              Suffix, GraphIters, GraphRes, HostIters, HostRes);
  bool OK = GraphIters == HostIters && GraphIters > 1 && GraphIters < 1000 &&
            GraphRes <= Allowed && HostRes <= Allowed;
  if (!OK)
    std::printf("FAIL: the two forms disagree or did not solve the system\n");
  // A fixed count runs exactly that many iterations.
  int32_t Graph7 = cg::solve(7, real(-1)), Host7 = hostLoop(7, real(-1));
  if (Graph7 != 7 || Host7 != 7) {
    std::printf("FAIL: asked for 7 iterations, solve() ran %d and the "
                "host-driven loop %d\n",
                Graph7, Host7);
    OK = false;
  }
  if (!OK)
    return 1;
  if (CheckOnly)
    return 0;
  constexpr int Iters = 200;
  report("cg_graph_us", Iters, [] { cg::solve(Iters, real(-1)); });
  report("cg_host_us", Iters, [] { hostLoop(Iters, real(-1)); });
  return 0;
}
