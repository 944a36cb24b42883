// CPU stream benchmarks (utils/bench-cpu.sh runs them): the time of a
// stream-parallel kernel of two equal groups and of the same loops run one
// after the other, and the host cost of a one-task kernel call, alone
// (calls queued in batches) and waited for (call, then synchronize).
// Prints "<key> <median> <min> <max>".
#include "Stat.h"
#include "cpu_streams.qd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

using namespace bench_stat;

double nowUs() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch())
      .count();
}

/// Milliseconds from a call to the end of its work, Runs times.
Stat wallMs(const std::function<void()> &Call, qd::Stream &S, int Runs) {
  Call();
  S.synchronize();
  std::vector<double> Ms;
  for (int R = 0; R < Runs; ++R) {
    double T0 = nowUs();
    Call();
    S.synchronize();
    Ms.push_back((nowUs() - T0) / 1000);
  }
  return stat(Ms);
}

/// Host microseconds per call: batches of Batch calls, each batch timed
/// from its first call to its last one's return, then waited for
/// (Wait: each call waited for before the next).
Stat hostUsPerCall(const std::function<void()> &Call, qd::Stream &S,
                   bool Wait) {
  constexpr int Batch = 200, Batches = 25;
  for (int W = 0; W < Batch; ++W)
    Call();
  S.synchronize();
  std::vector<double> Us;
  for (int R = 0; R < Batches; ++R) {
    double T0 = nowUs();
    for (int I = 0; I < Batch; ++I) {
      Call();
      if (Wait)
        S.synchronize();
    }
    double T1 = nowUs();
    S.synchronize();
    Us.push_back((T1 - T0) / Batch);
  }
  return stat(Us);
}

} // namespace

int main() {
  qd::init(qd::Arch::cpu);
  qd::Stream S = qd::create_stream();
  auto On = qd::on(S);

  // Steps for about 20 ms per loop.
  int Steps = 20000;
  double One = wallMs([&] { cpu_streams::serial(Steps, On); }, S, 3).Median / 2;
  Steps = std::max(1000, int(Steps * 20.0 / std::max(One, 1e-3)));
  print("loop_ms", stat({wallMs([&] { cpu_streams::serial(Steps, On); }, S, 3)
                             .Median /
                         2}));
  print("groups_ms", wallMs([&] { cpu_streams::groups(Steps, On); }, S, 9));
  print("serial_ms", wallMs([&] { cpu_streams::serial(Steps, On); }, S, 9));

  print("call_us", hostUsPerCall([&] { cpu_streams::empty1(1, On); }, S,
                                 /*Wait=*/false));
  print("call_wait_us", hostUsPerCall([&] { cpu_streams::empty1(1, On); }, S,
                                      /*Wait=*/true));
  return 0;
}
