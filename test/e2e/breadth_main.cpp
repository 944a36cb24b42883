// Runs breadth.qd's kernels and compares each result with serial C++.
#include "Check.h"
#include "breadth.qd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

int main() {
  qd::init();
  Check C;

  breadth::mixed_range(int32_t(3), int64_t(9));
  C.all("mixed_range", breadth::mixed.to_vector(),
        [](size_t I) { return I >= 4 && I < 9 ? int64_t(I) * 10 : 0; });

  std::vector<float> In(8);
  for (int I = 0; I < 8; ++I)
    In[I] = 0.5f * float(I);
  breadth::src.copy_from(In);
  breadth::const_field_read();
  C.all("const_field_read", breadth::dst.to_vector(),
        [&](size_t I) { return 2 * In[I] + 1; });

  breadth::flags.copy_from({false, true, false, false, true, false, false, false});
  breadth::set_flags(3);
  C.all("set_flags", breadth::flags.to_vector(), [](size_t I) {
    const bool Before[] = {false, true, false, false, true, false, false, false};
    return I % 3 == 0 && !Before[I];
  });
  breadth::linalg_more(2.5f);
  {
    const float S = 2.5f;
    const float Want[] = {0.5f - 20.0f - 100.0f,
                          std::max(1.0f, S) + std::max(-2.0f, S) + std::max(3.0f, S),
                          2.0f - 1.0f + 4.0f,
                          0.0f + 2.0f,
                          1.0f - 1.0f + 2.0f,
                          4 * S + 1.0f,
                          S * 9.0f,
                          S - 4.0f + 4.0f + 9.0f};
    C.all("linalg_more", breadth::lin.to_vector(),
          [&](size_t I) { return I < 8 ? Want[I] : 0.0f; }, 1e-6);
  }
  {
    std::string Why = errorOf([] {
      breadth::formatted_assert(7, 1.5f);
      qd::sync();
    });
    C.that("QD_ASSERT formats its message",
           Why.find("QD_ASSERT failed in 'formatted_assert' at ") !=
                   std::string::npos &&
               Why.find("i < limit: i = 7 of 7, scale 1.500000, tag here, "
                        "ff%") != std::string::npos);
    if (Why.find("i = 7 of 7") == std::string::npos)
      std::printf("  got: %s\n", Why.c_str());
  }
  breadth::python_division(7, 2);
  {
    // Python: 7//2 3, 7%2 1, -7//2 -4, -7%2 1, 7//-2 -4, 7%-2 -1.
    const int32_t Want[] = {3, 1, -4, 1, -4, -1, 1, 0};
    C.all("python_division", breadth::pyint.to_vector(),
          [&](size_t I) { return Want[I]; });
    C.all("python_division float", breadth::pyflt.to_vector(),
          [](size_t I) { return I == 0 ? -4.0 : 0.5; });
  }
  breadth::integer_pow(3, 3);
  {
    // By repeated multiplication in uint64_t (wrapping), not by squaring.
    auto Power = [](int64_t X, int N) {
      uint64_t R = 1;
      for (int I = 0; I < N; ++I)
        R *= uint64_t(X);
      return int64_t(R);
    };
    const int64_t Want[] = {81,         Power(3, 40),
                            -27,        0 - 10 + 100,
                            243,        2,
                            8 + 10 * 4, int64_t(std::sqrt(3.0) * 1000.0)};
    C.all("integer_pow", breadth::ipow.to_vector(),
          [&](size_t I) { return Want[I]; });
  }
  {
    qd::Ndarray<int32_t, 2> M({4, 3});
    breadth::vector_index_select(M);
    C.all("vector_index field", breadth::grid.to_vector(),
          [](size_t I) { return int(10 * (I / 3) + I % 3); });
    C.all("vector_index ndarray", M.to_vector(), [](size_t I) {
      int Row = int(I / 3), Col = int(I % 3);
      return (10 * Row + 2 - Col) + (10 * Row + Col);
    });
    const float Want[] = {1, 4, 3, 0 + 50 + 300, 1, 0, 7, 2};
    C.all("vector_select", breadth::picked.to_vector(),
          [&](size_t I) { return Want[I]; });
  }
  breadth::block_ops();
  {
    // Each block of B consecutive iterations (B is 1 on the CPU), serially.
    std::vector<int32_t> Sizes = breadth::block_sizes.to_vector();
    std::vector<int64_t> Got = breadth::block_out.to_vector(), Want(Got.size());
    for (int Slot = 0; Slot < 2; ++Slot) {
      int B = Sizes[Slot];
      auto Out = [&](int K, int I) -> int64_t & {
        return Want[(Slot * 6 + K) * 192 + I];
      };
      for (int First = 0; First < 192; First += B) {
        int64_t Sum = 0, Max = -1, Min = 99, Count = 0, Any = 0, All = 1,
                All12 = 1;
        for (int I = First; I < First + B; ++I) {
          int64_t V = (I * 7) % 13;
          Out(3, I) = Sum; // exclusive
          Sum += V;
          Out(2, I) = Sum; // inclusive
          Max = std::max(Max, V);
          Min = std::min(Min, V);
          Count += V > 6;
          Any |= V == 12;
          All12 &= V < 12;
          Out(5, I) = I - First;
        }
        for (int I = First; I < First + B; ++I) {
          Out(0, I) = Sum;
          Out(1, I) = Max + 100 * Min;
          Out(4, I) = Count + 1000 * Any + 10000 * All + 100000 * All12;
        }
      }
    }
    C.that("block sizes", Sizes[0] == (Sizes[0] == 1 ? 1 : 64) &&
                              Sizes[1] == (Sizes[0] == 1 ? 1 : 48));
    C.all("block_ops", Got, [&](size_t I) { return Want[I]; });
  }
  breadth::warp_ops();
  {
    int W = breadth::warp_width.to_vector()[0];
    uint64_t Full = W >= 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
    std::vector<int64_t> Got = breadth::warp_out.to_vector();
    C.all("warp_ops", Got, [&](size_t K) -> int64_t {
      int Row = int(K / 64), I = int(K % 64), Base = I / W * W;
      uint64_t Same = 0;
      for (int L = 0; L < W; ++L)
        if ((Base + L) % 3 == I % 3)
          Same |= uint64_t(1) << L;
      const int64_t Rows[] = {int64_t(Same), int64_t(Full),
                              W == 1 ? int64_t(Full) : 0, int64_t(Full)};
      return Rows[Row];
    });
  }
  {
    constexpr int CompactN = 100000; // as in breadth.qd
    std::vector<int32_t> In(CompactN);
    std::vector<int32_t> Want;
    for (int I = 0; I < CompactN; ++I) {
      In[I] = (I * 7919) % 1000;
      if (In[I] % 3 == 0)
        Want.push_back(I);
    }
    breadth::compact_in.copy_from(In);
    breadth::compact_out.fill(-1);
    int32_t Count = breadth::compact(5);
    std::vector<int32_t> Out = breadth::compact_out.to_vector();
    std::vector<int32_t> Got(Out.begin() + 5,
                             Out.begin() + std::min<size_t>(Count, Out.size()));
    std::sort(Got.begin(), Got.end());
    C.that("compact count", Count == 5 + int32_t(Want.size()));
    C.that("compact slots",
           Got == Want && Out[4] == -1 &&
               (size_t(Count) >= Out.size() || Out[Count] == -1));
  }
  breadth::c_math(1.25f, 2.5);
  {
    float X = 1.25f;
    double Y = 2.5;
    const double Want[] = {
        std::exp(X),
        std::exp(X),
        std::exp(Y),
        std::exp(Y),
        std::pow(X, 2.5f),
        std::pow(Y, 1.5),
        2 * std::sqrt(X),
        std::sqrt(Y) + Y + X,
        0.5 + 3.0 + 1.25,
        std::atan2(X, 2.0f) + std::atan2(Y, 2.0),
        std::log(X) + std::log(Y) + std::log10(Y) + std::log2(X),
        std::sin(X) + std::cos(Y) + std::tanh(X) + std::erf(Y),
        std::hypot(X, 4.0f) + std::fmod(Y, 0.75) + std::cbrt(X),
        3 + 3 - 1 + 3,
        X * 2 + 1 + Y * Y + 1,
        std::expm1(Y) + std::log1p(X) + std::exp2(X) + std::asin(0.5f)};
    C.all(
        "c_math", breadth::cmath_out.to_vector(),
        [&](size_t I) { return Want[I]; }, 1e-5);
  }
  {
    std::vector<Particle> Ps(8), Want(8);
    for (int I = 0; I < 8; ++I)
      Ps[I] = {{float(I), 1, 2}, {0.5f, float(-I), 1}, 1};
    breadth::particles.copy_from(Ps);
    Particle P{{1, 2, 3}, {4, 5, 6}, 1.5f};
    Particle R = breadth::step_particles(P, 0.25f);
    for (int I = 0; I < 8; ++I) {
      Want[I] = Ps[I];
      for (int C = 0; C < 3; ++C) {
        Want[I].vel[C] = Ps[I].vel[C] + P.vel[C] * 0.25f;
        Want[I].pos[C] = Ps[I].pos[C] + Want[I].vel[C] * (0.25f * 3.0f);
      }
      Want[I].m = float(I);
    }
    std::vector<Particle> Got = breadth::particles.to_vector();
    bool Same = true;
    for (int I = 0; I < 8; ++I)
      for (int C = 0; C < 3; ++C)
        Same = Same && std::fabs(Got[I].pos[C] - Want[I].pos[C]) < 1e-5f &&
               Got[I].vel[C] == Want[I].vel[C] && Got[I].m == Want[I].m;
    C.that("struct with vec members", Same);
    C.that("struct return",
           R.pos.x == 5 && R.pos.z == 9 && R.m == 1.5f && R.vel.y == 5);
  }
  breadth::c_math_int(1.5f, 3);
  {
    float X = 1.5f;
    int N = 3;
    const double Want[] = {std::exp(N), std::pow(X, 2),
                           std::pow(2, N) + std::atan2(N, 2.0f),
                           std::log(long(N + 1)) + std::hypot(X, N)};
    C.all(
        "c_math_int", breadth::cmath_int.to_vector(),
        [&](size_t I) { return Want[I]; }, 1e-12);
  }
  breadth::promotion(0.25f, 3);
  {
    const double Want[] = {2.5 + 4.0 + 5.5, 3.0, 0.5, -7.0, 6.0, 5.5, 0, 0};
    C.all("promotion", breadth::promo.to_vector(),
          [&](size_t I) { return Want[I]; }, 1e-12);
  }
  breadth::mat_min_max(7.0f);
  {
    auto M = breadth::mat_minmax.to_vector();
    const float Want[2][4] = {{1, 4, -2, 0}, {3, 5, -1, 7}};
    bool Same = true;
    for (int K = 0; K < 2; ++K)
      for (int I = 0; I < 2; ++I)
        for (int J = 0; J < 2; ++J)
          Same &= M[K](I, J) == Want[K][I * 2 + J];
    C.that("qd::min and qd::max of matrices", Same);
  }
  {
    constexpr int Rows = 300, Cols = 37;
    std::vector<float> In(Rows * Cols), Scale(Cols);
    for (int I = 0; I < Rows * Cols; ++I)
      In[I] = float(I % 13) - 6.0f;
    for (int K = 0; K < Cols; ++K)
      Scale[K] = 0.5f + float(K % 5);
    qd::Ndarray<float, 1> Out({Rows}), InA({Rows * Cols}), ScaleA({Cols});
    InA.copy_from(In);
    ScaleA.copy_from(Scale);
    breadth::row_sums(static_cast<float *>(Out.data()),
                      static_cast<const float *>(InA.data()), ScaleA, Rows,
                      Cols);
    auto Want = [&](size_t I) {
      float Sum = 0.0f;
      for (int K = 0; K < Cols; ++K)
        Sum += In[I * Cols + K] * Scale[K];
      return Sum;
    };
    C.all("restrict pointers", Out.to_vector(), Want);
    qd::Ndarray<float, 1> Out2({Rows});
    qd::NdarrayView<float, 2> In2(static_cast<float *>(InA.data()),
                                  {Rows, Cols});
    breadth::row_sums_noalias(Out2, In2, ScaleA);
    C.all("QD_NOALIAS ndarrays", Out2.to_vector(), Want);
    // The first row of In as the output: it overlaps the input.
    qd::NdarrayView<float, 1> Row(static_cast<float *>(InA.data()), {Rows});
    std::string Why =
        errorOf([&] { breadth::row_sums_noalias(Row, In2, ScaleA); });
    C.that("QD_NOALIAS arrays that overlap are an error at launch",
           Why == "kernel 'row_sums_noalias' is QD_NOALIAS, but its "
                  "parameters 'out' and 'in' share memory");
    if (!has(Why, "QD_NOALIAS"))
      std::printf("  got: %s\n", Why.c_str());
    C.all("nothing ran", InA.to_vector(), [&](size_t I) { return In[I]; });
  }
  {
    qd::Ndarray<float, 1> X({4});
    breadth::scale(X);
    qd::reset();
    qd::init();
    std::string Why = errorOf([&] { breadth::scale(X); });
    C.that("a freed argument names the kernel and argument",
           Why.find("kernel 'scale', argument 'x'") == 0 &&
               Why.find("qd::detail") == std::string::npos);
    if (Why.find("kernel 'scale'") != 0)
      std::printf("  got: %s\n", Why.c_str());
  }
  return C.finish();
}
