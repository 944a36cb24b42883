// Runs large.qd's kernel and compares its results with serial C++.
#include "Check.h"
#include "large.qd.h"

#include <cstdint>
#include <vector>

int main() {
  qd::init();
  Check C;
  constexpr int32_t N = 6000, Bias = 31, Skipped = -7;
  qd::Ndarray<int32_t, 1> In({N}), Out({N});
  std::vector<int32_t> InHost(N);
  for (int32_t I = 0; I < N; ++I)
    InHost[I] = I % 5;
  In.copy_from(InHost);
  Out.fill(Skipped);
  int64_t Total = large::chain(In, Out, Bias);

  std::vector<int32_t> Want(N, Skipped);
  int64_t WantTotal = 0;
  for (int32_t I = 0; I < N; ++I) {
    int32_t R, S;
    if (I < 2000) {
      R = I * 7 % 13 + InHost[I];
      S = I + Bias;
    } else if (I >= 4000 && (I - 4000) % 2 == 0) {
      continue;
    } else {
      R = -1;
      S = -Bias;
    }
    Want[I] = R * 100000 + S;
    WantTotal += R;
  }
  C.all("chain", Out.to_vector(), [&](size_t K) { return Want[K]; });
  C.that("chain total", Total == WantTotal);
  return C.finish();
}
