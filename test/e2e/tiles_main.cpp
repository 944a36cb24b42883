// Runs tiles.qd's kernels and compares each result with serial C++.
#include "Check.h"
#include "tiles.qd.h"

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace {

/// hits of a 2-D run over [I0, Rows) x [J0, Cols): one visit each.
void checkTile2(Check &C, const char *What, int64_t Rows, int64_t Cols,
                int64_t I0, int64_t J0) {
  qd::Ndarray<int32_t, 2> Hits({Rows, Cols});
  qd::Ndarray<int64_t, 2> At({Rows, Cols});
  Hits.fill(0);
  At.fill(-1);
  tiles::tile2(Hits, At, I0, J0);
  auto Inside = [&](size_t K) {
    int64_t I = int64_t(K) / Cols, J = int64_t(K) % Cols;
    return I >= I0 && J >= J0;
  };
  C.all(What, Hits.to_vector(), [&](size_t K) { return Inside(K) ? 1 : 0; });
  C.all(What, At.to_vector(), [&](size_t K) {
    return Inside(K) ? int64_t(K) / Cols * 100000 + int64_t(K) % Cols : -1;
  });
}

/// Weights 1 + a + 2b + 3c of a 3-D run from row A0.
std::vector<int32_t> weights3(int64_t N0, int64_t N1, int64_t N2, int64_t A0) {
  std::vector<int32_t> W(size_t(N0 * N1 * N2));
  for (int64_t A = A0; A < N0; ++A)
    for (int64_t B = 0; B < N1; ++B)
      for (int64_t C = 0; C < N2; ++C)
        W[size_t((A * N1 + B) * N2 + C)] = int32_t(1 + A + 2 * B + 3 * C);
  return W;
}

} // namespace

