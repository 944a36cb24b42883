// End-to-end: the language constructs of language.qd, results checked
// element by element against the same computation on the host.
#include "Check.h"
#include "language.qd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dlfcn.h>

namespace {
/// Memory the program allocates itself, outside qdc's runtime: host memory
/// on the CPU backend, cuMemAlloc on CUDA (the driver opened here).
struct ProgramBuffer {
  void *Data = nullptr;
  size_t Bytes;
  std::vector<unsigned char> Host;
  using Alloc = int (*)(unsigned long long *, size_t);
  using Free = int (*)(unsigned long long);
  using DtoH = int (*)(void *, unsigned long long, size_t);
  void *Cuda = nullptr;

  explicit ProgramBuffer(size_t Bytes) : Bytes(Bytes) {
    if (qd::current_arch() != qd::Arch::cuda) {
      Host.assign(Bytes, 0);
      Data = Host.data();
      return;
    }
    Cuda = dlopen("libcuda.so.1", RTLD_NOW);
    unsigned long long P = 0;
    if (Cuda && fn<Alloc>("cuMemAlloc_v2")(&P, Bytes) == 0)
      Data = reinterpret_cast<void *>(P);
  }
  ~ProgramBuffer() {
    if (Cuda && Data)
      fn<Free>("cuMemFree_v2")(reinterpret_cast<unsigned long long>(Data));
  }
  template <typename F> F fn(const char *Name) {
    return reinterpret_cast<F>(dlsym(Cuda, Name));
  }
  /// The first N values, read back without qdc's runtime.
  template <typename T> std::vector<T> read(size_t N) {
    std::vector<T> Out(N);
    if (!Cuda)
      std::memcpy(Out.data(), Data, N * sizeof(T));
    else
      fn<DtoH>("cuMemcpyDtoH_v2")(Out.data(),
                                  reinterpret_cast<unsigned long long>(Data),
                                  N * sizeof(T));
    return Out;
  }
};
} // namespace

