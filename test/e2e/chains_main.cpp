// Runs chains.qd's chains of dependent launches and compares each result
// with serial C++.
#include "Check.h"
#include "chains.qd.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace {

std::vector<uint32_t> start(size_t N, uint32_t Seed) {
  std::vector<uint32_t> V(N);
  uint32_t X = Seed;
  for (uint32_t &E : V) {
    X = X * 1664525u + 1013904223u;
    E = X >> 7;
  }
  return V;
}

/// Launches of shift, a to b and back, on n elements.
void checkShift(Check &C, const char *What, size_t N, int Steps) {
  std::vector<uint32_t> Want = start(N, uint32_t(N)), Other(N);
  qd::Ndarray<uint32_t, 1> A({int64_t(N)}), B({int64_t(N)});
  A.copy_from(Want);
  for (int K = 0; K < Steps; ++K) {
    if (K % 2 == 0)
      chains::shift(B, A, uint32_t(K));
    else
      chains::shift(A, B, uint32_t(K));
    for (size_t I = 0; I < N; ++I)
      Other[I] = Want[I] + 3u * Want[(I + 1) % N] + uint32_t(K);
    std::swap(Want, Other);
  }
  C.all(What, (Steps % 2 ? B : A).to_vector(),
        [&](size_t I) { return Want[I]; });
}

void checkRows(Check &C, const char *What, int64_t R, int64_t Cols, int Steps) {
  size_t N = size_t(R * Cols);
  std::vector<uint32_t> Want = start(N, 7), Other(N);
  qd::Ndarray<uint32_t, 2> A({R, Cols}), B({R, Cols});
  A.copy_from(Want);
  for (int K = 0; K < Steps; ++K) {
    if (K % 2 == 0)
      chains::rows(B, A);
    else
      chains::rows(A, B);
    for (int64_t I = 0; I < R; ++I) {
      uint32_t S = 0;
      for (int64_t J = 0; J < Cols; ++J)
        S = S * 31u + Want[size_t(I * Cols + J)];
      for (int64_t J = 0; J < Cols; ++J)
        Other[size_t(I * Cols + J)] = Want[size_t(I * Cols + J)] ^ S;
    }
    std::swap(Want, Other);
  }
  C.all(What, (Steps % 2 ? B : A).to_vector(),
        [&](size_t I) { return Want[I]; });
}

void checkEliminate(Check &C, const char *What, int64_t N) {
  std::vector<uint32_t> Want = start(size_t(N * N), 11);
  qd::Ndarray<uint32_t, 2> A({N, N});
  A.copy_from(Want);
  auto At = [&](int64_t I, int64_t J) -> uint32_t & {
    return Want[size_t(I * N + J)];
  };
  for (int64_t K = 0; K < N; ++K) {
    chains::eliminate(A, K);
    for (int64_t J = K + 1; J < N; ++J)
      At(K, J) = At(K, J) * 3u + 1u;
    for (int64_t I = K + 1; I < N; ++I)
      for (int64_t J = K + 1; J < N; ++J)
        At(I, J) = At(I, J) - At(I, K) * At(K, J);
  }
  C.all(What, A.to_vector(), [&](size_t I) { return Want[I]; });
}

void checkSpread(Check &C, const char *What, size_t N, int Steps) {
  std::vector<uint32_t> Want = start(N, 13);
  qd::Ndarray<uint32_t, 1> A({int64_t(N)});
  A.copy_from(Want);
  for (int K = 0; K < Steps; ++K) {
    chains::spread(A);
    int32_t S = 0;
    for (uint32_t E : Want)
      S += int32_t(E & 255u);
    for (uint32_t &E : Want)
      E += uint32_t(S);
  }
  C.all(What, A.to_vector(), [&](size_t I) { return Want[I]; });
}

} // namespace

int main() {
  qd::init();
  Check C;
  checkShift(C, "shift: 2,000 small launches", 1000, 2000);
  checkShift(C, "shift: 40 launches of 2^20", size_t(1) << 20, 40);
  checkRows(C, "rows: latency versions", 300, 64, 200);
  checkRows(C, "rows: the task's own entry", 100000, 8, 20);
  checkEliminate(C, "eliminate: 2 tasks a call, 300 calls", 300);
  checkSpread(C, "spread: a scalar between two tasks", 5000, 300);
  return C.finish();
}
