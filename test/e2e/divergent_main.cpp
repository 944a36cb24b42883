// Runs divergent.qd's kernel and compares its results with serial C++ (the
// same functions, compiled for the host).
#include "Check.h"
#include "divergent.qd.h"

#include <cstdint>
#include <vector>

#include "divergent_steps.h"

int main() {
  qd::init();
  Check C;
  for (int32_t N : {33, 1000, 100000}) {
    qd::Ndarray<int32_t, 1> Out({N});
    Out.fill(-7);
    int64_t Total = divergent::paths(Out);
    std::vector<int32_t> Want(static_cast<size_t>(N), 0);
    int64_t WantTotal = 0;
    for (int32_t I = 0; I < N; ++I) {
      int R = 0, X = step0(I, &R);
      Want[size_t(I)] = R * 100 + X;
      WantTotal += R - X;
    }
    C.all("paths", Out.to_vector(), [&](size_t K) { return Want[K]; });
    C.that("paths total", Total == WantTotal);
    Out.fill(-7);
    int64_t Sum = divergent::ladder(Out);
    int64_t WantSum = 0;
    for (int32_t I = 0; I < N; ++I) {
      Want[size_t(I)] = lad0(I);
      WantSum += lad0(I) % 1000;
    }
    C.all("ladder", Out.to_vector(), [&](size_t K) { return Want[K]; });
    C.that("ladder total", Sum == WantSum);
  }
  return C.finish();
}