int main() {
  qd::init();
  Check Ok;
  constexpr int N = 1000, R = 48, C = 40;

  language::fill_fields(2.5f);
  Ok.all("field a", language::a.to_vector(),
         [](size_t i) { return 2.5f + float((i % 10) * (i % 10)); });
  Ok.all("2-D field grid", language::grid.to_vector(),
         [](size_t k) { return int(k / C) * 100 + int(k % C); });

  qd::Ndarray<float, 2> X({7, 9});
  std::vector<float> Xs(63);
  for (int i = 0; i < 63; ++i)
    Xs[i] = float(i);
  X.copy_from(Xs);
  language::scale2d(X, 3.0f);
  Ok.all("2-D ndarray", X.to_vector(),
         [&](size_t k) { return Xs[k] * 3.0f + float(k / 9) - float(k % 9); });

  qd::Ndarray<int, 1> V({50});
  V.fill(1);
  language::offset1d(V, 10, 20, 5);
  Ok.all("1-D ndarray, range(b, e), canonical loop", V.to_vector(),
         [](size_t i) { return (1 + (i >= 10 && i < 20 ? 5 : 0)) * 2; });

  std::vector<float> In(4096);
  double Sum = 0;
  for (size_t i = 0; i < In.size(); ++i) {
    In[i] = float((i * 37) % 101) - 50.0f;
    Sum += In[i];
  }
  qd::Ndarray<float, 1> Xr({int64_t(In.size())});
  Xr.copy_from(In);
  language::reduce(Xr);
  std::vector<float> S = language::stats.to_vector();
  Ok.that("atomic_add sum", std::fabs(S[0] - Sum) < 1e-3);
  Ok.that("atomic_min", S[1] == -50.0f);
  Ok.that("atomic_max", S[2] == 50.0f);
  Ok.that("atomic_add count", language::counts.to_vector()[0] == 4096);

  language::math(N);
  Ok.all(
      "math", language::m.to_vector(),
      [&](size_t i) {
        double t = double(i) / N;
        int half = N / 2, ii = int(i);
        return std::sqrt(t) + std::sin(t) + std::cos(t) * std::exp(t) +
               std::log(t + 1.0) + std::pow(t, 2.0) + std::floor(t * 10.0) +
               double(std::abs(ii - half)) + double(std::min(ii, half)) +
               double(std::max(ii, half));
      },
      1e-12);

  language::serial_steps(7);
  std::vector<int> Cnt = language::counts.to_vector();
  Ok.that("serial statements in order",
          Cnt[1] == 8 && Cnt[2] == 21 && Cnt[3] == 22);
  Ok.all("loop between serial statements", language::a.to_vector(),
         [](size_t) { return 7.0f; });

  language::atomic_demoted(5);
  Ok.all("atomic on a local: old value", language::demoted_old.to_vector(),
         [](size_t i) { return int(i); });
  Ok.all("atomic on a local: new value", language::demoted_new.to_vector(),
         [](size_t i) { return int(i) + 5; });

  language::serial_calls.fill(0);
  language::serial_locals(6);
  std::vector<int> Calls = language::serial_calls.to_vector();
  Ok.that("QD_FUNC in a local runs once, locals in a serial run",
          Calls[0] == 1 && Calls[1] == 6 && Calls[2] == 12 && Calls[3] == 3);
  Ok.all("loop over a recomputed local", language::a.to_vector(),
         [](size_t i) { return i < 12 ? float(i) : 7.0f; });

  qd::Ndarray<int16_t, 1> V16({16});
  V16.copy_from(std::vector<int16_t>(16, 1000));
  qd::Ndarray<uint8_t, 1> W8({16});
  W8.copy_from(std::vector<uint8_t>(16, 100));
  language::small_ints(int8_t(-100), uint16_t(4000), V16, W8);
  Ok.all("int8_t field", language::small_i8.to_vector(),
         [](size_t i) { return int8_t(-100 - int(i)); });
  Ok.all("uint16_t field", language::small_u16.to_vector(),
         [](size_t i) { return uint16_t(4000 * i); });
  Ok.all("int16_t ndarray", V16.to_vector(), [](size_t) { return -2000; });
  Ok.all("uint8_t ndarray wraps", W8.to_vector(),
         [](size_t) { return uint8_t(300 % 256); });

  language::rank0(1.5f);
  Ok.that("rank-0 field",
          language::scalar_field.to_vector() == std::vector<float>{1.5f});
  Ok.all("read from a rank-0 field", language::from_scalar.to_vector(),
         [](size_t i) { return int(1.5f * float(i)); });

  qd::Ndarray<float, 1> PIn({8}), POut({8});
  PIn.copy_from({0, 1, 2, 3, 4, 5, 6, 7});
  language::raw_pointers(static_cast<const float *>(PIn.data()),
                         static_cast<float *>(POut.data()), 8);
  Ok.all("raw pointer parameters", POut.to_vector(),
         [](size_t i) { return 2.0f * float(i); });

  language::ndrange_pairs(7);
  Ok.all("ndrange with {begin, end} pairs", language::nd_pairs.to_vector(),
         [](size_t k) {
           int i = int(k / 6), j = int(k % 6);
           return i >= 2 && i < 7 && j >= 1 && j < 5 ? i * 10 + j : -1;
         });

  // Kernel scalars: reductions against a serial reference, return values.
  {
    const int N = 100003;
    std::vector<double> D(N);
    std::vector<float> F(N);
    std::vector<int> I(N);
    for (int k = 0; k < N; ++k) {
      D[k] = 0.25 * (k % 1000);
      F[k] = float((k * 7919) % 10007) - 5000.5f;
      I[k] = (k * 31) % 977 + 1;
    }
    qd::Ndarray<double, 1> XD({N});
    qd::Ndarray<float, 1> XF({N});
    qd::Ndarray<int, 1> XI({N});
    XD.copy_from(D);
    XF.copy_from(F);
    XI.copy_from(I);
    double SumRef = 0;
    float MinRef = 1e30f;
    int64_t Sum = 0;
    uint32_t Ors = 0, Ands = ~0u, Xors = 0;
    int Hi = -1;
    uint64_t Prod = 1;
    for (int k = 0; k < N; ++k) {
      SumRef += D[k];
      MinRef = std::min(MinRef, F[k]);
      Sum -= I[k];
      Ors |= uint32_t(I[k]);
      Ands &= uint32_t(I[k]) | 1u;
      Xors ^= uint32_t(I[k]);
      Hi = std::max(Hi, I[k]);
      Prod *= uint64_t(I[k] % 3 == 0 ? 3 : 1);
    }
    int64_t IntRef = Sum + int64_t(Ors) * 3 + int64_t(Ands) * 5 +
                     int64_t(Xors) * 7 + int64_t(Hi) * 11 +
                     int64_t(Prod % 1000003) * 13;
    double GotSum = language::sum_f64(XD);
    Ok.that("double += reduction returned",
            std::fabs(GotSum - SumRef) <= 1e-9 * SumRef);
    Ok.that("float atomic_min reduction returned",
            language::min_f32(XF) == MinRef);
    Ok.that("integer -= |= &= ^= *= atomic_max reductions",
            language::int_ops(XI) == IntRef);
    language::calls.fill(0);
    int Id = language::once_and_dynamic();
    Ok.that("QD_FUNC initializer runs once",
            Id == 1 && language::calls.to_vector()[0] == 1);
    Ok.all("range read from a field written by the kernel",
           language::dyn_out.to_vector(),
           [](size_t k) { return k < 18 ? int(k) + 100 : 0; });
  }

  {
    language::ordinary_cpp(3);
    qd::sync();
    Ok.all("user struct operators, template, lambda, std::clamp/min",
           language::plain_out.to_vector(), [](size_t k) {
             float i = float(k);
             float half = ((2 * i + 2) * i + 6) / 2;
             int c = int(k % 4) * int(k % 4) * int(k % 4);
             return std::clamp(half, 0.0f, 1000.0f) + float(std::min(c, 5));
           });
    Ok.all("range and ndrange loops nested in a loop body",
           language::nested_out.to_vector(), [](size_t k) {
             int s = 0;
             for (int j = 0; j < int(k % 5); ++j)
               s += j * (j + 1) / 2;
             for (int p = 1; p < 3; ++p)
               for (int q = 0; q < 3; ++q)
                 s += p * 10 + q;
             return s;
           });
  }

  {
    std::vector<int> Xs(100);
    for (int I = 0; I < 100; ++I)
      Xs[I] = (I * 7) % 11;
    qd::Ndarray<int, 1> X({100});
    X.copy_from(Xs);
    language::prefix.fill(-1);
    int Total = 0, Stop = -1;
    std::vector<int> Prefix(100, -1);
    for (int I = 0; I < 100; ++I) {
      if (Total + Xs[I] > 200) {
        Stop = I;
        break;
      }
      Total += Xs[I];
      Prefix[I] = Total;
    }
    int Got = language::serialized(X, 200);
    Ok.that("serialized loop: break and kernel scalars written",
            Stop > 0 && Got == Stop * 100000 + Total);
    Ok.all("serialized loop runs in order", language::prefix.to_vector(),
           [&](size_t k) { return Prefix[k]; });
    Ok.all("parallelize", X.to_vector(),
           [&](size_t k) { return Xs[k] * 2 + (int(k) < Stop ? 1 : 0); });
  }

  {
    std::vector<Body> In(16);
    for (int I = 0; I < 16; ++I)
      In[I] = Body{{float(I), float(-I)}, float((I * 5) % 16), 100 + I};
    qd::Ndarray<Body, 1> X({16});
    X.copy_from(In);
    qd::Ndarray<Span, 1> Window({1});
    Window.copy_from({Span{4, 8}});
    Span Best =
        language::heaviest_span(X, Body{{0.5f, 1.5f}, 2.0f, 0},
                                static_cast<const Span *>(Window.data()));
    std::vector<Body> Got = language::bodies.to_vector();
    bool Same = Got.size() == 16;
    for (int I = 0; Same && I < 16; ++I)
      Same = Got[I].pos[0] == float(I) + 0.5f &&
             Got[I].pos[1] == float(-I) + 1.5f &&
             Got[I].mass == 2.0f * float((I * 5) % 16) && Got[I].id == 100 + I;
    Ok.that("struct ndarray in, struct parameter, struct field read back",
            Same);
    int Want = -1;
    for (int I = 4; I < 12; ++I)
      if (Want < 0 || In[I].mass > In[Want].mass)
        Want = I;
    Ok.that("struct returned, read through a struct pointer",
            Best.first == 100 + Want && Best.count == Want);
  }

  {
    language::red_fill();
    // Every value is an integer below 2^12: the float sum is exact.
    Ok.that("reduce_tmp with +=",
            language::reduce_tmp_add() == float(4095.0 * 4096.0 / 2.0));
    Ok.that("reduce_tmp with atomic_min", language::reduce_tmp_min() == 0.0f);
    Ok.that("reduce_tmp with atomic_max",
            language::reduce_tmp_max() == 4095.0f);
    qd::Ndarray<float, 2> W({33, 17});
    qd::Ndarray<float, 0> Total({});
    language::gaussian(W, 4.0f, Total);
    double Sum = 0;
    std::vector<double> Ref(33 * 17);
    for (int I = 0; I < 33; ++I)
      for (int J = 0; J < 17; ++J) {
        double X = I - 16, Y = J - 8;
        Ref[I * 17 + J] = std::exp(-(X * X + Y * Y) / (2 * 4.0 * 4.0));
        Sum += Ref[I * 17 + J];
      }
    Ok.that("rank-0 ndarray holds the Gaussian's sum",
            Total.size() == 1 &&
                std::fabs(Total.to_vector()[0] - Sum) <= 1e-4 * Sum);
    Ok.all(
        "Gaussian kernel normalized by its sum", W.to_vector(),
        [&](size_t K) { return Ref[K] / Sum; }, 1e-5);
  }

  {
    // The same functions on the host, in double (each reference is
    // rounded once; float results are compared with float's precision).
    auto Ref = [](int F, double X) -> double {
      double Y = X * 0.5 + 0.25;
      switch (F) {
      case 0:
        return std::sqrt(X);
      case 1:
        return 1 / std::sqrt(X);
      case 2:
        return std::cbrt(X);
      case 3:
        return std::exp(X);
      case 4:
        return std::exp2(X);
      case 5:
        return std::expm1(X);
      case 6:
        return std::log(X);
      case 7:
        return std::log2(X);
      case 8:
        return std::log10(X);
      case 9:
        return std::log1p(X);
      case 10:
        return std::pow(X, Y);
      case 11:
        return std::sin(X) + std::cos(X) * 3;
      case 12:
        return std::tan(X);
      case 13:
        return std::asin(X) + std::acos(X) * 3;
      case 14:
        return std::atan(X) + std::atan2(X, Y) * 3;
      case 15:
        return std::sinh(X) + std::cosh(X) * 3;
      case 16:
        return std::tanh(X);
      case 17:
        return std::floor(X * 10) + std::ceil(X * 10) * 100;
      case 18:
        return std::round(X * 10 - 0.5) + std::trunc(-X * 10) * 100;
      case 19:
        return std::fmod(X * 10, Y);
      case 20:
        return std::hypot(X, Y);
      case 21:
        return std::erf(X);
      case 22:
        return std::fma(X, Y, 1.0);
      case 23:
        return X +
               (X > 0.5   ? 1
                : X < 0.5 ? -1
                          : 0) *
                   10 +
               std::clamp(X, 0.25, 0.75) * 100;
      case 24:
        return std::min(X, Y) + std::max(X, Y) * 3 + M_PI + M_E;
      default:
        return 0 + 1 * 2 + 4 + 2 * 8;
      }
    };
    constexpr int Fns = 26, Count = 101;
    std::vector<float> XF(Count);
    std::vector<double> XD(Count);
    for (int I = 0; I < Count; ++I) {
      // (0, 1), away from the steps of floor, ceil, round and trunc.
      XD[I] = 0.013 + 0.97 * I / Count;
      XF[I] = float(XD[I]);
    }
    qd::Ndarray<float, 1> InF({Count});
    qd::Ndarray<double, 1> InD({Count});
    qd::Ndarray<float, 2> OutF({Fns, Count});
    qd::Ndarray<double, 2> OutD({Fns, Count});
    InF.copy_from(XF);
    InD.copy_from(XD);
    language::math_all(InF, InD, OutF, OutD);
    std::vector<float> GotF = OutF.to_vector();
    std::vector<double> GotD = OutD.to_vector();
    for (int F = 0; F < Fns; ++F) {
      std::vector<float> RowF(GotF.begin() + F * Count,
                              GotF.begin() + (F + 1) * Count);
      std::vector<double> RowD(GotD.begin() + F * Count,
                               GotD.begin() + (F + 1) * Count);
      std::string What = "math function " + std::to_string(F);
      Ok.all((What + ", float").c_str(), RowF,
             [&](size_t I) { return Ref(F, double(XF[I])); }, 4e-6);
      Ok.all((What + ", double").c_str(), RowD,
             [&](size_t I) { return Ref(F, XD[I]); }, 1e-13);
    }
  }

  {
    language::at_i.copy_from({0, 0, 1, 1 << 30, -1, -1, 0, 0, -1});
    language::at_f.copy_from({0.0f, 1.0f});
    qd::Ndarray<int, 1> Olds({1000});
    int Scalars = language::atomics_all(Olds);
    std::vector<int> I = language::at_i.to_vector();
    std::vector<float> F = language::at_f.to_vector();
    Ok.that("atomic add, sub, mul, min, max, and, or, xor on a field",
            I[0] == 1000 && I[1] == -2000 && I[2] == 1024 && I[3] == 0 &&
                I[4] == 999 && I[5] == int(0xFFF00000u) && I[6] == 0xFFFFF &&
                I[7] == 6);
    // Each value went in once and came out once.
    std::vector<int> Seen = Olds.to_vector();
    Seen.push_back(I[8]);
    std::sort(Seen.begin(), Seen.end());
    bool Perm = Seen.size() == 1001;
    for (int K = 0; Perm && K < 1001; ++K)
      Perm = Seen[K] == K - 1;
    Ok.that("atomic_exchange returns each value once", Perm);
    Ok.that("atomic sub and mul on float", F[0] == -500.0f && F[1] == 8.0f);
    Ok.that("atomic_or and atomic_sub reduce kernel scalars",
            Scalars == 1023 + 999 * 1000 / 2 * 1024);
    language::cas_counter.fill(0);
    language::cas_increment();
    Ok.that("atomic_compare_exchange loop counts every iteration",
            language::cas_counter.to_vector()[0] == 1000);
  }

  {
    std::vector<qd::vec3> In(16);
    for (int I = 0; I < 16; ++I)
      In[I] = qd::vec3{float(I), 1.0f - float(I) / 4, 0.5f};
    qd::Ndarray<qd::vec3, 1> X({16});
    X.copy_from(In);
    // A rotation by 90 degrees about z: (x, y, z) -> (-y, x, z).
    qd::mat3 Rot{{0.0f, -1.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    qd::vec3 Sum = language::linalg(X, Rot, qd::vec2{2.0f, 3.0f});
    std::vector<qd::vec3> V = language::lin_v.to_vector();
    std::vector<qd::mat3> M = language::lin_m.to_vector();
    std::vector<float> S = language::lin_s.to_vector();
    qd::vec3 Want{0, 0, 0};
    bool VecOk = true, MatOk = true;
    std::vector<double> Scalars;
    for (int I = 0; I < 16; ++I) {
      qd::vec3 P = In[I];
      qd::vec3 Q{-P.y + 2 - P.x / 2, P.x + 4 - P.y / 2, P.z + 6 - P.z / 2};
      VecOk = VecOk && std::fabs(V[I].x - Q.x) < 1e-5f &&
              std::fabs(V[I].y - Q.y) < 1e-5f &&
              std::fabs(V[I].z - Q.z) < 1e-5f;
      Want = Want + Q;
      // inverse(a) * a - I is about 0, and outer(p, q) - outer(q, p)^T is 0.
      for (int R = 0; R < 3; ++R)
        for (int C = 0; C < 3; ++C)
          MatOk = MatOk && std::fabs(M[I](R, C)) < 1e-5f;
      double Dot = P.x * Q.x + P.y * Q.y + P.z * Q.z;
      double Cx = P.y * Q.z - P.z * Q.y, Cy = P.z * Q.x - P.x * Q.z,
             Cz = P.x * Q.y - P.y * Q.x;
      double A0 = 2.0 + I;
      double Det = A0 * (3 * 4 - 1 * 1) - 1 * (0.5 * 4 - 1 * 0) + 0;
      Scalars.push_back(Dot + std::sqrt(Cx * Cx + Cy * Cy + Cz * Cz) * 3);
      Scalars.push_back(Det + A0 + 3 + 4);
      Scalars.push_back(1 + std::sqrt(std::fabs(P.x)));
      Scalars.push_back(1.0 / 16 - double(I) / 4); // b = 2 I, b(0, 3) = i
    }
    Ok.that("vec3 operators, mat3 * vec3, fields of vec3", VecOk);
    Ok.that("inverse, identity, outer and transpose of mat3", MatOk);
    Ok.all(
        "dot, cross, norm, normalized, determinant, trace, 4x4 inverse", S,
        [&](size_t K) { return Scalars[K]; }, 1e-5);
    Ok.that("a returned vec3", std::fabs(Sum.x - Want.x) < 1e-3f &&
                                   std::fabs(Sum.y - Want.y) < 1e-3f &&
                                   std::fabs(Sum.z - Want.z) < 1e-3f);
  }

  {
    language::simt_total.fill(0);
    language::simt_ok.fill(0);
    language::simt_ops();
    Ok.that("warp::reduce_add on lane 0 of every warp sums every iteration",
            language::simt_total.to_vector()[0] == 1023 * 1024 / 2);
    Ok.all("lane ids, shuffles, ballots, votes, warp reductions",
           language::simt_ok.to_vector(), [](size_t) { return 1; });
  }

  {
    // A kernel writing through views: memory the program allocated itself
    // (a std::vector on the CPU, cuMemAlloc on a GPU), 2-D and 1-D.
    ProgramBuffer Own(24 * sizeof(float));
    qd::NdarrayView<float, 2> Mine(static_cast<float *>(Own.Data), {4, 6});
    Mine.fill(1.0f);
    language::scale2d(Mine, 3.0f);
    std::vector<float> Want(24);
    for (int I = 0; I < 4; ++I)
      for (int J = 0; J < 6; ++J)
        Want[size_t(I * 6 + J)] = 3.0f + float(I) - float(J);
    Ok.that("a kernel writes through a view of the program's own memory",
            Mine.to_vector() == Want && Own.read<float>(24) == Want);
    qd::NdarrayView<int, 1> Ints(static_cast<int *>(Own.Data), {6});
    Ints.fill(5);
    language::offset1d(Ints, 1, 3, 10);
    Ok.that("a 1-D view as a kernel argument",
            Ints.to_vector() == std::vector<int>{10, 30, 30, 10, 10, 10});
    // Fills and copies between every pair of kinds: ndarray, view, field.
    qd::Ndarray<float, 2> Arr({4, 6});
    Arr.fill(-2.0f);
    qd::copy(Mine, Arr); // ndarray -> view
    bool Pairs = Mine.to_vector() == std::vector<float>(24, -2.0f);
    language::grid46.fill(0.5f);
    qd::copy(Arr, language::grid46); // field -> ndarray
    Pairs = Pairs && Arr.to_vector() == std::vector<float>(24, 0.5f);
    Mine.fill(7.0f);
    qd::copy(language::grid46, Mine); // view -> field
    Pairs =
        Pairs && language::grid46.to_vector() == std::vector<float>(24, 7.0f);
    qd::Stream S = qd::create_stream();
    qd::copy_async(Mine, language::grid46.view(), S); // field -> view
    Arr.fill_async(4.0f, S);
    qd::copy_async(language::grid46, Arr, S); // ndarray -> field
    S.synchronize();
    Pairs = Pairs && Mine.to_vector() == std::vector<float>(24, 7.0f) &&
            language::grid46.to_vector() == std::vector<float>(24, 4.0f);
    qd::Ndarray<float, 2> Other({4, 6});
    qd::copy(Other, Arr);         // ndarray -> ndarray
    qd::copy(Mine, Other.view()); // view -> view
    Pairs = Pairs && Mine.to_vector() == std::vector<float>(24, 4.0f);
    Ok.that("fills and copies between ndarrays, views and fields", Pairs);
    language::scale2d(language::grid46, 0.0f); // a field as an ndarray
    Ok.that("a field passed as an ndarray argument",
            language::grid46.to_vector()[7] == 1.0f - 1.0f);
  }

  {
    language::vec_total.fill(qd::vec3::zeros());
    language::vec_top.fill(qd::vec3{-1e9f, -1e9f, -1e9f});
    language::mat_total.fill(qd::mat2::zeros());
    language::linalg_atomics();
    qd::vec3 T = language::vec_total.to_vector()[0],
             M = language::vec_top.to_vector()[0];
    qd::mat2 S = language::mat_total.to_vector()[0];
    Ok.that("atomic_add, atomic_max on a vec3, component by component",
            T == qd::vec3{1000.0f, 499500.0f, -2000.0f} &&
                M == qd::vec3{999.0f, 0.0f, 6.0f});
    Ok.that("atomic_sub on a mat2, component by component",
            S == qd::mat2{{-1000.0f, 0.0f}, {-500.0f, -2000.0f}});
  }

  {
    std::vector<float> In(4096);
    for (int I = 0; I < 4096; ++I)
      In[I] = float(I % 97);
    language::blk_in.copy_from(In);
    language::block_ops();
    int B = language::blk_size.to_vector()[0];
    std::vector<float> Next = language::blk_next.to_vector(),
                       Sum = language::blk_sum.to_vector();
    std::vector<int> Next2 = language::blk_next2.to_vector();
    bool Shared = B >= 1 && B <= 128, Sums = Shared;
    for (int I = 0; Shared && I < 4096; ++I) {
      int U = I / B * B + (I % B + 1) % B;
      Shared = Next[I] == In[U] && Next2[I] == U;
      float S = 0;
      for (int K = 0; I % B == 0 && K < B; ++K)
        S += In[I + K];
      Sums = Sums && Sum[I] == S;
    }
    Ok.that("shared_array and sync: each thread reads its neighbour's value",
            Shared);
    Ok.that("shared_array and sync: thread 0 sums its block", Sums);
    std::string Partial;
    try {
      language::block_partial(1000);
      qd::sync();
    } catch (const qd::Error &E) {
      Partial = E.what();
    }
    // On the CPU a block is one thread: every count fills whole blocks.
    Ok.that("block syncs in a loop that does not fill whole blocks",
            B == 1 ? Partial.empty()
                   : Partial.find("the loop's 1000 iterations are not a "
                                  "multiple of its block_dim (128)") !=
                         std::string::npos);
    language::block_partial(1024);
    qd::sync();
    Ok.that("afterwards, a loop of whole blocks runs",
            language::blk_next2.to_vector()[1000] == 1000 / B * B);
  }

  {
    constexpr int N = 1 << 18;
    qd::Ndarray<float, 1> U({N});
    qd::Ndarray<double, 1> Nrm({N}), Heads({N});
    qd::Ndarray<uint32_t, 1> Bits({N});
    qd::set_random_seed(2026);
    language::draw(U, Nrm, Bits, Heads);
    std::vector<float> Us = U.to_vector();
    std::vector<double> Ns = Nrm.to_vector(), Hs = Heads.to_vector();
    std::vector<uint32_t> Bs = Bits.to_vector();
    double MeanU = 0, VarU = 0, MeanN = 0, VarN = 0, MeanB = 0, MeanH = 0;
    bool InRange = true;
    for (int I = 0; I < N; ++I) {
      InRange = InRange && Us[I] >= 0.0f && Us[I] < 1.0f;
      MeanU += Us[I] / N;
      VarU += (Us[I] - 0.5) * (Us[I] - 0.5) / N;
      MeanN += Ns[I] / N;
      VarN += Ns[I] * Ns[I] / N;
      MeanB += Bs[I] / 4294967296.0 / N;
      MeanH += Hs[I] / N;
    }
    // Five standard errors: a correct generator fails about once in 10^6.
    double SE = 1 / std::sqrt(double(N));
    Ok.that("qd::random<float> uniform in [0, 1)",
            InRange && std::fabs(MeanU - 0.5) < 5 * SE * std::sqrt(1.0 / 12) &&
                std::fabs(VarU - 1.0 / 12) < 5 * SE * 0.075);
    Ok.that("qd::randn<double> standard normal",
            std::fabs(MeanN) < 5 * SE && std::fabs(VarN - 1) < 5 * SE * 1.5);
    Ok.that("qd::random<uint32_t> over the type, and from a QD_FUNC",
            std::fabs(MeanB - 0.5) < 5 * SE * 0.29 &&
                std::fabs(MeanH - 0.5) < 5 * SE * 0.5);
    // The same seed and calls give the same numbers; the next call others.
    language::draw(U, Nrm, Bits, Heads);
    bool Differs = U.to_vector() != Us;
    qd::set_random_seed(2026);
    language::draw(U, Nrm, Bits, Heads);
    Ok.that("a seed repeats its numbers, each call draws new ones",
            Differs && U.to_vector() == Us && Nrm.to_vector() == Ns);
  }

  {
    // Random matrices, near-singular ones, a reflection and a repeated
    // eigenvalue; errors measured in double against the matrix's norm.
    constexpr int M = 64;
    std::vector<qd::mat3> A(M);
    std::vector<qd::mat2> B(M);
    uint32_t Seed = 12345;
    auto Next = [&] {
      Seed = Seed * 1664525u + 1013904223u;
      return float(Seed >> 8) / 16777216.0f * 2 - 1;
    };
    for (int I = 0; I < M; ++I) {
      for (int R = 0; R < 3; ++R)
        for (int C = 0; C < 3; ++C)
          A[I](R, C) = Next();
      for (int R = 0; R < 2; ++R)
        for (int C = 0; C < 2; ++C)
          B[I](R, C) = Next();
    }
    A[1] = qd::mat3{{1, 2, 3}, {2, 4, 6}, {1, 0, 1}};        // rank 2
    A[2] = qd::mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, -1}};       // a reflection
    A[3] = qd::mat3{{1e-4f, 0, 0}, {0, 1, 0}, {0, 0, 1e4f}}; // ill-conditioned
    A[4] = qd::mat3::identity();                             // repeated values
    A[5] = qd::mat3::zeros();
    B[1] = qd::mat2{{1, 2}, {2, 4}};
    qd::Ndarray<qd::mat3, 1> InA({M});
    qd::Ndarray<qd::mat2, 1> InB({M});
    qd::Ndarray<qd::mat3, 2> Out3({M, 6});
    qd::Ndarray<qd::vec3, 1> W3({M});
    qd::Ndarray<qd::mat2, 2> Out2({M, 5});
    InA.copy_from(A);
    InB.copy_from(B);
    language::decompose(InA, Out3, W3, InB, Out2);
    std::vector<qd::mat3> O3 = Out3.to_vector();
    std::vector<qd::vec3> Ws = W3.to_vector();
    std::vector<qd::mat2> O2 = Out2.to_vector();
    // max |X - Y| over entries, for matrices given as functions.
    auto MaxDiff = [](int N, auto X, auto Y) {
      double D = 0;
      for (int R = 0; R < N; ++R)
        for (int C = 0; C < N; ++C)
          D = std::max(D, std::fabs(double(X(R, C)) - double(Y(R, C))));
      return D;
    };
    auto Product = [](int N, auto X, auto Y, bool TransposeY) {
      return [=](int R, int C) {
        double S = 0;
        for (int K = 0; K < N; ++K)
          S += double(X(R, K)) * double(TransposeY ? Y(C, K) : Y(K, C));
        return S;
      };
    };
    auto Identity = [](int R, int C) { return R == C ? 1.0 : 0.0; };
    double WorstSvd = 0, WorstOrtho = 0, WorstPolar = 0, WorstEig = 0;
    bool Rotations = true, Ordered = true;
    for (int I = 0; I < M; ++I) {
      const qd::mat3 *O = &O3[I * 6];
      auto Ai = [&](int R, int C) { return A[I](R, C); };
      double Norm =
          std::max(1e-30, MaxDiff(3, Ai, [](int, int) { return 0.0; }));
      auto Us = Product(
          3, [&](int R, int C) { return O[0](R, C); },
          [&](int R, int C) { return O[1](R, C); }, false);
      auto Usv = Product(
          3, Us, [&](int R, int C) { return O[2](R, C); }, true);
      WorstSvd = std::max(WorstSvd, MaxDiff(3, Ai, Usv) / Norm);
      for (int K : {0, 2, 3, 5}) {
        auto X = [&](int R, int C) { return O[K](R, C); };
        WorstOrtho =
            std::max(WorstOrtho, MaxDiff(3, Product(3, X, X, true), Identity));
      }
      double DetU =
          O[0](0, 0) * (O[0](1, 1) * O[0](2, 2) - O[0](1, 2) * O[0](2, 1)) -
          O[0](0, 1) * (O[0](1, 0) * O[0](2, 2) - O[0](1, 2) * O[0](2, 0)) +
          O[0](0, 2) * (O[0](1, 0) * O[0](2, 1) - O[0](1, 1) * O[0](2, 0));
      Rotations = Rotations && std::fabs(DetU - 1) < 1e-5;
      Ordered = Ordered && std::fabs(O[1](0, 0)) >= std::fabs(O[1](1, 1)) &&
                std::fabs(O[1](1, 1)) >= std::fabs(O[1](2, 2)) &&
                Ws[I].x <= Ws[I].y && Ws[I].y <= Ws[I].z;
      auto Rs = Product(
          3, [&](int R, int C) { return O[3](R, C); },
          [&](int R, int C) { return O[4](R, C); }, false);
      WorstPolar = std::max(WorstPolar, MaxDiff(3, Ai, Rs) / Norm);
      WorstPolar =
          std::max(WorstPolar, MaxDiff(
                                   3, [&](int R, int C) { return O[4](R, C); },
                                   [&](int R, int C) { return O[4](C, R); }) /
                                   Norm);
      auto Sym = [&](int R, int C) { return double(A[I](R, C)) + A[I](C, R); };
      auto Qw = Product(
          3, [&](int R, int C) { return O[5](R, C) * Ws[I][C]; },
          [&](int R, int C) { return O[5](R, C); }, true);
      WorstEig = std::max(WorstEig, MaxDiff(3, Sym, Qw) / (2 * Norm));
      const qd::mat2 *P = &O2[I * 5];
      auto Bi = [&](int R, int C) { return B[I](R, C); };
      double NormB =
          std::max(1e-30, MaxDiff(2, Bi, [](int, int) { return 0.0; }));
      auto Us2 = Product(
          2, [&](int R, int C) { return P[0](R, C); },
          [&](int R, int C) { return P[1](R, C); }, false);
      WorstSvd = std::max(
          WorstSvd,
          MaxDiff(2, Bi,
                  Product(
                      2, Us2, [&](int R, int C) { return P[2](R, C); }, true)) /
              NormB);
      auto Sym2 = [&](int R, int C) { return double(B[I](R, C)) + B[I](C, R); };
      auto Qw2 = Product(
          2,
          Product(
              2, [&](int R, int C) { return P[3](R, C); },
              [&](int R, int C) { return P[4](R, C); }, false),
          [&](int R, int C) { return P[3](R, C); }, true);
      WorstEig = std::max(WorstEig, MaxDiff(2, Sym2, Qw2) / (2 * NormB));
    }
    // About float epsilon (1.2e-7) times the norm, with room for a few
    // roundings per entry.
    Ok.that("svd: A = U S V^T", WorstSvd < 2e-6);
    Ok.that("svd, polar, sym_eig: orthonormal factors", WorstOrtho < 2e-6);
    Ok.that("svd: U and V rotations, S and w ordered", Rotations && Ordered);
    Ok.that("polar_decompose: A = R S, S symmetric", WorstPolar < 2e-6);
    Ok.that("sym_eig: A = Q diag(w) Q^T", WorstEig < 2e-6);
    if (WorstSvd >= 2e-6 || WorstOrtho >= 2e-6 || WorstPolar >= 2e-6 ||
        WorstEig >= 2e-6)
      std::printf("decompositions: svd %g ortho %g polar %g eig %g\n", WorstSvd,
                  WorstOrtho, WorstPolar, WorstEig);
  }

  {
    language::at8.copy_from({0, -100});
    language::at16.copy_from({0, 0});
    language::at64.copy_from({0, 0});
    language::atd.copy_from({1.0, 0.0});
    language::atomics_widths();
    std::vector<int8_t> A8 = language::at8.to_vector();
    std::vector<uint16_t> A16 = language::at16.to_vector();
    std::vector<int64_t> A64 = language::at64.to_vector();
    std::vector<double> Ad = language::atd.to_vector();
    // Bits 0..49 each toggled twice (i and i + 50): all clear.
    Ok.that("8-, 16-, 64-bit and double atomics",
            A8[0] == 100 && A8[1] == 99 && A16[0] == 300 && A16[1] == 0xFFFF &&
                A64[0] == 0 && A64[1] == -1000000000000ll && Ad[0] == 32.0 &&
                Ad[1] == -25.0);
  }

  {
    auto ErrorOf = [](auto Fn) -> std::string {
      try {
        Fn();
      } catch (const qd::Error &E) {
        return E.what();
      }
      return "";
    };
    language::assert_loop(-1); // no iteration divides by zero
    Ok.that("a QD_ASSERT that holds", ErrorOf([] { qd::sync(); }).empty());
    language::assert_loop(77);
    std::string Loop = ErrorOf([] { qd::sync(); });
    Ok.that("a failed QD_ASSERT in a QD_FUNC is a qd::Error at qd::sync",
            Loop.find("QD_ASSERT failed in 'checked_div'") !=
                    std::string::npos &&
                Loop.find("language.qd:") != std::string::npos &&
                Loop.find("b != 0: division by zero") != std::string::npos);
    std::string Serial = ErrorOf([] { language::assert_serial(-3); });
    Ok.that("a failed QD_ASSERT in a kernel returning a value, at the call",
            Serial.find("n >= 0: n must not be negative") != std::string::npos);
    Ok.that("after a failed QD_ASSERT the runtime goes on",
            language::assert_serial(21) == 42 &&
                ErrorOf([] { qd::sync(); }).empty());
    language::std_assert(-1);
    Ok.that("an assert that holds", ErrorOf([] { qd::sync(); }).empty());
    language::std_assert(100);
    std::string Std = ErrorOf([] { qd::sync(); });
    Ok.that("a failed assert is a qd::Error at qd::sync",
            Std.find("assert failed in ") != std::string::npos &&
                Std.find("i != bad && \"an iteration the caller forbade\"") !=
                    std::string::npos);
    Ok.that("after a failed assert the runtime goes on",
            ErrorOf([] {
              language::std_assert(-1);
              qd::sync();
            }).empty());
  }

  // An empty array never reaches a kernel with iterations to run, and an
  // array from before qd::reset() is an error, not freed memory.
  auto Throws = [](auto Fn) {
    try {
      Fn();
    } catch (const qd::Error &) {
      return true;
    }
    return false;
  };
  Ok.that("empty ndarray refused at launch", Throws([] {
            qd::Ndarray<int, 1> Empty; // the kernel's range is [10, 20)
            language::offset1d(Empty, 10, 20, 5);
          }));
  qd::Arch Arch = qd::current_arch();
  qd::Ndarray<float, 2> Stale({2, 2});
  qd::reset();
  qd::init(Arch);
  Ok.that("ndarray from before reset refused at launch",
          Throws([&] { language::scale2d(Stale, 2.0f); }));
  return Ok.finish();
}
