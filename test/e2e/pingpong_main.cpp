// End-to-end: two streams taking turns through events, 200 steps, and a
// stream-parallel kernel whose groups run at the same time (on the CPU
// too); results checked against serial C++.
#include "Check.h"
#include "pingpong.qd.h"

#include <vector>

namespace {
/// The serial step of pingpong.qd.
std::vector<int> step(const std::vector<int> &Src) {
  size_t N = Src.size();
  std::vector<int> Dst(N);
  for (size_t I = 0; I < N; ++I)
    Dst[I] = Src[(I + 1) % N] + int(I % 3) + 1;
  return Dst;
}
int chain(int V, int Mul, int Rounds) {
  for (int R = 0; R < Rounds; ++R)
    V = V * Mul % 1000003 + R;
  return V;
}
} // namespace

int main() {
  qd::init();
  Check Ok;
  constexpr int N = 1 << 15, Steps = 200;

  // A and B take turns: A writes P from Q, then B writes Q from P, ...
  // each step waiting for the other stream's previous one.
  qd::Stream A = qd::create_stream(), B = qd::create_stream();
  qd::Event ADone = qd::create_event(), BDone = qd::create_event();
  std::vector<int> Start(N);
  for (int I = 0; I < N; ++I)
    Start[I] = I % 101;
  qd::Ndarray<int, 1> P({N}), Q({N});
  Q.copy_from(Start);
  std::vector<int> Want = Start;
  for (int S = 0; S < Steps; ++S) {
    bool OnA = S % 2 == 0;
    qd::Stream &Mine = OnA ? A : B;
    qd::Event &Other = OnA ? BDone : ADone, &Done = OnA ? ADone : BDone;
    if (S > 0)
      Other.wait(Mine);
    if (OnA)
      pingpong::step(P, Q, qd::on(Mine));
    else
      pingpong::step(Q, P, qd::on(Mine));
    Done.record(Mine);
    Want = step(Want);
  }
  // The last step was B's.
  B.synchronize();
  Ok.all("200 steps on two streams", Q.to_vector(),
         [&](size_t I) { return Want[I]; });

  // A stream-parallel kernel on A while B copies its inputs' old values.
  std::vector<int> Xs(N), Ys(N);
  for (int I = 0; I < N; ++I) {
    Xs[I] = I;
    Ys[I] = N - I;
  }
  qd::Ndarray<int, 1> X({N}), Y({N}), Before({N});
  X.copy_from(Xs);
  Y.copy_from(Ys);
  qd::Event Copied = qd::create_event();
  qd::copy_async(Before, X, B);
  Copied.record(B);
  Copied.wait(A); // the kernel overwrites X only after the copy
  pingpong::two_chains(X, Y, 64, qd::on(A));
  A.synchronize();
  Ok.all("copy before the kernel", Before.to_vector(),
         [&](size_t I) { return Xs[I]; });
  Ok.all("group 1", X.to_vector(),
         [&](size_t I) { return chain(Xs[I], 3, 64); });
  Ok.all("group 2", Y.to_vector(),
         [&](size_t I) { return chain(Ys[I], 5, 64); });
  return Ok.finish();
}
