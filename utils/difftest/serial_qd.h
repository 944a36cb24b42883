// The serial reference of the differential tester: the subset of the qd::
// kernel-language and host API that generated programs use, with plain
// serial C++ meaning. A generated .qd compiled with g++ against this header
// runs every top-level loop in order on one thread; its outputs are the
// expected ones. This header is independent of qdc's own headers on purpose.
#pragma once

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#define QD_KERNEL
#define QD_FUNC
#define QD_GRAPH
#define QD_NOALIAS
#define QD_STREAM_PARALLEL

namespace qd {

// ---- Rounding --------------------------------------------------------------
// The tester runs the reference once per rounding mode (QD_DIFFTEST_ROUND=up
// or down; built with -frounding-math): how far a float output moves is how
// sensitive it is to a last-bit difference, and widens its tolerance.
namespace detail {
inline const bool rounding_set = [] {
  const char *m = std::getenv("QD_DIFFTEST_ROUND");
  if (m && !std::strcmp(m, "up"))
    std::fesetround(FE_UPWARD);
  else if (m && !std::strcmp(m, "down"))
    std::fesetround(FE_DOWNWARD);
  return true;
}();
} // namespace detail

// ---- Host set-up -----------------------------------------------------------
enum class Arch { best, cpu, cuda };
inline void init(Arch = Arch::best) {}
inline void sync() {}

// ---- Loops -----------------------------------------------------------------
template <typename T> struct serial_range {
  T first, last;
  struct iterator {
    T value;
    T operator*() const { return value; }
    iterator &operator++() {
      ++value;
      return *this;
    }
    bool operator!=(const iterator &o) const { return value != o.value; }
  };
  iterator begin() const { return {first}; }
  iterator end() const { return {first < last ? last : first}; }
};
template <typename T> serial_range<T> range(T n) { return {T(0), n}; }
template <typename T> serial_range<T> range(T b, T e) { return {b, e}; }
template <typename B, typename E> serial_range<decltype(B() + E())> range(B b, E e) {
  return {b, e};
}

struct extent {
  int64_t begin, end;
  extent(int64_t e) : begin(0), end(e) {}
  extent(int64_t b, int64_t e) : begin(b), end(e) {}
};

/// All index tuples of a box, row-major, collected up front.
template <std::size_t N>
std::vector<std::array<int64_t, N>> ndrange_impl(const std::array<extent, N> &ex) {
  std::vector<std::array<int64_t, N>> out;
  for (const extent &e : ex)
    if (e.end <= e.begin)
      return out;
  std::array<int64_t, N> idx;
  for (std::size_t d = 0; d < N; ++d)
    idx[d] = ex[d].begin;
  while (true) {
    out.push_back(idx);
    std::size_t d = N;
    while (d > 0) {
      --d;
      if (++idx[d] < ex[d].end)
        break;
      idx[d] = ex[d].begin;
      if (d == 0)
        return out;
    }
  }
}
inline std::vector<std::array<int64_t, 1>> ndrange(extent a) { return ndrange_impl<1>({a}); }
inline std::vector<std::array<int64_t, 2>> ndrange(extent a, extent b) {
  return ndrange_impl<2>({a, b});
}
inline std::vector<std::array<int64_t, 3>> ndrange(extent a, extent b, extent c) {
  return ndrange_impl<3>({a, b, c});
}

struct loop_options {
  struct shape {
    constexpr shape(int = 0) {}
    constexpr shape(int, int, int = 1) {}
  } block_dim = 0;
  bool serialize = false;
  int parallelize = 0;
};
inline void loop_config(loop_options) {}

namespace graph {
/// Generated programs set the flag just before the loop, so a plain while
/// has the do-while meaning.
template <typename F> bool do_while(F &flag) { return flag[0] != 0; }
} // namespace graph

// ---- Arrays ----------------------------------------------------------------
template <typename T, int Dims> class Ndarray;

template <typename T, int N> struct vec;

/// Row-major storage shared by fields and ndarrays.
template <typename T, int Dims> struct array_ref {
  T *data = nullptr;
  std::array<int64_t, (Dims > 0 ? Dims : 1)> shp{};
  int64_t offset(std::initializer_list<int64_t> idx) const {
    int64_t o = 0, d = 0;
    for (int64_t i : idx)
      o = o * shp[d++] + i;
    return o;
  }
};

/// A kernel's ndarray parameter: a view of a host Ndarray.
template <typename T, int Dims> class ndarray {
public:
  ndarray(const Ndarray<T, Dims> &a) : r_(a.ref()) {}
  int64_t shape(int d) const { return r_.shp[d]; }
  T &operator[](int64_t i) const { return r_.data[i]; }
  template <typename... I> T &operator()(I... i) const {
    return r_.data[r_.offset({int64_t(i)...})];
  }
  // An integer vector as the index: its components one by one.
  template <typename I> T &operator[](const vec<I, Dims> &v) const {
    int64_t o = 0;
    for (int d = 0; d < Dims; ++d)
      o = o * r_.shp[d] + int64_t(v[d]);
    return r_.data[o];
  }

private:
  array_ref<T, Dims> r_;
};

/// The host's ndarray: owns its memory.
template <typename T, int Dims> class Ndarray {
public:
  Ndarray(std::initializer_list<int64_t> shape) {
    int64_t n = 1, d = 0;
    for (int64_t s : shape) {
      r_.shp[d++] = s;
      n *= s;
    }
    n_ = size_t(n);
    store_.reset(new T[n_]());
    r_.data = store_.get();
  }
  void *data() const { return r_.data; }
  std::vector<T> to_vector() const { return std::vector<T>(r_.data, r_.data + n_); }
  void copy_from(const std::vector<T> &v) { std::copy(v.begin(), v.end(), r_.data); }
  void fill(const T &v) { std::fill(r_.data, r_.data + n_, v); }
  array_ref<T, Dims> ref() const { return r_; }

private:
  // Not a std::vector: std::vector<bool> has no data().
  std::unique_ptr<T[]> store_;
  size_t n_ = 0;
  array_ref<T, Dims> r_;
};

template <int64_t... Dims> constexpr int64_t product() { return (int64_t(1) * ... * Dims); }

/// A module-level field with a fixed shape.
template <typename T, int64_t... Dims> class field {
public:
  T &operator[](int64_t i) { return data_[i]; }
  template <typename I> T &operator[](const vec<I, int(sizeof...(Dims))> &v) {
    const int64_t shp[] = {Dims..., 1};
    int64_t o = 0;
    for (int d = 0; d < int(sizeof...(Dims)); ++d)
      o = o * shp[d] + int64_t(v[d]);
    return data_[o];
  }
  template <typename... I> T &operator()(I... i) {
    if constexpr (sizeof...(I) == 0)
      return data_[0];
    else
      return data_[offset({int64_t(i)...})];
  }
  std::vector<T> to_vector() const { return std::vector<T>(data_, data_ + product<Dims...>()); }
  void copy_from(const std::vector<T> &v) { std::copy(v.begin(), v.end(), data_); }
  void fill(const T &v) { std::fill(data_, data_ + product<Dims...>(), v); }

private:
  static int64_t offset(std::initializer_list<int64_t> idx) {
    const int64_t shp[] = {Dims..., 1};
    int64_t o = 0, d = 0;
    for (int64_t i : idx)
      o = o * shp[d++] + i;
    return o;
  }
  T data_[product<Dims...>()] = {};
};

// ---- Atomics (plain updates: everything runs on one thread) ----------------
template <typename T, typename U> T atomic_add(T &d, U v) { T o = d; d = T(d + v); return o; }
template <typename T, typename U> T atomic_sub(T &d, U v) { T o = d; d = T(d - v); return o; }
template <typename T, typename U> T atomic_min(T &d, U v) { T o = d; d = v < d ? T(v) : d; return o; }
template <typename T, typename U> T atomic_max(T &d, U v) { T o = d; d = d < v ? T(v) : d; return o; }
template <typename T, typename U> T atomic_and(T &d, U v) { T o = d; d = T(d & v); return o; }
template <typename T, typename U> T atomic_or(T &d, U v) { T o = d; d = T(d | v); return o; }
template <typename T, typename U> T atomic_xor(T &d, U v) { T o = d; d = T(d ^ v); return o; }

// ---- Python's // and % for a positive divisor (the generator's) ------------
// Written another way than qd's: for a < 0, q = -1 - (-(a + 1)) / b, the
// largest q with q * b <= a, and a - q * b in wrapping arithmetic.
template <typename T> T floordiv(T a, T b) {
  if (b <= 0) std::abort(); // the generator divides by (e & 15) + 1
  if (a >= 0) return T(a / b);
  return T(-1 - T(-(a + 1)) / b);
}
template <typename T> T mod(T a, T b) {
  return T(uint64_t(a) - uint64_t(floordiv(a, b)) * uint64_t(b));
}

// ---- pow of two integers (the generator's exponents are in [-2, 5]) ---------
// By repeated multiplication in uint64_t, truncated to the type a * b has;
// a negative exponent gives 1 / a^|b| truncated toward zero.
template <
    typename T, typename U,
    typename = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
auto pow(T a, U b) -> decltype(a * b) {
  using R = decltype(a * b);
  if (b < 0) {
    if (a == 1)
      return R(1);
    if (std::is_signed_v<T> && a == T(-1))
      return R(b % 2 == 0 ? 1 : -1);
    return R(0);
  }
  uint64_t r = 1;
  for (U i = 0; i < b; ++i)
    r *= uint64_t(int64_t(a));
  return R(r);
}

// ---- Math on float and double ----------------------------------------------
template <typename T> T abs(T x) { return std::abs(x); }
template <typename T> T sqrt(T x) { return std::sqrt(x); }
template <typename T> T sin(T x) { return std::sin(x); }
template <typename T> T cos(T x) { return std::cos(x); }
template <typename T> T floor(T x) { return std::floor(x); }
template <typename T> T fma(T a, T b, T c) { return std::fma(a, b, c); }
template <typename T> T min(T a, T b) { return std::fmin(a, b); }
template <typename T> T max(T a, T b) { return std::fmax(a, b); }
template <typename T> T clamp(T x, T lo, T hi) { return std::fmin(std::fmax(x, lo), hi); }

// ---- Vectors and matrices --------------------------------------------------
template <typename T, int N> struct vec;
#define QD_SERIAL_VEC_(N, pick, ...)                                            \
  template <typename T> struct vec<T, N> {                                     \
    T __VA_ARGS__;                                                             \
    T &operator[](int i) { return pick; }                                      \
    T operator[](int i) const { return pick; }                                 \
    static vec zeros() { return vec{}; }                                       \
  };
QD_SERIAL_VEC_(2, i == 0 ? x : y, x, y)
QD_SERIAL_VEC_(3, i == 0 ? x : (i == 1 ? y : z), x, y, z)
QD_SERIAL_VEC_(4, i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)), x, y, z, w)
#undef QD_SERIAL_VEC_
template <typename T, int N> vec<T, N> operator+(vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] += b[i];
  return a;
}
template <typename T, int N> vec<T, N> operator-(vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] -= b[i];
  return a;
}
template <typename T, int N> vec<T, N> operator*(vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] *= b[i];
  return a;
}
template <typename T, int N> vec<T, N> operator*(vec<T, N> a, T s) {
  for (int i = 0; i < N; ++i) a[i] *= s;
  return a;
}
template <typename T, int N> vec<T, N> operator*(T s, vec<T, N> a) { return a * s; }
template <typename T, int N> vec<T, N> min(vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] = std::fmin(a[i], b[i]);
  return a;
}
template <typename T, int N> vec<T, N> max(vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i) a[i] = std::fmax(a[i], b[i]);
  return a;
}
template <typename T, int N> T sum(vec<T, N> a) {
  T s = a[0];
  for (int i = 1; i < N; ++i) s += a[i];
  return s;
}
// Component-wise comparisons and select.
#define QD_SERIAL_COMPARE_(name, op)                                           \
  template <typename T, int N> vec<bool, N> name(vec<T, N> a, vec<T, N> b) {   \
    vec<bool, N> r{};                                                          \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = a[i] op b[i];                                                     \
    return r;                                                                  \
  }