int main() {
  qd::init();
  Check C;

  checkTile2(C, "tile2 whole tiles", 64, 96, 0, 0);
  checkTile2(C, "tile2 ragged edges and offsets", 37, 70, 3, 1);
  checkTile2(C, "tile2 one column", 300, 1, 0, 0);
  checkTile2(C, "tile2 one row", 1, 1000, 0, 0);
  // More tiles than the grid has blocks: each block strides over rows.
  checkTile2(C, "tile2 more tiles than blocks", 4099, 2050, 2, 0);
  checkTile2(C, "tile2 empty", 5, 4, 5, 0);

  {
    qd::Ndarray<int32_t, 3> Hits({5, 9, 13});
    Hits.fill(0);
    tiles::tile2of3(Hits);
    std::vector<int32_t> W = weights3(5, 9, 13, 0);
    C.all("tile2of3", Hits.to_vector(), [&](size_t K) { return W[K]; });
  }
  // Large enough to fill a GPU (the narrow entry runs at this size only
  // because the tile leaves the first dimension out); then more tiles of
  // rows than a grid's y holds (65,535), which the task's own entry runs.
  for (auto [N0, N1, N2] :
       {std::tuple<int64_t, int64_t, int64_t>{70, 301, 203}, {1, 270001, 9}}) {
    qd::Ndarray<int32_t, 3> Hits({N0, N1, N2});
    Hits.fill(0);
    tiles::tile2of3(Hits);
    std::vector<int32_t> W = weights3(N0, N1, N2, 0);
    C.all("tile2of3 large", Hits.to_vector(), [&](size_t K) { return W[K]; });
  }
  {
    qd::Ndarray<int32_t, 3> Hits({7, 6, 19});
    Hits.fill(0);
    tiles::tile3(Hits);
    std::vector<int32_t> W = weights3(7, 6, 19, 1);
    C.all("tile3", Hits.to_vector(), [&](size_t K) { return W[K]; });
  }
  {
    const int64_t N[4] = {3, 2, 33, 5};
    qd::Ndarray<int32_t, 4> Hits({N[0], N[1], N[2], N[3]});
    Hits.fill(0);
    tiles::tile_column(Hits);
    C.all("tile_column", Hits.to_vector(), [&](size_t K) {
      int64_t D = int64_t(K) % N[3], Rest = int64_t(K) / N[3];
      int64_t Cc = Rest % N[2], B = Rest / N[2] % N[1], A = Rest / N[2] / N[1];
      return int32_t(1 + A + B + Cc + D);
    });
  }
  {
    const int64_t Rows = 45, Cols = 77;
    std::vector<int32_t> X(size_t(Rows * Cols));
    int64_t Want = 0;
    for (int64_t I = 0; I < Rows; ++I)
      for (int64_t J = 0; J < Cols; ++J) {
        X[size_t(I * Cols + J)] = int32_t((I * 7 + J * 3) % 11 - 5);
        if ((I + J) % 3 != 0)
          Want += X[size_t(I * Cols + J)] * (J + 1);
      }
    qd::Ndarray<int32_t, 2> XA({Rows, Cols});
    XA.copy_from(X);
    C.that("tile_sum", tiles::tile_sum(XA) == Want);
  }
  {
    qd::Ndarray<int32_t, 2> Hits({40, 50});
    Hits.fill(0);
    tiles::extent.copy_from({33, 47});
    tiles::tile_device_bounds(Hits);
    C.all("tile_device_bounds", Hits.to_vector(), [](size_t K) {
      return K / 50 < 33 && K % 50 < 47 ? 1 : 0;
    });
  }
  {
    qd::Ndarray<float, 2> Tiled({50, 70}), Plain({50, 70});
    qd::set_random_seed(11);
    tiles::draw_tiled(Tiled);
    qd::set_random_seed(11);
    tiles::draw_plain(Plain);
    std::vector<float> P = Plain.to_vector();
    C.all("random in tiles", Tiled.to_vector(), [&](size_t K) { return P[K]; });
    bool Spread = false;
    for (float V : P)
      Spread |= V != P[0];
    C.that("random numbers differ", Spread);
  }
  for (auto [I0, J0] :
       {std::pair<int64_t, int64_t>{-5, -37}, {9, 33}, {-8, 1}, {1, -1}}) {
    const int64_t Rows = 29, Cols = 71;
    qd::Ndarray<int32_t, 2> Hits({Rows, Cols});
    Hits.fill(0);
    tiles::tile_shifted(Hits, I0, J0);
    C.all("tile_shifted", Hits.to_vector(), [&](size_t K) {
      int64_t I = I0 + int64_t(K) / Cols, J = J0 + int64_t(K) % Cols;
      return int32_t(1 + (I & 7) + (J & 31) * 8);
    });
  }
  {
    qd::Ndarray<float, 2> Tiled({50, 70}), Plain({50, 70});
    Tiled.fill(-1.0f);
    Plain.fill(-1.0f);
    qd::set_random_seed(12);
    tiles::draw_tiled_from(Tiled, 3, 33);
    qd::set_random_seed(12);
    tiles::draw_plain_from(Plain, 3, 33);
    std::vector<float> P = Plain.to_vector();
    C.all("random in shifted tiles", Tiled.to_vector(),
          [&](size_t K) { return P[K]; });
  }
  for (auto [Rows, Inner, Cols, K0] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{37, 45, 70, 3},
        {64, 96, 64, 0},
        {5, 1, 300, 0},
        {1030, 17, 9, 16}}) {
    qd::Ndarray<int64_t, 2> A({Rows, Inner}), B({Inner, Cols}),
        Out({Rows, Cols});
    std::vector<int64_t> AV(size_t(Rows * Inner)), BV(size_t(Inner * Cols));
    for (size_t K = 0; K < AV.size(); ++K)
      AV[K] = int64_t(K % 13) - 6;
    for (size_t K = 0; K < BV.size(); ++K)
      BV[K] = int64_t(K % 11) * 3 - 7;
    A.copy_from(AV);
    B.copy_from(BV);
    Out.fill(-1);
    tiles::column_walks(Out, A, B, K0);
    C.all("column_walks", Out.to_vector(), [&](size_t K) {
      int64_t I = int64_t(K) / Cols, J = int64_t(K) % Cols, Acc = 0;
      for (int64_t L = K0; L < Inner; ++L)
        Acc += AV[size_t(I * Inner + L)] * BV[size_t(L * Cols + J)];
      for (int64_t L = Inner - 1; L >= 0; --L)
        Acc -= BV[size_t(L * Cols + J)] * (I + 1);
      return Acc;
    });
  }
  {
    const int64_t Rows = 300, Cols = 7;
    qd::Ndarray<int64_t, 2> T({Rows, Cols});
    T.fill(-1);
    tiles::write_columns(T);
    C.all("write_columns", T.to_vector(), [&](size_t K) {
      return int64_t(K) / Cols * 1000 + int64_t(K) % Cols;
    });
  }
  return C.finish();
}