QD_SERIAL_COMPARE_(less, <)
QD_SERIAL_COMPARE_(less_equal, <=)
QD_SERIAL_COMPARE_(greater, >)
QD_SERIAL_COMPARE_(greater_equal, >=)
QD_SERIAL_COMPARE_(equal, ==)
QD_SERIAL_COMPARE_(not_equal, !=)
#undef QD_SERIAL_COMPARE_
template <typename T, int N>
vec<T, N> select(vec<bool, N> c, vec<T, N> a, vec<T, N> b) {
  for (int i = 0; i < N; ++i)
    a[i] = c[i] ? a[i] : b[i];
  return a;
}
template <typename T, int N> T dot(vec<T, N> a, vec<T, N> b) {
  T s = a[0] * b[0];
  for (int i = 1; i < N; ++i) s += a[i] * b[i];
  return s;
}
template <typename T, int N> vec<T, N> abs(vec<T, N> a) {
  for (int i = 0; i < N; ++i) a[i] = std::abs(a[i]);
  return a;
}

template <typename T, int R, int C> struct mat {
  vec<T, C> rows[R];
  mat() = default;
  mat(vec<T, C> r0, vec<T, C> r1) : rows{r0, r1} {}
  mat(vec<T, C> r0, vec<T, C> r1, vec<T, C> r2) : rows{r0, r1, r2} {}
  T &operator()(int i, int j) { return rows[i][j]; }
  T operator()(int i, int j) const { return rows[i][j]; }
  static mat identity() {
    mat m{};
    for (int i = 0; i < R && i < C; ++i) m(i, i) = T(1);
    return m;
  }
};
template <typename T, int R, int C> mat<T, R, C> operator+(mat<T, R, C> a, mat<T, R, C> b) {
  for (int i = 0; i < R; ++i) a.rows[i] = a.rows[i] + b.rows[i];
  return a;
}
template <typename T, int R, int C> mat<T, R, C> operator*(mat<T, R, C> a, T s) {
  for (int i = 0; i < R; ++i) a.rows[i] = a.rows[i] * s;
  return a;
}
template <typename T, int R, int C> vec<T, R> operator*(const mat<T, R, C> &m, vec<T, C> v) {
  vec<T, R> out{};
  for (int i = 0; i < R; ++i) {
    T s = m(i, 0) * v[0];
    for (int j = 1; j < C; ++j) s += m(i, j) * v[j];
    out[i] = s;
  }
  return out;
}
template <typename T, int R, int K, int C>
mat<T, R, C> operator*(const mat<T, R, K> &a, const mat<T, K, C> &b) {
  mat<T, R, C> out{};
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T s = a(i, 0) * b(0, j);
      for (int k = 1; k < K; ++k) s += a(i, k) * b(k, j);
      out(i, j) = s;
    }
  return out;
}
template <typename T, int R, int C> mat<T, C, R> transpose(const mat<T, R, C> &m) {
  mat<T, C, R> out{};
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) out(j, i) = m(i, j);
  return out;
}
template <typename T, int N> T trace(const mat<T, N, N> &m) {
  T s = m(0, 0);
  for (int i = 1; i < N; ++i) s += m(i, i);
  return s;
}

using vec2 = vec<float, 2>;
using vec3 = vec<float, 3>;
using vec4 = vec<float, 4>;
using dvec2 = vec<double, 2>;
using dvec3 = vec<double, 3>;
using ivec2 = vec<int32_t, 2>;
using ivec3 = vec<int32_t, 3>;
using uvec2 = vec<uint32_t, 2>;
using mat2 = mat<float, 2, 2>;
using mat3 = mat<float, 3, 3>;
using dmat2 = mat<double, 2, 2>;

} // namespace qd
